//! An arbitrary command through one shared `GateEvaluator` on the embedded default policy, with
//! a fixed `TrustState` (audience `personal`, cwd `/home/u/proj`, its profile zones, one saved
//! pattern, symbolic links not resolved so that no run touches the file system).
//!
//! Each run checks the evaluation's documented invariants:
//! * fail closed: an incomplete parse or an internal error is never `Approved`, and `Approved`
//!   means every clause was judged and passed (`all_clauses_passed`);
//! * the decision is the maximum over the clauses, a hard-deny hit makes it `HardDenied`,
//!   `HardDenied` carries its evidence, and the prompt is present exactly for `NeedsPrompt`;
//! * the `--json` form serializes;
//! * answering a persistable prompt with "Session" trusts everything it listed, so the same
//!   command then evaluates `Approved`.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

use shellgate_policy::{
    Choice, Decision, Evaluation, GateEvaluator, GrantSource, Policy, TrustState, VerbPattern,
};

struct Gate {
    evaluator: GateEvaluator,
    state: TrustState,
}

static GATE: LazyLock<Gate> = LazyLock::new(|| {
    let evaluator = GateEvaluator::new(Policy::embedded_default().unwrap());
    let mut state = shellgate_policy::examples::example_state(&evaluator, "personal").unwrap();
    let pattern: VerbPattern = "git push origin main *".parse().unwrap();
    state.add_pattern(pattern, GrantSource::Store);
    Gate { evaluator, state }
});

fn check(evaluation: &Evaluation) {
    let decision = evaluation.decision;
    if !evaluation.complete || !evaluation.errors.is_empty() {
        assert_ne!(
            decision,
            Decision::Approved,
            "incomplete or failed evaluation approved"
        );
    }
    assert_eq!(
        decision == Decision::Approved,
        evaluation.all_clauses_passed(),
        "decision {decision:?} disagrees with all_clauses_passed"
    );
    for clause in &evaluation.clauses {
        assert!(
            clause.decision <= decision,
            "clause {:?} above the decision",
            clause.argv
        );
    }
    if !evaluation.hard_deny.is_empty() {
        assert_eq!(
            decision,
            Decision::HardDenied,
            "deny hits {:?}",
            evaluation.hard_deny
        );
    }
    if decision == Decision::HardDenied {
        assert!(
            !evaluation.hard_deny.is_empty(),
            "HardDenied without a deny hit"
        );
    }
    assert_eq!(
        evaluation.prompt.is_some(),
        decision == Decision::NeedsPrompt,
        "prompt present for {decision:?}"
    );
    assert!(
        serde_json::to_string(evaluation).is_ok(),
        "evaluation does not serialize"
    );
}

fuzz_target!(|data: &[u8]| {
    let command = String::from_utf8_lossy(data);
    let gate = &*GATE;
    let evaluation = gate.evaluator.evaluate(&command, &gate.state);
    check(&evaluation);
    if let Some(prompt) = &evaluation.prompt
        && prompt.persistable
    {
        let effects = gate
            .evaluator
            .respond(&evaluation, Choice::Session, &gate.state)
            .unwrap();
        let mut state = gate.state.clone();
        state.apply_effects(&effects);
        let again = gate.evaluator.evaluate(&command, &state);
        check(&again);
        assert_eq!(
            again.decision,
            Decision::Approved,
            "after a Session answer the command still needs: {:?}",
            again.prompt
        );
    }
});
