//! The command-line habits of issue 14 through the binary: `explain --json`, `test --json`,
//! `completions`, `--color` and `NO_COLOR`, `policy show` and `policy path`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::process::{Command, Output};

use serde_json::{Value, json};

/// `shellgate ARGS` with a fixed home and no colour variables from the caller.
fn shellgate(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shellgate"));
    command
        .args(args)
        .env("HOME", "/home/u")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("SHELLGATE_TRUST")
        .env_remove("SHELLGATE_AUDIT_LOG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME");
    command
}

fn run(args: &[&str]) -> Output {
    shellgate(args).output().unwrap()
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap()
}

const WHERE: [&str; 8] = [
    "--home",
    "/home/u",
    "--cwd",
    "/home/u/proj",
    "--project",
    "/home/u/proj",
    "--trust",
    "/nonexistent/trust.toml",
];

#[test]
fn explain_json_is_the_graph_and_the_evaluation() {
    let command = "git status && rm -rf ~";
    let mut args = vec!["explain", "--json"];
    args.extend(WHERE);
    args.extend(["--", command]);
    let explained = run(&args);
    assert_eq!(explained.status.code(), Some(3));
    let value = json_of(&explained);
    assert_eq!(value["command"], json!(command));
    assert_eq!(
        value["where"],
        json!({"audience": "personal", "cwd": "/home/u/proj", "project": "/home/u/proj",
               "session": null, "home": "/home/u"})
    );
    let parsed = run(&[
        "parse",
        "--json",
        "--cwd",
        "/home/u/proj",
        "--home",
        "/home/u",
        "--",
        command,
    ]);
    assert_eq!(value["parse"], json_of(&parsed));
    let mut eval = vec!["eval", "--json"];
    eval.extend(WHERE);
    eval.extend(["--", command]);
    let evaluated = json_of(&run(&eval));
    assert_eq!(value["evaluation"], evaluated);
    assert_eq!(value["evaluation"]["decision"], json!("HardDenied"));
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["command", "where", "parse", "evaluation"]);
}

#[test]
fn test_json_lists_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("team.toml");
    std::fs::write(
        &file,
        "version = 1\n\n[[test]]\nname = \"status is silent\"\ncommand = \"git status\"\nexpect = \"Approved\"\n\n\
         [[test]]\nname = \"wrong on purpose\"\ncommand = \"rm -rf ~\"\nexpect = \"Approved\"\n",
    )
    .unwrap();
    let output = run(&["test", "--json", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let value = json_of(&output);
    let path = file.display();
    assert_eq!(value["passed"], json!(1));
    assert_eq!(value["failed"], json!(1));
    assert_eq!(
        value["cases"][0],
        json!({"name": "status is silent", "location": format!("{path}:3:1"),
               "command": "git status", "passed": true, "expected": "Approved",
               "actual": "Approved", "message": ""})
    );
    let failed = &value["cases"][1];
    assert_eq!(failed["passed"], json!(false));
    assert_eq!(failed["actual"], json!("HardDenied"));
    assert_eq!(failed["location"], json!(format!("{path}:8:1")));
}

#[test]
fn completions_for_each_shell_know_the_new_commands() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(output.stdout).unwrap();
        for word in ["install", "doctor", "completions", "uninstall"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(1));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let first_line = |output: Output| {
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_owned()
    };
    let red = "\u{1b}[1m\u{1b}[31mHardDenied\u{1b}[0m";
    assert_eq!(
        first_line(run(&["eval", "--color", "always", "--", "rm -rf /"])),
        red
    );
    // `--color` is global: it may come after the subcommand too.
    assert_eq!(
        first_line(run(&["--color=always", "eval", "--", "rm -rf /"])),
        red
    );
    // Not a terminal: plain, unless forced.
    assert_eq!(first_line(run(&["eval", "--", "rm -rf /"])), "HardDenied");
    let forced = shellgate(&["eval", "--", "rm -rf /"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert_eq!(first_line(forced), red);
    let no_color = shellgate(&["eval", "--", "rm -rf /"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(first_line(no_color), "HardDenied");
    assert_eq!(
        first_line(run(&["eval", "--color", "never", "--", "rm -rf /"])),
        "HardDenied"
    );
    // `eval --json` is never coloured.
    let json = run(&["eval", "--json", "--color", "always", "--", "rm -rf /"]);
    assert_eq!(json_of(&json)["decision"], json!("HardDenied"));
}

#[test]
fn policy_show_prints_the_embedded_default() {
    let output = run(&["policy", "show"]);
    assert_eq!(output.status.code(), Some(0));
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/policies/default.toml"
    ))
    .unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), source);
}

#[test]
fn policy_path_names_each_layer_and_the_trust_file() {
    let output = run(&["policy", "path", "--policy", "team.toml"]);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "default:   embedded in this program (`shellgate policy show` prints it)\n\
         user:      `team.toml`\n\
         trust:     `/home/u/.config/shellgate/trust.toml` (does not exist yet)\n\
         audit log: `/home/u/.local/state/shellgate/audit.jsonl` (the hook's default)\n"
    );
    let output = run(&["policy", "path", "--json", "--trust", "/t/trust.toml"]);
    assert_eq!(
        json_of(&output),
        json!({"default": null, "user": [], "trust": "/t/trust.toml", "trust_exists": false,
               "audit_log": "/home/u/.local/state/shellgate/audit.jsonl"})
    );
}
