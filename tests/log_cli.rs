//! `shellgate log` through the binary: the readable view of an audit log (old records without
//! agent and answer included), filters by time, agent and decision or answer, `--json`, and a
//! line that is not a record.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use common::stdout;
use std::process::{Command, Output};

const OLD: &str = r#"{"timestamp":"2001-01-01T00:00:00.000Z","command":"ls","cwd":"/p","audience":"personal","decision":"Approved","rule_ids":[],"choice":null}"#;
const CODEX: &str = r#"{"timestamp":"2999-01-01T00:00:00.000Z","command":"git push","cwd":"/p","audience":"personal","decision":"NeedsPrompt","rule_ids":[],"choice":null,"agent":"codex","session_id":"s1","answer":"deny","reason":"needs a person to run `git push`"}"#;
const CLAUDE: &str = r#"{"timestamp":"2999-01-01T00:00:01.000Z","command":"rm -rf /\u001b","cwd":"/p","audience":"personal","decision":"HardDenied","rule_ids":["rm-recursive-root"],"choice":null,"agent":"claude-code","answer":"deny","reason":"refused","error":"team.toml:1:1: bad"}"#;

fn log(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("audit.jsonl");
    std::fs::write(&file, format!("{OLD}\nnot json\n{CODEX}\n{CLAUDE}\n")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .arg("log")
        .arg("--audit-log")
        .arg(&file)
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap()
}

#[test]
fn shows_every_record_readably() {
    let output = log(&[]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "2001-01-01T00:00:00.000Z  -  Approved  ls\n\
         2999-01-01T00:00:00.000Z  codex  NeedsPrompt→deny  git push\n    \
         reason: needs a person to run `git push`\n\
         2999-01-01T00:00:01.000Z  claude-code  HardDenied  rm -rf /\\x1b\n    \
         rules: rm-recursive-root\n    reason: refused\n    error: team.toml:1:1: bad\n"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("warning: `") && stderr.contains("` line 2 is not an audit record: "),
        "{stderr}"
    );
}

#[test]
fn filters_by_time_agent_and_decision() {
    let cases: [(&[&str], String); 5] = [
        (&["--since", "2h", "--json"], format!("{CODEX}\n{CLAUDE}\n")),
        (&["--agent", "codex", "--json"], format!("{CODEX}\n")),
        // A decision or the answer sent.
        (
            &["--decision", "deny", "--json"],
            format!("{CODEX}\n{CLAUDE}\n"),
        ),
        (&["--decision", "approved", "--json"], format!("{OLD}\n")),
        (
            &[
                "--since",
                "2998-12-31T23:59:59Z",
                "--agent",
                "claude-code",
                "--json",
            ],
            format!("{CLAUDE}\n"),
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(stdout(&log(args)), expected, "{args:?}");
    }
    let bad = log(&["--since", "yesterday"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(bad.stderr).unwrap(),
        "error: `--since yesterday` is not a duration or a timestamp (write `30s`, `15m`, `2h`, `7d` or `2026-11-23T19:00:00Z`)\n"
    );
}

#[test]
fn follow_prints_records_as_they_are_appended() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("audit.jsonl");
    std::fs::write(&file, format!("{OLD}\n")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .args([
            "log",
            "--follow",
            "--json",
            "--agent",
            "codex",
            "--audit-log",
        ])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut appender = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    // A record written in two parts is printed once, whole; another agent's is filtered out.
    let (head, tail) = CODEX.split_at(40);
    appender
        .write_all(format!("{CLAUDE}\n{head}").as_bytes())
        .unwrap();
    appender.flush().unwrap();
    appender.write_all(format!("{tail}\n").as_bytes()).unwrap();
    let mut line = String::new();
    lines.read_line(&mut line).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(line, format!("{CODEX}\n"));
}

#[test]
fn every_field_of_a_forged_record_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("audit.jsonl");
    let forged = r#"{"timestamp":"2999-01-01T00:00:02.000Z","command":"ls","cwd":"/p","audience":"personal","decision":"NeedsPrompt\n2999 fake","rule_ids":["a\u001b]8;;x"],"choice":null,"agent":"claude-code\u001b[2K\rFAKE"}"#;
    std::fs::write(&file, format!("{forged}\n")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .args(["log", "--audit-log"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "2999-01-01T00:00:02.000Z  claude-code\\x1b[2K\\rFAKE  NeedsPrompt\\n2999 fake  ls\n    rules: a\\x1b]8;;x\n"
    );
}
