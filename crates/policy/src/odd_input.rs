//! Commands the gate cannot judge as text: an empty or blank command, and bytes that are not
//! UTF-8.
//!
//! - **Blank** (empty, or only spaces, tabs and line feeds): `NeedsPrompt`, not persistable. It
//!   would run nothing, but a caller that sends nothing to judge has most likely lost the
//!   command on the way (a field renamed in an agent's hook payload, a truncated message), and
//!   approving what the gate cannot see is not failing closed. A command that is only a
//!   comment (`# note`) is not blank: it parses, runs nothing and is approved.
//! - **Not UTF-8**: judged as its lossy text (every invalid sequence replaced by U+FFFD, so a
//!   deny rule still refuses `rm -rf / \xff`), then raised to at least `NeedsPrompt`, never
//!   persistable and without proposals (a pattern of the lossy text would not be the command),
//!   with the bytes shown escaped (`\xff`).

use shellgate_rules::Decision;

use crate::display;
use crate::evaluation::{ClauseVerdict, Evaluation, Prompt, PromptClause, Reason, ReasonKind};
use crate::evaluator::GateEvaluator;
use crate::trust::TrustState;

/// What the prompt shows for a blank command.
pub const BLANK_TEXT: &str = "(an empty command)";

/// Whether `command` is empty or only spaces, tabs and line feeds (what bash skips between
/// commands).
#[must_use]
pub fn is_blank(command: &str) -> bool {
    command.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n'))
}

/// The evaluation of a blank command (see the module docs).
pub(crate) fn blank(command: &str) -> Evaluation {
    let shown = display::escape(command);
    Evaluation {
        decision: Decision::NeedsPrompt,
        clauses: vec![pseudo_verdict(
            "the command is empty: there is nothing to judge, so a person decides".to_owned(),
            shown.clone(),
        )],
        hard_deny: Vec::new(),
        prompt: Some(Prompt {
            hosts: Vec::new(),
            paths: Vec::new(),
            clauses: vec![PromptClause {
                text: BLANK_TEXT.to_owned(),
                pattern: None,
            }],
            persistable: false,
            display: shown,
            asked_by: Vec::new(),
        }),
        complete: true,
        errors: Vec::new(),
    }
}

/// A verdict on the command as a whole: it did not parse as given.
fn pseudo_verdict(message: String, text: String) -> ClauseVerdict {
    ClauseVerdict::whole_command(
        "parse",
        Reason::new(ReasonKind::Incomplete, None, message),
        text,
    )
}

impl GateEvaluator {
    /// [`evaluate`](Self::evaluate) for a command given as bytes: valid UTF-8 is evaluated as
    /// text; anything else needs a person at least (see the module docs).
    ///
    /// ```
    /// use shellgate_policy::{Decision, GateEvaluator, Policy, TrustState};
    ///
    /// let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    /// let mut state = TrustState::new("personal", "/home/u/proj");
    /// state.set_home("/home/u");
    /// gate.apply_profile(&mut state).unwrap();
    /// let evaluation = gate.evaluate_bytes(b"ls \xff", &state);
    /// assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    /// assert_eq!(evaluation.prompt.unwrap().display, "ls \\xff");
    /// assert_eq!(gate.evaluate_bytes(b"rm -rf / \xff", &state).decision, Decision::HardDenied);
    /// ```
    #[must_use]
    pub fn evaluate_bytes(&self, command: &[u8], state: &TrustState) -> Evaluation {
        let error = match std::str::from_utf8(command) {
            Ok(text) => return self.evaluate(text, state),
            Err(error) => error,
        };
        let lossy = String::from_utf8_lossy(command);
        let mut evaluation = self.evaluate(&lossy, state);
        let shown = display::cap(display::escape_bytes(command));
        let offset = error.valid_up_to();
        let byte = command.get(offset).copied().unwrap_or_default();
        let verdict = pseudo_verdict(
            format!(
                "the command is not valid UTF-8 (byte 0x{byte:02x} at offset {offset}): it was judged with each invalid byte replaced, and a person decides"
            ),
            shown,
        );
        evaluation.complete = false;
        evaluation.require_person(verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::default_gate_and_state;

    #[test]
    fn blank_commands_need_a_person() {
        let (gate, state) = default_gate_and_state();
        for command in ["", " ", "\n", " \t\n "] {
            let evaluation = gate.evaluate(command, &state);
            assert_eq!(evaluation, blank(command), "{command:?}");
            assert_eq!(evaluation.decision, Decision::NeedsPrompt);
            let prompt = evaluation.prompt.unwrap();
            assert!(!prompt.persistable);
            assert_eq!(prompt.clauses[0].text, BLANK_TEXT);
            assert_eq!(prompt.display, display::escape(command));
        }
        // A comment runs nothing and is not blank.
        assert_eq!(gate.evaluate("# note", &state).decision, Decision::Approved);
        assert!(!is_blank("\r"));
    }

    #[test]
    fn bytes_that_are_not_utf8_need_a_person_and_are_shown_escaped() {
        let (gate, state) = default_gate_and_state();
        let evaluation = gate.evaluate_bytes(b"cat notes\xff.txt > out\xfe", &state);
        assert_eq!(evaluation.decision, Decision::NeedsPrompt);
        assert!(!evaluation.complete);
        assert!(evaluation.clauses.iter().all(|c| c.proposal.is_none()));
        let last = evaluation.clauses.last().unwrap();
        assert_eq!(last.origin, "parse");
        assert_eq!(
            last.reasons[0].message,
            "the command is not valid UTF-8 (byte 0xff at offset 9): it was judged with each invalid byte replaced, and a person decides"
        );
        let prompt = evaluation.prompt.unwrap();
        assert_eq!(prompt.display, "cat notes\\xff.txt > out\\xfe");
        assert!(!prompt.persistable);
        assert_eq!(
            prompt.clauses,
            vec![PromptClause {
                text: "cat notes\\xff.txt > out\\xfe".to_owned(),
                pattern: None
            }]
        );
        assert!(prompt.paths.iter().all(|p| p.zone.is_none()));
        // Approved as text is still at least NeedsPrompt; denied stays denied.
        assert_eq!(
            gate.evaluate_bytes(b"ls \xff", &state).decision,
            Decision::NeedsPrompt
        );
        let denied = gate.evaluate_bytes(b"rm -rf / \xc3", &state);
        assert_eq!(denied.decision, Decision::HardDenied);
        assert_eq!(denied.prompt, None);
        // Valid UTF-8 is evaluated as text.
        assert_eq!(
            gate.evaluate_bytes("ls caf\u{e9}".as_bytes(), &state),
            gate.evaluate("ls caf\u{e9}", &state)
        );
    }
}
