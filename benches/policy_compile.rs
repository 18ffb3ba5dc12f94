//! Compiling the embedded default policy (goal: well under 1 ms), and matching one command
//! against it.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_main};
use shellgate_parser::{ParseOptions, parse};
use shellgate_rules::{ExpandOptions, Policy};

fn compile(c: &mut Criterion) {
    c.bench_function("compile embedded default", |b| {
        b.iter(|| black_box(Policy::embedded_default()));
    });
}

fn matching(c: &mut Criterion) {
    let Ok(policy) = Policy::embedded_default() else {
        return;
    };
    let options = ParseOptions {
        cwd: Some(PathBuf::from("/home/u/proj")),
        home: Some(PathBuf::from("/home/u")),
    };
    let expand = ExpandOptions {
        cwd: options.cwd.clone(),
        home: options.home.clone(),
        max_depth: None,
    };
    let command = "sudo -u root bash -c 'cd /tmp && rm -rf ../etc' | tee log.txt";
    let parsed = parse(command, &options);
    c.bench_function("expand and deny one command", |b| {
        b.iter(|| {
            let ex = policy.expand(black_box(&parsed), &expand);
            black_box(policy.deny_expansion(command, &ex).len())
        });
    });
}

/// Runs every benchmark of this file (criterion's `criterion_group!` would generate an
/// undocumented function).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    compile(&mut c);
    matching(&mut c);
}

criterion_main!(benches);
