//! Hard limits through the whole gate (issue 7, item 4): 10,000-deep nesting, a 1 MiB command,
//! 10,000 clauses and `bash -c` nested 20 deep are each answered — `NeedsPrompt`, or
//! `HardDenied` where a deny rule matched what was recovered — on a thread with the default
//! 2 MiB stack, without a crash.
//!
//! Timings are printed (`cargo test --test limits_gate -- --nocapture`), never asserted: the
//! machine running the tests may be slow or busy.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failed step should fail the test loudly"
)]

use std::sync::LazyLock;
use std::time::Instant;

use shellgate_policy::{
    ClauseVerdict, Decision, Evaluation, GateEvaluator, Policy, ReasonKind, TrustState,
};

/// The size of a Rust test or rayon worker thread's stack.
const DEFAULT_STACK: usize = 2 * 1024 * 1024;

struct Gate {
    evaluator: GateEvaluator,
    state: TrustState,
}

static GATE: LazyLock<Gate> = LazyLock::new(|| {
    let evaluator = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&evaluator, "personal").unwrap();
    Gate { evaluator, state }
});

/// Evaluates `command` on a fresh thread with the default stack and prints how long it took.
fn evaluate(name: &str, command: String) -> Evaluation {
    let gate = &*GATE;
    let name = name.to_owned();
    std::thread::Builder::new()
        .name(name.clone())
        .stack_size(DEFAULT_STACK)
        .spawn(move || {
            let start = Instant::now();
            let evaluation = gate.evaluator.evaluate(&command, &gate.state);
            eprintln!(
                "{name}: {} bytes -> {:?} in {:?} ({} verdicts)",
                command.len(),
                evaluation.decision,
                start.elapsed(),
                evaluation.clauses.len()
            );
            evaluation
        })
        .unwrap()
        .join()
        .unwrap()
}

/// The pseudo-verdict an incomplete parse adds, with its reason.
fn parse_verdict(evaluation: &Evaluation) -> &ClauseVerdict {
    let verdicts: Vec<&ClauseVerdict> = evaluation
        .clauses
        .iter()
        .filter(|c| c.origin == "parse")
        .collect();
    assert_eq!(verdicts.len(), 1, "{:#?}", evaluation.clauses.last());
    verdicts[0]
}

/// The evaluation is `HardDenied` by exactly the deny rules `rules`.
fn assert_denied_by(evaluation: &Evaluation, rules: &[&str]) {
    assert_eq!(evaluation.decision, Decision::HardDenied);
    let hit: Vec<&str> = evaluation
        .hard_deny
        .iter()
        .map(|h| h.rule.as_str())
        .collect();
    assert_eq!(hit, rules);
}

/// `NeedsPrompt` on an incomplete evaluation.
fn assert_asks_incomplete(evaluation: &Evaluation) {
    assert_eq!(
        evaluation.decision,
        Decision::NeedsPrompt,
        "{:?}",
        evaluation.hard_deny
    );
    assert!(!evaluation.complete);
}

/// An incomplete parse: `NeedsPrompt` that cannot be saved, because of `reason`.
fn assert_incomplete(evaluation: &Evaluation, reason: &str) {
    assert_asks_incomplete(evaluation);
    assert!(evaluation.hard_deny.is_empty());
    assert!(evaluation.errors.is_empty(), "{:?}", evaluation.errors);
    let verdict = parse_verdict(evaluation);
    assert_eq!(verdict.decision, Decision::NeedsPrompt);
    assert_eq!(
        verdict
            .reasons
            .iter()
            .map(|r| (r.kind, r.message.as_str()))
            .collect::<Vec<_>>(),
        [(ReasonKind::Incomplete, reason)]
    );
    let prompt = evaluation.prompt.as_ref().unwrap();
    assert!(!prompt.persistable);
}

/// `open` ×`depth`, then `middle`, then `close` ×`depth`.
fn nest(open: &str, middle: &str, close: &str, depth: usize) -> String {
    format!("{}{middle}{}", open.repeat(depth), close.repeat(depth))
}

const DEEP: usize = 10_000;
const NESTING: &str = "nesting is deeper than 64 levels";

#[test]
fn ten_thousand_nested_command_substitutions() {
    let evaluation = evaluate("$( x10k", nest("$(", "echo hi", ")", DEEP));
    assert_incomplete(&evaluation, NESTING);
    let unclosed = evaluate("$( x10k unclosed", format!("echo {}", "$(".repeat(DEEP)));
    assert_incomplete(&unclosed, NESTING);
}

#[test]
fn ten_thousand_nested_subshells() {
    assert_incomplete(&evaluate("( x10k", nest("(", "ls", ")", DEEP)), NESTING);
    assert_incomplete(
        &evaluate("( x10k spaced", nest("( ", "ls", " )", DEEP)),
        NESTING,
    );
}

#[test]
fn ten_thousand_nested_groups() {
    assert_incomplete(&evaluate("{ x10k", nest("{ ", "ls", "; }", DEEP)), NESTING);
}

#[test]
fn ten_thousand_backquotes() {
    // Backquotes do not nest without escaping: 10,001 of them are 5,000 empty substitutions
    // and one left open.
    let evaluation = evaluate("` x10001", format!("echo {}", "`".repeat(DEEP + 1)));
    assert_incomplete(&evaluation, "unterminated backquote");
    // Backquotes inside `$(` nest: `$(echo `$(echo `…`)`)`.
    let mixed = evaluate("$(echo ` x5k", nest("$(echo `", "x", "`)", DEEP / 2));
    assert_incomplete(&mixed, NESTING);
}

#[test]
fn ten_thousand_nested_quoted_substitutions() {
    // `echo "$("$("$(…x)")")"`: 50 KiB, under the input limit.
    let evaluation = evaluate(
        "\"$( x10k",
        format!("echo {}", nest("\"$(", "x", ")\"", DEEP)),
    );
    assert_incomplete(&evaluation, NESTING);
}

#[test]
fn deep_nesting_still_hard_denies_what_it_recovers() {
    // The conservative tokenizer recovers the words before the nesting, so the deny rule fires.
    let command = format!("rm -rf / ; echo {}", nest("$(", "x", ")", DEEP));
    let evaluation = evaluate("rm -rf / then $( x10k", command);
    assert_denied_by(&evaluation, &["rm-recursive-root"]);
    assert!(!evaluation.complete);
}

/// `echo hello world; ` repeated to just over 1 MiB.
fn one_mebibyte(head: &str) -> String {
    let mut command = head.to_owned();
    while command.len() <= 1024 * 1024 {
        command.push_str("echo hello world; ");
    }
    command
}

/// A command over the input limit needs a person, and the reason says how long it is.
fn assert_too_long(name: &str, command: String) {
    let reason = format!(
        "the command is {} bytes long; the limit is 65536 bytes",
        command.len()
    );
    assert_incomplete(&evaluate(name, command), &reason);
}

#[test]
fn one_mebibyte_command() {
    assert_too_long("1 MiB", one_mebibyte(""));
}

#[test]
fn one_mebibyte_word() {
    assert_too_long("1 MiB word", format!("echo {}", "a".repeat(1024 * 1024)));
}

#[test]
fn one_mebibyte_command_still_hard_denies_its_first_clause() {
    let evaluation = evaluate("1 MiB after rm -rf ~", one_mebibyte("rm -rf ~; "));
    assert_denied_by(&evaluation, &["rm-recursive-root"]);
    assert!(!evaluation.complete);
}

const MANY: usize = 10_000;
const TOO_MANY_CLAUSES: &str = "the command has more than 4096 clauses";

#[test]
fn ten_thousand_clauses() {
    assert_incomplete(
        &evaluate("true; x10k", "true;".repeat(MANY)),
        TOO_MANY_CLAUSES,
    );
    assert_incomplete(
        &evaluate("true\\n x10k", "true\n".repeat(MANY)),
        TOO_MANY_CLAUSES,
    );
    assert_incomplete(
        &evaluate("true&& x10k", format!("{}true", "true&&".repeat(MANY - 1))),
        TOO_MANY_CLAUSES,
    );
}

#[test]
fn ten_thousand_pipeline_stages() {
    let command = format!("{}cat", "cat | ".repeat(MANY - 1));
    assert_incomplete(&evaluate("cat | x10k", command), TOO_MANY_CLAUSES);
}

#[test]
fn ten_thousand_clauses_after_a_denied_one() {
    let command = format!("rm -rf /; {}", "true;".repeat(MANY));
    let evaluation = evaluate("rm -rf / then true; x10k", command);
    assert_eq!(evaluation.decision, Decision::HardDenied);
    assert!(!evaluation.complete);
}

/// `inner` wrapped in `bash -c "…"` `depth` times, escaping for double quotes at every level.
fn nested_bash_c(inner: &str, depth: usize) -> String {
    let mut command = inner.to_owned();
    for _ in 0..depth {
        let mut quoted = String::with_capacity(command.len() * 2 + 10);
        quoted.push_str("bash -c \"");
        for c in command.chars() {
            if matches!(c, '\\' | '"' | '$' | '`') {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
        command = quoted;
    }
    command
}

#[test]
fn nested_bash_c_builder_quotes_correctly() {
    assert_eq!(nested_bash_c("ls", 1), r#"bash -c "ls""#);
    assert_eq!(
        nested_bash_c("ls", 3),
        r#"bash -c "bash -c \"bash -c \\\"ls\\\"\"""#
    );
    assert_eq!(
        nested_bash_c("echo $HOME", 2),
        r#"bash -c "bash -c \"echo \\\$HOME\"""#
    );
}

#[test]
fn bash_c_nested_20_deep() {
    // Quoting doubles the escapes at every level: 20 levels are 2 MiB, over the input limit.
    let command = nested_bash_c("ls", 20);
    assert_eq!(command.len(), 2_097_312);
    let reason = format!(
        "the command is {} bytes long; the limit is 65536 bytes",
        command.len()
    );
    assert_incomplete(&evaluate("bash -c x20", command), &reason);
    let denied = evaluate("bash -c x20 rm -rf /", nested_bash_c("rm -rf /", 20));
    assert_eq!(
        denied.decision,
        Decision::NeedsPrompt,
        "{:?}",
        denied.hard_deny
    );
}

#[test]
fn bash_c_nested_deeper_than_the_shell_depth_limit() {
    // 14 levels fit in 64 KiB; the default policy follows `max_shell_depth = 8` of them.
    for inner in ["ls", "rm -rf /"] {
        let command = nested_bash_c(inner, 14);
        assert!(command.len() < 64 * 1024);
        let evaluation = evaluate(&format!("bash -c x14 {inner}"), command);
        assert_asks_incomplete(&evaluation);
        let deepest: Vec<_> = evaluation
            .clauses
            .iter()
            .flat_map(|c| &c.reasons)
            .filter(|r| r.kind == ReasonKind::Incomplete)
            .map(|r| r.message.as_str())
            .collect();
        assert!(
            deepest.contains(&"shell code is nested too deep to follow"),
            "{deepest:?}"
        );
    }
}

#[test]
fn bash_c_nested_up_to_the_shell_depth_limit_is_followed() {
    // Eight levels are parsed again and judged: the innermost command decides.
    let evaluation = evaluate("bash -c x8 rm -rf /", nested_bash_c("rm -rf /", 8));
    assert_denied_by(&evaluation, &["rm-recursive-root"]);
    let evaluation = evaluate("bash -c x8 ls", nested_bash_c("ls", 8));
    assert_eq!(evaluation.decision, Decision::Approved);
    assert!(evaluation.complete);
    // The ninth is not followed: a person decides.
    let evaluation = evaluate("bash -c x9 ls", nested_bash_c("ls", 9));
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    assert!(!evaluation.complete);
    assert!(!evaluation.prompt.as_ref().unwrap().persistable);
}
