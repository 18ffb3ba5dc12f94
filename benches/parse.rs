//! Parsing speed against peers, in the same process and run: shellgate's full pipeline
//! (grammar, typed tree, cooking, clause graph) against `brush-parser` (tokens and a PEG
//! program tree, as `Parser::parse_program` gives them) and `tree-sitter-bash` (a concrete
//! syntax tree), over the tldr-pages and NL2Bash command lines.
//!
//! `cargo bench --bench parse`. Criterion reports one group per corpus (`tldr`, `nl2bash`),
//! one function per parser, in commands per second. Then the bench prints the summary table of
//! issue 12: for each corpus and parser the mean time per command (the median of several
//! passes over the corpus, the parsers taking turns), the p50 and p99 of the per-command time
//! (each command timed alone, the median of several runs), and the ratio to brush-parser.
//! `cargo bench --bench parse -- --test` runs every function once and skips the summary;
//! `PARSE_SUMMARY_ONLY=1 cargo bench --bench parse` prints the summary alone.

#![allow(
    clippy::unwrap_used,
    reason = "a bench that cannot read its corpus should stop loudly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_main};
use shellgate_parser::{ParseOptions, parse};

/// One corpus: a name and its lines.
struct Corpus {
    name: &'static str,
    lines: Vec<String>,
}

fn corpora() -> Vec<Corpus> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/corpus");
    [
        ("tldr", "tldr-commands.txt"),
        ("nl2bash", "nl2bash-commands.txt"),
    ]
    .into_iter()
    .map(|(name, file)| Corpus {
        name,
        lines: std::fs::read_to_string(format!("{dir}/{file}"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect(),
    })
    .collect()
}

/// The three parsers, each as "parse one command line".
struct Parsers {
    shellgate: ParseOptions,
    brush: brush_parser::ParserOptions,
    tree_sitter: tree_sitter::Parser,
}

/// The parsers in table order.
const NAMES: [&str; 3] = ["shellgate", "brush-parser", "tree-sitter-bash"];

impl Parsers {
    fn new() -> Self {
        let mut tree_sitter = tree_sitter::Parser::new();
        tree_sitter
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .unwrap();
        Self {
            shellgate: ParseOptions {
                cwd: Some("/work".into()),
                home: Some("/home/me".into()),
            },
            brush: brush_parser::ParserOptions::default(),
            tree_sitter,
        }
    }

    /// Parses `line` with parser number `which` (an index into [`NAMES`]).
    fn run(&mut self, which: usize, line: &str) {
        match which {
            0 => {
                black_box(parse(black_box(line), &self.shellgate));
            }
            1 => {
                let mut parser = brush_parser::Parser::new(black_box(line.as_bytes()), &self.brush);
                let _ = black_box(parser.parse_program());
            }
            _ => {
                black_box(self.tree_sitter.parse(black_box(line), None));
            }
        }
    }
}

fn bench(c: &mut Criterion, corpora: &[Corpus], parsers: &mut Parsers) {
    for corpus in corpora {
        let mut group = c.benchmark_group(corpus.name);
        group.throughput(Throughput::Elements(corpus.lines.len() as u64));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(8));
        for (which, name) in NAMES.iter().enumerate() {
            group.bench_function(*name, |b| {
                b.iter(|| {
                    for line in &corpus.lines {
                        parsers.run(which, line);
                    }
                });
            });
        }
        group.finish();
    }
}

/// Passes over a corpus for the mean, and runs of each command for its percentiles.
const PASSES: usize = 7;
const RUNS: usize = 5;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(rank).copied().unwrap_or(f64::NAN)
}

/// The issue 12 table: ns per command, p50, p99 and the ratio to brush-parser.
fn summary(corpora: &[Corpus], parsers: &mut Parsers) {
    println!();
    println!("corpus   parser            mean ns/cmd   p50 ns   p99 ns   mean/brush");
    for corpus in corpora {
        let n = corpus.lines.len().max(1) as f64;
        // Mean: whole passes, the parsers taking turns so that load hits all alike.
        let mut passes = vec![Vec::with_capacity(PASSES); NAMES.len()];
        for _ in 0..PASSES {
            for (which, times) in passes.iter_mut().enumerate() {
                let start = Instant::now();
                for line in &corpus.lines {
                    parsers.run(which, line);
                }
                times.push(start.elapsed().as_nanos() as f64 / n);
            }
        }
        let means: Vec<f64> = passes.iter_mut().map(|t| median(t)).collect();
        // Percentiles: each command alone, the median of its runs.
        let mut per_command = vec![Vec::with_capacity(corpus.lines.len()); NAMES.len()];
        let mut runs = [0.0f64; RUNS];
        for line in &corpus.lines {
            for (which, out) in per_command.iter_mut().enumerate() {
                for slot in &mut runs {
                    let start = Instant::now();
                    parsers.run(which, line);
                    *slot = start.elapsed().as_nanos() as f64;
                }
                out.push(median(&mut runs));
            }
        }
        let brush = means.get(1).copied().unwrap_or(f64::NAN);
        for (which, name) in NAMES.iter().enumerate() {
            let times = per_command.get_mut(which).unwrap();
            times.sort_by(f64::total_cmp);
            let mean = means.get(which).copied().unwrap_or(f64::NAN);
            println!(
                "{:<8} {:<17} {:>11.0} {:>8.0} {:>8.0} {:>12.2}",
                corpus.name,
                name,
                mean,
                percentile(times, 0.50),
                percentile(times, 0.99),
                mean / brush
            );
        }
    }
}

/// Runs the benchmarks of this file, then the summary (criterion's `criterion_group!` would
/// generate an undocumented function).
fn benches() {
    let corpora = corpora();
    let mut parsers = Parsers::new();
    let mut c = Criterion::default().configure_from_args();
    if std::env::var_os("PARSE_SUMMARY_ONLY").is_none() {
        bench(&mut c, &corpora, &mut parsers);
    }
    let test_mode = std::env::args().any(|a| a == "--test" || a == "--list");
    if !test_mode {
        summary(&corpora, &mut parsers);
    }
}

criterion_main!(benches);
