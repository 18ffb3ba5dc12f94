//! The shellgate hook in an agent's settings file: where each agent keeps it, the entry
//! `shellgate install` adds, and finding and removing that entry while every other key and
//! hook stays as it was.
//!
//! Each agent reads JSON with the same three levels — event, matcher group, hook handlers
//! (`{"hooks": {EVENT: [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}}`):
//!
//! | agent | file (user level) | event | matcher | timeout |
//! | --- | --- | --- | --- | --- |
//! | Claude Code | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`) | `PreToolUse` | `Bash` | `10` (seconds) |
//! | Codex CLI | `~/.codex/hooks.json` (`$CODEX_HOME/hooks.json`) | `PreToolUse` | `Bash` | `10` (seconds) |
//! | Gemini CLI | `~/.gemini/settings.json` | `BeforeTool` | `run_shell_command` | `10000` (milliseconds) |
//!
//! A hook handler is shellgate's when its command, read as shell words, is a program named
//! `shellgate` (any directory) followed by `hook AGENT`. Installing when such a handler is
//! already there changes nothing (its options, such as `--policy`, are the user's); otherwise a
//! new matcher group is appended to the event's list. Uninstalling removes every shellgate
//! handler of that agent, and a matcher group, event list or `hooks` object only when the
//! removal left it empty.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use shellgate_parser::ParseOptions;

use crate::hook::Agent;

/// Why a settings file cannot be edited. Nothing is written then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstallError {
    /// The file is not JSON.
    #[error("the settings file is not valid JSON: {0}")]
    NotJson(String),
    /// The settings switch every hook off (`disableAllHooks`): a hook added would never run.
    #[error(
        "`disableAllHooks` is set in the settings file, so the agent runs no hooks; remove it, then install again"
    )]
    HooksDisabled,
    /// A value that must be an object or a list is something else.
    #[error("`{key}` in the settings file is not {expected}")]
    WrongShape {
        /// The key, as a dotted path (`hooks.PreToolUse`), or `the top level`.
        key: String,
        /// `an object` or `a list`.
        expected: &'static str,
    },
}

/// The result of an edit.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// The settings after the edit (equal to the input when nothing changed).
    pub settings: Value,
    /// Whether anything changed.
    pub changed: bool,
    /// The shellgate hook commands of the agent that were there before the edit.
    pub found: Vec<String>,
}

/// The agent's user-level settings file that holds its hooks, under `home` (or the agent's
/// own configuration-directory variable, `$CLAUDE_CONFIG_DIR` or `$CODEX_HOME`, when `env`
/// gives an absolute one).
#[must_use]
pub fn user_settings_path(
    agent: Agent,
    home: &Path,
    env: impl Fn(&str) -> Option<PathBuf>,
) -> PathBuf {
    let configured = |name: &str| env(name).filter(|dir| dir.is_absolute());
    match agent {
        Agent::ClaudeCode => configured("CLAUDE_CONFIG_DIR")
            .unwrap_or_else(|| home.join(".claude"))
            .join("settings.json"),
        Agent::Codex => configured("CODEX_HOME")
            .unwrap_or_else(|| home.join(".codex"))
            .join("hooks.json"),
        Agent::Gemini => home.join(".gemini").join("settings.json"),
    }
}

/// The settings file of the agent in a project directory.
#[must_use]
pub fn project_settings_path(agent: Agent, project: &Path) -> PathBuf {
    match agent {
        Agent::ClaudeCode => project.join(".claude").join("settings.json"),
        Agent::Codex => project.join(".codex").join("hooks.json"),
        Agent::Gemini => project.join(".gemini").join("settings.json"),
    }
}

/// The matcher naming the agent's shell tool.
#[must_use]
pub const fn shell_matcher(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode | Agent::Codex => "Bash",
        Agent::Gemini => "run_shell_command",
    }
}

/// The hook's timeout in the agent's unit (seconds for Claude Code and Codex, milliseconds for
/// Gemini CLI): ten seconds, well above the hook's own 2-second deadline.
#[must_use]
pub const fn timeout(agent: Agent) -> u64 {
    match agent {
        Agent::ClaudeCode | Agent::Codex => 10,
        Agent::Gemini => 10_000,
    }
}

/// The hook command for `agent` run through `program` (a shell word, quoted as needed).
#[must_use]
pub fn hook_command(program: &str, agent: Agent) -> String {
    format!("{program} hook {}", agent.name())
}

/// The matcher group `install` adds.
#[must_use]
pub fn hook_entry(agent: Agent, command: &str) -> Value {
    serde_json::json!({
        "matcher": shell_matcher(agent),
        "hooks": [{"type": "command", "command": command, "timeout": timeout(agent)}],
    })
}

/// Whether `command` runs `shellgate hook AGENT` (the program named `shellgate` in any
/// directory; the words compared after quote removal).
#[must_use]
pub fn is_shellgate_hook(agent: Agent, command: &str) -> bool {
    let parsed = shellgate_parser::parse(command, &ParseOptions::default());
    let Some(clause) = parsed.graph.clauses().next() else {
        return false;
    };
    let mut words = clause.cooked_argv();
    let program = words.next().unwrap_or_default();
    let named = Path::new(program)
        .file_name()
        .is_some_and(|name| name == "shellgate");
    named && words.next() == Some("hook") && words.next() == Some(agent.name())
}

/// Reads a settings file's text: blank text is an empty object.
///
/// # Errors
///
/// [`InstallError::NotJson`] when the text is not JSON.
pub fn parse_settings(text: &str) -> Result<Value, InstallError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|e| InstallError::NotJson(e.to_string()))
}

/// The settings as the text to write: two-space indented JSON and a final line feed.
#[must_use]
pub fn render_settings(settings: &Value) -> String {
    let mut text = serde_json::to_string_pretty(settings).unwrap_or_else(|_| settings.to_string());
    text.push('\n');
    text
}

/// The shellgate hook commands of `agent` in `settings`, in file order.
///
/// # Errors
///
/// [`InstallError::WrongShape`] when the hooks are not laid out as the agent reads them.
pub fn installed(agent: Agent, settings: &Value) -> Result<Vec<String>, InstallError> {
    Ok(handlers(agent, settings)?
        .into_iter()
        .map(|(command, _)| command)
        .collect())
}

/// The shellgate hook commands of `agent` in `settings`, in file order, each with why the
/// agent would never run it for its shell tool (`None` when it would).
///
/// # Errors
///
/// [`InstallError::WrongShape`] when the hooks are not laid out as the agent reads them.
pub fn handlers(
    agent: Agent,
    settings: &Value,
) -> Result<Vec<(String, Option<String>)>, InstallError> {
    let Some(groups) = event_groups(agent, settings)? else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for group in groups {
        for handler in group_handlers(group) {
            if let Some(command) = handler_command(handler)
                && is_shellgate_hook(agent, command)
            {
                found.push((command.to_owned(), inert(agent, settings, group, handler)));
            }
        }
    }
    Ok(found)
}

/// Whether the settings switch every hook off (`"disableAllHooks": true`).
#[must_use]
pub fn hooks_disabled(settings: &Value) -> bool {
    settings.get("disableAllHooks").and_then(Value::as_bool) == Some(true)
}

/// Why the agent would never run `handler` (of matcher group `group`) before its shell tool:
/// hooks switched off, a matcher that does not match the tool's name (matchers are
/// case-sensitive regular expressions matched against the whole name; none, `""` or `*`
/// matches every tool), a handler type other than `command`, or a timeout shorter than the
/// hook's deadline and its margin.
fn inert(agent: Agent, settings: &Value, group: &Value, handler: &Value) -> Option<String> {
    if hooks_disabled(settings) {
        return Some("`disableAllHooks` is set: the agent runs no hooks".to_owned());
    }
    let tool = shell_matcher(agent);
    match group.get("matcher") {
        None | Some(Value::Null) => {}
        Some(Value::String(matcher)) if matcher.is_empty() || matcher == "*" => {}
        Some(Value::String(matcher)) => {
            let matches = matcher == tool
                || regex::Regex::new(&format!("^(?:{matcher})$")).is_ok_and(|r| r.is_match(tool));
            if !matches {
                return Some(format!(
                    "its matcher `{matcher}` does not match the shell tool `{tool}` (matchers are case-sensitive)"
                ));
            }
        }
        Some(_) => return Some("its matcher is not a string".to_owned()),
    }
    match handler.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(kind)) if kind == "command" => {}
        Some(other) => {
            return Some(format!(
                "its type is {other}, not \"command\": the agent does not run it as a program"
            ));
        }
    }
    let least = timeout(agent) * 3 / 10;
    if let Some(given) = handler.get("timeout").and_then(Value::as_f64)
        && given < least as f64
    {
        return Some(format!(
            "its timeout of {given} is shorter than the {least} the hook needs (its deadline and margin)"
        ));
    }
    None
}

/// Adds the hook entry running `command` unless a shellgate hook of `agent` is there already.
///
/// # Errors
///
/// [`InstallError::WrongShape`] when the settings are not laid out as the agent reads them.
pub fn install(agent: Agent, mut settings: Value, command: &str) -> Result<Edit, InstallError> {
    if hooks_disabled(&settings) {
        return Err(InstallError::HooksDisabled);
    }
    let present = handlers(agent, &settings)?;
    let found: Vec<String> = present.iter().map(|(c, _)| c.clone()).collect();
    // (A handler the agent would never run is no hook: a working one is added beside it.)
    if present.iter().any(|(_, inert)| inert.is_none()) {
        return Ok(Edit {
            settings,
            changed: false,
            found,
        });
    }
    let event = agent.event();
    let top = settings
        .as_object_mut()
        .ok_or_else(|| wrong("the top level", "an object"))?;
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| wrong("hooks", "an object"))?;
    hooks
        .entry(event)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| wrong(&format!("hooks.{event}"), "a list"))?
        .push(hook_entry(agent, command));
    Ok(Edit {
        settings,
        changed: true,
        found,
    })
}

/// Removes every shellgate hook of `agent`, and the containers the removal left empty.
///
/// # Errors
///
/// [`InstallError::WrongShape`] when the settings are not laid out as the agent reads them.
pub fn uninstall(agent: Agent, mut settings: Value) -> Result<Edit, InstallError> {
    let found = installed(agent, &settings)?;
    if found.is_empty() {
        return Ok(Edit {
            settings,
            changed: false,
            found,
        });
    }
    let event = agent.event();
    if let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) {
        if let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) {
            groups.retain_mut(|group| {
                let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let before = handlers.len();
                handlers.retain(|handler| {
                    !handler_command(handler).is_some_and(|c| is_shellgate_hook(agent, c))
                });
                // A group is dropped only when shellgate's removal emptied it.
                !(handlers.is_empty() && before > 0)
            });
            if groups.is_empty() {
                hooks.remove(event);
            }
        }
        if hooks.is_empty()
            && let Some(top) = settings.as_object_mut()
        {
            top.remove("hooks");
        }
    }
    Ok(Edit {
        settings,
        changed: true,
        found,
    })
}

/// The event's matcher groups, or `None` when the settings have none.
fn event_groups(agent: Agent, settings: &Value) -> Result<Option<&Vec<Value>>, InstallError> {
    let top = settings
        .as_object()
        .ok_or_else(|| wrong("the top level", "an object"))?;
    let Some(hooks) = top.get("hooks") else {
        return Ok(None);
    };
    let hooks = hooks
        .as_object()
        .ok_or_else(|| wrong("hooks", "an object"))?;
    let event = agent.event();
    let Some(groups) = hooks.get(event) else {
        return Ok(None);
    };
    groups
        .as_array()
        .map(Some)
        .ok_or_else(|| wrong(&format!("hooks.{event}"), "a list"))
}

/// A matcher group's handlers (none when it has no `hooks` list).
fn group_handlers(group: &Value) -> impl Iterator<Item = &Value> {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn handler_command(handler: &Value) -> Option<&str> {
    handler.get("command").and_then(Value::as_str)
}

fn wrong(key: &str, expected: &'static str) -> InstallError {
    InstallError::WrongShape {
        key: key.to_owned(),
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_shellgate_hook_commands() {
        let agent = Agent::Codex;
        assert!(is_shellgate_hook(agent, "shellgate hook codex"));
        assert!(is_shellgate_hook(
            agent,
            "'/opt/my tools/shellgate' hook codex --policy t.toml"
        ));
        assert!(!is_shellgate_hook(agent, "shellgate hook gemini"));
        assert!(!is_shellgate_hook(agent, "shellgate eval -- ls"));
        assert!(!is_shellgate_hook(agent, "not-shellgate hook codex"));
        assert!(!is_shellgate_hook(agent, ""));
    }

    #[test]
    fn a_hook_the_agent_never_runs_for_its_shell_tool_is_not_installed() {
        let agent = Agent::ClaudeCode;
        let hook = |matcher: serde_json::Value, handler: serde_json::Value| serde_json::json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [handler]}]}});
        let command =
            serde_json::json!({"type": "command", "command": "shellgate hook claude-code"});
        let inert = |settings: &Value| {
            handlers(agent, settings)
                .unwrap()
                .into_iter()
                .map(|(_, why)| why)
                .collect::<Vec<_>>()
        };
        for matcher in ["Bash", "Bash|Edit", "Ba.*", "*", ""] {
            assert_eq!(
                inert(&hook(matcher.into(), command.clone())),
                [None],
                "{matcher}"
            );
        }
        assert_eq!(
            inert(&hook("bash".into(), command.clone())),
            [Some("its matcher `bash` does not match the shell tool `Bash` (matchers are case-sensitive)".to_owned())]
        );
        assert_eq!(
            inert(&hook(
                "Bash".into(),
                serde_json::json!({"type": "prompt", "command": "shellgate hook claude-code"})
            )),
            [Some(
                "its type is \"prompt\", not \"command\": the agent does not run it as a program"
                    .to_owned()
            )]
        );
        assert_eq!(
            inert(&hook(
                "Bash".into(),
                serde_json::json!({"type": "command", "command": "shellgate hook claude-code", "timeout": 1})
            )),
            [Some(
                "its timeout of 1 is shorter than the 3 the hook needs (its deadline and margin)"
                    .to_owned()
            )]
        );
        // Installing next to an inert handler adds a working one; a settings file that turns
        // every hook off is refused.
        let edit = install(
            agent,
            hook("Read".into(), command.clone()),
            "shellgate hook claude-code",
        )
        .unwrap();
        assert!(edit.changed);
        assert_eq!(inert(&edit.settings), [Some("its matcher `Read` does not match the shell tool `Bash` (matchers are case-sensitive)".to_owned()), None]);
        let mut off = hook("Bash".into(), command);
        off["disableAllHooks"] = true.into();
        assert_eq!(
            install(agent, off, "shellgate hook claude-code"),
            Err(InstallError::HooksDisabled)
        );
    }

    #[test]
    fn refuses_settings_of_the_wrong_shape() {
        assert_eq!(
            install(
                Agent::ClaudeCode,
                serde_json::json!([]),
                "shellgate hook claude-code"
            ),
            Err(wrong("the top level", "an object"))
        );
        assert_eq!(
            install(
                Agent::Gemini,
                serde_json::json!({"hooks": {"BeforeTool": {}}}),
                "shellgate hook gemini"
            ),
            Err(wrong("hooks.BeforeTool", "a list"))
        );
        assert!(matches!(parse_settings("{"), Err(InstallError::NotJson(_))));
        assert_eq!(parse_settings(" \n"), Ok(serde_json::json!({})));
    }

    #[test]
    fn uninstall_keeps_groups_it_did_not_empty() {
        let settings = serde_json::json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "audit.sh"},
                {"type": "command", "command": "shellgate hook claude-code"}]},
            {"matcher": "Read", "hooks": []}]}});
        let edit = uninstall(Agent::ClaudeCode, settings).unwrap();
        assert_eq!(
            edit.settings,
            serde_json::json!({"hooks": {"PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]},
                {"matcher": "Read", "hooks": []}]}})
        );
        assert_eq!(edit.found, ["shellgate hook claude-code"]);
    }
}
