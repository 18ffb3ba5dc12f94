//! Property tests: `parse` never panics, and rendering the typed tree back to text and parsing
//! it again gives the same clause graph (spans aside).

use proptest::prelude::*;
use shellgate_parser::{ParseOptions, parse, render};

fn options() -> ParseOptions {
    ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    }
}

/// Words of many shapes, all valid on their own.
fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "ls",
        "echo",
        "a",
        "b",
        "-la",
        "'q s'",
        "\"d $x\"",
        "$(b)",
        "`c`",
        "$'\\x41'",
        "*.rs",
        "{a,b}",
        "~/p",
        "\"$(echo hi)\"",
        "${x:-$(y)}",
        "<(z)",
        "$((1<<2))",
        "a\\ b",
        "x=1",
        "cd",
        "/tmp",
        "..",
        "$HOME",
        "\"\"",
        "#not",
        "a#b",
    ])
    .prop_map(str::to_owned)
}

fn simple() -> impl Strategy<Value = String> {
    (
        prop::option::of(prop::sample::select(vec!["A=1 ", "B=$(q) "])),
        prop::collection::vec(word(), 1..4),
        prop::option::of(prop::sample::select(vec![
            " > f",
            " 2>&1",
            " <<< w",
            " < in",
            " >> \"o g\"",
            " &> /dev/null",
        ])),
    )
        .prop_map(|(prefix, words, redirect)| {
            format!(
                "{}{}{}",
                prefix.unwrap_or(""),
                words.join(" "),
                redirect.unwrap_or("")
            )
        })
}

/// A list of commands, with compound commands nested up to a few levels.
fn list() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => simple(),
        1 => Just("cat <<EOF\nbody $(d) `e`\nEOF\n".to_owned()),
        1 => Just("cat <<'Q' | wc\n$(no)\nQ\n".to_owned()),
        1 => Just("[[ -n $x && y == z* ]]".to_owned()),
        1 => Just("(( i++ ))".to_owned()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let seq = prop::collection::vec(
            (
                inner,
                prop::sample::select(vec!["; ", " && ", " || ", " | ", " & ", "\n"]),
            ),
            1..4,
        )
        .prop_map(|items| {
            let mut out = String::new();
            for (i, (cmd, op)) in items.iter().enumerate() {
                out.push_str(cmd);
                if i + 1 < items.len() {
                    // A heredoc element already ends its line.
                    if cmd.ends_with('\n') && op.trim().is_empty() {
                        continue;
                    }
                    out.push_str(if cmd.ends_with('\n') { "true" } else { "" });
                    out.push_str(op);
                }
            }
            out
        });
        prop_oneof![
            3 => seq.clone(),
            1 => seq.clone().prop_map(|l| format!("( {l}\n)")),
            1 => seq.clone().prop_map(|l| format!("{{ {l}\n}}")),
            1 => (seq.clone(), seq.clone()).prop_map(|(c, b)| format!("if {c}\nthen {b}\nfi")),
            1 => (seq.clone(), seq.clone()).prop_map(|(c, b)| format!("while {c}\ndo {b}\ndone")),
            1 => seq.clone().prop_map(|b| format!("for v in a $(b) c; do {b}\ndone")),
            1 => seq.clone().prop_map(|b| format!("case $(w) in a|b) {b}\n;; *) x;; esac")),
            1 => seq.clone().prop_map(|b| format!("f() {{ {b}\n}}")),
            1 => seq.clone().prop_map(|b| format!("echo $( {b}\n)")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_arbitrary_strings(input in any::<String>()) {
        let out = parse(&input, &options());
        prop_assert_eq!(out.complete, out.diagnostics.is_empty());
    }

    #[test]
    fn never_panics_on_metacharacter_soup(
        input in "[ \t\n;&|()<>$`'\"\\\\{}\\[\\]#*?!~=\\-a-c0-9]{0,80}"
    ) {
        let out = parse(&input, &options());
        prop_assert_eq!(out.complete, out.diagnostics.is_empty());
        for clause in out.graph.clauses() {
            prop_assert!(clause.span.start <= clause.span.end);
            prop_assert!(clause.span.end <= input.len());
            prop_assert!(clause.parent.is_none_or(|p| p < out.graph.len()));
        }
    }

    #[test]
    fn render_round_trips(input in list()) {
        let first = parse(&input, &options());
        prop_assume!(first.complete);
        let rendered = render(&input).unwrap();
        let second = parse(&rendered, &options());
        prop_assert!(second.complete, "rendered {:?} from {:?}: {:?}", rendered, input, second.reason());
        prop_assert_eq!(&first.graph, &second.graph, "rendered {:?} from {:?}", rendered, input);
        let again = render(&rendered);
        prop_assert_eq!(again.as_deref(), Some(rendered.as_str()));
    }
}

#[test]
fn round_trip_generator_mostly_parses() {
    // Guard against the round-trip property passing vacuously.
    use proptest::strategy::ValueTree as _;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = list();
    let mut complete = 0;
    for _ in 0..200 {
        let input = strategy.new_tree(&mut runner).unwrap().current();
        if parse(&input, &options()).complete {
            complete += 1;
        }
    }
    assert!(
        complete > 150,
        "only {complete} of 200 generated inputs parse"
    );
}
