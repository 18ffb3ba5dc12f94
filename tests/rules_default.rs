//! The shipped default policy: it loads, and every one of its own examples passes.

use shellgate_rules::{Examples, Policy};

#[test]
fn every_default_example_passes() {
    let policy =
        Policy::load_with(&[Policy::default_source()], Examples::All).unwrap_or_else(|e| {
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
    assert!(
        examples + policy.tests().len() >= 150,
        "{examples} examples"
    );
}

#[test]
fn the_default_is_embedded_and_compiles_without_examples() {
    let policy = Policy::embedded_default().unwrap();
    assert!(policy.deny_rules().len() >= 20);
    assert!(policy.safe_entries().len() >= 120);
    assert_eq!(policy.settings().max_shell_depth, 8);
}
