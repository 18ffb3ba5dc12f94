//! Gemini CLI `BeforeTool` hooks (`docs/hooks/reference.md` in `google-gemini/gemini-cli`).
//!
//! The shell tool is `run_shell_command` with `tool_input.command` and an optional directory
//! (`dir_path`, formerly `directory`) relative to the workspace. Output: `{"decision": "allow"}`,
//! `{"decision": "deny", "reason": …}` (the reason goes to the model), or `{"decision": "ask",
//! "reason": …, "systemMessage": …}` (forces the confirmation dialog, which shows the system
//! message; implemented since gemini-cli pull request 21146, not yet in the reference). Other
//! tools get `{}`.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Answer, HookError, ToolCall, Verdict, command_of, empty_object, shown};

/// The shell tool's name.
pub(super) const SHELL_TOOL: &str = "run_shell_command";

pub(super) fn call(tool: &str, input: Option<&Map<String, Value>>) -> Result<ToolCall, HookError> {
    if tool != SHELL_TOOL {
        return Ok(ToolCall::Other);
    }
    let workdir = input
        .and_then(|input| input.get("dir_path").or_else(|| input.get("directory")))
        .and_then(Value::as_str)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from);
    Ok(ToolCall::Shell {
        command: command_of(tool, input)?,
        workdir,
    })
}

pub(super) fn render(answer: &Answer) -> Value {
    match answer {
        Answer::PassThrough => empty_object(),
        Answer::Decide {
            verdict: Verdict::Allow,
            reason,
        } => serde_json::json!({ "decision": "allow", "reason": shown(reason) }),
        Answer::Decide {
            verdict: Verdict::Ask,
            reason,
        } => {
            let reason = shown(reason);
            serde_json::json!({ "decision": "ask", "reason": reason, "systemMessage": reason })
        }
        Answer::Decide {
            verdict: Verdict::Deny,
            reason,
        } => serde_json::json!({ "decision": "deny", "reason": shown(reason) }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Agent, render};
    use super::*;

    #[test]
    fn renders_each_verdict() {
        let answer = |verdict| Answer::Decide {
            verdict,
            reason: "r".to_owned(),
        };
        assert_eq!(
            render(Agent::Gemini, &answer(Verdict::Allow)),
            r#"{"decision":"allow","reason":"r"}"#
        );
        assert_eq!(
            render(Agent::Gemini, &answer(Verdict::Ask)),
            r#"{"decision":"ask","reason":"r","systemMessage":"r"}"#
        );
        assert_eq!(
            render(Agent::Gemini, &answer(Verdict::Deny)),
            r#"{"decision":"deny","reason":"r"}"#
        );
        assert_eq!(render(Agent::Gemini, &Answer::PassThrough), "{}");
    }
}
