//! Test support for the shellgate crates' unit tests: tables of cases kept in TOML files, so
//! that a test says what it checks and a corpus file holds the rows.
//!
//! A corpus file (`crates/*/tests/cases/*.toml`) holds one array of rows per table (a dotted
//! name reaches into a TOML table); each row is an array of strings. [`pairs`] reads inputs
//! and outputs, [`verdicts`] what a matcher matches and rejects:
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
