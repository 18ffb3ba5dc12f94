//! `shellgate eval`, `explain` and `test`: the `--json` contract, exit codes, options.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::trust_file;

/// Runs the binary with a fixed home and an empty trust file location; returns (exit code,
/// stdout, stderr).
fn run(args: &[&str], trust: &Path, stdin: Option<&str>) -> (i32, String, String) {
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    run_bytes(&args, trust, stdin.unwrap_or_default().as_bytes())
}

fn eval(extra: &[&str], command: &str, trust: &Path) -> (i32, Value) {
    let mut args = vec!["eval", "--json", "--cwd", "/home/u/proj"];
    args.extend_from_slice(extra);
    args.push("--");
    args.push(command);
    let (code, stdout, stderr) = run(&args, trust, None);
    let value: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?} {stderr}"));
    (code, value)
}

/// `eval --json COMMAND` with no grants, checking that it exits with `decision`'s exit code
/// (0 `Approved`, 2 `NeedsPrompt`, 3 `HardDenied`) and that the JSON says `decision`.
fn eval_decided(command: &str, decision: &str) -> Value {
    let (_dir, trust) = trust_file();
    let (code, value) = eval(&[], command, &trust);
    let expected = match decision {
        "Approved" => 0,
        "NeedsPrompt" => 2,
        "HardDenied" => 3,
        other => panic!("not a decision: {other}"),
    };
    assert_eq!(
        (code, value["decision"].as_str()),
        (expected, Some(decision)),
        "{value}"
    );
    value
}

#[test]
fn approved_json_is_exact() {
    let value = eval_decided("echo hi", "Approved");
    assert_eq!(
        value,
        json!({
            "decision": "Approved",
            "clauses": [{
                "verb": ["echo", "hi"],
                "argv": ["echo", "hi"],
                "origin": "top",
                "decision": "Approved",
                "reasons": [{"kind": "pure", "rule": null, "message": "a pure side-effect verb"}]
            }],
            "hard_deny": [],
            "prompt": null
        })
    );
}

#[test]
fn needs_prompt_json_has_one_prompt() {
    // The copy's only unmet need is a write outside every zone: the prompt offers the path,
    // not a pattern; the push needs a pattern.
    let value = eval_decided("cp /etc/hosts /srv/backup/hosts && git push", "NeedsPrompt");
    assert_eq!(value["hard_deny"], json!([]));
    assert_eq!(
        value["prompt"],
        json!({
            "paths": [{"path": "/srv/backup/hosts", "access": "write"}],
            "hosts": [],
            "clauses": [{"text": "git push", "pattern": "git push *"}],
            "persistable": true,
            "display": "cp /etc/hosts /srv/backup/hosts && git push"
        })
    );
    let clause = &value["clauses"][0];
    assert_eq!(
        clause["argv"],
        json!(["cp", "/etc/hosts", "/srv/backup/hosts"])
    );
    assert_eq!(clause["decision"], "NeedsPrompt");
    let kinds: Vec<&str> = clause["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["zone", "zone", "path", "safe"]);
    assert_eq!(
        clause["reasons"][2],
        json!({"kind": "path", "rule": null, "message": "write of `/srv/backup/hosts` is outside every write zone"})
    );
}

#[test]
fn hard_denied_json_lists_the_rule_and_exits_3() {
    let value = eval_decided("ls; rm -rf /", "HardDenied");
    assert_eq!(value["prompt"], Value::Null);
    let hits = value["hard_deny"].as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["rule"], "rm-recursive-root");
    assert_eq!(hits[0]["category"], "destructive");
    assert_eq!(value["clauses"][1]["reasons"][0]["kind"], "hard_deny");
    assert_eq!(
        value["clauses"][1]["reasons"][0]["rule"],
        "rm-recursive-root"
    );
}

#[test]
fn zone_allow_and_read_zone_options_are_session_grants() {
    let (_dir, trust) = trust_file();
    let command = "cp /etc/hosts /srv/backup/hosts";
    assert_eq!(eval(&[], command, &trust).0, 2);
    let team = [
        "--audience",
        "team",
        "--zone",
        "/srv/backup",
        "--allow",
        "cp *",
    ];
    let approving: [&[&str]; 2] = [
        &["--zone", "/srv/backup", "--allow", "cp /etc/hosts *"],
        &[&team[..], &["--read-zone", "/etc"]].concat(),
    ];
    for extra in approving {
        let (code, value) = eval(extra, command, &trust);
        assert_eq!(
            (code, value["decision"].as_str()),
            (0, Some("Approved")),
            "{extra:?}"
        );
    }
    let (code, value) = eval(&team, command, &trust);
    assert_eq!(code, 2);
    assert_eq!(
        value["prompt"]["paths"],
        json!([{"path": "/etc/hosts", "access": "read"}])
    );
}

#[test]
fn the_trust_file_is_loaded_for_the_audience() {
    let (_dir, trust) = trust_file();
    std::fs::write(
        &trust,
        "version = 1\n\n[audience.personal]\nzones = [{ path = \"/srv/backup\", access = \"write\" }]\npatterns = [\"shopctl export *\"]\n",
    )
    .unwrap();
    // `shopctl` is a program the policy does not know: it needs the saved pattern, and its
    // path operand (a possible write) needs the saved zone.
    let (code, value) = eval(&[], "shopctl export /srv/backup/db.json", &trust);
    assert_eq!(
        (code, value["decision"].as_str()),
        (0, Some("Approved")),
        "{value}"
    );
    assert_eq!(
        value["clauses"][0]["reasons"],
        json!([
            {"kind": "zone", "rule": "all", "message": "read of `/home/u/proj`: every path may be read (profile)"},
            {"kind": "zone", "rule": "/srv/backup", "message": "possible write of `/srv/backup/db.json` is inside the write zone `/srv/backup` (store)"},
            {"kind": "pattern", "rule": "shopctl export *", "message": "approved pattern (store)"},
        ])
    );
    // Another audience's grants do not apply.
    let (code, _) = eval(
        &["--audience", "team"],
        "shopctl export /srv/backup/db.json",
        &trust,
    );
    assert_eq!(code, 2);
}

#[test]
fn the_command_can_come_from_standard_input() {
    let (_dir, trust) = trust_file();
    let (code, stdout, _) = run(
        &["eval", "--json", "--cwd", "/home/u/proj", "--", "-"],
        &trust,
        Some("make\nmake install\n"),
    );
    assert_eq!(code, 2);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["prompt"]["display"], "make\\nmake install");
}

#[test]
fn usage_errors_exit_1_with_help() {
    let (_dir, trust) = trust_file();
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["eval", "--audience", "personl", "--", "ls"],
            &["unknown audience `personl`", "did you mean `personal`?"],
        ),
        (
            &["eval", "--allow", "git push", "--", "ls"],
            &["`git push` has no trailing argument glob"],
        ),
        (
            &["eval", "--policy", "/nonexistent/p.toml", "--", "ls"],
            &["cannot read `/nonexistent/p.toml`"],
        ),
    ];
    for (args, messages) in cases {
        let (code, stdout, stderr) = run(args, &trust, None);
        assert_eq!((code, stdout.as_str()), (1, ""), "{args:?}");
        for message in messages {
            assert!(stderr.contains(message), "{stderr}");
        }
    }
}

#[test]
fn readable_eval_output() {
    let (_dir, trust) = trust_file();
    let (code, stdout, _) = run(
        &["eval", "--cwd", "/home/u/proj", "--", "make deploy"],
        &trust,
        None,
    );
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        "NeedsPrompt\n\
         - NeedsPrompt make deploy [top]\n    \
         zone `all`: read of `/home/u/proj`: every path may be read (profile)\n    \
         unsafe: `deploy`: a task, script or target that deploys, publishes or releases (`settings.release_names`)\n    \
         verb: not approved; it can only be saved as the exact command `make deploy *`\n\
         prompt: make deploy\n  \
         run make deploy (pattern `make deploy *`)\n  \
         choices: once, session, always, deny\n"
    );
}

#[test]
fn explain_shows_the_graph_and_what_decided() {
    let (_dir, trust) = trust_file();
    let (code, stdout, _) = run(
        &[
            "explain",
            "--cwd",
            "/home/u/proj",
            "--allow",
            "make deploy *",
            "--",
            "cd build && make deploy | tee log",
        ],
        &trust,
        None,
    );
    assert_eq!(code, 0, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "command: cd build && make deploy | tee log");
    assert_eq!(
        lines[1],
        "where: audience `personal`, cwd `/home/u/proj`, project `/home/u/proj`, session `none`, home `/home/u`"
    );
    assert_eq!(lines[2], "policy: default policies/default.toml");
    assert_eq!(lines[3], "parse: complete, 3 clause(s)");
    assert_eq!(
        lines[4],
        "  clause 0 [top] cd build  (verb: cd build; cwd: /home/u/proj)"
    );
    assert!(
        stdout.contains(
            "  clause 1 [pipeline, after `&&`] make deploy  (verb: make deploy; cwd: /home/u/proj/build)\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("      pattern `make deploy *`: approved pattern (session)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("      zone `/home/u/proj`: write of `/home/u/proj/build/log` is inside the write zone `/home/u/proj` (profile)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("      safe: confined writer: creates, copies, moves, links or truncates the files it names\n"),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"decision: Approved"));
}

#[test]
fn test_runs_the_default_cases_and_a_layer() {
    let (dir, trust) = trust_file();
    let (code, stdout, _) = run(&["test"], &trust, None);
    assert_eq!(code, 0, "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    let layer = dir.write(
        "mine.toml",
        "version = 1\n\n[[test]]\nname = \"a push is asked\"\ncommand = \"git push\"\nexpect = \"NeedsPrompt\"\n\n\
         [[test]]\nname = \"a wrong expectation\"\ncommand = \"git status\"\nexpect = \"HardDenied\"\n",
    );
    let (code, stdout, _) = run(&["test", &layer], &trust, None);
    assert_eq!(code, 1);
    let name = &layer;
    assert_eq!(
        stdout,
        format!(
            "pass  a push is asked\n\
             FAIL  a wrong expectation ({name}:8:1): expected HardDenied, got Approved\n      \
             command: git status\n\
             1 passed, 1 failed\n"
        )
    );
}

/// Runs the binary with `args` given as raw bytes (which need not be UTF-8).
fn run_bytes(args: &[&[u8]], trust: &Path, stdin: &[u8]) -> (i32, String, String) {
    use std::os::unix::ffi::OsStrExt as _;
    let mut command = Command::new(env!("CARGO_BIN_EXE_shellgate"));
    command
        .args(args.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
        .env_remove("XDG_CONFIG_HOME")
        .env("HOME", "/home/u")
        .env("SHELLGATE_TRUST", trust)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    common::outcome(common::run(&mut command, stdin))
}

/// Regression (issue 13): a command that is not UTF-8 was a usage error (exit 1); it needs a
/// person (exit 2), with its bytes shown escaped — as an argument or on standard input.
#[test]
fn regression_a_command_that_is_not_utf8_needs_a_person() {
    let (_dir, trust) = trust_file();
    let base: [&[u8]; 5] = [b"eval", b"--json", b"--cwd", b"/home/u/proj", b"--"];
    let mut args = base.to_vec();
    args.push(b"ls \xff\xfe");
    let (code, stdout, stderr) = run_bytes(&args, &trust, b"");
    assert_eq!(code, 2, "{stderr}");
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["decision"], "NeedsPrompt");
    assert_eq!(
        value["prompt"],
        json!({"paths": [], "hosts": [], "clauses": [{"text": "ls \\xff\\xfe", "pattern": null}],
               "persistable": false, "display": "ls \\xff\\xfe"})
    );
    assert_eq!(
        value["clauses"][1],
        json!({"verb": [], "argv": [], "origin": "parse", "decision": "NeedsPrompt",
               "reasons": [{"kind": "incomplete", "rule": null, "message": "the command is not valid UTF-8 (byte 0xff at offset 3): it was judged with each invalid byte replaced, and a person decides"}]})
    );
    // From standard input, and denied commands stay denied.
    let mut args = base.to_vec();
    args.push(b"-");
    let (code, stdout, _) = run_bytes(&args, &trust, b"rm -rf / \xc3\n");
    assert_eq!(code, 3);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["hard_deny"][0]["rule"], "rm-recursive-root");
    // `explain` shows the bytes escaped.
    let (code, stdout, _) = run_bytes(
        &[b"explain", b"--cwd", b"/home/u/proj", b"--", b"cat a\xfeb"],
        &trust,
        b"",
    );
    assert_eq!(code, 2);
    assert!(stdout.starts_with("command: cat a\\xfeb\n"), "{stdout}");
    assert!(stdout.contains("\ndecision: NeedsPrompt\nprompt: cat a\\xfeb\n  run cat a\\xfeb (cannot be saved)\n  choices: once, deny\n"), "{stdout}");
    // `parse` calls it an incomplete parse (exit 2).
    let (code, stdout, _) = run_bytes(&[b"parse", b"--json", b"--", b"ls \xff"], &trust, b"");
    assert_eq!(code, 2);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["complete"], false);
    assert_eq!(
        value["reason"],
        "the command is not valid UTF-8 (byte 0xff)"
    );
}

/// Regression (issue 13): `eval` approved an empty command while `hook` asked. Both need a
/// person now: the command was most likely lost on the way.
#[test]
fn regression_an_empty_command_needs_a_person_as_in_the_hook() {
    let (_dir, trust) = trust_file();
    for command in ["", "  ", "\n\t"] {
        let (code, value) = eval(&[], command, &trust);
        assert_eq!(code, 2, "{command:?}");
        assert_eq!(
            value,
            json!({"decision": "NeedsPrompt",
                   "clauses": [{"verb": [], "argv": [], "origin": "parse", "decision": "NeedsPrompt",
                                "reasons": [{"kind": "incomplete", "rule": null, "message": "the command is empty: there is nothing to judge, so a person decides"}]}],
                   "hard_deny": [],
                   "prompt": {"paths": [], "hosts": [], "clauses": [{"text": "(an empty command)", "pattern": null}],
                              "persistable": false,
                              "display": command.replace('\n', "\\n").replace('\t', "\\t")}}),
            "{command:?}"
        );
    }
    // A comment alone runs nothing and is not empty.
    assert_eq!(eval(&[], "# nothing to do", &trust).0, 0);
}

/// A plain read of another host proposes the host in `--json` (not the command), and
/// `--allow-host` grants it for the session.
#[test]
fn a_host_read_proposes_the_host_and_allow_host_grants_it() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .args(["eval", "--json", "--trust", "/nonexistent/trust.toml"])
            .args(["--cwd", "/home/u/proj", "--home", "/home/u"])
            .args(extra)
            .args(["--", "curl -s https://api.github.com/repos/x"])
            .output()
            .unwrap();
        let value: Value = if out.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&out.stdout).unwrap()
        };
        (out.status.code(), value)
    };
    let (code, value) = run(&[]);
    assert_eq!(code, Some(2));
    assert_eq!(
        value["prompt"],
        json!({"paths": [], "hosts": ["api.github.com"], "clauses": [],
               "persistable": true, "display": "curl -s https://api.github.com/repos/x"})
    );
    let (code, value) = run(&["--allow-host", "*.github.com"]);
    assert_eq!(code, Some(0));
    assert_eq!(value["prompt"], Value::Null);
    assert_eq!(
        run(&["--allow-host", "*.com"]),
        (Some(1), Value::Null),
        "a refused host grant is a usage error"
    );
}
