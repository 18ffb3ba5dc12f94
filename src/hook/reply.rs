//! Reading an agent's answer back: what a hook command printed, as the agent would take it.
//! `shellgate doctor` uses it to check that an installed hook answers as it should.

use serde_json::Value;

use super::{Agent, Answer, Verdict};

/// The answer printed by a hook command for `agent`, as the agent reads it: `{}` (or any
/// object without a decision) is no opinion, [`Answer::PassThrough`]. `None` when the text is
/// not one JSON object or names a verdict the agent does not know.
#[must_use]
pub fn read_answer(agent: Agent, text: &str) -> Option<Answer> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let object = value.as_object()?;
    let (decision, reason) = match agent {
        Agent::ClaudeCode | Agent::Codex => {
            let Some(output) = object.get("hookSpecificOutput") else {
                return Some(Answer::PassThrough);
            };
            (
                output.get("permissionDecision"),
                output.get("permissionDecisionReason"),
            )
        }
        Agent::Gemini => (object.get("decision"), object.get("reason")),
    };
    let Some(decision) = decision else {
        return Some(Answer::PassThrough);
    };
    let verdict = [Verdict::Allow, Verdict::Ask, Verdict::Deny]
        .into_iter()
        .find(|verdict| decision.as_str() == Some(verdict.as_str()))?;
    Some(Answer::Decide {
        verdict,
        reason: reason
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::render;
    use super::*;

    #[test]
    fn reads_back_what_render_writes() {
        for agent in Agent::ALL {
            for verdict in [Verdict::Allow, Verdict::Ask, Verdict::Deny] {
                let answer = Answer::Decide {
                    verdict,
                    reason: "why".to_owned(),
                };
                let expected = match (agent, verdict) {
                    (Agent::Codex, Verdict::Allow) => Answer::PassThrough,
                    (Agent::Codex, Verdict::Ask) => Answer::Decide {
                        verdict: Verdict::Deny,
                        reason: "why — Codex hooks cannot ask, so shellgate refused; ask the user to approve or run it".to_owned(),
                    },
                    _ => answer.clone(),
                };
                assert_eq!(read_answer(agent, &render(agent, &answer)), Some(expected));
            }
            assert_eq!(read_answer(agent, "{}"), Some(Answer::PassThrough));
            assert_eq!(read_answer(agent, "not json"), None);
        }
        assert_eq!(read_answer(Agent::Gemini, r#"{"decision":"block"}"#), None);
    }
}
