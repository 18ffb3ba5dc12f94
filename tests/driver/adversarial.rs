//! Runner for `tests/corpus/adversarial.toml` (issue 7): smuggling attempts that must never be
//! `Approved`.
//!
//! Every case evaluates `command` with the embedded default policy in one fixed trust state:
//! audience `personal` (or the case's `audience`), cwd = project = `/home/u/proj`, home `/home/u`, tmp `/tmp`, no session
//! directory, no grants, symbolic links not resolved.
//!
//! Checked for every case: the decision is not `Approved` (reported on its own, first), the
//! decision equals `expect` exactly (`NeedsPrompt` or `HardDenied`; a case may not expect
//! `Approved`), and, when given, the prompt's one-line display contains `display_contains`.
//! All failing cases are reported at once, each with its command, the expected and actual
//! decision, the hard-deny rules and every clause verdict.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use serde::Deserialize;
use shellgate_policy::{Decision, Evaluation, GateEvaluator, Policy, TrustState};

type File = crate::corpus::Cases<Case>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    category: String,
    command: String,
    expect: String,
    display_contains: Option<String>,
    /// The audience (default `personal`).
    audience: Option<String>,
}

/// The fixed trust state of every adversarial case (in its audience).
fn state(gate: &GateEvaluator, audience: &str) -> TrustState {
    let mut state = TrustState::new(audience, "/home/u/proj");
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    state.set_tmp("/tmp");
    state.set_resolve_symlinks(false);
    gate.apply_profile(&mut state).unwrap();
    state
}

/// The evidence printed for a failing case: deny hits, then one line per clause verdict.
fn evidence(evaluation: &Evaluation) -> String {
    let mut out = String::new();
    if !evaluation.hard_deny.is_empty() {
        let rules: Vec<&str> = evaluation
            .hard_deny
            .iter()
            .map(|h| h.rule.as_str())
            .collect();
        let _ = write!(out, "\n    hard deny: {}", rules.join(", "));
    }
    for clause in &evaluation.clauses {
        let reasons: Vec<String> = clause
            .reasons
            .iter()
            .map(|r| match &r.rule {
                Some(rule) => format!("{}({rule}): {}", r.kind, r.message),
                None => format!("{}: {}", r.kind, r.message),
            })
            .collect();
        let _ = write!(
            out,
            "\n    clause {:?} [{}] {} :: {}",
            clause.argv,
            clause.origin,
            clause.decision,
            reasons.join(" | ")
        );
    }
    if let Some(prompt) = &evaluation.prompt {
        let _ = write!(out, "\n    display: {:?}", prompt.display);
    }
    if !evaluation.errors.is_empty() {
        let _ = write!(out, "\n    errors: {:?}", evaluation.errors);
    }
    out
}

#[test]
fn adversarial_corpus() {
    let (file, _): (File, _) = crate::corpus::read("adversarial.toml");
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());

    let mut names = HashSet::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut approved = Vec::new();
    let mut failures = Vec::new();
    for case in &file.case {
        assert!(
            names.insert(case.name.clone()),
            "duplicate case name `{}`",
            case.name
        );
        assert!(
            matches!(case.expect.as_str(), "NeedsPrompt" | "HardDenied"),
            "case `{}` expects `{}`: an adversarial case may only expect NeedsPrompt or HardDenied",
            case.name,
            case.expect
        );
        assert!(
            !case.category.is_empty(),
            "case `{}` has no category",
            case.name
        );
        let state = state(&gate, case.audience.as_deref().unwrap_or("personal"));
        let evaluation = gate.evaluate(&case.command, &state);
        *counts.entry(evaluation.decision.to_string()).or_default() += 1;
        let header = format!(
            "case `{}` ({})\n  command:  {:?}\n  expected: {}\n  got:      {}",
            case.name, case.category, case.command, case.expect, evaluation.decision
        );
        if evaluation.decision == Decision::Approved {
            approved.push(format!("{header}{}", evidence(&evaluation)));
            continue;
        }
        let mut problems = Vec::new();
        if evaluation.decision.to_string() != case.expect {
            problems.push("the decision differs".to_owned());
        }
        if let Some(needle) = &case.display_contains {
            match &evaluation.prompt {
                Some(prompt) if prompt.display.contains(needle.as_str()) => {}
                Some(prompt) => problems.push(format!(
                    "the display {:?} does not contain {needle:?}",
                    prompt.display
                )),
                None => problems.push(format!(
                    "there is no prompt, so no display containing {needle:?}"
                )),
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{header}\n  {}{}",
                problems.join("\n  "),
                evidence(&evaluation)
            ));
        }
    }
    eprintln!(
        "adversarial corpus: {} cases, decisions {counts:?}",
        file.case.len()
    );
    assert!(
        approved.is_empty(),
        "SECURITY: {} of {} adversarial cases were APPROVED (each is a bypass):\n{}\n\nother failures ({}):\n{}",
        approved.len(),
        file.case.len(),
        approved.join("\n"),
        failures.len(),
        failures.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {} adversarial cases failed:\n{}",
        failures.len(),
        file.case.len(),
        failures.join("\n")
    );
    assert!(
        file.case.len() >= 150,
        "the adversarial corpus has only {} cases",
        file.case.len()
    );
}
