//! Times `parse` over the tldr and NL2Bash lines (a quick check, and the program to profile;
//! the real bench is `cargo bench --bench parse` in the root package). `PASSES` (default 3)
//! sets the number of passes, `CORPUS=tldr` or `CORPUS=nl2bash` keeps one corpus.

use std::time::Instant;

use shellgate_parser::{ParseOptions, parse};

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/corpus");
    let mut lines = Vec::new();
    let only = std::env::var("CORPUS").unwrap_or_default();
    for name in ["tldr-commands.txt", "nl2bash-commands.txt"] {
        if !name.starts_with(only.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap_or_default();
        lines.extend(text.lines().map(str::to_owned));
    }
    let bytes: usize = lines.iter().map(String::len).sum();
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    let passes: usize = std::env::var("PASSES")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(3);
    for _ in 0..passes {
        let start = Instant::now();
        let mut clauses = 0;
        for line in &lines {
            clauses += parse(line, &options).graph.len();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{} commands, {clauses} clauses: {:.0} commands/s, {:.2} MB/s",
            lines.len(),
            lines.len() as f64 / secs,
            bytes as f64 / secs / 1e6
        );
    }
}
