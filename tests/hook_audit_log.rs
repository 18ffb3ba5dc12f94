//! Evidence for issue 13: concurrent `shellgate hook` processes appending to one audit log
//! lose no line and interleave none.
//!
//! Eight streams run at once, each calling the hook (a new process per call, as agents do)
//! with commands of lengths from a few bytes to 20 KB, so records range from 200 bytes to
//! about 20 KB. Afterwards every line must parse, and the log must hold exactly one record per
//! call, each stream's records in its own order.
//!
//! 8 streams × 1,000 calls (8,000 processes) take about six minutes in a debug build on two
//! busy cores (136 s optimised, load average 10), so that run is `#[ignore]`d and CI runs it
//! optimised (`.ci/run`: `cargo test --profile bench --test hook_audit_log -- --ignored`, with
//! the dependencies the benches step built); the default `cargo test` runs the same check with
//! 8 × 40 calls.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::path::Path;

use serde_json::Value;

use common::Sandbox;

const STREAMS: usize = 8;

/// The command of call `n` of stream `stream`: its own words, then a filler whose length
/// cycles through 0 B to 20 KB.
fn command(stream: usize, n: usize) -> String {
    const LENGTHS: [usize; 6] = [0, 100, 1_000, 4_000, 9_000, 20_000];
    let filler = "x".repeat(LENGTHS[(stream + n) % LENGTHS.len()]);
    format!("echo s{stream} n{n} {filler}")
}

/// One hook call; checks it answered and exited 0.
fn call(sandbox: &Sandbox, log: &Path, stream: usize, n: usize) {
    let payload = common::claude_bash("/home/dev/project", &command(stream, n)).to_string();
    // The deadline is not under test: a loaded machine must not turn allow into ask.
    let mut hook = sandbox.shellgate(&["hook", "claude-code", "--deadline-ms", "600000"]);
    hook.arg("--audit-log").arg(log);
    let output = common::run(&mut hook, payload.as_bytes());
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "allow",
        "stream {stream} call {n}"
    );
}

/// Runs `STREAMS` streams of `calls` hook calls each and checks the log.
fn streams_append_whole_lines(calls: usize) {
    let sandbox = Sandbox::new(&["home"]);
    let log = sandbox.path("state/audit.jsonl");
    std::thread::scope(|scope| {
        for stream in 0..STREAMS {
            let (sandbox, log) = (&sandbox, log.as_path());
            scope.spawn(move || {
                for n in 0..calls {
                    call(sandbox, log, stream, n);
                }
            });
        }
    });
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.ends_with('\n'));
    let mut seen: Vec<Vec<usize>> = vec![Vec::new(); STREAMS];
    for (index, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {}: {e}: {line:.120}", index + 1));
        assert_eq!(record["decision"], "Approved", "line {}", index + 1);
        assert_eq!(record["cwd"], "/home/dev/project");
        let command = record["command"].as_str().unwrap();
        let mut words = command.split(' ').skip(1);
        let stream: usize = words
            .next()
            .unwrap()
            .strip_prefix('s')
            .unwrap()
            .parse()
            .unwrap();
        let n: usize = words
            .next()
            .unwrap()
            .strip_prefix('n')
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(command, self::command(stream, n), "line {}", index + 1);
        seen[stream].push(n);
    }
    assert_eq!(text.lines().count(), STREAMS * calls);
    let expected: Vec<usize> = (0..calls).collect();
    for (stream, calls) in seen.iter().enumerate() {
        assert_eq!(
            calls, &expected,
            "stream {stream}: every call once, in order"
        );
    }
}

#[test]
fn eight_hook_streams_append_whole_lines() {
    streams_append_whole_lines(40);
}

#[test]
#[ignore = "8,000 hook processes: about six minutes in debug; CI runs it optimised (.ci/run)"]
fn eight_hook_streams_times_a_thousand_lose_and_interleave_no_line() {
    streams_append_whole_lines(1_000);
}
