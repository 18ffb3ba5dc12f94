//! Runner for `tests/corpus/redirects.toml`: every shell and wrapper form crossed with every
//! redirect operator and every target. A redirection belongs to the clause that carries it, so
//! the decision on `FORM OP TARGET` must be the stricter of the form's decision alone and the
//! target's decision (`expect` of the target), whatever the form runs inside itself.
//!
//! Defaults as in the gate corpus: audience `personal`, project and cwd `/home/u/proj`, home
//! `/home/u`, tmp `/tmp`, symbolic links not resolved, no grants. For a target that needs a
//! person, the prompt must list `write PATH` (the absolute path); for a refused target, the
//! refusal must name `rule` among its deny rules or protected paths.

use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;
use shellgate_policy::{Decision, Evaluation, GateEvaluator, Policy, TrustState};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    operators: Vec<String>,
    form: Vec<Form>,
    target: Vec<Target>,
}

/// A shell or wrapper form and its decision without a redirection.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Form {
    command: String,
    alone: Decision,
}

/// A redirect target and the decision a write to it forces.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Target {
    path: String,
    expect: Decision,
    /// The absolute path a prompt lists (`NeedsPrompt` targets).
    shown: Option<String>,
    /// A deny rule or protected-path id the refusal names (`HardDenied` targets).
    rule: Option<String>,
}

fn gate() -> &'static GateEvaluator {
    static GATE: OnceLock<GateEvaluator> = OnceLock::new();
    GATE.get_or_init(|| GateEvaluator::new(Policy::embedded_default().unwrap()))
}

fn state() -> TrustState {
    let mut state = TrustState::new("personal", "/home/u/proj");
    state.set_resolve_symlinks(false);
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    state.set_tmp("/tmp");
    gate().apply_profile(&mut state).unwrap();
    state
}

/// What differs from the expectation, if anything.
fn problem(evaluation: &Evaluation, expected: Decision, target: &Target) -> Option<String> {
    if evaluation.decision != expected {
        return Some(format!(
            "decision {} (expected {expected})",
            evaluation.decision
        ));
    }
    if target.expect == Decision::NeedsPrompt && expected == Decision::NeedsPrompt {
        let shown = target.shown.as_deref().unwrap_or(&target.path);
        let listed = evaluation
            .prompt
            .iter()
            .flat_map(|p| &p.paths)
            .any(|p| p.path == shown && p.access == shellgate_policy::Access::Write);
        if !listed {
            return Some(format!("the prompt does not list `write {shown}`"));
        }
    }
    if let (Decision::HardDenied, Some(rule)) = (target.expect, &target.rule)
        && !evaluation.hard_deny.iter().any(|h| &h.rule == rule)
    {
        let rules: Vec<&str> = evaluation
            .hard_deny
            .iter()
            .map(|h| h.rule.as_str())
            .collect();
        return Some(format!("refused by {rules:?}, not by `{rule}`"));
    }
    None
}

#[test]
fn redirect_matrix() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/redirects.toml");
    let file: File = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let state = state();
    let mut failures = Vec::new();
    for form in &file.form {
        let alone = gate().evaluate(&form.command, &state).decision;
        if alone != form.alone {
            failures.push(format!(
                "`{}` alone: {alone} (expected {})",
                form.command, form.alone
            ));
        }
        for op in &file.operators {
            for target in &file.target {
                let expected = form.alone.max(target.expect);
                // After the command and, as bash also allows, before it.
                for command in [
                    format!("{} {op}{}", form.command, target.path),
                    format!("{op}{} {}", target.path, form.command),
                ] {
                    let evaluation = gate().evaluate(&command, &state);
                    if let Some(problem) = problem(&evaluation, expected, target) {
                        failures.push(format!("`{command}`: {problem}"));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} redirect cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
