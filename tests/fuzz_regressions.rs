//! Bugs found by fuzzing (`fuzz/`, issue 7), each a minimal reproducer named after the bug.
//!
//! A test marked `#[ignore = "open bug …"]` reproduces a bug that is reported but not fixed
//! yet: it fails today. Whoever fixes the bug removes the `ignore` (and the matching check in
//! `fuzz/known_bugs.rs` or `fuzz/fuzz_targets/parse.rs`, which keeps the fuzzer from stopping
//! on it). Run them with `cargo test --test fuzz_regressions -- --include-ignored`.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failed step should fail the test loudly"
)]

use std::time::{Duration, Instant};

use shellgate_parser::{ParseOptions, ParseOutput, parse, render};
use shellgate_policy::{Decision, GateEvaluator, Policy, TrustState};

/// Parsing the rendered text gives the same clause graph (the contract of `render`).
fn assert_round_trip(input: &str) {
    let options = ParseOptions::default();
    let out = parse(input, &options);
    assert!(out.complete, "{input:?}: {:?}", out.reason());
    let rendered = render(input).unwrap();
    let again = parse(&rendered, &options);
    assert!(again.complete, "{rendered:?}: {:?}", again.reason());
    assert_eq!(out.graph, again.graph, "{input:?} renders as {rendered:?}");
}

/// Parses on a thread with the default 2 MiB stack and returns the output with the time taken.
fn timed_parse(input: String) -> (ParseOutput, Duration) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let start = Instant::now();
            let out = parse(&input, &ParseOptions::default());
            (out, start.elapsed())
        })
        .unwrap()
        .join()
        .unwrap()
}

// Crash input (parse target): b"[\n\r" — minimised to `echo a\r`.
#[test]
#[ignore = "open bug: render appends a newline after a word ending in `\\r`, making it a CRLF"]
fn render_keeps_a_word_ending_in_carriage_return() {
    // `echo a\r` runs `echo` with the argument `a\r`; the rendered `echo a\r\n` runs `echo a`.
    assert_round_trip("echo a\r");
    assert_round_trip("\r");
}

// Crash input (parse target): b"git show-brancfor f in a ???…d\\" — minimised to `echo d\`.
#[test]
#[ignore = "open bug: render turns a backslash at the end of the input into a line continuation"]
fn render_keeps_a_trailing_backslash() {
    assert_round_trip("echo d\\");
}

// Crash inputs (parse target): b" <2EOF@ <2 in \xbb…" — minimised to `<@ in`; and
// b">$(d) $(/)".
#[test]
#[ignore = "open bug: render prints a clause's redirections after its words"]
fn render_keeps_redirects_before_words() {
    // `<x if` runs a command named `if`; rendered as `if <x` it opens an `if` statement.
    assert_round_trip("<x if");
    assert_round_trip("<@ in");
    // The substitutions swap places in the clause graph.
    assert_round_trip(">$(d) $(/)");
    assert_round_trip("echo >$(d) $(/)");
}

// Timeout inputs (parse target, > 10 s each under the fuzzer): 483 bytes of nested
// `${ ech:-tOF\n` in a double-quoted assignment; 495 bytes of `=$(r! -rf … $((…); lk=l…`;
// 497 bytes of `C=">(${D>(funZ/yum -…`. Reduced to the shapes below.
#[test]
#[ignore = "open bug: some nestings backtrack exponentially; prefix recovery multiplies it"]
fn parse_time_is_bounded_under_exponential_backtracking() {
    // One pest run gives up at the call limit (~0.6 s in release); the prefix recovery runs
    // pest again for each of up to 8 earlier `;`, so this 387-byte command takes ~6 s in
    // release (43 s in a debug build).
    let input = format!("{};", "${ e:-".repeat(7)).repeat(9);
    assert_eq!(input.len(), 387);
    let (out, elapsed) = timed_parse(input);
    eprintln!("387-byte `${{ e:-` command parsed in {elapsed:?}");
    assert!(!out.complete);
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    // Other shapes, each one pest run that ends at the call limit (1-2.5 s in release).
    for (opener, times) in [("${|e:-", 16), ("${\te:-", 16), ("$(a>(", 16)] {
        let (out, elapsed) = timed_parse(opener.repeat(times));
        eprintln!("{opener:?} x{times} parsed in {elapsed:?}");
        assert!(!out.complete);
        assert!(elapsed < Duration::from_secs(5), "{opener:?}: {elapsed:?}");
    }
}

#[test]
#[ignore = "open bug: every nested shell code string is parsed with a fresh work budget"]
fn nested_shell_code_parse_time_is_bounded_in_total() {
    // 40 `bash -c '${ e:-…'` clauses (3.3 KiB): each code string costs a full pest call limit
    // (~0.7 s in release), 30 s in all; 64 KiB of them would take about ten minutes.
    let code = format!("bash -c '{}'", "${ e:-".repeat(12));
    let command = vec![code; 40].join("; ");
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let mut state = TrustState::new("personal", "/home/u/proj");
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    state.set_resolve_symlinks(false);
    gate.apply_profile(&mut state).unwrap();
    let start = Instant::now();
    let evaluation = gate.evaluate(&command, &state);
    let elapsed = start.elapsed();
    eprintln!("{} bytes evaluated in {elapsed:?}", command.len());
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}
