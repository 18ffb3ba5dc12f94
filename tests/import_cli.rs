//! `shellgate import claude-settings` (issue 14): a settings file with allow, ask and deny
//! rules of every documented `Bash(…)` form; afterwards `eval` with the imported trust file and
//! policy decides as Claude Code would (allowed → Approved, denied → HardDenied, others →
//! NeedsPrompt), and nothing is widened.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

const SETTINGS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/import/claude_settings.json"
);

struct Dir {
    dir: tempfile::TempDir,
    /// The home directory, beside the working directory: a project directory holding the
    /// home directory is no zone.
    home: tempfile::TempDir,
}

impl Dir {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        Self { dir, home }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env_remove("SHELLGATE_TRUST")
            .output()
            .unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }

    fn import(&self, extra: &[&str]) -> (i32, String, String) {
        self.import_file(SETTINGS, extra)
    }

    /// `import claude-settings FILE` into `trust.toml` and `imported.toml` for `team`.
    fn import_file(&self, settings: &str, extra: &[&str]) -> (i32, String, String) {
        let mut args = vec![
            "import",
            "claude-settings",
            settings,
            "--trust",
            "trust.toml",
            "--policy-out",
            "imported.toml",
            "--audience",
            "team",
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// The first line of `eval` (the decision) with the imported files, in the audience `team`
    /// (no run zones: toolchain commands need a grant).
    fn decide(&self, trust: &str, policy: Option<&str>, command: &str) -> String {
        let mut args = vec!["eval", "--audience", "team", "--trust", trust];
        if let Some(policy) = policy {
            args.extend(["--policy", policy]);
        }
        args.extend(["--", command]);
        let (_, stdout, stderr) = self.run(&args);
        stdout
            .lines()
            .next()
            .unwrap_or_else(|| panic!("{stderr}"))
            .to_owned()
    }
}

const SUMMARY: &str = "\
allow Bash(npm run test:*) => trust pattern `npm run test* *`
allow Bash(cargo build *) => trust pattern `cargo build *`
allow Bash(npm run build) => not imported: an exact command: a shellgate pattern also covers further arguments, so `npm run build *` would be wider; approve it with `shellgate approvals trust-verb` if that is what you mean
allow Bash(ls*) => trust pattern `ls *` (narrower: a pattern names its command exactly, so commands whose names only start with `ls` do not come over)
allow Bash(git commit:*) => trust pattern `git commit *` (narrower: Claude Code also matches longer words (`git commit…`), but `git commit* *` would name no subcommand)
allow Bash(git * main) => not imported: a wildcard inside the text: a shellgate pattern is whole words and one trailing glob, so any pattern would be wider or narrower
allow Bash(git:*) => not imported: too broad: `git *` would approve every `git` subcommand
allow Bash(bash:*) => not imported: too broad: `bash *` would approve too much: `bash` is a shell, which runs whatever code it is given
allow Bash(git push:*) => not imported: ineffective: the ask rule `Bash(git push:*)` covers it, and Claude Code checks deny and ask rules first
allow Bash => not imported: it allows every command: shellgate never trusts every command
allow Read(./src/**) => not imported: not a Bash rule: shellgate judges shell commands only
allow Bash(git commit -m \"wip\") => not imported: it holds shell syntax (quotes, `$`, `;`, `|`, `&`, redirections or parentheses): shellgate compares words, not text
allow Bash(make deploy:*) => not imported: ineffective: the deny rule `Bash(make deploy:*)` covers it, and Claude Code checks deny and ask rules first
ask   Bash(git push:*) => ask rule `claude-ask-1` (verb `git` with an operand `push*` or `push*/**`)
ask   Bash(docker * --privileged) => ask rule `claude-ask-2` (raw `(?s)(?:^|[;&|(\\n])\\s*docker\\s+.*\\s+\\-\\-privileged`)
deny  Bash(make deploy:*) => deny rule `claude-deny-1` (verb `make` with an operand `deploy*` or `deploy*/**`)
deny  Bash(curl *) => deny rule `claude-deny-2` (verb `curl`)
deny  Bash(rm -rf /tmp/cache) => deny rule `claude-deny-3` (verb `rm -rf /tmp/cache`)
deny  Bash(* --force) => deny rule `claude-deny-4` (raw `(?s)(?:^|[;&|(\\n])\\s*.*\\s+\\-\\-force`)
deny  Bash(shred:*) => deny rule `claude-deny-5` (verb `shred`; `claude-deny-5-text`: raw `(?s)(?:^|[;&|(\\n])\\s*shred.*`)
imported: 4 trust patterns, 5 deny rules, 2 ask rules; not imported: 9 rules
";

#[test]
fn every_form_comes_over_as_claude_code_decides() {
    let dir = Dir::new();
    let (code, stdout, stderr) = dir.import(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{SUMMARY}trust file `trust.toml`: 4 patterns added for audience `team` (0 already there)\nwrote 7 deny and ask rules to `imported.toml`; use it with `--policy imported.toml`\n"
        )
    );
    let trust = std::fs::read_to_string(dir.path("trust.toml")).unwrap();
    assert!(
        trust.ends_with(
            "[audience.team]\npatterns = [\n    \"npm run test* *\",\n    \"cargo build *\",\n    \"ls *\",\n    \"git commit *\",\n]\n"
        ),
        "{trust}"
    );
    // Allowed → Approved (they asked before the import).
    for command in [
        "npm run test",
        "npm run test --coverage",
        "npm run test:unit --coverage",
        "cargo build --release",
        "git commit -m wip",
    ] {
        assert_eq!(
            dir.decide("trust.toml", Some("imported.toml"), command),
            "Approved",
            "{command}"
        );
        assert_eq!(
            dir.decide("none.toml", None, command),
            "NeedsPrompt",
            "{command}"
        );
    }
    // Denied → HardDenied, whatever the trust file says.
    for command in [
        "make deploy",
        "make -j2 deploy",
        "curl https://example.com",
        "rm -rf /tmp/cache",
        "git push --force",
        "make deploy-prod",
        "shred secrets.txt",
        "/usr/bin/shred -u key",
        "shredder x",
    ] {
        assert_eq!(
            dir.decide("trust.toml", Some("imported.toml"), command),
            "HardDenied",
            "{command}"
        );
    }
    // Asked, not imported, or never named → NeedsPrompt: nothing was widened.
    for command in [
        "git push origin main",
        "docker run --privileged alpine",
        "npm run build",
        "npm run lint",
        "git commit-tree HEAD^{tree}",
        "git checkout main",
        "bash ./run.sh",
        "gitk",
    ] {
        assert_eq!(
            dir.decide("trust.toml", Some("imported.toml"), command),
            "NeedsPrompt",
            "{command}"
        );
    }
}

#[test]
fn a_second_import_changes_nothing_and_never_overwrites_other_rules() {
    let dir = Dir::new();
    assert_eq!(dir.import(&[]).0, 0);
    let (code, stdout, _) = dir.import(&[]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "trust file `trust.toml`: 0 patterns added for audience `team` (4 already there)\n"
        ),
        "{stdout}"
    );
    std::fs::write(dir.path("imported.toml"), "version = 1\n").unwrap();
    let (code, _, stderr) = dir.import(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: `imported.toml` exists and holds other rules; choose another `--policy-out` or remove it\n"
    );
}

#[test]
fn a_dry_run_writes_nothing() {
    let dir = Dir::new();
    let (code, stdout, _) = dir.import(&["--dry-run"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with(SUMMARY), "{stdout}");
    assert!(
        stdout.contains("dry run: nothing written; the policy file would be:\n# Imported from Claude Code settings"),
        "{stdout}"
    );
    assert!(!Path::new(&dir.path("trust.toml")).exists());
    assert!(!Path::new(&dir.path("imported.toml")).exists());
}

#[test]
fn a_settings_file_that_is_not_json_is_an_error() {
    let dir = Dir::new();
    std::fs::write(dir.path("bad.json"), "{ not json").unwrap();
    let (code, stdout, stderr) = dir.run(&["import", "claude-settings", "bad.json"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(
        stderr.starts_with("error: `bad.json`: the settings file is not JSON: "),
        "{stderr}"
    );
}

#[test]
fn a_denied_flag_prefix_still_denies() {
    // `args_any` sees operands only: a Claude Code deny of `rm -rf:*` comes over as text.
    let dir = Dir::new();
    std::fs::write(
        dir.path("flags.json"),
        r#"{"permissions": {"deny": ["Bash(rm -rf:*)", "Bash(git commit --no-verify:*)"]}}"#,
    )
    .unwrap();
    let (code, stdout, stderr) = dir.import_file("flags.json", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(r"deny  Bash(rm -rf:*) => deny rule `claude-deny-1` (raw `(?s)(?:^|[;&|(\n])\s*rm\s+\-rf.*`)"),
        "{stdout}"
    );
    for command in ["rm -rf build", "git commit --no-verify -m x"] {
        assert_eq!(
            dir.decide("trust.toml", Some("imported.toml"), command),
            "HardDenied",
            "{command}"
        );
    }
    assert_eq!(
        dir.decide("trust.toml", Some("imported.toml"), "rm -r src"),
        "NeedsPrompt"
    );
}
