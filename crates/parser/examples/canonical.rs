//! Writes a canonical dump of `parse()` (every clause with its spans, the edges, `complete`, the
//! diagnostics) and of `render()` for every input the repository holds, so that two builds can
//! be compared byte for byte:
//!
//! ```sh
//! cargo run --release -p shellgate-parser --example canonical > before.txt
//! # … change the parser …
//! cargo run --release -p shellgate-parser --example canonical > after.txt
//! cmp before.txt after.txt
//! ```
//!
//! Inputs: each line of the tldr-pages and NL2Bash corpora, each input of the tree-sitter-bash
//! corpus, each `input` / `command` of `tests/corpus/*.toml`, each line of
//! `fuzz/seeds/commands.txt` and each file of `fuzz/seeds/multiline/`, then each line of the
//! files named as arguments (the `command` field of each line of a `.jsonl` file, such as the
//! agent logs).
//! Every input is parsed twice: with a working and a home directory, and without.

use std::fmt::Write as _;
use std::io::Write as _;

use shellgate_parser::{ParseOptions, parse, render};

fn root() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../..").to_owned()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(1)
    })
}

/// `(source, input)` pairs, in a fixed order.
fn inputs(extra: &[String]) -> Vec<(String, String)> {
    let root = root();
    let mut out = Vec::new();
    for name in ["tldr-commands.txt", "nl2bash-commands.txt"] {
        let text = read(&format!("{root}/tests/data/corpus/{name}"));
        for (i, line) in text.lines().enumerate() {
            out.push((format!("{name}:{}", i + 1), line.to_owned()));
        }
    }
    let ts = read(&format!(
        "{root}/tests/data/corpus/tree-sitter-bash-corpus.jsonl"
    ));
    for (i, line) in ts.lines().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        if let Some(input) = value.get("input").and_then(serde_json::Value::as_str) {
            out.push((format!("tree-sitter:{}", i + 1), input.to_owned()));
        }
    }
    for name in ["parser", "adversarial", "gate", "rules"] {
        let text = read(&format!("{root}/tests/corpus/{name}.toml"));
        let value: toml::Table = toml::from_str(&text).unwrap_or_default();
        let cases = value
            .get("case")
            .and_then(toml::Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, case) in cases.iter().enumerate() {
            for key in ["input", "command"] {
                if let Some(input) = case.get(key).and_then(toml::Value::as_str) {
                    out.push((format!("{name}.toml:{}:{key}", i + 1), input.to_owned()));
                }
            }
        }
    }
    let seeds = read(&format!("{root}/fuzz/seeds/commands.txt"));
    for (i, line) in seeds.lines().enumerate() {
        out.push((format!("seeds:{}", i + 1), line.to_owned()));
    }
    let dir = format!("{root}/fuzz/seeds/multiline");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        out.push((format!("multiline:{}", path.display()), text));
    }
    for file in extra {
        for (i, line) in read(file).lines().enumerate() {
            let input = if file.ends_with(".jsonl") {
                let value: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
                match value.get("command").and_then(serde_json::Value::as_str) {
                    Some(command) => command.to_owned(),
                    None => continue,
                }
            } else {
                line.to_owned()
            };
            out.push((format!("{file}:{}", i + 1), input));
        }
    }
    out
}

fn dump(out: &mut String, input: &str, options: &ParseOptions) {
    let parsed = parse(input, options);
    let _ = writeln!(
        out,
        "complete={} diagnostics={:?}",
        parsed.complete, parsed.diagnostics
    );
    for (i, clause) in parsed.graph.clauses().enumerate() {
        let _ = writeln!(out, "clause {i}: {clause:?}");
    }
    let edges: Vec<_> = parsed.graph.edges().collect();
    let _ = writeln!(out, "edges: {edges:?}");
}

fn main() {
    let extra: Vec<String> = std::env::args().skip(1).collect();
    let with_dirs = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    let without = ParseOptions::default();
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    for (source, input) in inputs(&extra) {
        let mut out = String::new();
        let _ = writeln!(out, "### {source} {input:?}");
        dump(&mut out, &input, &with_dirs);
        dump(&mut out, &input, &without);
        let _ = writeln!(out, "render: {:?}", render(&input));
        if stdout.write_all(out.as_bytes()).is_err() {
            std::process::exit(1);
        }
    }
}
