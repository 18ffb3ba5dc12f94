//! The harness the integration tests share: a private sandbox (home, configuration and state
//! directories, files written into it), the `shellgate` binary run inside it with nothing of
//! the caller's environment pointing it at a real trust file, audit log or project, and agent
//! hook payloads.
//!
//! A test file uses it with `mod common;`; each uses the part it needs.

#![allow(
    dead_code,
    reason = "each test binary uses only the part of the harness it needs"
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The `shellgate` binary under test.
pub const EXE: &str = env!("CARGO_BIN_EXE_shellgate");

/// A private temporary directory standing in for a user's home and state.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// A sandbox with the directories `dirs` (relative, created with their parents).
    pub fn new(dirs: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in dirs {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Self { dir }
    }

    /// The sandbox directory itself.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `name` inside the sandbox.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `text` to `name` inside the sandbox; returns the path as text.
    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// `shellgate ARGS` with the sandbox's `home`, `config` and `state` as `HOME`,
    /// `XDG_CONFIG_HOME` and `XDG_STATE_HOME`, no `SHELLGATE_TRUST`, `SHELLGATE_AUDIT_LOG` or
    /// agent project directory from the caller, and every standard stream piped.
    pub fn shellgate(&self, args: &[&str]) -> Command {
        let mut command = Command::new(EXE);
        command
            .args(args)
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env_remove("SHELLGATE_TRUST")
            .env_remove("SHELLGATE_AUDIT_LOG")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// Spawns `command`, writes `input` to its standard input and waits for it. A command that
/// exits without reading (a usage error) closes the pipe early: that write may fail.
pub fn run(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

/// A Claude Code `PreToolUse` payload asking to run `command` with Bash in `cwd`.
pub fn claude_bash(cwd: &str, command: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

/// A sandbox and the path of a trust file in it that does not exist yet.
pub fn trust_file() -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new(&[]);
    let path = sandbox.path("trust.toml");
    (sandbox, path)
}

/// A finished command's exit code, standard output and standard error (as text).
pub fn outcome(output: Output) -> (i32, String, String) {
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// A finished command's standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}
