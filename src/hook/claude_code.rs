//! Claude Code `PreToolUse` hooks (hooks reference, <https://code.claude.com/docs/en/hooks>).
//!
//! The shell tool is `Bash` with `tool_input.command`. Every verdict is expressed with
//! `hookSpecificOutput.permissionDecision`: `allow` skips the permission prompt, `ask` shows it
//! with the reason, `deny` refuses and shows the reason to the model. Other tools get `{}`.

use serde_json::{Map, Value};

use super::{Answer, HookError, ToolCall, command_of, empty_object, pre_tool_use_output};

/// The shell tool's name.
pub(super) const SHELL_TOOL: &str = "Bash";

pub(super) fn call(tool: &str, input: Option<&Map<String, Value>>) -> Result<ToolCall, HookError> {
    if tool != SHELL_TOOL {
        return Ok(ToolCall::Other);
    }
    Ok(ToolCall::Shell {
        command: command_of(tool, input)?,
        workdir: None,
    })
}

pub(super) fn render(answer: &Answer) -> Value {
    match answer {
        Answer::Decide { verdict, reason } => pre_tool_use_output(*verdict, reason),
        Answer::PassThrough => empty_object(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Agent, Verdict, parse_request, render};
    use super::*;

    #[test]
    fn renders_each_verdict() {
        for verdict in [Verdict::Allow, Verdict::Ask, Verdict::Deny] {
            let answer = Answer::Decide {
                verdict,
                reason: "why".to_owned(),
            };
            assert_eq!(
                render(Agent::ClaudeCode, &answer),
                format!(
                    r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"{}","permissionDecisionReason":"why"}}}}"#,
                    verdict.as_str()
                )
            );
        }
        assert_eq!(render(Agent::ClaudeCode, &Answer::PassThrough), "{}");
    }

    #[test]
    fn other_tools_pass_through() {
        let request = parse_request(
            Agent::ClaudeCode,
            br#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}"#,
        )
        .unwrap();
        assert_eq!(request.call, ToolCall::Other);
    }
}
