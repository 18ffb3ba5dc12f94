#![allow(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented functions"
)]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup: a failed step should fail loudly"
)]

//! Audit throughput in records per second over a log cycled from the example session and the
//! tldr-pages and NL2Bash corpora, with 1 and 2 worker threads:
//!
//! - `audit_pipeline`: reading, parsing the jsonl, aggregating and writing `--decisions`, with a
//!   judge that does no work (the pipeline's own cost);
//! - `audit_gate`: the same with the real gate on the embedded default policy (memo on, grant
//!   suggestions on), as `shellgate audit` runs it.
//!
//! `cargo bench --bench audit`. `scripts/bench-audit.sh` measures the whole binary on a
//! 1,000,000-line log, with peak memory.

use std::hint::black_box;
use std::io::Write as _;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shellgate::audit::{
    AuditOptions, Decision, GateJudge, Grant, Input, Outcome, Record, TrustRecipe, audit,
};
use shellgate_policy::{GateEvaluator, Policy};

/// Writes a jsonl log of `lines` records cycled from the session and the corpora.
fn log(dir: &Path, lines: usize) -> PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut pool: Vec<String> =
        std::fs::read_to_string(format!("{root}/examples/agent-session.jsonl"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
    for name in ["tldr-commands.txt", "nl2bash-commands.txt"] {
        let text = std::fs::read_to_string(format!("{root}/tests/data/corpus/{name}")).unwrap();
        for command in text.lines().filter(|line| !line.trim().is_empty()) {
            pool.push(
                serde_json::json!({"command": command, "cwd": "/home/dev/acme-shop", "audience": "personal"})
                    .to_string(),
            );
        }
    }
    let path = dir.join(format!("audit-{lines}.jsonl"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for line in pool.iter().cycle().take(lines) {
        writeln!(file, "{line}").unwrap();
    }
    file.flush().unwrap();
    path
}

fn nothing(_: &Record<'_>, _: &[Grant]) -> Outcome {
    Outcome::bare(Decision::Approved)
}

fn gate() -> GateJudge {
    let recipe = TrustRecipe {
        audience: "personal".to_owned(),
        cwd: "/home/dev/acme-shop".into(),
        home: Some("/home/dev".into()),
        tmp: "/tmp".into(),
        ..TrustRecipe::default()
    };
    GateJudge::new(
        GateEvaluator::new(Policy::embedded_default().unwrap()),
        recipe,
    )
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, usize); 2] = [("audit_pipeline", 200_000), ("audit_gate", 20_000)];
    for (group_name, lines) in cases {
        let input = [Input::File(log(dir.path(), lines))];
        let mut group = c.benchmark_group(group_name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(10))
            .throughput(Throughput::Elements(lines as u64));
        for threads in [1, 2] {
            let options = AuditOptions {
                threads: NonZeroUsize::new(threads),
                ..AuditOptions::default()
            };
            group.bench_function(format!("threads_{threads}"), |b| {
                if group_name == "audit_pipeline" {
                    let judge: fn(&Record<'_>, &[Grant]) -> Outcome = nothing;
                    b.iter(|| {
                        let mut sink = std::io::sink();
                        black_box(
                            audit(&judge, None, &input, &options, Some(&mut sink), None).unwrap(),
                        )
                    });
                } else {
                    b.iter(|| {
                        // A fresh judge each time: its states are cached, and memo is per run.
                        let judge = gate();
                        let mut sink = std::io::sink();
                        black_box(
                            audit(&judge, None, &input, &options, Some(&mut sink), None).unwrap(),
                        )
                    });
                }
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
