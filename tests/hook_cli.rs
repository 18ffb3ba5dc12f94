//! `shellgate hook` through the binary: the three agents against recorded payloads (allow, ask
//! and deny each), pass-through of other tools, fail-closed answers on unusable input, the
//! audit log, the trust file and the deadline.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::Sandbox;

/// A private HOME and state directory, so no real trust file or audit log is touched.
struct Env {
    sandbox: Sandbox,
}

impl Env {
    fn new() -> Self {
        Self {
            sandbox: Sandbox::new(&["home"]),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.sandbox.path(name)
    }

    /// Writes `text` to `name` in the sandbox; returns the path as text.
    fn write(&self, name: &str, text: &str) -> String {
        self.sandbox.write(name, text)
    }

    /// The hook with `args`. Unless the test sets `--deadline-ms`, the deadline is ten minutes:
    /// on a loaded machine a debug build may take longer than the default two seconds, and
    /// only `no_answer_in_time_is_ask` tests the deadline.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = self.sandbox.shellgate(&["hook"]);
        command.args(args);
        if !args.contains(&"--deadline-ms") {
            command.args(["--deadline-ms", "600000"]);
        }
        command
    }

    /// Runs the hook with `input` on standard input.
    fn run(&self, args: &[&str], input: &[u8]) -> Output {
        common::run(&mut self.command(args), input)
    }

    /// Runs the hook and returns its answer, checking it exits 0 with one line of JSON.
    fn answer(&self, args: &[&str], input: &[u8]) -> Value {
        let output = self.run(args, input);
        assert_eq!(
            output.status.code(),
            Some(0),
            "stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
        serde_json::from_str(&text).unwrap()
    }

    fn audit_log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("state/shellgate/audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// The string fields `keys` of each audit record.
fn columns<'a>(log: &'a [Value], keys: &[&str]) -> Vec<Vec<&'a str>> {
    log.iter()
        .map(|r| keys.iter().map(|k| r[k].as_str().unwrap()).collect())
        .collect()
}

fn payload(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/hooks")
            .join(name),
    )
    .unwrap()
}

const ASK_PUSH: &str = "shellgate: needs a person to run `git push origin feature/price-fix` (approve for good: shellgate approvals trust-verb 'git push origin feature/price-fix *')";
const DENY_PREFIX: &str = "shellgate: refused by `rm-recursive-root` (destructive): ";

fn claude(decision: &str, reason: &str) -> Value {
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }})
}

/// The deny reason, checked to start with the rule that refused `rm -rf /`.
/// The reason of a Claude Code (or Codex) answer.
fn reason_of(answer: &Value) -> String {
    answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn deny_reason(answer: &Value, pointer: &str) -> String {
    let reason = answer
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap()
        .to_owned();
    assert!(reason.starts_with(DENY_PREFIX), "{reason}");
    assert!(
        reason.contains("`rm-no-preserve-root` (destructive)"),
        "{reason}"
    );
    reason
}

#[test]
fn claude_code_allow_ask_deny_and_pass_through() {
    let env = Env::new();
    assert_eq!(
        env.answer(&["claude-code"], &payload("claude-code-allow.json")),
        claude("allow", "shellgate: approved")
    );
    assert_eq!(
        env.answer(&["claude-code"], &payload("claude-code-ask.json")),
        claude("ask", ASK_PUSH)
    );
    let deny = env.answer(&["claude-code"], &payload("claude-code-deny.json"));
    let reason = deny_reason(&deny, "/hookSpecificOutput/permissionDecisionReason");
    assert_eq!(deny, claude("deny", &reason));
    // Not the shell tool: no opinion, and nothing logged.
    assert_eq!(
        env.answer(&["claude-code"], &payload("claude-code-read.json")),
        json!({})
    );
    let log = env.audit_log();
    let decisions = columns(&log, &["command", "decision", "cwd"]);
    assert_eq!(
        decisions,
        vec![
            [
                "git status && git log --oneline -5",
                "Approved",
                "/home/dev/acme-shop"
            ],
            [
                "git push origin feature/price-fix",
                "NeedsPrompt",
                "/home/dev/acme-shop"
            ],
            [
                "rm -rf / --no-preserve-root",
                "HardDenied",
                "/home/dev/acme-shop"
            ],
        ]
    );
    assert_eq!(
        log[2]["rule_ids"],
        json!(["rm-recursive-root", "rm-no-preserve-root"])
    );
    assert_eq!(log[2]["audience"], "personal");
    assert_eq!(log[2]["choice"], Value::Null);
    assert_eq!(log[2]["agent"], "claude-code");
    assert_eq!(log[2]["session_id"], "6f1c2a9e-3b7d-4c51-9e08-2d4f7a1b8c30");
    assert_eq!(log[1]["answer"], "ask");
    assert_eq!(log[1]["reason"], ASK_PUSH);
    assert_eq!(log[0]["answer"], "allow");
}

#[test]
fn codex_can_only_deny() {
    let env = Env::new();
    // Codex rejects allow and ask (and then fails open), so an approval is no opinion and a
    // prompt is a refusal whose reason says what a person must approve.
    assert_eq!(
        env.answer(&["codex"], &payload("codex-allow.json")),
        json!({})
    );
    let ask = env.answer(&["codex"], &payload("codex-ask.json"));
    assert_eq!(
        ask,
        claude(
            "deny",
            &format!(
                "{ASK_PUSH} — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"
            )
        )
    );
    let deny = env.answer(&["codex"], &payload("codex-deny.json"));
    let reason = deny_reason(&deny, "/hookSpecificOutput/permissionDecisionReason");
    assert_eq!(deny, claude("deny", &reason));
    // The log records the answer actually sent: Codex's deny for a prompt, no opinion for an
    // approval.
    let log = env.audit_log();
    let sent = columns(&log, &["agent", "decision", "answer"]);
    assert_eq!(
        sent,
        [
            ["codex", "Approved", "none"],
            ["codex", "NeedsPrompt", "deny"],
            ["codex", "HardDenied", "deny"],
        ]
    );
    assert_eq!(log[0].get("reason"), None);
    assert_eq!(
        log[1]["reason"],
        json!(format!(
            "{ASK_PUSH} — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"
        ))
    );
}

#[test]
fn codex_defer_ask_leaves_a_prompt_to_codex() {
    let env = Env::new();
    assert_eq!(
        env.answer(&["codex", "--defer-ask"], &payload("codex-ask.json")),
        json!({})
    );
    let deny = env.answer(&["codex", "--defer-ask"], &payload("codex-deny.json"));
    let reason = deny_reason(&deny, "/hookSpecificOutput/permissionDecisionReason");
    assert_eq!(deny, claude("deny", &reason));
    let log = env.audit_log();
    assert_eq!(log[0]["decision"], "NeedsPrompt");
    assert_eq!(log[0]["answer"], "none");
    assert_eq!(log[1]["answer"], "deny");
    // It cannot be combined with --ask-as-deny.
    let both = env.run(
        &["codex", "--defer-ask", "--ask-as-deny"],
        &payload("codex-ask.json"),
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn gemini_allow_ask_deny() {
    let env = Env::new();
    assert_eq!(
        env.answer(&["gemini"], &payload("gemini-allow.json")),
        json!({"decision": "allow", "reason": "shellgate: approved"})
    );
    assert_eq!(
        env.answer(&["gemini"], &payload("gemini-ask.json")),
        json!({"decision": "ask", "reason": ASK_PUSH, "systemMessage": ASK_PUSH})
    );
    let deny = env.answer(&["gemini"], &payload("gemini-deny.json"));
    let reason = deny_reason(&deny, "/reason");
    assert_eq!(deny, json!({"decision": "deny", "reason": reason}));
    // `--ask-as-deny` for releases that ignore ask.
    assert_eq!(
        env.answer(&["gemini", "--ask-as-deny"], &payload("gemini-ask.json")),
        json!({"decision": "deny", "reason": ASK_PUSH})
    );
    // The allow payload runs in `dir_path` (`web`) under the payload's cwd.
    assert_eq!(env.audit_log()[0]["cwd"], "/home/dev/acme-shop/web");
}

#[test]
fn unusable_input_is_answered_with_ask_never_allow() {
    let env = Env::new();
    let cases: [(&[u8], &str); 5] = [
        (b"", "the hook input is empty"),
        (b"\n", "the hook input is empty"),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"comm"#,
            "the hook input is not valid JSON: EOF while parsing a string at line 1 column 70",
        ),
        (
            b"rm -rf /",
            "the hook input is not valid JSON: expected value at line 1 column 1",
        ),
        (b"[\"rm -rf /\"]", "the hook input is not a JSON object"),
    ];
    for (input, error) in cases {
        let reason = format!("shellgate could not judge this call ({error}); a person must decide");
        assert_eq!(
            env.answer(&["claude-code"], input),
            claude("ask", &reason),
            "{error}"
        );
        assert_eq!(
            env.answer(&["gemini"], input),
            json!({"decision": "ask", "reason": reason, "systemMessage": reason}),
            "{error}"
        );
        let codex = format!(
            "{reason} — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"
        );
        assert_eq!(
            env.answer(&["codex"], input),
            claude("deny", &codex),
            "{error}"
        );
    }
    // A shell call without a command, with an empty one, and a payload for another event.
    assert_eq!(
        env.answer(
            &["claude-code"],
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"cmd":"ls"}}"#
        ),
        claude(
            "ask",
            "shellgate could not judge this call (the `Bash` call has no `tool_input.command` string); a person must decide"
        )
    );
    for blank in ["", " ", "\\n\\t "] {
        let input = format!(
            r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"{blank}"}}}}"#
        );
        assert_eq!(
            env.answer(&["claude-code"], input.as_bytes()),
            claude(
                "ask",
                "shellgate could not judge this call (the `Bash` call's command is empty); a person must decide"
            ),
            "{blank:?}"
        );
    }
    assert_eq!(
        env.answer(&["claude-code"], br#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#),
        claude("ask", "shellgate could not judge this call (the hook input is for event `PostToolUse`, expected `PreToolUse`); a person must decide")
    );
    assert!(env.audit_log().is_empty());
}

#[test]
fn a_failing_audit_log_never_changes_the_answer() {
    let env = Env::new();
    // A directory where the log file should be: every append fails.
    std::fs::create_dir_all(env.path("log-is-a-dir")).unwrap();
    let log = env.path("log-is-a-dir").display().to_string();
    for (name, expected) in [
        ("claude-code-allow.json", "allow"),
        ("claude-code-ask.json", "ask"),
        ("claude-code-deny.json", "deny"),
    ] {
        let output = env.run(&["claude-code", "--audit-log", &log], &payload(name));
        assert_eq!(output.status.code(), Some(0));
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], expected,
            "{name}"
        );
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with("shellgate: warning: cannot append to the audit log: "),
            "{stderr}"
        );
    }
    // `--no-audit-log` writes nothing.
    env.answer(
        &["claude-code", "--no-audit-log"],
        &payload("claude-code-allow.json"),
    );
    assert!(env.audit_log().is_empty());
}

#[test]
fn a_saved_approval_turns_ask_into_allow() {
    let env = Env::new();
    let trust = env.write(
        "trust.toml",
        "version = 1\n\n[audience.personal]\npatterns = [\"git push origin feature/price-fix *\"]\n",
    );
    assert_eq!(
        env.answer(
            &["claude-code", "--trust", &trust],
            &payload("claude-code-ask.json")
        ),
        claude("allow", "shellgate: approved")
    );
    // A saved approval never beats a deny rule.
    let deny = env.answer(
        &["claude-code", "--trust", &trust],
        &payload("claude-code-deny.json"),
    );
    assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn no_answer_in_time_is_ask() {
    let env = Env::new();
    // Standard input stays open, so the hook never gets its payload.
    let mut child = env
        .command(&["claude-code", "--deadline-ms", "300"])
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        answer,
        claude(
            "ask",
            "shellgate could not judge this call (no decision within 300 ms); a person must decide"
        )
    );
}

#[test]
fn a_broken_hook_command_line_blocks_with_exit_2() {
    let env = Env::new();
    // Exit 2 with the message on standard error is "block" for all three agents; clap's usage
    // errors elsewhere exit 1, which the agents would read as "proceed".
    for args in [
        &["claude-cod"][..],
        &["codex", "--no-such-flag"][..],
        &[][..],
    ] {
        let output = env.run(args, &payload("claude-code-allow.json"));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with("error: "), "{stderr}");
    }
}

/// A policy file with a typo on line 4 (column 1): `categry`.
const BROKEN_POLICY: &str = "version = 1\n\n[[deny]]\ncategry = \"destructive\"\nid = \"x\"\nreason = \"r\"\nverb = [\"x\"]\n";

/// The start of every reason given on the default policy's floor, for `broken.toml`.
fn floor_reason(file: &str) -> String {
    format!(
        "shellgate: the policy did not load ({file}:4:1: unknown key `categry` (did you mean `category`?); 1 more error), so only the embedded default policy's deny rules and protected paths apply and nothing runs without a person; fix the policy (check it with `shellgate check FILE`)"
    )
}

/// Regression (issue 13): a typo in `--policy` made the hook answer ask for
/// `rm -rf / --no-preserve-root` — the embedded default's deny rules were dropped with the
/// broken file, and the file and line were only on standard error, which agents do not show.
#[test]
fn regression_broken_user_policy_keeps_the_default_deny_floor() {
    let env = Env::new();
    let policy = env.write("broken.toml", BROKEN_POLICY);
    let floor = floor_reason(&policy);
    let args = ["claude-code", "--policy", &policy];
    // Denied by the default: deny, the policy problem first, then the rules.
    let deny = env.answer(&args, &payload("claude-code-deny.json"));
    let reason = reason_of(&deny);
    assert_eq!(deny, claude("deny", &reason));
    let rules = reason.strip_prefix(&format!("{floor}; ")).unwrap();
    assert!(
        rules.starts_with("refused by `rm-recursive-root` (destructive): "),
        "{rules}"
    );
    // Approved by the default: ask, never allow.
    assert_eq!(
        env.answer(&args, &payload("claude-code-allow.json")),
        claude("ask", &floor)
    );
    // Needs a person anyway: ask, with what to approve.
    assert_eq!(
        env.answer(&args, &payload("claude-code-ask.json")),
        claude(
            "ask",
            &format!("{floor}; {}", ASK_PUSH.strip_prefix("shellgate: ").unwrap())
        )
    );
    // Codex and Gemini: the same decisions in their formats.
    assert_eq!(
        env.answer(
            &["codex", "--policy", &policy],
            &payload("codex-allow.json")
        ),
        claude(
            "deny",
            &format!(
                "{floor} — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"
            )
        )
    );
    assert_eq!(
        env.answer(
            &["gemini", "--policy", &policy],
            &payload("gemini-allow.json")
        ),
        json!({"decision": "ask", "reason": floor, "systemMessage": floor})
    );
    let gemini = env.answer(
        &["gemini", "--policy", &policy],
        &payload("gemini-deny.json"),
    );
    assert_eq!(gemini["decision"], "deny");
    // Every decision is in the audit log with the error.
    let log = env.audit_log();
    let logged = columns(&log, &["decision", "error"]);
    let error =
        format!("{policy}:4:1: unknown key `categry` (did you mean `category`?); 1 more error");
    assert_eq!(
        logged,
        vec![
            ["HardDenied", error.as_str()],
            ["NeedsPrompt", error.as_str()],
            ["NeedsPrompt", error.as_str()],
            ["NeedsPrompt", error.as_str()],
            ["NeedsPrompt", error.as_str()],
            ["HardDenied", error.as_str()],
        ]
    );
    assert_eq!(
        log[0]["rule_ids"],
        json!(["rm-recursive-root", "rm-no-preserve-root"])
    );
}

/// The same floor for a policy file that cannot be read at all, and for a broken file among
/// good ones.
#[test]
fn an_unreadable_policy_keeps_the_floor_too() {
    let env = Env::new();
    let missing = env.path("missing.toml").display().to_string();
    let answer = env.answer(
        &["claude-code", "--policy", &missing],
        &payload("claude-code-allow.json"),
    );
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(
        reason.starts_with(&format!(
            "shellgate: the policy did not load (cannot read `{missing}`: No such file or directory (os error 2)), so only"
        )),
        "{reason}"
    );
    let good = env.write("good.toml", "version = 1\n");
    let broken = env.write("broken.toml", BROKEN_POLICY);
    assert_eq!(
        env.answer(
            &["claude-code", "--policy", &good, "--policy", &broken],
            &payload("claude-code-allow.json")
        ),
        claude("ask", &floor_reason(&broken))
    );
}

/// Issue 13: a trust file that had to be quarantined is named in that call's reason (and in
/// the audit log), once: the next call finds the new, empty store.
#[test]
fn a_quarantined_trust_file_is_named_once_in_the_reason() {
    let env = Env::new();
    let trust_arg = env.write("trust.toml", "version = 2\n");
    let args = ["claude-code", "--trust", &trust_arg];
    let first = env.answer(&args, &payload("claude-code-allow.json"));
    let reason = reason_of(&first);
    assert_eq!(first["hookSpecificOutput"]["permissionDecision"], "allow");
    let note = reason
        .strip_prefix("shellgate: approved; note: ")
        .unwrap()
        .to_owned();
    let quarantined: Vec<PathBuf> = std::fs::read_dir(env.sandbox.root())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("trust.toml.quarantine-")
        })
        .collect();
    assert_eq!(quarantined.len(), 1);
    assert!(
        note.ends_with(&format!(
            "it was moved to `{}` and shellgate started with no saved approvals",
            quarantined[0].display()
        )),
        "{note}"
    );
    assert_eq!(env.audit_log()[0]["error"], note);
    // Once: the next call has nothing to say about it.
    assert_eq!(
        env.answer(&args, &payload("claude-code-allow.json")),
        claude("allow", "shellgate: approved")
    );
    assert_eq!(env.audit_log()[1].get("error"), None);
}

/// Regression (issue 13): bytes that are not UTF-8 are answered ask, with the bytes shown
/// escaped; JSON cannot carry them, so the payload itself is refused.
#[test]
fn input_that_is_not_utf8_is_ask_with_the_bytes_escaped() {
    let env = Env::new();
    let input = b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\xfe\"}}";
    assert_eq!(
        env.answer(&["claude-code"], input),
        claude(
            "ask",
            "shellgate could not judge this call (the hook input is not valid UTF-8 (byte 0xff at offset 79, in `l_input\":{\"command\":\"ls \\xff\\xfe\"}}`)); a person must decide"
        )
    );
    // A lone surrogate escape is not text either: JSON refuses it.
    let answer = env.answer(
        &["claude-code"],
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls \udcff"}}"#,
    );
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(env.audit_log().is_empty());
}

/// Regression (issue 13): a 1 MiB command came back as a 1 MiB reason. Every agent's reason is
/// at most 4 KiB, ending with how much was cut; Codex's own note is kept whole. (A 64 KiB
/// command shows the cap as well, and is judged faster.)
#[test]
fn regression_reasons_are_capped_at_4_kib() {
    let env = Env::new();
    let command = format!("printf '{}' > /srv/out/log", "y".repeat(64 << 10));
    let payload = |event: &str, tool: &str| {
        json!({"hook_event_name": event, "cwd": "/home/dev/p", "tool_name": tool,
               "tool_input": {"command": command}})
        .to_string()
    };
    let args = |agent: &'static str| [agent, "--deadline-ms", "600000"];
    let claude_answer = env.answer(
        &args("claude-code"),
        payload("PreToolUse", "Bash").as_bytes(),
    );
    let codex_answer = env.answer(&args("codex"), payload("PreToolUse", "Bash").as_bytes());
    let gemini_answer = env.answer(
        &args("gemini"),
        payload("BeforeTool", "run_shell_command").as_bytes(),
    );
    let reasons = [
        claude_answer["hookSpecificOutput"]["permissionDecisionReason"].clone(),
        codex_answer["hookSpecificOutput"]["permissionDecisionReason"].clone(),
        gemini_answer["reason"].clone(),
        gemini_answer["systemMessage"].clone(),
    ];
    for reason in &reasons {
        let reason = reason.as_str().unwrap();
        assert!(reason.len() <= 4096, "{} bytes", reason.len());
        assert!(reason.len() > 4000, "{} bytes", reason.len());
        assert!(
            reason.starts_with("shellgate: needs a person to run `printf 'yyy"),
            "{reason:.80}"
        );
    }
    let claude_reason = reasons[0].as_str().unwrap();
    let more = claude_reason.rsplit_once("… (").unwrap().1;
    assert!(more.ends_with(" more bytes)"), "{more}");
    let codex_reason = reasons[1].as_str().unwrap();
    assert!(
        codex_reason.ends_with(" more bytes) — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"),
        "{codex_reason:.200}"
    );
    assert_eq!(
        claude_answer["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
}
