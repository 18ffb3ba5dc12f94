//! Arbitrary bytes → `&str` → `shellgate_parser::parse`.
//!
//! Beyond "never panics, never overflows the stack", each run checks what the parser
//! documents:
//! * `complete` exactly when there are no diagnostics, and never more than `MAX_CLAUSES`;
//! * every span (clause, word, assignment, redirect) lies inside the input on char boundaries,
//!   and every `parent` index and edge points at an existing clause;
//! * a complete parse renders (`render`) to text that parses completely to the same clause
//!   graph (spans aside).
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

use shellgate_parser::limits::MAX_CLAUSES;
use shellgate_parser::{ParseOptions, ParseOutput, Span, parse, render};

static OPTIONS: LazyLock<ParseOptions> = LazyLock::new(|| ParseOptions {
    cwd: Some(PathBuf::from("/home/u/proj")),
    home: Some(PathBuf::from("/home/u")),
});

fn check_span(input: &str, span: Span, what: &str) {
    assert!(
        span.start <= span.end && input.get(span.start..span.end).is_some(),
        "{what} span {}..{} is not a char range of the {}-byte input",
        span.start,
        span.end,
        input.len()
    );
}

fn check_output(input: &str, out: &ParseOutput) {
    assert_eq!(
        out.complete,
        out.diagnostics.is_empty(),
        "{:?}",
        out.diagnostics
    );
    assert!(
        out.graph.len() <= MAX_CLAUSES,
        "{} clauses",
        out.graph.len()
    );
    let len = out.graph.len();
    for (i, clause) in out.graph.clauses().enumerate() {
        check_span(input, clause.span, "clause");
        for word in &clause.argv {
            check_span(input, word.span, "word");
        }
        for assignment in &clause.assignments {
            check_span(input, assignment.span, "assignment");
        }
        for redirect in &clause.redirects {
            check_span(input, redirect.span, "redirect");
        }
        if let Some(parent) = clause.parent {
            assert!(
                parent < len && parent != i,
                "clause {i} has parent {parent} of {len}"
            );
        }
    }
    for (from, to, _) in out.graph.edges() {
        assert!(from < len && to < len, "edge {from}->{to} of {len} clauses");
    }
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let out = parse(&input, &OPTIONS);
    check_output(&input, &out);
    if out.complete
        && let Some(rendered) = render(&input)
    {
        let again = parse(&rendered, &OPTIONS);
        assert!(
            again.complete,
            "rendered text {rendered:?} does not parse: {:?}",
            again.reason()
        );
        assert_eq!(
            out.graph, again.graph,
            "rendered text {rendered:?} parses differently"
        );
    }
});
