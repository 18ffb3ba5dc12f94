//! `shellgate hook`: answer an agent's pre-tool hook with the gate's decision.
//!
//! Each supported agent runs a command before a tool call, writes one JSON object to its
//! standard input, and reads one JSON answer from its standard output. This module parses the
//! payload of each agent into a [`HookRequest`] and renders an [`Answer`] in that agent's
//! format; the CLI (`src/cli/hook_cmd.rs`) reads standard input, evaluates, appends to the audit
//! log and prints.
//!
//! **Fail closed.** Whatever goes wrong — empty, truncated, oversized or non-JSON input, a
//! missing command, an evaluation error — the answer is [`Verdict::Ask`] (a person decides),
//! printed as valid JSON with exit status 0. The hook never answers allow unless the gate
//! approved, and never exits with a status the agent would read as "proceed".
//!
//! | agent | event | shell tool | allow | ask | deny |
//! | --- | --- | --- | --- | --- | --- |
//! | Claude Code | `PreToolUse` | `Bash` | `permissionDecision: "allow"` | `"ask"` | `"deny"` |
//! | Codex CLI | `PreToolUse` | `Bash` | `{}` (Codex's own approval policy applies) | `"deny"` with the prompt as reason | `"deny"` |
//! | Gemini CLI | `BeforeTool` | `run_shell_command` | `decision: "allow"` | `"ask"` | `"deny"` |
//!
//! Formats followed (the sources are public documentation and source as of mid-2026):
//!
//! - **Claude Code** — hooks reference, <https://code.claude.com/docs/en/hooks> (the
//!   `hookSpecificOutput.permissionDecision` form, as documented since 2025 and archived
//!   2026-02-01). Input: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//!   `hook_event_name`, `tool_name`, `tool_input.command`, `tool_use_id`. Output:
//!   `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
//!   "allow"|"ask"|"deny", "permissionDecisionReason": …}}`, exit 0.
//! - **Codex CLI** — <https://developers.openai.com/codex/hooks> and the generated schemas in
//!   `openai/codex` (`codex-rs/hooks/schema/generated/pre-tool-use.command.*.schema.json`,
//!   Codex 0.14x–0.16x, 2026). The input mirrors Claude Code's (plus `turn_id` and `model`;
//!   `tool_name` is `Bash`, `tool_input.command` a string). Codex acts only on
//!   `permissionDecision: "deny"` with a non-empty reason: it rejects `"ask"` and `"allow"` as
//!   unsupported and then *fails open*. So a command that needs a person is answered with
//!   `deny`, its reason telling the model what a person must approve, and an approved command
//!   with `{}` (no opinion). Codex's execution-policy rules (`~/.codex/rules/*.rules`) are a
//!   separate mechanism that shellgate does not generate.
//! - **Gemini CLI** — hooks reference, `docs/hooks/reference.md` in `google-gemini/gemini-cli`
//!   (2026). Input: `session_id`, `transcript_path`, `cwd`, `hook_event_name: "BeforeTool"`,
//!   `timestamp`, `tool_name`, `tool_input` (`run_shell_command`: `command`, optional
//!   `dir_path`, formerly `directory`). Output: `{"decision": "allow"|"deny", "reason": …}`.
//!   `"ask"` is not in the reference but is implemented (`HookDecision` in
//!   `packages/core/src/hooks/types.ts`, gemini-cli pull request 21146, March 2026; reported as
//!   undocumented in issue 28046): it forces the confirmation dialog and shows `systemMessage`.
//!   Older Gemini CLI releases ignore `"ask"`; use `--ask-as-deny` with them.
//!
//! Tools that are not the agent's shell tool get a pass-through answer (`{}`): shellgate has
//! no opinion and the agent's own permission flow applies. Install the hook with a matcher for
//! the shell tool only.

mod claude_code;
mod codex;
mod gemini;
mod reply;

pub use reply::read_answer;

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};
use shellgate_policy::{Access, Decision, Evaluation, display, odd_input};

/// Largest payload read from standard input; larger input is answered with ask.
pub const MAX_INPUT_BYTES: usize = 8 << 20;

/// A supported agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Anthropic's Claude Code (`PreToolUse`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`PreToolUse`).
    Codex,
    /// Google's Gemini CLI (`BeforeTool`).
    Gemini,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Self; 3] = [Self::ClaudeCode, Self::Codex, Self::Gemini];

    /// The agent's name on the command line: `claude-code`, `codex` or `gemini`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
        }
    }

    /// The hook event this agent sends before a tool runs.
    #[must_use]
    pub const fn event(self) -> &'static str {
        match self {
            Self::ClaudeCode | Self::Codex => "PreToolUse",
            Self::Gemini => "BeforeTool",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the agent is about to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// A shell command.
    Shell {
        /// The command text.
        command: String,
        /// The directory the tool runs it in, when the call names one (Gemini's `dir_path`),
        /// else `None` (the payload's `cwd`).
        workdir: Option<PathBuf>,
    },
    /// Any other tool; shellgate passes it through.
    Other,
}

/// A parsed hook payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRequest {
    /// The agent that sent it.
    pub agent: Agent,
    /// The tool name as sent.
    pub tool: String,
    /// The call.
    pub call: ToolCall,
    /// The agent's session id, if sent.
    pub session_id: Option<String>,
    /// The agent's working directory, if sent.
    pub cwd: Option<PathBuf>,
}

impl HookRequest {
    /// The directory the command runs in: the call's own directory (resolved against `cwd`
    /// when relative), else `cwd`.
    #[must_use]
    pub fn workdir(&self) -> Option<PathBuf> {
        match (&self.call, &self.cwd) {
            (
                ToolCall::Shell {
                    workdir: Some(dir), ..
                },
                Some(cwd),
            ) => Some(cwd.join(dir)),
            (
                ToolCall::Shell {
                    workdir: Some(dir), ..
                },
                None,
            ) if dir.is_absolute() => Some(dir.clone()),
            _ => self.cwd.clone(),
        }
    }
}

/// Why a payload could not be read. Every one of these is answered with ask.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// Nothing on standard input.
    #[error("the hook input is empty")]
    Empty,
    /// More than [`MAX_INPUT_BYTES`] on standard input.
    #[error("the hook input is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// Standard input could not be read.
    #[error("cannot read the hook input: {0}")]
    Read(String),
    /// Bytes that are not UTF-8 (JSON text is always UTF-8).
    #[error(
        "the hook input is not valid UTF-8 (byte 0x{byte:02x} at offset {offset}, in `{excerpt}`)"
    )]
    NotUtf8 {
        /// The first invalid byte.
        byte: u8,
        /// Its offset.
        offset: usize,
        /// The bytes around it, escaped (`\xff`).
        excerpt: String,
    },
    /// Not JSON, or truncated JSON.
    #[error("the hook input is not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("the hook input is not a JSON object")]
    NotObject,
    /// The event is not the pre-tool event of the agent.
    #[error("the hook input is for event `{found}`, expected `{expected}`")]
    WrongEvent {
        /// The agent's pre-tool event.
        expected: &'static str,
        /// The event sent.
        found: String,
    },
    /// No `tool_name` string.
    #[error("the hook input has no `tool_name`")]
    MissingTool,
    /// The shell tool without a usable `tool_input.command`.
    #[error("the `{tool}` call has no `tool_input.command` string")]
    MissingCommand {
        /// The tool name.
        tool: String,
    },
    /// The shell tool with an empty or blank command (as `shellgate eval` does, a person
    /// decides: the command was most likely lost on the way).
    #[error("the `{tool}` call's command is empty")]
    EmptyCommand {
        /// The tool name.
        tool: String,
    },
}

/// Parses `input` as `agent`'s pre-tool payload.
///
/// # Errors
///
/// [`HookError`] when the input is empty, too large, not a JSON object, for another event, or
/// a shell call without a command.
pub fn parse_request(agent: Agent, input: &[u8]) -> Result<HookRequest, HookError> {
    if input.trim_ascii().is_empty() {
        return Err(HookError::Empty);
    }
    if input.len() > MAX_INPUT_BYTES {
        return Err(HookError::TooLarge {
            limit: MAX_INPUT_BYTES,
        });
    }
    if let Err(error) = std::str::from_utf8(input) {
        let offset = error.valid_up_to();
        let around = input
            .get(offset.saturating_sub(24)..input.len().min(offset.saturating_add(8)))
            .unwrap_or_default();
        return Err(HookError::NotUtf8 {
            byte: input.get(offset).copied().unwrap_or_default(),
            offset,
            excerpt: display::escape_bytes(around),
        });
    }
    let value: Value =
        serde_json::from_slice(input).map_err(|error| HookError::NotJson(error.to_string()))?;
    let Value::Object(object) = value else {
        return Err(HookError::NotObject);
    };
    if let Some(event) = object.get("hook_event_name") {
        let found = event.as_str().unwrap_or_default();
        if found != agent.event() {
            return Err(HookError::WrongEvent {
                expected: agent.event(),
                found: found.to_owned(),
            });
        }
    }
    let tool = string(&object, "tool_name")
        .ok_or(HookError::MissingTool)?
        .to_owned();
    let input = object.get("tool_input").and_then(Value::as_object);
    let call = match agent {
        Agent::ClaudeCode => claude_code::call(&tool, input),
        Agent::Codex => codex::call(&tool, input),
        Agent::Gemini => gemini::call(&tool, input),
    }?;
    Ok(HookRequest {
        agent,
        tool,
        call,
        session_id: string(&object, "session_id").map(str::to_owned),
        cwd: string(&object, "cwd")
            .filter(|cwd| !cwd.is_empty())
            .map(PathBuf::from),
    })
}

fn string<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// `tool_input.command` as a string, or the error for `tool`: missing, or blank (as
/// [`odd_input::is_blank`] says).
fn command_of(tool: &str, input: Option<&Map<String, Value>>) -> Result<String, HookError> {
    let command = input
        .and_then(|input| string(input, "command"))
        .ok_or_else(|| HookError::MissingCommand {
            tool: tool.to_owned(),
        })?;
    if odd_input::is_blank(command) {
        return Err(HookError::EmptyCommand {
            tool: tool.to_owned(),
        });
    }
    Ok(command.to_owned())
}

/// What shellgate tells the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Run it (the gate approved).
    Allow,
    /// A person must decide.
    Ask,
    /// Refuse it.
    Deny,
}

impl Verdict {
    /// `allow`, `ask` or `deny`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// The answer to a hook call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A decision with its reason (shown to the person or the model).
    Decide {
        /// The verdict.
        verdict: Verdict,
        /// Why, on one line.
        reason: String,
    },
    /// Not a shell call: no opinion.
    PassThrough,
}

impl Answer {
    /// The answer for an input that could not be used: ask, with the error as reason.
    #[must_use]
    pub fn failed(error: &dyn fmt::Display) -> Self {
        Self::Decide {
            verdict: Verdict::Ask,
            reason: format!("shellgate could not judge this call ({error}); a person must decide"),
        }
    }

    /// The same answer with `note` added to its reason (a pass-through answer has no reason
    /// and stays as it is).
    #[must_use]
    pub fn with_note(self, note: &str) -> Self {
        match self {
            Self::Decide { verdict, reason } => Self::Decide {
                verdict,
                reason: format!("{reason}; note: {note}"),
            },
            Self::PassThrough => Self::PassThrough,
        }
    }

    /// The same answer with ask turned into deny (for agents that ignore ask).
    #[must_use]
    pub fn ask_as_deny(self) -> Self {
        match self {
            Self::Decide {
                verdict: Verdict::Ask,
                reason,
            } => Self::Decide {
                verdict: Verdict::Deny,
                reason,
            },
            other => other,
        }
    }

    /// The same answer with ask turned into no opinion (`{}`), which leaves the call to the
    /// agent's own approval flow (for Codex, whose hooks cannot ask).
    #[must_use]
    pub fn defer_ask(self) -> Self {
        match self {
            Self::Decide {
                verdict: Verdict::Ask,
                ..
            } => Self::PassThrough,
            other => other,
        }
    }
}

/// The answer for an evaluation: approved → allow, needs a person → ask (the reason lists what
/// a person must approve and how to approve it for good), hard denied → deny (the reason names
/// each rule and its safer alternative).
#[must_use]
pub fn answer_for(evaluation: &Evaluation) -> Answer {
    let (verdict, reason) = match evaluation.decision {
        Decision::Approved => (Verdict::Allow, "approved".to_owned()),
        Decision::NeedsPrompt => (Verdict::Ask, prompt_reason(evaluation)),
        Decision::HardDenied => (Verdict::Deny, deny_reason(evaluation)),
    };
    Answer::Decide {
        verdict,
        reason: format!("shellgate: {reason}"),
    }
}

/// The answer for an evaluation made on the embedded default policy alone because the
/// policy did not load (`problem` says why, with file, line and column): the default's deny
/// rules and protected paths still refuse (deny), and nothing else runs without a person (ask,
/// also where the default alone would approve). The reason starts with the problem, so the
/// person learns why everything asks.
#[must_use]
pub fn answer_on_floor(evaluation: &Evaluation, problem: &str) -> Answer {
    floor_answer(
        evaluation,
        format!(
            "shellgate: the policy did not load ({problem}), so only the embedded default policy's deny rules and protected paths apply and nothing runs without a person; fix the policy (check it with `shellgate check FILE`)"
        ),
    )
}

/// The answer when no decision came within the hook's deadline (`ms`): `evaluation` is the
/// embedded default policy's alone, whose deny rules and protected paths still refuse (deny);
/// nothing else runs without a person (ask). A project policy that stalls the gate must not
/// turn a deny into a question.
#[must_use]
pub fn answer_after_deadline(evaluation: &Evaluation, ms: u128) -> Answer {
    floor_answer(
        evaluation,
        format!(
            "shellgate: no decision within {ms} ms, so only the embedded default policy's deny rules and protected paths were checked and nothing runs without a person"
        ),
    )
}

/// The answer when no decision came within the hook's deadline (`ms`) but the embedded
/// default policy's deny rules refuse the command (`hits`, found without judging its paths).
#[must_use]
pub fn answer_denied_after_deadline(hits: &[shellgate_policy::DenyHit], ms: u128) -> Answer {
    let rules: Vec<String> = hits
        .iter()
        .map(|hit| format!("`{}` ({}): {}", hit.rule, hit.category, hit.reason))
        .collect();
    Answer::Decide {
        verdict: Verdict::Deny,
        reason: format!(
            "shellgate: no decision within {ms} ms, so only the embedded default policy's deny rules and protected paths were checked and nothing runs without a person; refused by {}",
            rules.join("; ")
        ),
    }
}

/// The answer for an evaluation made without the project layer because it was refused
/// (`problem` says why, with file, line and column: it does not load, or it tries to loosen
/// the policy): the default and user layers' deny rules and protected paths still refuse
/// (deny), and nothing else runs without a person (ask).
#[must_use]
pub fn answer_without_project(evaluation: &Evaluation, problem: &str) -> Answer {
    floor_answer(
        evaluation,
        format!(
            "shellgate: the project policy was refused ({problem}), so only the default and user policies apply and nothing runs without a person; fix it (check it with `shellgate check --layer project FILE`)"
        ),
    )
}

/// Deny what `evaluation` denies, ask otherwise; the reason starts with `floor`.
fn floor_answer(evaluation: &Evaluation, floor: String) -> Answer {
    let (verdict, reason) = match evaluation.decision {
        Decision::Approved => (Verdict::Ask, floor),
        Decision::NeedsPrompt => (
            Verdict::Ask,
            format!("{floor}; {}", prompt_reason(evaluation)),
        ),
        Decision::HardDenied => (
            Verdict::Deny,
            format!("{floor}; {}", deny_reason(evaluation)),
        ),
    };
    Answer::Decide { verdict, reason }
}

/// Why an evaluation was refused: each rule with its category and safer alternative.
fn deny_reason(evaluation: &Evaluation) -> String {
    let rules: Vec<String> = evaluation
        .hard_deny
        .iter()
        .map(|hit| format!("`{}` ({}): {}", hit.rule, hit.category, hit.reason))
        .collect();
    if rules.is_empty() {
        "refused".to_owned()
    } else {
        format!("refused by {}", rules.join("; "))
    }
}

/// What a person must approve, and how to approve it for good.
fn prompt_reason(evaluation: &Evaluation) -> String {
    let Some(prompt) = &evaluation.prompt else {
        return "needs a person".to_owned();
    };
    let mut parts: Vec<String> = Vec::new();
    for hit in &prompt.asked_by {
        parts.push(format!(
            "decide per ask rule `{}` ({}): {}",
            hit.rule, hit.category, hit.reason
        ));
    }
    for clause in &prompt.clauses {
        parts.push(match &clause.pattern {
            Some(pattern) => format!(
                "run `{}` (approve for good: shellgate approvals trust-verb {})",
                clause.text,
                shell_quote(pattern.as_str())
            ),
            None => format!("run `{}` (cannot be saved)", clause.text),
        });
    }
    for path in &prompt.paths {
        let access = match path.access {
            Access::Read => "read",
            Access::Write => "write to",
        };
        parts.push(match &path.zone {
            Some(zone) => format!(
                "{access} `{}` (trust for good: shellgate approvals trust-zone {}{})",
                path.path,
                shell_quote(&zone.display().to_string()),
                if path.access == Access::Read {
                    " --read-only"
                } else {
                    ""
                }
            ),
            None => format!("{access} `{}`", path.path),
        });
    }
    for host in &prompt.hosts {
        parts.push(format!(
            "read from `{host}` (grant for good: shellgate approvals trust-host {})",
            shell_quote(host.as_str())
        ));
    }
    if parts.is_empty() {
        return format!("needs a person to approve `{}`", prompt.display);
    }
    format!("needs a person to {}", parts.join("; "))
}

/// `text` as one shell word: as is when it holds only safe characters, else single-quoted.
#[must_use]
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The answer as the JSON text `agent` expects (one line, no trailing newline).
#[must_use]
pub fn render(agent: Agent, answer: &Answer) -> String {
    let value = match agent {
        Agent::ClaudeCode => claude_code::render(answer),
        Agent::Codex => codex::render(answer),
        Agent::Gemini => gemini::render(answer),
    };
    value.to_string()
}

/// A reason as an agent is shown it: at most [`display::MAX_SHOWN_BYTES`] (a 1 MiB command is
/// not a 1 MiB reason). Every agent's answer goes through here.
fn shown(reason: &str) -> String {
    display::cap(reason.to_owned())
}

/// The `hookSpecificOutput` object shared by Claude Code and Codex.
fn pre_tool_use_output(verdict: Verdict, reason: &str) -> Value {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": verdict.as_str(),
            "permissionDecisionReason": shown(reason),
        }
    })
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_on_unusable_input() {
        assert_eq!(parse_request(Agent::ClaudeCode, b""), Err(HookError::Empty));
        assert_eq!(
            parse_request(Agent::ClaudeCode, b" \n"),
            Err(HookError::Empty)
        );
        assert!(matches!(
            parse_request(
                Agent::ClaudeCode,
                br#"{"tool_name":"Bash","tool_input":{"comm"#
            ),
            Err(HookError::NotJson(_))
        ));
        assert_eq!(
            parse_request(Agent::Codex, b"[1]"),
            Err(HookError::NotObject)
        );
        assert_eq!(
            parse_request(
                Agent::Gemini,
                br#"{"hook_event_name":"AfterTool","tool_name":"x"}"#
            ),
            Err(HookError::WrongEvent {
                expected: "BeforeTool",
                found: "AfterTool".to_owned()
            })
        );
        assert_eq!(
            parse_request(
                Agent::ClaudeCode,
                br#"{"tool_name":"Bash","tool_input":{}}"#
            ),
            Err(HookError::MissingCommand {
                tool: "Bash".to_owned()
            })
        );
        assert_eq!(
            parse_request(Agent::ClaudeCode, br#"{"tool_input":{"command":"ls"}}"#),
            Err(HookError::MissingTool)
        );
    }

    #[test]
    fn workdir_prefers_the_call_directory() {
        let request = parse_request(
            Agent::Gemini,
            br#"{"hook_event_name":"BeforeTool","cwd":"/p","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"web"}}"#,
        )
        .unwrap();
        assert_eq!(request.workdir(), Some(PathBuf::from("/p/web")));
        let request = parse_request(
            Agent::ClaudeCode,
            br#"{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        )
        .unwrap();
        assert_eq!(request.workdir(), Some(PathBuf::from("/p")));
        // Codex's `shell_command` runs in the `workdir` the model chose.
        let request = parse_request(
            Agent::Codex,
            br#"{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"shell_command","tool_input":{"command":"ls","workdir":"/home/u"}}"#,
        )
        .unwrap();
        assert_eq!(request.workdir(), Some(PathBuf::from("/home/u")));
    }

    #[test]
    fn ask_as_deny_changes_only_ask() {
        let ask = Answer::Decide {
            verdict: Verdict::Ask,
            reason: "r".to_owned(),
        };
        assert_eq!(
            ask.ask_as_deny(),
            Answer::Decide {
                verdict: Verdict::Deny,
                reason: "r".to_owned()
            }
        );
        assert_eq!(Answer::PassThrough.ask_as_deny(), Answer::PassThrough);
    }

    #[test]
    fn a_late_answer_denies_what_the_default_denies_and_asks_otherwise() {
        let gate = shellgate_policy::GateEvaluator::new(
            shellgate_policy::Policy::embedded_default().unwrap(),
        );
        let recipe = crate::TrustRecipe {
            cwd: PathBuf::from("/home/u/proj"),
            home: Some(PathBuf::from("/home/u")),
            tmp: PathBuf::from("/tmp"),
            ..crate::TrustRecipe::default()
        };
        let (state, _) = recipe.state(&gate);
        let verdict = |command: &str| match answer_after_deadline(
            &gate.evaluate(command, &state),
            5,
        ) {
            Answer::Decide { verdict, reason } => {
                assert!(
                    reason.starts_with("shellgate: no decision within 5 ms, so only the embedded default policy's deny rules and protected paths were checked"),
                    "{reason}"
                );
                verdict
            }
            Answer::PassThrough => panic!("no answer"),
        };
        assert_eq!(verdict("rm -rf ~"), Verdict::Deny);
        assert_eq!(verdict("ls"), Verdict::Ask);
    }
}
