//! Every `[[test]]` case of the embedded default policy passes through the gate.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed step should fail the test loudly"
)]

use shellgate_policy::{GateEvaluator, Policy};

#[test]
fn every_default_policy_case_passes() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let cases = gate.policy().tests();
    assert!(
        cases.len() >= 100,
        "the default policy has only {} cases",
        cases.len()
    );
    let failures: Vec<String> = cases
        .iter()
        .map(|case| (case, gate.run_case(case)))
        .filter(|(_, outcome)| !outcome.passed)
        .map(|(case, outcome)| {
            format!(
                "{} ({}): {}\n    command: {:?}",
                outcome.name, case.location, outcome.message, outcome.command
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_case_names_the_rule_that_must_decide() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let mut case = gate
        .policy()
        .tests()
        .iter()
        .find(|c| c.rule.is_some())
        .unwrap()
        .clone();
    assert!(gate.run_case(&case).passed);
    case.rule = Some("no-such-rule".to_owned());
    let outcome = gate.run_case(&case);
    assert!(!outcome.passed);
    assert!(
        outcome
            .message
            .starts_with("expected rule `no-such-rule` to decide, but "),
        "{}",
        outcome.message
    );
}
