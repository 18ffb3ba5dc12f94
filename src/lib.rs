#![doc = include_str!("../README.md")]

pub use shellgate_parser::{
    Assignment, Clause, ClauseGraph, Context, Operator, ParseOptions, ParseOutput, Redirect,
    RedirectOp, RedirectTarget, Span, Word, parse,
};

pub use shellgate_policy::{
    Access, ApprovedPattern, Choice, ClauseVerdict, Decision, DenyHit, Effect, Evaluation,
    GateError, GateEvaluator, GrantRefusal, GrantRule, GrantSource, Policy, Prompt, PromptClause,
    PromptPath, Reason, ReasonKind, TrustState, VerbPattern, WorkflowError, Zone, ZonePath,
    load_policy, load_policy_with,
};

pub mod audit;
pub mod claude_import;
pub mod hook;
pub mod install;
pub mod trust_recipe;

pub use trust_recipe::TrustRecipe;
