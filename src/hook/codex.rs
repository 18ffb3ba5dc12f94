//! Codex CLI `PreToolUse` hooks (<https://developers.openai.com/codex/hooks>; schemas in
//! `openai/codex` `codex-rs/hooks/schema/generated/`).
//!
//! The shell tool is reported as `Bash` with a string `tool_input.command`. Codex honours only
//! `permissionDecision: "deny"` with a non-empty reason; it rejects `"ask"` and `"allow"` (the
//! hook run is marked failed and the call proceeds), so:
//!
//! - allow → `{}`: shellgate has no objection; Codex's own approval policy and sandbox apply;
//! - ask → `deny`, the reason saying what a person must approve (the model relays it);
//! - deny → `deny`.
//!
//! Older builds that passed the command as an argument vector are accepted too: the words are
//! quoted back into one command line, so the gate judges exactly that argv.

use std::path::PathBuf;

use serde_json::{Map, Value};
use shellgate_policy::display;

use super::{
    Answer, HookError, ToolCall, Verdict, command_of, empty_object, pre_tool_use_output,
    shell_quote,
};

/// Appended to an ask turned into deny.
const CANNOT_ASK: &str =
    " — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it";

/// Names Codex has used for its shell tool in hook payloads.
const SHELL_TOOLS: [&str; 5] = [
    "Bash",
    "shell",
    "local_shell",
    "exec_command",
    "shell_command",
];

pub(super) fn call(tool: &str, input: Option<&Map<String, Value>>) -> Result<ToolCall, HookError> {
    if !SHELL_TOOLS.contains(&tool) {
        return Ok(ToolCall::Other);
    }
    let argv = input
        .and_then(|input| input.get("command"))
        .and_then(Value::as_array)
        .map(|words| {
            words
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<&str>>>()
        });
    let command = match argv {
        Some(Some(words)) if !words.is_empty() => words
            .iter()
            .map(|word| shell_quote(word))
            .collect::<Vec<_>>()
            .join(" "),
        _ => command_of(tool, input)?,
    };
    // `shell_command` takes a `workdir` the model chooses; when the payload carries it, the
    // command runs there.
    let workdir = input
        .and_then(|input| input.get("workdir"))
        .and_then(Value::as_str)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from);
    Ok(ToolCall::Shell { command, workdir })
}

pub(super) fn render(answer: &Answer) -> Value {
    match answer {
        Answer::Decide {
            verdict: Verdict::Allow,
            ..
        }
        | Answer::PassThrough => empty_object(),
        Answer::Decide {
            verdict: Verdict::Ask,
            reason,
        } => {
            // The note is kept whole however long the reason is.
            let limit = display::MAX_SHOWN_BYTES.saturating_sub(CANNOT_ASK.len());
            let reason = display::cap_to(reason.clone(), limit);
            pre_tool_use_output(Verdict::Deny, &format!("{reason}{CANNOT_ASK}"))
        }
        Answer::Decide {
            verdict: Verdict::Deny,
            reason,
        } => pre_tool_use_output(Verdict::Deny, reason),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Agent, parse_request, render};
    use super::*;

    #[test]
    fn ask_becomes_deny_and_allow_is_silent() {
        let ask = Answer::Decide {
            verdict: Verdict::Ask,
            reason: "needs a person".to_owned(),
        };
        assert_eq!(
            render(Agent::Codex, &ask),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"needs a person — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it"}}"#
        );
        let allow = Answer::Decide {
            verdict: Verdict::Allow,
            reason: "fine".to_owned(),
        };
        assert_eq!(render(Agent::Codex, &allow), "{}");
    }

    #[test]
    fn argv_commands_are_quoted_back() {
        let request = parse_request(
            Agent::Codex,
            br#"{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["bash","-lc","git status && echo 'hi'"]}}"#,
        )
        .unwrap();
        assert_eq!(
            request.call,
            ToolCall::Shell {
                command: r#"bash -lc 'git status && echo '\''hi'\'''"#.to_owned(),
                workdir: None
            }
        );
        let bad = parse_request(
            Agent::Codex,
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["ls",1]}}"#,
        );
        assert_eq!(
            bad,
            Err(HookError::MissingCommand {
                tool: "Bash".to_owned()
            })
        );
        let patch = parse_request(
            Agent::Codex,
            br#"{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}"#,
        )
        .unwrap();
        assert_eq!(patch.call, ToolCall::Other);
    }
}
