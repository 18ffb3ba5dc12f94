//! `shellgate audit`: replay real agent command logs through the gate.
//!
//! Policy authors need to know what a policy does to real traffic before they ship it: how
//! many commands would run silently, which deny rules fire, what people would be asked, which
//! grants would save the most prompts, and — with a baseline — which decisions a change moves.
//!
//! The pipeline streams: a reader cuts each input into chunks of lines ([`AuditOptions`]
//! bounds them in lines and bytes), the rayon pool judges a chunk while the next one is read,
//! the results are folded into the summary in input order and the chunk is dropped. Every
//! counter of the summary is bounded (a heavy-hitters sketch), so memory stays flat whatever
//! the log's size. Malformed lines are counted and listed with their line numbers; they never
//! stop a run.
//!
//! The pipeline depends on the gate only through the [`Judge`] trait; [`GateJudge`] is the
//! judge backed by the real `GateEvaluator`.

mod diff;
mod engine;
mod gate;
mod judge;
mod memo;
mod reader;
mod suggest;
mod summary;
mod topk;

pub use diff::{COMMANDS_PER_CHANGE, Change, ChangedCommand, DiffReport};
pub use engine::{AuditError, AuditOptions, Input, Progress, Report, audit};
pub use gate::{GateJudge, TrustRecipe, outcome};
pub use judge::{
    Access, Decision, Grant, HardDenyHit, Judge, Outcome, PromptClause, Record, UntrustedPath,
    access_name, decision_name,
};
pub use reader::{Format, Malformed};
pub use suggest::{
    CANDIDATES_PER_KIND, DENIALS_KEPT, GrantCheck, GrantSuggestion, PROMPTS_KEPT, RejectedGrant,
};
pub use summary::{
    DecisionCounts, FileReport, MalformedLine, MalformedReport, PathCount, PromptCount, RuleCount,
};
