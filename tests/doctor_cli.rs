//! `shellgate doctor` through the binary, on a good setup (every agent's hook installed and
//! answering allow, ask and deny as it should) and a broken one (a policy that does not load,
//! a hook program that does not exist, a settings file that is not JSON, an unusable trust
//! file).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use common::EXE;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `shellgate doctor` with `home` as `$HOME`, `project` as the project, and no shellgate on
/// `PATH`.
fn doctor(home: &Path, project: &Path) -> Output {
    Command::new(EXE)
        .args(["doctor", "--project"])
        .arg(project)
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("SHELLGATE_TRUST")
        .env_remove("SHELLGATE_AUDIT_LOG")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap()
}

/// A settings file running `command` as the agent's hook. The hook's deadline is ten minutes:
/// a debug build on a loaded machine may need more than the default two seconds.
fn settings(file: &Path, event: &str, matcher: &str, command: &str) {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let value = serde_json::json!({"hooks": {event: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": format!("{command} --deadline-ms 600000")}]}]}});
    std::fs::write(file, value.to_string()).unwrap();
}

/// A settings file `file` under `home` (Claude Code's, Codex's) running `command` before each
/// Bash call.
fn bash_hook(home: &Path, file: &str, command: &str) {
    settings(&home.join(file), "PreToolUse", "Bash", command);
}

/// Asserts that the report on standard output holds each of `lines`.
fn assert_reports(output: &Output, lines: &[String]) {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    for line in lines {
        assert!(text.contains(line.as_str()), "missing {line:?} in:\n{text}");
    }
}

/// A new directory, and its `home` (not created) and `project` (created) directories.
fn home_and_project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    (dir, home, project)
}

#[test]
fn good_setup_is_all_well() {
    let (_dir, home, project) = home_and_project();
    let h = home.display();
    bash_hook(
        &home,
        ".claude/settings.json",
        &format!("{EXE} hook claude-code"),
    );
    bash_hook(&home, ".codex/hooks.json", &format!("{EXE} hook codex"));
    settings(
        &project.join(".gemini/settings.json"),
        "BeforeTool",
        "run_shell_command",
        &format!("{EXE} hook gemini"),
    );
    let output = doctor(&home, &project);
    let p = project.display();
    let common = |agent: &str| {
        format!(
            "ok    {agent}: policy loads: the embedded default\n\
             ok    {agent}: trust file `{h}/.config/shellgate/trust.toml` does not exist yet (nothing saved)\n\
             ok    {agent}: audit log `{h}/.local/state/shellgate/audit.jsonl` writable\n"
        )
    };
    let expected = format!(
        "note  `shellgate` is not on PATH\n\
         ok    claude-code: hook in `{h}/.claude/settings.json`: `{EXE} hook claude-code --deadline-ms 600000`\n\
         ok    codex: hook in `{h}/.codex/hooks.json`: `{EXE} hook codex --deadline-ms 600000`\n\
         ok    gemini: hook in `{p}/.gemini/settings.json`: `{EXE} hook gemini --deadline-ms 600000`\n\
         {}\
         ok    claude-code: `git status` → allow\n\
         ok    claude-code: `shellgate-doctor-unknown-command --probe` → ask\n\
         ok    claude-code: `rm -rf ~` → deny\n\
         {}\
         ok    codex: `git status` → no opinion (`{{}}`)\n\
         ok    codex: `shellgate-doctor-unknown-command --probe` → deny\n\
         ok    codex: `rm -rf ~` → deny\n\
         {}\
         ok    gemini: `git status` → allow\n\
         ok    gemini: `shellgate-doctor-unknown-command --probe` → ask\n\
         ok    gemini: `rm -rf ~` → deny\n\
         all is well\n",
        common("claude-code"),
        common("codex"),
        common("gemini"),
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn broken_setup_fails_with_each_problem() {
    let (_dir, home, project) = home_and_project();
    std::fs::write(project.join("bad.toml"), "[[deny]]\nid = 1\n").unwrap();
    bash_hook(
        &home,
        ".claude/settings.json",
        &format!("{EXE} hook claude-code --policy bad.toml"),
    );
    bash_hook(
        &home,
        ".codex/hooks.json",
        &format!(
            "/nonexistent/shellgate hook codex --trust {}",
            project.join("trust.toml").display()
        ),
    );
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/settings.json"), "{\"hooks\": ").unwrap();
    std::fs::create_dir_all(home.join(".config/shellgate")).unwrap();
    std::fs::write(home.join(".config/shellgate/trust.toml"), "version = 99\n").unwrap();
    let output = doctor(&home, &project);
    let (h, p) = (home.display(), project.display());
    assert_reports(
        &output,
        &[
        format!(
            "FAIL  gemini: `{h}/.gemini/settings.json`: the settings file is not valid JSON: EOF while parsing a value at line 1 column 10\n"
        ),
        format!(
            "FAIL  claude-code: the policy does not load: {p}/bad.toml:1:1: missing key `category` (add `category = …` to this table); 2 more errors\n"
        ),
        format!(
            "FAIL  claude-code: trust file `{h}/.config/shellgate/trust.toml` is unusable: unknown version `99`; this shellgate reads version 1\n"
        ),
        "note  claude-code: samples skipped: the hook would move the unusable trust file aside\n"
            .to_owned(),
        format!(
            "FAIL  codex: `/nonexistent/shellgate hook codex --trust {p}/trust.toml --deadline-ms 600000` (in `{h}/.codex/hooks.json`) does not answer: cannot run it: No such file or directory (os error 2)\n"
        ),
        "problems found\n".to_owned(),
        ],
    );
    // The unusable trust file was reported, not moved aside.
    assert_eq!(
        std::fs::read_to_string(home.join(".config/shellgate/trust.toml")).unwrap(),
        "version = 99\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_repository_hook_that_is_not_one_plain_shellgate_command_never_runs() {
    // A cloned repository's settings: a program inside the project, and text after `;`.
    let (_dir, home, project) = home_and_project();
    let marker = project.join("PWNED");
    std::fs::write(
        project.join("fake-shellgate"),
        format!("#!/bin/sh\ntouch {}\n", marker.display()),
    )
    .unwrap();
    bash_hook(
        &project,
        ".claude/settings.json",
        &format!(
            "./fake-shellgate hook claude-code; touch {}",
            marker.display()
        ),
    );
    settings(
        &project.join(".codex/hooks.json"),
        "PreToolUse",
        "Bash",
        &format!("{EXE} hook codex; touch {}", marker.display()),
    );
    let output = doctor(&home, &project);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!marker.exists(), "a hook command ran:\n{text}");
    assert!(
        text.contains("is not a valid `shellgate hook` command line"),
        "{text}"
    );
}

#[test]
fn a_hook_the_agent_never_runs_for_its_shell_tool_fails() {
    let (_dir, home, project) = home_and_project();
    settings(
        &home.join(".claude/settings.json"),
        "PreToolUse",
        "bash",
        &format!("{EXE} hook claude-code"),
    );
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        "{\"disableAllHooks\": true}",
    )
    .unwrap();
    let output = doctor(&home, &project);
    let (h, p) = (home.display(), project.display());
    assert_reports(
        &output,
        &[
            format!(
                "FAIL  claude-code: hook in `{h}/.claude/settings.json` never runs for the shell tool: its matcher `bash` does not match the shell tool `Bash` (matchers are case-sensitive): `{EXE} hook claude-code --deadline-ms 600000`\n"
            ),
            format!(
                "FAIL  claude-code: `{p}/.claude/settings.local.json` sets `disableAllHooks`: the agent runs no hooks, shellgate's included\n"
            ),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
}
