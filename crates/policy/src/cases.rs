//! Running a policy file's `[[test]]` cases through the gate.
//!
//! A case runs with home [`EXAMPLE_HOME`] and project [`EXAMPLE_CWD`] unless it says
//! otherwise, in the project directory, with the case's audience profile (default `personal`),
//! its `zones` as extra write zones and its `grants` as approved patterns (both as session
//! grants), and with symbolic links not resolved (a case must not depend on the machine it runs
//! on). It passes when the decision is the expected one and, when the case names a `rule`, that
//! rule is among the deciding rules (a hard-deny rule that matched, or a protected entry that
//! forced the decision).

use std::path::PathBuf;

use shellgate_rules::{Access, Decision, PolicyTest, VerbPattern};

use crate::examples::{EXAMPLE_CWD, EXAMPLE_HOME};

use crate::display::code_list;
use crate::evaluation::Evaluation;
use crate::evaluator::GateEvaluator;
use crate::trust::{GrantSource, TrustState};

/// The result of one `[[test]]` case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseOutcome {
    /// The case name.
    pub name: String,
    /// The command.
    pub command: String,
    /// Whether it passed.
    pub passed: bool,
    /// The expected decision.
    pub expected: Decision,
    /// The decision the gate gave (`None` when the case could not run).
    pub actual: Option<Decision>,
    /// Why it failed (empty when it passed).
    pub message: String,
}

impl GateEvaluator {
    /// Runs one `[[test]]` case (see the module docs).
    #[must_use]
    pub fn run_case(&self, case: &PolicyTest) -> CaseOutcome {
        let mut outcome = CaseOutcome {
            name: case.name.clone(),
            command: case.command.clone(),
            passed: false,
            expected: case.expect,
            actual: None,
            message: String::new(),
        };
        let state = match self.case_state(case) {
            Ok(state) => state,
            Err(message) => {
                outcome.message = message;
                return outcome;
            }
        };
        let evaluation = self.evaluate(&case.command, &state);
        outcome.actual = Some(evaluation.decision);
        let mut problems = Vec::new();
        if evaluation.decision != case.expect {
            problems.push(format!(
                "expected {}, got {}{}",
                case.expect,
                evaluation.decision,
                summary(&evaluation)
            ));
        }
        if let Some(rule) = &case.rule
            && !deciding_rules(&evaluation).contains(&rule.as_str())
        {
            let found = deciding_rules(&evaluation);
            problems.push(if found.is_empty() {
                format!("expected rule `{rule}` to decide, but no rule did")
            } else {
                format!(
                    "expected rule `{rule}` to decide, but {} did",
                    code_list(&found, ", ")
                )
            });
        }
        outcome.passed = problems.is_empty();
        outcome.message = problems.join("; ");
        outcome
    }

    /// The trust state a case runs in.
    fn case_state(&self, case: &PolicyTest) -> Result<TrustState, String> {
        let project = case
            .project
            .clone()
            .unwrap_or_else(|| PathBuf::from(EXAMPLE_CWD));
        let cwd = case.cwd.clone().unwrap_or_else(|| project.clone());
        let home = case
            .home
            .clone()
            .unwrap_or_else(|| PathBuf::from(EXAMPLE_HOME));
        let mut state = TrustState::new(case.audience.as_deref().unwrap_or("personal"), &cwd);
        state.set_resolve_symlinks(false);
        state.set_home(&home);
        state.set_project(&project);
        self.apply_profile(&mut state).map_err(|e| e.to_string())?;
        for zone in &case.zones {
            let path = shellgate_rules::resolve_path(zone, Some(&cwd), Some(&home));
            state.add_zone(path, Access::Write, GrantSource::Session);
        }
        for grant in &case.grants {
            let pattern: VerbPattern =
                grant.parse().map_err(|e| format!("grant `{grant}`: {e}"))?;
            state.add_pattern(pattern, GrantSource::Session);
        }
        Ok(state)
    }
}

/// The rules that decided: matched hard-deny rules and forcing protected entries.
#[must_use]
pub fn deciding_rules(evaluation: &Evaluation) -> Vec<&str> {
    let mut rules: Vec<&str> = evaluation
        .hard_deny
        .iter()
        .map(|h| h.rule.as_str())
        .collect();
    for clause in &evaluation.clauses {
        for reason in &clause.reasons {
            if matches!(
                reason.kind,
                crate::ReasonKind::Protected | crate::ReasonKind::Ask
            ) && let Some(rule) = reason.rule.as_deref()
                && !rules.contains(&rule)
            {
                rules.push(rule);
            }
        }
    }
    rules
}

/// A short account of why a command got its decision, for failure messages.
fn summary(evaluation: &Evaluation) -> String {
    let mut parts: Vec<String> = Vec::new();
    for hit in &evaluation.hard_deny {
        parts.push(format!("denied by `{}`", hit.rule));
    }
    if let Some(prompt) = &evaluation.prompt {
        for clause in &prompt.clauses {
            parts.push(format!("asks about `{}`", clause.text));
        }
        for path in &prompt.paths {
            parts.push(format!("asks to {} `{}`", path.access, path.path));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}
