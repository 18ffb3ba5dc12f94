//! The fast scanner against the grammar: for every input of the tldr-pages, NL2Bash and
//! tree-sitter-bash corpora, of `tests/corpus/*.toml` and of the fuzz seeds, whenever the fast
//! scanner takes the input, `parse` (clause graph with spans, words raw and cooked, features,
//! diagnostics, `complete`) and `render` must equal what the grammar alone gives. Inputs of the
//! subset at the scanner's size limit check that the grammar never hits its call limit where
//! the scanner accepts.

use shellgate_parser::differential::{fast_accepts, parse_grammar, render_grammar};
use shellgate_parser::{ParseOptions, parse, render};

fn root(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(root(path))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every `input` and `command` of a `tests/corpus` file.
fn toml_inputs(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root(&format!("tests/corpus/{name}.toml"))).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    table["case"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|case| {
            ["input", "command"]
                .into_iter()
                .filter_map(|key| case.get(key).and_then(toml::Value::as_str))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The differences between the two parsers on `inputs`, and how many inputs the scanner took.
fn differences(inputs: &[String]) -> (Vec<String>, usize) {
    let options = [
        ParseOptions {
            cwd: Some("/work".into()),
            home: Some("/home/me".into()),
        },
        ParseOptions::default(),
    ];
    let mut failures = Vec::new();
    let mut accepted = 0;
    for input in inputs {
        if !fast_accepts(input) {
            continue;
        }
        accepted += 1;
        for options in &options {
            let fast = format!("{:?}", parse(input, options));
            let grammar = format!("{:?}", parse_grammar(input, options));
            if fast != grammar {
                failures.push(format!(
                    "{input:?}\n  fast:    {fast}\n  grammar: {grammar}"
                ));
            }
        }
        if render(input) != render_grammar(input) {
            failures.push(format!("{input:?}: render differs"));
        }
    }
    (failures, accepted)
}

#[track_caller]
fn assert_same(name: &str, inputs: &[String]) {
    let (failures, accepted) = differences(inputs);
    eprintln!(
        "{name}: the fast scanner took {accepted} of {} inputs",
        inputs.len()
    );
    assert!(
        failures.is_empty(),
        "{} differences in {name}, first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn tldr_corpus() {
    assert_same("tldr", &lines("tests/data/corpus/tldr-commands.txt"));
}

#[test]
fn nl2bash_corpus() {
    assert_same("nl2bash", &lines("tests/data/corpus/nl2bash-commands.txt"));
}

#[test]
fn tree_sitter_corpus() {
    let inputs: Vec<String> = lines("tests/data/corpus/tree-sitter-bash-corpus.jsonl")
        .iter()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["input"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_same("tree-sitter", &inputs);
}

#[test]
fn toml_corpora_and_fuzz_seeds() {
    for name in ["parser", "adversarial", "gate", "rules"] {
        assert_same(name, &toml_inputs(name));
    }
    assert_same("fuzz seeds", &lines("fuzz/seeds/commands.txt"));
}

/// Repeats `unit` to just under 4 KiB (the scanner's size limit).
fn near_limit(head: &str, unit: &str) -> String {
    let mut out = head.to_owned();
    while out.len() + unit.len() <= 4096 {
        out.push_str(unit);
    }
    out
}

#[test]
fn grammar_stays_under_its_limits_where_the_scanner_accepts() {
    let inputs = [
        near_limit("a", ";a"),
        near_limit("a", "\na"),
        near_limit("a", "|a"),
        near_limit("a", "&&a"),
        near_limit("a", "&a"),
        near_limit("echo", " a"),
        near_limit("echo", " 2>a"),
        near_limit("a=b", " a=b"),
        near_limit("export", " a=$b"),
        near_limit("echo ", "$(a)"),
        near_limit("echo ", "\"$a\""),
        near_limit("echo ", "${a}"),
        near_limit("echo ", "'a'"),
        near_limit("echo ", "\\a"),
        near_limit("echo ", "$(a;b|c&&d)"),
        near_limit("x", ";$($($($(a))))"),
    ];
    for input in &inputs {
        assert!(fast_accepts(input), "{input:.40}…");
    }
    assert_same("near the size limit", &inputs);
}

/// `splits` marks a word whose parameter expansion, command substitution or arithmetic stands
/// outside double quotes, in both parsers: (input, the `splits` of each word of the first
/// clause).
#[test]
fn splits_marks_expansions_outside_double_quotes() {
    let cases: [(&str, &[bool]); 12] = [
        ("head -n $N f", &[false, false, true, false]),
        ("head -n ${N} f", &[false, false, true, false]),
        ("head -n \"$N\" f", &[false, false, false, false]),
        ("head -n $\"$N\" f", &[false, false, false, false]),
        ("head -n '$N' f", &[false, false, false, false]),
        ("head -n \"$a\"$b f", &[false, false, true, false]),
        ("echo $(date) \"$(date)\"", &[false, true, false]),
        ("echo `date` \"`date`\"", &[false, true, false]),
        ("echo $((1+2)) \"$((1+2))\"", &[false, true, false]),
        ("cat <(ls) x*", &[false, false, false]),
        (
            "git commit -m \"$(cat <<'EOF'\nit's \"x\" $y\nEOF\n)\"",
            &[false, false, false, false],
        ),
        ("a=$b c $d", &[false, true]),
    ];
    let options = ParseOptions::default();
    for (input, expected) in cases {
        for output in [parse(input, &options), parse_grammar(input, &options)] {
            let clause = output.graph.get(0).unwrap();
            let got: Vec<bool> = clause.argv.iter().map(|w| w.features.splits).collect();
            assert_eq!(got, expected, "{input:?}");
        }
    }
}
