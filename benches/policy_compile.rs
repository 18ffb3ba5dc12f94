//! Compiling the embedded default policy (goal: well under 1 ms), and matching one command
//! against it.
//!
//! `compile embedded default` is what every `shellgate` process pays: the fast path (binary
//! form made at build time, matchers compiled on first use). `load and judge one command` adds
//! what a hook process pays on top for one command: the matchers that command needs.
//! `full load of the default` is what `shellgate check` does: parse the TOML, compile every
//! matcher and check every `match`/`not_match` example.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_main};
use shellgate_parser::{ParseOptions, parse};
use shellgate_policy::expand::{ExpandOptions, deny_hits, expand};
use shellgate_rules::{Examples, Policy};

/// Parse and expansion options for a command run in `/home/u/proj` by a user whose home is
/// `/home/u`.
fn options() -> (ParseOptions, ExpandOptions) {
    let options = ParseOptions {
        cwd: Some(PathBuf::from("/home/u/proj")),
        home: Some(PathBuf::from("/home/u")),
    };
    let expand = ExpandOptions {
        cwd: options.cwd.clone(),
        home: options.home.clone(),
        max_depth: None,
    };
    (options, expand)
}

fn compile(c: &mut Criterion) {
    c.bench_function("compile embedded default", |b| {
        b.iter(|| black_box(Policy::embedded_default()));
    });
    let (options, opts) = options();
    let command = "cat src/main.rs | grep -n fn > /tmp/out.txt && rm -rf target/debug";
    let parsed = parse(command, &options);
    c.bench_function("load and judge one command", |b| {
        b.iter(|| {
            let Ok(policy) = Policy::embedded_default() else {
                return 0;
            };
            let ex = expand(&policy, &parsed, &opts);
            let home = std::path::Path::new("/home/u");
            let protected = policy.protected(
                std::path::Path::new("/tmp/out.txt"),
                Some(home),
                shellgate_policy::Access::Write,
            );
            black_box(deny_hits(&policy, command, &ex).len() + usize::from(protected.is_some()))
        });
    });
    let mut group = c.benchmark_group("full");
    group.sample_size(10);
    group.bench_function("full load of the default", |b| {
        b.iter(|| {
            black_box(shellgate_policy::load_policy_with(
                &[Policy::default_source()],
                Examples::All,
            ))
        });
    });
    group.finish();
}

fn matching(c: &mut Criterion) {
    let Ok(policy) = Policy::embedded_default() else {
        return;
    };
    let (options, opts) = options();
    let command = "sudo -u root bash -c 'cd /tmp && rm -rf ../etc' | tee log.txt";
    let parsed = parse(command, &options);
    c.bench_function("expand and deny one command", |b| {
        b.iter(|| {
            let ex = expand(&policy, black_box(&parsed), &opts);
            black_box(deny_hits(&policy, command, &ex).len())
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
