//! Test support for the shellgate crates' unit tests: tables of cases kept in TOML files, so
//! that a test says what it checks and a corpus file holds the rows.
//!
//! A corpus file (`crates/*/tests/cases/*.toml`) holds one array per function under test; each
//! row is an input and, when the function gives something for it, what it gives:
//!
//! ```toml
//! host_of = [
//!   ["https://user@example.com:8443/x?y", "example.com"],
//!   ["http:///x"],  # no host
//! ]
//! ```

/// The rows of the array `table` in the TOML text `corpus`, each an input and what the function
/// gives for it (`None` for a row of one).
///
/// # Errors
///
/// When the text is not TOML, the array is missing or empty, or a row is not one or two
/// strings: the message names the table and the row.
pub fn pairs(corpus: &str, table: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let document: toml::Table = toml::from_str(corpus).map_err(|e| e.to_string())?;
    let rows = document
        .get(table)
        .and_then(toml::Value::as_array)
        .filter(|rows| !rows.is_empty())
        .ok_or_else(|| format!("no rows in `{table}`"))?;
    rows.iter()
        .map(|row| {
            let words: Option<Vec<&str>> = row
                .as_array()
                .and_then(|row| row.iter().map(toml::Value::as_str).collect());
            match words.as_deref() {
                Some([input]) => Ok(((*input).to_owned(), None)),
                Some([input, output]) => Ok(((*input).to_owned(), Some((*output).to_owned()))),
                _ => Err(format!("`{table}`: `{row}` is not one or two strings")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_one_or_two_strings() {
        let corpus = "f = [[\"a\", \"b\"], [\"c\"]]\nbad = [[\"a\", 1]]\nempty = []\n";
        assert_eq!(
            pairs(corpus, "f"),
            Ok(vec![("a".into(), Some("b".into())), ("c".into(), None)])
        );
        assert_eq!(
            pairs(corpus, "bad"),
            Err("`bad`: `[\"a\", 1]` is not one or two strings".into())
        );
        assert_eq!(pairs(corpus, "empty"), Err("no rows in `empty`".into()));
        assert_eq!(pairs(corpus, "g"), Err("no rows in `g`".into()));
    }
}
