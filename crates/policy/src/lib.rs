//! shellgate-policy: the gate. Given a command, where it runs and what this audience trusts,
//! the [`GateEvaluator`] answers `Approved`, `NeedsPrompt` or `HardDenied` — with the evidence,
//! and with one [`Prompt`] listing everything a person must approve.
//!
//! ```
//! use shellgate_policy::{Choice, Decision, Effect, GateEvaluator, Policy, TrustState};
//!
//! let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
//! let mut state = TrustState::new("personal", "/home/u/proj");
//! state.set_home("/home/u");
//! state.set_project("/home/u/proj");
//! state.set_resolve_symlinks(false);
//! gate.apply_profile(&mut state).unwrap();
//!
//! let evaluation = gate.evaluate("git push origin main", &state);
//! assert_eq!(evaluation.decision, Decision::NeedsPrompt);
//! let prompt = evaluation.prompt.as_ref().unwrap();
//! assert_eq!(prompt.clauses[0].pattern.as_ref().unwrap().as_str(), "git push origin main *");
//!
//! // The person chooses "Session": the pattern is trusted for the rest of the session.
//! let effects = gate.respond(&evaluation, Choice::Session, &state).unwrap();
//! assert_eq!(effects.last(), Some(&Effect::Complete(Decision::Approved)));
//! state.apply_effects(&effects);
//! assert_eq!(gate.evaluate("git push origin main", &state).decision, Decision::Approved);
//! ```
//!
//! The parts:
//!
//! * [`TrustState`]: audience, working, project, session and home directories, read and write
//!   zones with their [`GrantSource`], approved [`VerbPattern`]s, symlink resolution.
//! * [`load_policy`]: compiles policy files (`shellgate-rules`) and runs every deny rule's
//!   `match`/`not_match` example through the gate's own walk ([`examples`]).
//! * [`expand`]: the walk from a parsed command to every command it runs — through wrappers,
//!   shells, heredocs and interpreters — and the deny rules it hits.
//! * [`GateEvaluator::evaluate`]: the order of judgement is documented in [`evaluator`].
//! * [`paths`]: resolution and zone membership (by components, never by string prefix).
//! * [`matching`]: how an approved pattern matches a command, boundary-safe.
//! * [`proposal`]: narrow proposed patterns (seed 002 value tokens, seed 004 multi-line
//!   arguments, banned widenings).
//! * [`display`]: one-line display text with hidden characters escaped.
//! * [`workflow`]: a person's [`Choice`] turned into [`Effect`]s.
//! * [`grant_rule`]: the zones and patterns never trusted for good (`bash *`, `git *`, the home
//!   directory), with the narrower grant to give instead.

pub mod cases;
pub mod display;
mod error;
pub mod evaluation;
pub mod evaluator;
pub mod examples;
pub mod expand;
pub mod grant_rule;
mod load;
pub mod matching;
pub mod odd_input;
pub mod paths;
pub mod proposal;
pub mod trust;
pub mod workflow;

#[cfg(test)]
mod testing;

pub use cases::{CaseOutcome, deciding_rules};
pub use error::GateError;
pub use evaluation::{
    ClauseVerdict, DenyHit, Evaluation, Prompt, PromptClause, PromptPath, Reason, ReasonKind,
};
pub use evaluator::GateEvaluator;
pub use grant_rule::{GrantRefusal, GrantRule};
pub use load::{load_policy, load_policy_with};
pub use shellgate_rules::{Access, Decision, HostGrant, Policy, VerbPattern, ZonePath};
pub use trust::{ApprovedPattern, GrantSource, GrantedHost, TrustState, Zone};
pub use workflow::{Choice, Effect, WorkflowError, respond};
