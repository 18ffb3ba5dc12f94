//! Regression (issue 13): `shellgate parse|explain|eval … | head -c 1` panicked ("failed
//! printing to stdout: Broken pipe", exit 101) and `audit --decisions - | head -1` exited 1.
//!
//! Every subcommand runs here with standard output a pipe whose reader is already closed, so
//! its first write fails with `EPIPE` — deterministically, whatever the load. Each must exit
//! with its normal code, print no panic, and say nothing about the closed pipe.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::process::Stdio;

use common::Sandbox;

/// Runs `shellgate ARGS` in the sandbox's project `home/proj` with trust file `trust.toml`,
/// `input` on standard input and standard output a pipe with no reader; returns the exit code
/// and standard error.
fn run_closed(env: &Sandbox, args: &[&str], input: &[u8]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command = env.shellgate(args);
    command
        .current_dir(env.path("home/proj"))
        .env("SHELLGATE_TRUST", env.path("trust.toml"))
        .stdout(Stdio::from(writer));
    // A subcommand that does not read its input may exit first.
    let output = common::run(&mut command, input);
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Runs each case and checks its exit code and that standard error holds no panic and no
/// complaint about the pipe.
fn check(env: &Sandbox, cases: &[(&[&str], &[u8], i32)]) {
    for (args, input, code) in cases {
        let (got, stderr) = run_closed(env, args, input);
        assert_eq!(got, Some(*code), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(!stderr.contains("standard output"), "{args:?}: {stderr}");
    }
}

#[test]
fn parse_eval_and_explain_keep_their_exit_codes() {
    let env = Sandbox::new(&["home/proj"]);
    check(
        &env,
        &[
            (&["parse", "--", "ls", "-la"], b"", 0),
            (&["parse", "--json", "--", "echo 'open"], b"", 2),
            (&["parse", "-"], b"git status | head", 0),
            (&["eval", "--", "git", "status"], b"", 0),
            (&["eval", "--json", "--", "git push origin main"], b"", 2),
            (&["eval", "--", "rm -rf /"], b"", 3),
            (&["eval", "--", "-"], b"npm publish", 2),
            (&["explain", "--", "git status"], b"", 0),
            (&["explain", "--", "rm -rf ~"], b"", 3),
        ],
    );
}

#[test]
fn check_and_test_keep_their_exit_codes() {
    let env = Sandbox::new(&["home/proj"]);
    let good = env.write(
        "good.toml",
        "version = 1\n\n[[test]]\nname = \"status is silent\"\ncommand = \"git status\"\nexpect = \"Approved\"\n",
    );
    let failing = env.write(
        "failing.toml",
        "version = 1\n\n[[test]]\nname = \"wrong\"\ncommand = \"git status\"\nexpect = \"HardDenied\"\n",
    );
    check(
        &env,
        &[
            (&["check", &good], b"", 0),
            (&["check", "--json", &good], b"", 0),
            (&["check", "--json", &failing, "--layer", "nope"], b"", 1),
            (&["test", &good], b"", 0),
            (&["test", &failing], b"", 1),
        ],
    );
}

#[test]
fn approvals_keep_their_exit_codes() {
    let env = Sandbox::new(&["home/proj"]);
    check(
        &env,
        &[
            (&["approvals", "list"], b"", 0),
            (&["approvals", "trust-verb", "cargo build *"], b"", 0),
            (&["approvals", "list", "--json"], b"", 0),
            (&["approvals", "trust-zone", "/srv/data/out"], b"", 0),
            (
                &["approvals", "revoke", "--pattern", "cargo build *"],
                b"",
                0,
            ),
        ],
    );
    // The grants were saved although nothing could be printed.
    let text = std::fs::read_to_string(env.path("trust.toml")).unwrap();
    assert!(text.contains("/srv/data/out"), "{text}");
    assert!(!text.contains("cargo build"), "{text}");
}

#[test]
fn audit_ends_quietly_when_its_reader_goes() {
    let env = Sandbox::new(&["home/proj"]);
    let log: String = (0..200)
        .map(|i| format!("git status\ncargo build --bin b{i}\nrm -rf /\n"))
        .collect();
    let file = env.write("log.txt", &log);
    check(
        &env,
        &[
            (&["audit", &file], b"", 0),
            (&["audit", "--json", &file], b"", 0),
            (&["audit", "--decisions", "-", &file], b"", 0),
            (&["audit", "--decisions", "-", "-"], log.as_bytes(), 0),
        ],
    );
}

#[test]
fn hook_always_exits_0() {
    let env = Sandbox::new(&["home/proj"]);
    let payload = br#"{"hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"git status"}}"#;
    // The deadline is not under test (a late answer would be logged by nobody).
    let slow = ["--deadline-ms", "600000"];
    check(
        &env,
        &[
            (&["hook", "claude-code", slow[0], slow[1]], payload, 0),
            (&["hook", "codex", slow[0], slow[1]], payload, 0),
            (&["hook", "gemini", slow[0], slow[1]], b"not json", 0),
        ],
    );
    // The decision was still logged.
    let log = std::fs::read_to_string(env.path("state/shellgate/audit.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
}

/// Help and version go to standard output too.
#[test]
fn help_and_version_exit_0() {
    let env = Sandbox::new(&["home/proj"]);
    check(
        &env,
        &[
            (&["--help"], b"", 0),
            (&["--version"], b"", 0),
            (&["eval", "--help"], b"", 0),
        ],
    );
}
