//! `shellgate install` through the binary: for each agent, into a new settings file twice (the
//! second run changes nothing), into one that already has other keys and hooks (merged JSON
//! checked exactly, a backup of the old file), `--uninstall` back to the original, `--dry-run`,
//! the default user-level file under `$HOME`, and a file it must not touch.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use common::{EXE, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `shellgate install ARGS` with `home` as `$HOME` and a `PATH` without shellgate on it (so the
/// hook runs this binary by its full path).
fn install(home: &Path, args: &[&str]) -> Output {
    Command::new(EXE)
        .arg("install")
        .args(args)
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap()
}

/// A new directory (the home) and the path of the settings file `name` in it (not written).
fn settings_file(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    (dir, file)
}

/// `install`, asserting it exits 0.
fn install_ok(home: &Path, args: &[&str]) -> Output {
    let output = install(home, args);
    assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
    output
}

/// The hook command `install` writes for `agent` in these tests.
fn hook(agent: &str) -> String {
    format!("{EXE} hook {agent}")
}

/// (agent, event, matcher, timeout) as each agent reads them.
const AGENTS: [(&str, &str, &str, u64); 3] = [
    ("claude-code", "PreToolUse", "Bash", 10),
    ("codex", "PreToolUse", "Bash", 10),
    ("gemini", "BeforeTool", "run_shell_command", 10_000),
];

#[test]
fn installs_into_a_new_file_once() {
    for (agent, event, matcher, timeout) in AGENTS {
        let (dir, file) = settings_file("nested/settings.json");
        let path = file.to_str().unwrap();
        let first = install_ok(dir.path(), &[agent, "--file", path]);
        let expected = format!(
            "{{\n  \"hooks\": {{\n    \"{event}\": [\n      {{\n        \"matcher\": \"{matcher}\",\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"{}\",\n            \"timeout\": {timeout}\n          }}\n        ]\n      }}\n    ]\n  }}\n}}\n",
            hook(agent)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), expected, "{agent}");
        assert!(
            stdout(&first).starts_with(&format!("installed the {agent} hook in `{path}`\n")),
            "{agent}: {}",
            stdout(&first)
        );
        // A new file gets no backup, and is readable by its owner only.
        assert!(!stdout(&first).contains("backup"), "{agent}");
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let second = install_ok(dir.path(), &[agent, "--file", path]);
        assert_eq!(
            stdout(&second),
            format!(
                "the {agent} hook is already in `{path}` (`{}`); nothing changed\n",
                hook(agent)
            )
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), expected, "{agent}");
        let entries: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            entries,
            ["settings.json"],
            "{agent}: no backup, no leftovers"
        );
    }
}

/// A settings file with other keys (in an order that is not alphabetical) and other hooks,
/// both for the agent's event and another.
fn existing(event: &str, matcher: &str) -> String {
    format!(
        "{{\n  \"model\": \"opus\",\n  \"hooks\": {{\n    \"{event}\": [\n      {{\n        \"matcher\": \"{matcher}\",\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"~/bin/log-command.sh\"\n          }}\n        ]\n      }}\n    ],\n    \"Stop\": [\n      {{\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }}\n        ]\n      }}\n    ]\n  }},\n  \"env\": {{\n    \"Z\": \"1\",\n    \"A\": \"2\"\n  }}\n}}\n"
    )
}

#[test]
fn merges_into_a_file_with_other_hooks_and_uninstalls_back() {
    for (agent, event, matcher, timeout) in AGENTS {
        let (dir, file) = settings_file("settings.json");
        let path = file.to_str().unwrap();
        let original = existing(event, matcher);
        std::fs::write(&file, &original).unwrap();
        let output = install_ok(dir.path(), &[agent, "--file", path]);
        let merged = format!(
            "{{\n  \"model\": \"opus\",\n  \"hooks\": {{\n    \"{event}\": [\n      {{\n        \"matcher\": \"{matcher}\",\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"~/bin/log-command.sh\"\n          }}\n        ]\n      }},\n      {{\n        \"matcher\": \"{matcher}\",\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"{}\",\n            \"timeout\": {timeout}\n          }}\n        ]\n      }}\n    ],\n    \"Stop\": [\n      {{\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }}\n        ]\n      }}\n    ]\n  }},\n  \"env\": {{\n    \"Z\": \"1\",\n    \"A\": \"2\"\n  }}\n}}\n",
            hook(agent)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), merged, "{agent}");
        let backup = format!("{path}.shellgate-backup");
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
        let text = stdout(&output);
        assert!(
            text.contains(&format!("+            \"command\": \"{}\",\n", hook(agent)))
                && text.ends_with(&format!("backup of the old file: `{backup}`\n")),
            "{agent}: {text}"
        );
        let again = install(dir.path(), &[agent, "--file", path]);
        assert!(stdout(&again).ends_with("nothing changed\n"), "{agent}");
        let removed = install_ok(dir.path(), &[agent, "--file", path, "--uninstall"]);
        assert!(
            stdout(&removed).starts_with(&format!("removed the {agent} hook from `{path}`\n")),
            "{agent}: {}",
            stdout(&removed)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original, "{agent}");
        // The second backup does not overwrite the first.
        assert_eq!(
            std::fs::read_to_string(format!("{backup}.1")).unwrap(),
            merged
        );
        let none = install(dir.path(), &[agent, "--file", path, "--uninstall"]);
        assert_eq!(
            stdout(&none),
            format!("no shellgate hook for {agent} in `{path}`; nothing changed\n")
        );
    }
}

#[test]
fn uninstall_of_the_only_hook_removes_what_install_added() {
    let (dir, file) = settings_file("settings.json");
    let path = file.to_str().unwrap();
    std::fs::write(&file, "{\"theme\": \"dark\"}").unwrap();
    install(dir.path(), &["gemini", "--file", path]);
    install(dir.path(), &["gemini", "--file", path, "--uninstall"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"theme\": \"dark\"\n}\n"
    );
}

#[test]
fn keeps_a_customised_hook_and_hooks_of_other_agents() {
    let (dir, file) = settings_file("settings.json");
    let path = file.to_str().unwrap();
    let original = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/shellgate hook claude-code --policy team.toml"}]}]}}"#;
    std::fs::write(&file, original).unwrap();
    let output = install(dir.path(), &["claude-code", "--file", path]);
    assert_eq!(
        stdout(&output),
        format!(
            "the claude-code hook is already in `{path}` (`/opt/shellgate hook claude-code --policy team.toml`); nothing changed\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    // Codex's hook is another entry in the same layout.
    let codex = install_ok(dir.path(), &["codex", "--file", path, "--dry-run"]);
    assert!(stdout(&codex).starts_with(&format!("would install the codex hook in `{path}`\n")));
    assert!(stdout(&codex).ends_with("dry run: nothing was written\n"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
}

#[test]
fn default_file_is_the_agents_user_settings() {
    let dir = tempfile::tempdir().unwrap();
    for (agent, file) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
    ] {
        install_ok(dir.path(), &[agent, "--program", "shellgate"]);
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            text.contains(&format!("\"command\": \"shellgate hook {agent}\"")),
            "{agent}: {text}"
        );
    }
}

#[test]
fn refuses_a_file_it_cannot_read_as_settings() {
    let (dir, file) = settings_file("settings.json");
    let path = file.to_str().unwrap();
    for (text, error) in [
        (
            "{\"hooks\": ",
            "the settings file is not valid JSON: EOF while parsing a value at line 1 column 10",
        ),
        (
            "{\"hooks\": []}",
            "`hooks` in the settings file is not an object",
        ),
        (
            "{\"hooks\": {\"PreToolUse\": {}}}",
            "`hooks.PreToolUse` in the settings file is not a list",
        ),
    ] {
        std::fs::write(&file, text).unwrap();
        let output = install(dir.path(), &["claude-code", "--file", path]);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            String::from_utf8(output.stderr).unwrap(),
            format!(
                "error: `{path}`: {error}\n  help: fix the file by hand, or name another one with --file; nothing was written\n"
            )
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
}

#[test]
fn a_backup_name_taken_by_a_dangling_link_is_skipped_never_followed() {
    // A repository can commit `settings.json.shellgate-backup -> ../../.bash_profile`.
    let (home, file) = settings_file("settings.json");
    std::fs::write(&file, "{\"x\": \"$(touch pwned)\"}\n").unwrap();
    let target = home.path().join("dot_bash_profile");
    std::os::unix::fs::symlink(&target, home.path().join("settings.json.shellgate-backup"))
        .unwrap();
    install_ok(
        home.path(),
        &["claude-code", "--file", file.to_str().unwrap()],
    );
    assert!(!target.exists(), "the backup went through the link");
    let backup = home.path().join("settings.json.shellgate-backup.1");
    assert_eq!(
        std::fs::read_to_string(backup).unwrap(),
        "{\"x\": \"$(touch pwned)\"}\n"
    );
}
