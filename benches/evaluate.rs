#![allow(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented functions"
)]

//! Gate speed: parse + evaluate per command over the tldr-pages command lines, single thread,
//! with the embedded default policy and the `personal` audience.
//!
//! `cargo bench --bench evaluate`. Every group reports commands per second over the whole file
//! (30,000-odd lines); the time per command is the reported time divided by the line count.
//! The groups split where the time goes:
//!
//! * `parse`: the parser alone (grammar, typed tree, cooking, clause graph);
//! * `parse+expand`: plus the policy's traversal (wrappers, shells parsed again, interpreters);
//! * `parse+expand+deny`: plus every hard-deny rule (command, `raw` and `pipeline` rules);
//! * `evaluate`: the whole gate (also deny rules, roles, paths, zones, the safe catalog,
//!   patterns, proposals, the prompt) with symbolic links not resolved (log replay);
//! * `evaluate-symlinks`: the whole gate resolving symbolic links (a live gate: each judged
//!   path is walked on the file system).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shellgate_parser::{ParseOptions, parse};
use shellgate_policy::expand::{ExpandOptions, deny_hits, expand};
use shellgate_policy::{GateEvaluator, GrantSource, Policy, TrustState, VerbPattern};

fn lines() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/tldr-commands.txt"
    );
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn state(gate: &GateEvaluator, symlinks: bool) -> TrustState {
    let mut state = TrustState::new("personal", "/home/u/proj");
    state.set_resolve_symlinks(symlinks);
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    let _ = gate.apply_profile(&mut state);
    for pattern in ["git push origin main *", "cargo test *", "make *"] {
        if let Ok(pattern) = pattern.parse::<VerbPattern>() {
            state.add_pattern(pattern, GrantSource::Store);
        }
    }
    state
}

fn bench(c: &mut Criterion) {
    let lines = lines();
    let Ok(policy) = Policy::embedded_default() else {
        return;
    };
    let gate = GateEvaluator::new(policy);
    let options = ParseOptions {
        cwd: Some("/home/u/proj".into()),
        home: Some("/home/u".into()),
    };
    let opts = ExpandOptions {
        cwd: options.cwd.clone(),
        home: options.home.clone(),
        max_depth: None,
    };
    let replay = state(&gate, false);
    let live = state(&gate, true);

    let mut group = c.benchmark_group("tldr");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(parse(black_box(line), &options));
            }
        });
    });
    group.bench_function("parse+expand", |b| {
        b.iter(|| {
            for line in &lines {
                let parsed = parse(black_box(line), &options);
                black_box(expand(gate.policy(), &parsed, &opts));
            }
        });
    });
    group.bench_function("parse+expand+deny", |b| {
        b.iter(|| {
            for line in &lines {
                let parsed = parse(black_box(line), &options);
                let expansion = expand(gate.policy(), &parsed, &opts);
                black_box(deny_hits(gate.policy(), line, &expansion).len());
            }
        });
    });
    group.bench_function("evaluate", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(gate.evaluate(black_box(line), &replay));
            }
        });
    });
    group.bench_function("evaluate-symlinks", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(gate.evaluate(black_box(line), &live));
            }
        });
    });
    group.finish();

    // One command that names many paths (brace expansions, as a fuzz input did): 81 symbolic
    // links into 81 target directories judge 81 × 81 link targets, and the per-path caches
    // must stay linear in their number (linear scans took 3.9 s here, 14 s on the fuzz input).
    let many = "cp -st/a/{1..9}x/{1..9}y src/{1..9}z/{1..9}w";
    let mut group = c.benchmark_group("many_paths");
    group.sample_size(20);
    group.bench_function("evaluate", |b| {
        b.iter(|| black_box(gate.evaluate(black_box(many), &replay)));
    });
    // 100 recursive reads, each looking at the same 100 option values (a fuzz input): what a
    // value filters to is worked out once per command (each once compiled a glob: 1.4 s).
    let filters = "rg -n -g=x{0..9}{0..9}* a/{0..9}{0..9}";
    group.bench_function("filters", |b| {
        b.iter(|| black_box(gate.evaluate(black_box(filters), &replay)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
