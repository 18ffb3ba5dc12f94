//! Test support for the shellgate crates' unit tests: tables of cases kept in TOML files, so
//! that a test says what it checks and a corpus file holds the rows.
//!
//! A corpus file (`crates/*/tests/cases/*.toml`) holds one array of rows per table (a dotted
//! name reaches into a TOML table); each row is an array of strings. [`pairs`] reads inputs
//! and outputs, [`verdicts`] what a matcher matches and rejects; [`check_pairs`] and
//! [`check_verdicts`] assert them, naming every row that fails:
//!
//! ```toml
//! host_of = [
//!   ["https://user@example.com:8443/x?y", "example.com"],
//!   ["http:///x"],  # no host
//! ]
//!
//! [component_glob]
//! matches = [["*.log", "a.log"]]
//! rejects = [["*.log", "a.log.gz"]]
//! ```

/// The rows of the array `table` (`name`, or `name.name` inside a TOML table) in the TOML text
/// `corpus`, each a list of strings.
///
/// # Errors
///
/// When the text is not TOML, the array is missing or empty, or a row is not an array of
/// strings: the message names the table and the row.
pub fn rows(corpus: &str, table: &str) -> Result<Vec<Vec<String>>, String> {
    let document: toml::Value = toml::from_str(corpus).map_err(|e| e.to_string())?;
    let rows = table
        .split('.')
        .try_fold(&document, |value, key| value.get(key))
        .and_then(toml::Value::as_array)
        .filter(|rows| !rows.is_empty())
        .ok_or_else(|| format!("no rows in `{table}`"))?;
    rows.iter()
        .map(|row| {
            row.as_array()
                .and_then(|row| {
                    row.iter()
                        .map(|word| word.as_str().map(str::to_owned))
                        .collect()
                })
                .ok_or_else(|| format!("`{table}`: `{row}` is not an array of strings"))
        })
        .collect()
}

/// The rows of `table` (see [`rows`]) as an input and what the function under test gives for
/// it: `None` for a row of one string.
///
/// # Errors
///
/// As [`rows`], and when a row has more than two strings or none.
pub fn pairs(corpus: &str, table: &str) -> Result<Vec<(String, Option<String>)>, String> {
    rows(corpus, table)?
        .into_iter()
        .map(|row| match <[String; 1]>::try_from(row) {
            Ok([input]) => Ok((input, None)),
            Err(row) => match <[String; 2]>::try_from(row) {
                Ok([input, output]) => Ok((input, Some(output))),
                Err(row) => Err(format!("`{table}`: {row:?} is not one or two strings")),
            },
        })
        .collect()
}

/// The cases of a matcher under test: each row of `TOPIC.matches` (a pattern and a text it
/// matches) with `true`, then each row of `TOPIC.rejects` (a pattern and a text it does not
/// match) with `false`.
///
/// # Errors
///
/// As [`rows`], and when a row is not two strings.
pub fn verdicts(corpus: &str, topic: &str) -> Result<Vec<(String, String, bool)>, String> {
    let mut cases = Vec::new();
    for (table, verdict) in [("matches", true), ("rejects", false)] {
        let table = format!("{topic}.{table}");
        for row in rows(corpus, &table)? {
            let [pattern, text] = <[String; 2]>::try_from(row)
                .map_err(|row| format!("`{table}`: {row:?} is not two strings"))?;
            cases.push((pattern, text, verdict));
        }
    }
    Ok(cases)
}

/// Asserts that `f` gives each row's output for its input (see [`pairs`]: a row of one, `None`),
/// failing with every row it does not hold for.
///
/// # Panics
///
/// When a row does not hold, or the table cannot be read.
pub fn check_pairs(corpus: &str, table: &str, f: impl Fn(&str) -> Option<String>) {
    let failures: Vec<String> = read(pairs(corpus, table), table)
        .into_iter()
        .filter_map(|(input, expected)| {
            let got = f(&input);
            (got != expected).then(|| format!("{input:?}: got {got:?}, expected {expected:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "`{table}`:\n{}", failures.join("\n"));
}

/// Asserts that `f(pattern, text)` matches every row of `TOPIC.matches` and none of
/// `TOPIC.rejects` (see [`verdicts`]), failing with every row it does not hold for.
///
/// # Panics
///
/// When a row does not hold, or the tables cannot be read.
pub fn check_verdicts(corpus: &str, topic: &str, f: impl Fn(&str, &str) -> bool) {
    let failures: Vec<String> = read(verdicts(corpus, topic), topic)
        .into_iter()
        .filter(|(pattern, text, expected)| f(pattern, text) != *expected)
        .map(|(pattern, text, expected)| {
            let verb = if expected {
                "should match"
            } else {
                "should not match"
            };
            format!("{pattern:?} {verb} {text:?}")
        })
        .collect();
    assert!(failures.is_empty(), "`{topic}`:\n{}", failures.join("\n"));
}

/// The rows read, or a failed test.
#[expect(
    clippy::panic,
    reason = "a table that cannot be read fails the test that reads it"
)]
fn read<T>(rows: Result<Vec<T>, String>, table: &str) -> Vec<T> {
    rows.unwrap_or_else(|error| panic!("`{table}`: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_strings() {
        let corpus = "f = [[\"a\", \"b\"], [\"c\"]]\nbad = [[\"a\", 1]]\nempty = []\n\
                      three = [[\"a\", \"b\", \"c\"]]\n[t]\ng = [[\"x\"]]\n";
        assert_eq!(
            pairs(corpus, "f"),
            Ok(vec![("a".into(), Some("b".into())), ("c".into(), None)])
        );
        assert_eq!(rows(corpus, "t.g"), Ok(vec![vec!["x".to_owned()]]));
        assert_eq!(
            rows(corpus, "bad"),
            Err("`bad`: `[\"a\", 1]` is not an array of strings".into())
        );
        assert_eq!(
            pairs(corpus, "three"),
            Err("`three`: [\"a\", \"b\", \"c\"] is not one or two strings".into())
        );
        assert_eq!(rows(corpus, "empty"), Err("no rows in `empty`".into()));
        assert_eq!(rows(corpus, "g"), Err("no rows in `g`".into()));
        assert_eq!(rows(corpus, "t.h"), Err("no rows in `t.h`".into()));
    }

    #[test]
    fn checks_name_every_failing_row() {
        let corpus = "f = [[\"a\", \"A\"], [\"b\"], [\"c\", \"C\"]]\n\
                      [g]\nmatches = [[\"x\", \"x\"]]\nrejects = [[\"x\", \"y\"]]\n";
        check_pairs(corpus, "f", |input| {
            (input != "b").then(|| input.to_uppercase())
        });
        check_verdicts(corpus, "g", |pattern, text| pattern == text);
        let failed = std::panic::catch_unwind(|| check_pairs(corpus, "f", |_| None));
        let message = failed.unwrap_err().downcast::<String>().unwrap();
        assert_eq!(
            *message,
            "`f`:\n\"a\": got None, expected Some(\"A\")\n\"c\": got None, expected Some(\"C\")"
        );
        let failed = std::panic::catch_unwind(|| check_verdicts(corpus, "g", |_, _| true));
        let message = failed.unwrap_err().downcast::<String>().unwrap();
        assert_eq!(*message, "`g`:\n\"x\" should not match \"y\"");
    }

    #[test]
    fn verdicts_of_matches_then_rejects() {
        let corpus = "[g]\nrejects = [[\"a\", \"b\"]]\nmatches = [[\"c\", \"d\"]]\n\
                      [bad]\nmatches = [[\"c\"]]\nrejects = [[\"a\", \"b\"]]\n";
        assert_eq!(
            verdicts(corpus, "g"),
            Ok(vec![
                ("c".into(), "d".into(), true),
                ("a".into(), "b".into(), false)
            ])
        );
        assert_eq!(
            verdicts(corpus, "bad"),
            Err("`bad.matches`: [\"c\"] is not two strings".into())
        );
    }
}
