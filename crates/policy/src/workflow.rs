//! The approval workflow: a person's answer to the prompt, turned into effects.
//!
//! [`GateEvaluator::respond`] (over [`respond`], a pure function) turns the answer into
//! effects. The caller applies them in order: session grants go into the session's
//! [`TrustState`] (or the store's session grants), persisted grants into the trust store, and
//! [`Effect::Complete`] says whether the command may run now.
//!
//! | evaluation | choice | effects |
//! | --- | --- | --- |
//! | `NeedsPrompt` | `Once` | `Complete(Approved)` |
//! | `NeedsPrompt` | `Session` | `AddSessionZone` per path, `AddSessionHost` per host, `AddSessionPattern` per pattern, `Complete(Approved)` |
//! | `NeedsPrompt` | `Always` | `PersistZone` per path, `PersistHost` per host, `PersistPattern` per pattern, `Complete(Approved)` |
//! | `NeedsPrompt` | `Deny` | `Complete(HardDenied)` |
//! | not persistable | `Session` or `Always` | error: only `Once` and `Deny` are offered |
//! | a zone, host or pattern the [`GrantRule`] refuses | `Session` or `Always` | error: the refusal, with the narrower grant to give instead |
//! | `Approved` or `HardDenied` | any | error: there is no prompt to answer |
//!
//! After the `Session` or `Always` effects are applied, evaluating the same command in the same
//! place again gives `Approved` (the grants cover exactly what was asked).

use std::path::{Path, PathBuf};

use shellgate_rules::{Access, Decision, HostGrant, VerbPattern, ZonePath};

use crate::evaluation::Evaluation;
use crate::evaluator::GateEvaluator;
use crate::grant_rule::{GrantRefusal, GrantRule};
use crate::trust::TrustState;

shellgate_rules::named_enum! {
    /// A person's answer to a prompt (`ALL` in the order a prompt offers them).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Choice {
        /// Run it this time only.
        Once = "once",
        /// Run it, and trust the same paths and patterns for the rest of the session.
        Session = "session",
        /// Run it, and trust the same paths and patterns from now on (persisted).
        Always = "always",
        /// Do not run it.
        Deny = "deny",
    }
}

impl std::str::FromStr for Choice {
    type Err = WorkflowError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::from_name(text).ok_or_else(|| WorkflowError::UnknownChoice {
            text: text.to_owned(),
        })
    }
}

/// Something the caller must do after a person answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Trust a directory for the rest of the session.
    AddSessionZone {
        /// The directory.
        path: PathBuf,
        /// The access it grants.
        access: Access,
    },
    /// Approve a pattern for the rest of the session.
    AddSessionPattern(VerbPattern),
    /// Persist a zone in the trust store.
    PersistZone {
        /// The validated directory.
        path: ZonePath,
        /// The access it grants.
        access: Access,
    },
    /// Persist a pattern in the trust store.
    PersistPattern(VerbPattern),
    /// Grant plain reads of a host for the rest of the session.
    AddSessionHost(HostGrant),
    /// Persist a host grant in the trust store.
    PersistHost(HostGrant),
    /// The call is decided: run it (`Approved`) or not (`HardDenied`).
    Complete(Decision),
}

/// Why an answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum WorkflowError {
    /// The evaluation has no prompt.
    #[error("there is no prompt to answer: the decision is `{decision}`")]
    #[diagnostic(
        code(shellgate::workflow::no_prompt),
        help(
            "only a `NeedsPrompt` evaluation can be answered; run an approved command, never a denied one"
        )
    )]
    NoPrompt {
        /// The evaluation's decision.
        decision: Decision,
    },
    /// Session or Always on a prompt that cannot be saved.
    #[error("`{choice}` is not offered for this prompt: it cannot be saved")]
    #[diagnostic(
        code(shellgate::workflow::not_persistable),
        help(
            "a dynamic, opaque or unparsed command, or a path that cannot be a zone, can only be allowed `once` or denied"
        )
    )]
    NotPersistable {
        /// The refused choice.
        choice: Choice,
    },
    /// A zone or pattern that must never be trusted beyond this once.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Refused(#[from] GrantRefusal),
    /// A choice name that does not exist.
    #[error("unknown choice `{text}`")]
    #[diagnostic(
        code(shellgate::workflow::unknown_choice),
        help("choose `once`, `session`, `always` or `deny`")
    )]
    UnknownChoice {
        /// The name as given.
        text: String,
    },
}

impl GateEvaluator {
    /// Turns a person's choice on an evaluation's prompt into effects (see the module docs),
    /// refusing what this policy's [`GrantRule`] refuses; the home directory is `state`'s.
    ///
    /// # Errors
    ///
    /// As [`respond`].
    pub fn respond(
        &self,
        evaluation: &Evaluation,
        choice: Choice,
        state: &TrustState,
    ) -> Result<Vec<Effect>, WorkflowError> {
        respond(evaluation, choice, self.grant_rule(), state.home())
    }
}

/// Turns a person's choice on an evaluation's prompt into effects (see the module docs). Every
/// zone and pattern to remember (`Session`, `Always`) is checked with `rule`, `home` being the
/// home directory.
///
/// # Errors
///
/// [`WorkflowError::NoPrompt`] when the evaluation has no prompt (it is `Approved` or
/// `HardDenied`); [`WorkflowError::NotPersistable`] for `Session` or `Always` on a prompt that
/// is not persistable; [`WorkflowError::Refused`] when `rule` refuses one of its grants.
pub fn respond(
    evaluation: &Evaluation,
    choice: Choice,
    rule: &GrantRule,
    home: Option<&Path>,
) -> Result<Vec<Effect>, WorkflowError> {
    let Some(prompt) = evaluation.prompt.as_ref() else {
        return Err(WorkflowError::NoPrompt {
            decision: evaluation.decision,
        });
    };
    if evaluation.decision != Decision::NeedsPrompt {
        // A prompt only exists for NeedsPrompt; anything else is refused, never approved.
        return Err(WorkflowError::NoPrompt {
            decision: evaluation.decision,
        });
    }
    let persist = match choice {
        // Run once: nothing is remembered.
        Choice::Once => return Ok(vec![Effect::Complete(Decision::Approved)]),
        // Refuse: nothing is remembered either.
        Choice::Deny => return Ok(vec![Effect::Complete(Decision::HardDenied)]),
        // Remember for the session or for good, when the prompt allows it.
        Choice::Session | Choice::Always => {
            if !prompt.persistable {
                return Err(WorkflowError::NotPersistable { choice });
            }
            choice == Choice::Always
        }
    };
    let mut effects = Vec::new();
    for path in &prompt.paths {
        let Some(zone) = path.zone.as_ref() else {
            return Err(WorkflowError::NotPersistable { choice });
        };
        rule.check_zone(zone, path.access, home)?;
        if persist {
            let Some(validated) = zone.to_str().and_then(|z| ZonePath::new(z, None).ok()) else {
                return Err(WorkflowError::NotPersistable { choice });
            };
            effects.push(Effect::PersistZone {
                path: validated,
                access: path.access,
            });
        } else {
            effects.push(Effect::AddSessionZone {
                path: zone.clone(),
                access: path.access,
            });
        }
    }
    for host in &prompt.hosts {
        let host = rule.check_host(host.as_str())?;
        effects.push(if persist {
            Effect::PersistHost(host)
        } else {
            Effect::AddSessionHost(host)
        });
    }
    let mut seen: Vec<&VerbPattern> = Vec::new();
    for clause in &prompt.clauses {
        let Some(pattern) = clause.pattern.as_ref() else {
            return Err(WorkflowError::NotPersistable { choice });
        };
        if seen.contains(&pattern) {
            continue;
        }
        rule.check_pattern(pattern)?;
        seen.push(pattern);
        effects.push(if persist {
            Effect::PersistPattern(pattern.clone())
        } else {
            Effect::AddSessionPattern(pattern.clone())
        });
    }
    effects.push(Effect::Complete(Decision::Approved));
    Ok(effects)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grant_rule::CodeHead;
    use crate::testing::default_gate_and_state;

    /// Issue 13: even a prompt that claims to be persistable (built or changed by hand) cannot
    /// make "Always" or "Session" remember a grant the rule refuses.
    #[test]
    fn refused_grants_are_never_remembered() {
        let (gate, state) = default_gate_and_state();
        // The copy asks for its destination (outside every zone), the push for a pattern.
        let evaluation = gate.evaluate("cp a.txt ~/notes.txt && git push", &state);
        let prompt = evaluation.prompt.as_ref().unwrap();
        let offered: Vec<(&str, Option<&Path>)> = prompt
            .paths
            .iter()
            .map(|p| (p.path.as_str(), p.zone.as_deref()))
            .collect();
        assert_eq!(
            offered,
            [("/home/u/notes.txt", Some(Path::new("/home/u/notes.txt")))]
        );
        let patterns: Vec<Option<&str>> = prompt
            .clauses
            .iter()
            .map(|c| c.pattern.as_ref().map(VerbPattern::as_str))
            .collect();
        assert_eq!(patterns, [Some("git push *")]);
        let mut home = evaluation.clone();
        home.prompt
            .as_mut()
            .unwrap()
            .paths
            .first_mut()
            .unwrap()
            .zone = Some(PathBuf::from("/home/u"));
        for choice in [Choice::Session, Choice::Always] {
            assert_eq!(
                gate.respond(&home, choice, &state),
                Err(WorkflowError::Refused(GrantRefusal::Home {
                    zone: "/home/u".to_owned(),
                    home: "/home/u".to_owned()
                }))
            );
        }
        let mut bash = evaluation.clone();
        bash.prompt
            .as_mut()
            .unwrap()
            .clauses
            .first_mut()
            .unwrap()
            .pattern = Some("bash *".parse().unwrap());
        assert_eq!(
            gate.respond(&bash, Choice::Always, &state),
            Err(WorkflowError::Refused(GrantRefusal::RunsCode {
                pattern: "bash *".to_owned(),
                head: "bash".to_owned(),
                kind: CodeHead::Shell
            }))
        );
        // Once and Deny remember nothing, so nothing is refused.
        assert_eq!(
            gate.respond(&bash, Choice::Once, &state),
            Ok(vec![Effect::Complete(Decision::Approved)])
        );
        // The untouched evaluation is remembered as it is.
        assert_eq!(
            gate.respond(&evaluation, Choice::Always, &state),
            Ok(vec![
                Effect::PersistZone {
                    path: ZonePath::new("/home/u/notes.txt", None).unwrap(),
                    access: Access::Write
                },
                Effect::PersistPattern("git push *".parse().unwrap()),
                Effect::Complete(Decision::Approved)
            ])
        );
    }
}
