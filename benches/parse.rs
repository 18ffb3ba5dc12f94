//! Parsing speed over the tldr-pages and NL2Bash command lines: shellgate's full pipeline
//! (grammar, typed tree, cooking, clause graph) against the `tree-sitter-bash` parser (a
//! concrete syntax tree only), in the same run.
//!
//! `cargo bench --bench parse`. The `commands` group reports commands per second, the `bytes`
//! group bytes per second.

#![allow(
    clippy::unwrap_used,
    reason = "a bench that cannot read its corpus should stop loudly"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_main};
use shellgate_parser::{ParseOptions, parse};

fn lines() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/corpus");
    ["tldr-commands.txt", "nl2bash-commands.txt"]
        .iter()
        .flat_map(|name| {
            std::fs::read_to_string(format!("{dir}/{name}"))
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let lines = lines();
    let bytes: usize = lines.iter().map(String::len).sum();
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    let mut ts = tree_sitter::Parser::new();
    ts.set_language(&tree_sitter_bash::LANGUAGE.into()).unwrap();

    for (name, throughput) in [
        ("commands", Throughput::Elements(lines.len() as u64)),
        ("bytes", Throughput::Bytes(bytes as u64)),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(throughput);
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(8));
        group.bench_function("shellgate", |b| {
            b.iter(|| {
                for line in &lines {
                    black_box(parse(black_box(line), &options));
                }
            });
        });
        group.bench_function("tree-sitter-bash", |b| {
            b.iter(|| {
                for line in &lines {
                    black_box(ts.parse(black_box(line), None));
                }
            });
        });
        group.finish();
    }
}

/// Runs the benchmarks of this file (criterion's `criterion_group!` would generate an
/// undocumented function).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
}

criterion_main!(benches);
