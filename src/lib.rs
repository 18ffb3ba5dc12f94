#![doc = include_str!("../README.md")]

pub use shellgate_parser::{
    Assignment, Clause, ClauseGraph, Context, Operator, ParseOptions, ParseOutput, Redirect,
    RedirectOp, RedirectTarget, Span, Word, parse,
};

pub use shellgate_policy::{
    Access, ApprovedPattern, Choice, ClauseVerdict, Decision, DenyHit, Effect, Evaluation,
    GateError, GateEvaluator, GrantRefusal, GrantRule, GrantSource, Policy, Prompt, PromptClause,
    PromptPath, Reason, ReasonKind, TrustState, VerbPattern, WorkflowError, Zone, ZonePath,
};

pub mod audit;
pub mod claude_import;
pub mod hook;
pub mod trust_recipe;

pub use trust_recipe::TrustRecipe;
