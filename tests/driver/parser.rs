//! Runner for `tests/corpus/parser.toml`: each case parses `input` and compares every clause.
//!
//! A clause lists `argv` (cooked) and `verb`; the other fields default to: `context = "top"`,
//! `operator` absent, `redirects = []`, `cwd = "/work"` (`"?"` means unknown), `parent`
//! absent, `literal_verb = true`. `redirects` are strings `"[fd]op target"` (the target cooked;
//! for heredocs the delimiter), e.g. `"2> /dev/null"`, `"<< EOF"`. Optional per clause:
//! `depth`, `heredoc` (bodies, in order), `assignments` (`name=value` cooked, `name=(a b)`).
//! Per case: `complete` (default true), `kind` (diagnostic kind when incomplete), `cwd`/`home`
//! (defaults `/work` and `/home/me`; `""` means none), `edges` (`"0>1 and"` …), `count` (only
//! the number of clauses, for limit cases).

use std::fmt::Write as _;

use crate::clause_text::{assignment_text, redirect_text};
use crate::corpus::check;
use std::path::PathBuf;

use serde::Deserialize;
use shellgate_parser::{Clause, ParseOptions, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    input: String,
    #[serde(default = "yes")]
    complete: bool,
    kind: Option<String>,
    cwd: Option<String>,
    home: Option<String>,
    #[serde(default)]
    clauses: Vec<Expected>,
    edges: Option<Vec<String>>,
    count: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    argv: Vec<String>,
    verb: Vec<String>,
    #[serde(default = "top")]
    context: String,
    operator: Option<String>,
    #[serde(default)]
    redirects: Vec<String>,
    #[serde(default = "work")]
    cwd: String,
    parent: Option<usize>,
    #[serde(default = "yes")]
    literal_verb: bool,
    depth: Option<usize>,
    heredoc: Option<Vec<String>>,
    assignments: Option<Vec<String>>,
}

fn yes() -> bool {
    true
}
fn top() -> String {
    "top".to_owned()
}
fn work() -> String {
    "/work".to_owned()
}

fn dir(value: Option<&String>, default: &str) -> Option<PathBuf> {
    match value.map(String::as_str) {
        Some("") => None,
        Some(v) => Some(PathBuf::from(v)),
        None => Some(PathBuf::from(default)),
    }
}

/// Describes what differs between the expected and actual clause (empty when equal).
fn compare(expected: &Expected, clause: &Clause) -> String {
    let mut problems = Vec::new();
    let d = &mut problems;
    let argv: Vec<&str> = clause.cooked_argv().collect();
    check(d, "argv", &expected.argv, argv);
    check(d, "verb", &expected.verb, &clause.verb);
    check(d, "context", &expected.context, clause.context.as_str());
    let operator = clause.operator.map(|o| o.as_str());
    check(d, "operator", &expected.operator, operator);
    check(d, "redirects", &expected.redirects, redirect_text(clause));
    let cwd = clause
        .cwd
        .as_ref()
        .map_or_else(|| "?".to_owned(), |p| p.display().to_string());
    check(d, "cwd", &expected.cwd, cwd);
    check(d, "parent", expected.parent, clause.parent);
    check(
        d,
        "literal_verb",
        expected.literal_verb,
        clause.literal_verb,
    );
    if let Some(depth) = expected.depth {
        check(d, "depth", depth, clause.depth);
    }
    if let Some(bodies) = &expected.heredoc {
        let got: Vec<&str> = clause
            .redirects
            .iter()
            .filter_map(|r| r.stdin_text())
            .collect();
        check(d, "heredoc", bodies, got);
    }
    if let Some(assignments) = &expected.assignments {
        check(d, "assignments", assignments, assignment_text(clause));
    }
    problems.iter().map(|p| format!("\n      {p}")).collect()
}

fn run_case(case: &Case) -> Option<String> {
    let options = ParseOptions {
        cwd: dir(case.cwd.as_ref(), "/work"),
        home: dir(case.home.as_ref(), "/home/me"),
    };
    let out = parse(&case.input, &options);
    let mut problems = String::new();
    if out.complete != case.complete {
        let _ = write!(
            problems,
            "\n    complete: expected {}, got {} ({:?})",
            case.complete,
            out.complete,
            out.reason()
        );
    }
    if let Some(kind) = &case.kind {
        let got = out.diagnostics.first().map(|d| d.kind.as_str());
        if got != Some(kind.as_str()) {
            let _ = write!(problems, "\n    kind: expected {kind}, got {got:?}");
        }
    }
    if let Some(count) = case.count {
        if out.graph.len() != count {
            let _ = write!(
                problems,
                "\n    count: expected {count}, got {}",
                out.graph.len()
            );
        }
    } else {
        if out.graph.len() != case.clauses.len() {
            let got: Vec<Vec<&str>> = out
                .graph
                .clauses()
                .map(|c| c.cooked_argv().collect())
                .collect();
            let _ = write!(
                problems,
                "\n    clauses: expected {}, got {}: {got:?}",
                case.clauses.len(),
                out.graph.len()
            );
        }
        for (i, (expected, clause)) in case.clauses.iter().zip(out.graph.clauses()).enumerate() {
            let diff = compare(expected, clause);
            if !diff.is_empty() {
                let _ = write!(problems, "\n    clause {i}:{diff}");
            }
        }
    }
    if let Some(edges) = &case.edges {
        let got: Vec<String> = out
            .graph
            .edges()
            .map(|(a, b, k)| format!("{a}>{b} {}", format!("{k:?}").to_lowercase()))
            .collect();
        if &got != edges {
            let _ = write!(problems, "\n    edges: expected {edges:?}, got {got:?}");
        }
    }
    (!problems.is_empty()).then_some(problems)
}

#[test]
fn parser_corpus() {
    crate::corpus::check_file(
        "parser.toml",
        |c: &Case| &c.name,
        |case| run_case(case).map(|problems| format!("input {:?}:{problems}", case.input)),
    );
}
