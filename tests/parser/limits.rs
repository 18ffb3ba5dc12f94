//! Bounded work: deep nesting, huge inputs, many clauses, NUL bytes. Never a panic, never a
//! stack overflow, always `complete: false` with a `Limit` (or `Unsupported`) diagnostic.

use std::time::{Duration, Instant};

use shellgate_parser::limits::{MAX_CLAUSES, MAX_DEPTH, MAX_INPUT_BYTES};
use shellgate_parser::{DiagnosticKind, ParseOptions, ParseOutput, parse};

/// Runs `parse` on a thread with a 2 MiB stack (the size of a test or rayon worker thread).
fn parse_small_stack(input: String) -> ParseOutput {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || parse(&input, &ParseOptions::default()))
        .unwrap()
        .join()
        .unwrap()
}

/// `parse_small_stack(input)`, asserting it takes less than `limit`.
fn parse_within(input: String, limit: Duration) -> ParseOutput {
    let start = Instant::now();
    let out = parse_small_stack(input);
    assert!(start.elapsed() < limit, "{:?}", start.elapsed());
    out
}

fn assert_limit(out: &ParseOutput) {
    assert!(!out.complete);
    assert_eq!(
        out.diagnostics.first().map(|d| d.kind),
        Some(DiagnosticKind::Limit),
        "{:?}",
        out.reason()
    );
}

#[test]
fn ten_thousand_nested_command_substitutions() {
    let input = format!("echo {}x{}", "$(".repeat(10_000), ")".repeat(10_000));
    let out = parse_small_stack(input);
    assert_limit(&out);
    assert_eq!(out.reason(), Some("nesting is deeper than 64 levels"));
}

#[test]
fn ten_thousand_nested_subshells() {
    let input = format!("{}ls{}", "( ".repeat(10_000), " )".repeat(10_000));
    assert_limit(&parse_small_stack(input));
}

#[test]
fn ten_thousand_unclosed_openers() {
    for opener in [
        "$(", "(", "{ ", "\"$(", "if ", "${x:-", "$((", "a[", "[[ ", "$(echo `",
    ] {
        let out = parse_small_stack(opener.repeat(10_000));
        assert!(!out.complete, "{opener}");
    }
    // An odd number of backquotes leaves one open.
    assert!(!parse_small_stack("`".repeat(10_001)).complete);
}

#[test]
fn nesting_just_under_the_limit_parses_on_a_small_stack() {
    let depth = MAX_DEPTH / 2 - 1;
    let input = format!("echo {}x{}", "\"$(echo ".repeat(depth), ")\"".repeat(depth));
    let out = parse_small_stack(input);
    assert!(out.complete, "{:?}", out.reason());
    assert_eq!(out.graph.len(), depth + 1);
    let input = format!(
        "{}ls{}",
        "if true; then ".repeat(MAX_DEPTH - 1),
        "; fi".repeat(MAX_DEPTH - 1)
    );
    let out = parse_small_stack(input);
    assert!(out.complete, "{:?}", out.reason());
    assert_eq!(out.graph.len(), MAX_DEPTH);
    // The deepest nesting the pre-scan lets through, on a small stack: parsed, never a crash.
    for (open, close, depth) in [
        ("$(", ")", MAX_DEPTH),
        ("( ", " )", MAX_DEPTH),
        ("{ ", "; }", MAX_DEPTH),
        ("\"$(", ")\"", MAX_DEPTH / 2),
        ("`", "`", 1),
    ] {
        let input = format!("{}ls{}", open.repeat(depth), close.repeat(depth));
        let out = parse_small_stack(input);
        assert!(out.complete, "{open}: {:?}", out.reason());
    }
}

#[test]
fn one_mebibyte_input_is_refused_quickly() {
    let input = "echo hello world; ".repeat(1024 * 1024 / 18 + 1);
    assert!(input.len() > 1024 * 1024);
    let out = parse_within(input, Duration::from_secs(5));
    assert_limit(&out);
    assert_eq!(
        out.reason()
            .map(|r| r.contains(&format!("the limit is {MAX_INPUT_BYTES} bytes"))),
        Some(true)
    );
    // The conservative tokenizer still reports what it can, up to the clause limit.
    assert_eq!(out.graph.len(), MAX_CLAUSES);
}

#[test]
fn too_many_clauses() {
    let input = "a;".repeat(MAX_CLAUSES + 1);
    let out = parse_small_stack(input);
    assert_limit(&out);
    assert_eq!(out.graph.len(), MAX_CLAUSES);
    let input = "a;".repeat(MAX_CLAUSES);
    assert!(parse_small_stack(input).complete);
}

#[test]
fn exponential_backtracking_is_bounded() {
    // `$((` tries arithmetic first and backtracks into a command substitution at every level.
    let input = format!("echo {}x) ){}", "$((a) ".repeat(20), ")".repeat(19));
    let out = parse_within(input, Duration::from_secs(20));
    assert!(!out.complete || out.graph.len() > 1);
}

#[test]
fn a_large_real_script_parses_complete_and_fast() {
    // Real commands (bash accepts every one), one per line, just under the input limit.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/nl2bash-commands.txt"
    );
    let rejects = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bash-rejects.tsv");
    let rejected: Vec<String> = std::fs::read_to_string(rejects)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("nl2bash-commands\t"))
        .filter_map(|l| l.split_once('\t').map(|(_, cmd)| cmd.to_owned()))
        .collect();
    let mut script = String::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        // Lines with backquotes are skipped: bash -n does not check their bodies.
        if rejected.iter().any(|r| r == line) || line.contains('`') {
            continue;
        }
        if script.len() + line.len() + 1 > MAX_INPUT_BYTES {
            break;
        }
        script.push_str(line);
        script.push('\n');
    }
    assert!(script.len() > MAX_INPUT_BYTES - 1024);
    let out = parse_within(script, Duration::from_secs(10));
    assert!(out.complete, "{:?}", out.reason());
    assert!(out.graph.len() > 600, "{}", out.graph.len());
}

#[test]
fn nul_bytes_are_refused() {
    let out = parse("echo a\0b; rm x", &ParseOptions::default());
    assert!(!out.complete);
    assert_eq!(out.diagnostics[0].kind, DiagnosticKind::Unsupported);
    let argv: Vec<Vec<&str>> = out
        .graph
        .clauses()
        .map(|c| c.cooked_argv().collect())
        .collect();
    assert_eq!(argv, [vec!["echo", "a\0b"], vec!["rm", "x"]]);
}
