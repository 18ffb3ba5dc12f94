//! The shipped default policy: it loads, and every one of its own examples passes.

use shellgate_rules::{DEFAULT_POLICY, Examples, Policy};

/// The tables of array `key` of the default policy, read independently with `toml`.
#[expect(
    clippy::unwrap_used,
    reason = "a test helper: the default policy is valid TOML"
)]
fn tables(key: &str) -> Vec<toml::Table> {
    let file: toml::Table = toml::from_str(DEFAULT_POLICY).unwrap();
    file.get(key)
        .and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.as_table().cloned()).collect())
        .unwrap_or_default()
}

/// The number of items of list `key` in `table` (0 when absent).
fn count(table: &toml::Table, key: &str) -> usize {
    table
        .get(key)
        .and_then(toml::Value::as_array)
        .map_or(0, Vec::len)
}

#[test]
fn every_default_example_passes() {
    let policy = shellgate_policy::load_policy_with(&[Policy::default_source()], Examples::All)
        .unwrap_or_else(|e| {
            let all: Vec<String> = e
                .errors()
                .iter()
                .map(|e| {
                    format!(
                        "{e} at {:?}: {:?}",
                        e.location().map(ToString::to_string),
                        e.help_text()
                    )
                })
                .collect();
            panic!("the default policy does not load:\n{}", all.join("\n"))
        });
    let examples: usize = policy
        .deny_rules()
        .iter()
        .map(|r| r.examples.len() + r.counter_examples.len())
        .sum();
    // Ask rules are deny rules with a softer outcome, in the same list.
    let written: usize = [tables("deny"), tables("ask")]
        .iter()
        .flatten()
        .map(|rule| count(rule, "match") + count(rule, "not_match"))
        .sum();
    assert_eq!(examples, written);
    assert_eq!(policy.tests().len(), tables("test").len());
}

#[test]
fn the_default_is_embedded_and_compiles_without_examples() {
    let policy = Policy::embedded_default().unwrap();
    assert_eq!(
        policy.deny_rules().len(),
        tables("deny").len() + tables("ask").len()
    );
    // The command catalog holds one entry per verb of each table of each effect class, and
    // each entry knows the table it came from.
    let mut total = 0;
    for table in ["safe", "writer", "repository", "network", "toolchain"] {
        let verbs: usize = tables(table)
            .iter()
            .map(|entry| count(entry, "verbs").max(1))
            .sum();
        let entries = policy
            .safe_entries()
            .iter()
            .filter(|entry| entry.class.table() == table)
            .count();
        assert_eq!(entries, verbs, "[[{table}]]");
        total += verbs;
    }
    assert_eq!(policy.safe_entries().len(), total);
    assert_eq!(policy.settings().max_shell_depth, 8);
}
