//! This program and the agents it serves, as the other subcommands name them: the agent of an
//! `AGENT` argument, where `shellgate` is on `PATH`, and the program an installed hook runs.

use std::path::{Path, PathBuf};

use shellgate::hook::{Agent, shell_quote};

/// The agent of an `AGENT` argument (clap has checked the name already).
pub fn agent_named(name: &str) -> Agent {
    Agent::ALL
        .into_iter()
        .find(|agent| agent.name() == name)
        .unwrap_or(Agent::ClaudeCode)
}

/// An environment variable as a path, when set and not empty.
pub fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// The first executable file named `name` in a directory of `$PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Whether two paths name the same file (after resolving links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The program an installed hook runs: `shellgate` when the `shellgate` on `PATH` is this
/// program, else this program's absolute path (shell-quoted), so the hook runs this build
/// whatever the agent's `PATH` is.
pub fn hook_program() -> String {
    let current = std::env::current_exe().ok();
    match (&current, find_on_path("shellgate")) {
        (Some(current), Some(found)) if same_file(current, &found) => "shellgate".to_owned(),
        (Some(current), _) => shell_quote(&current.display().to_string()),
        (None, _) => "shellgate".to_owned(),
    }
}
