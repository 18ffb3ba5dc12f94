//! What every corpus runner shares: reading `tests/corpus/NAME`, and running its cases — each
//! name once — failing with the report of every case that does not hold.

use std::collections::HashSet;
use std::fmt::Debug;

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A corpus that is a list of `[[case]]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cases<C> {
    /// The cases, in file order.
    pub case: Vec<C>,
}

/// `tests/corpus/NAME` parsed, and its text.
pub fn read<T: DeserializeOwned>(name: &str) -> (T, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/");
    let text =
        std::fs::read_to_string(format!("{dir}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let file = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (file, text)
}

/// Runs `check` on every case (named by `name_of`): names must be unique; fails with each
/// report `check` returns, the case's name first.
pub fn check_all<C>(
    corpus: &str,
    cases: &[C],
    name_of: impl Fn(&C) -> &str,
    mut check: impl FnMut(&C) -> Option<String>,
) {
    let mut names = HashSet::new();
    let mut failures = Vec::new();
    for case in cases {
        let name = name_of(case);
        assert!(
            names.insert(name),
            "duplicate case name `{name}` in {corpus}"
        );
        if let Some(report) = check(case) {
            failures.push(format!("case `{name}`: {report}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases of {corpus} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Reads the `[[case]]` corpus `tests/corpus/NAME` and runs `check` on every case (see
/// [`check_all`]).
pub fn check_file<C: DeserializeOwned>(
    name: &str,
    name_of: impl Fn(&C) -> &str,
    check: impl FnMut(&C) -> Option<String>,
) {
    let (file, _): (Cases<C>, _) = read(name);
    check_all(name, &file.case, name_of, check);
}

/// Notes `FIELD: expected E, got A` in `problems` when `expected` and `actual` differ as they
/// print with `{:?}`.
pub fn check(problems: &mut Vec<String>, field: &str, expected: impl Debug, actual: impl Debug) {
    let (expected, actual) = (format!("{expected:?}"), format!("{actual:?}"));
    if expected != actual {
        problems.push(format!("{field}: expected {expected}, got {actual}"));
    }
}
