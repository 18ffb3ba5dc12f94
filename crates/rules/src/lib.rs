//! shellgate-rules: the declarative TOML policy language, compiled once into an immutable
//! [`Policy`].
//!
//! A policy says what is never allowed (`[[deny]]`), what is safe to run silently
//! (`[[safe]]`), which commands wrap other commands (`[[wrapper]]`, `[[shell]]`), which run code
//! shellgate cannot read (`[[interpreter]]`), what arguments mean (`[[verb]]`, `[classify]`),
//! where an audience may read and write (`[audience.NAME]`, `[[protected]]`) and how it is
//! tested (`[[test]]`). `policies/README.md` documents the language for policy authors.
//!
//! ```
//! use shellgate_rules::{Layer, Policy, PolicySource};
//!
//! let user = PolicySource::new(
//!     "user.toml",
//!     r#"
//! version = 1
//! [[deny]]
//! id = "no-terraform-destroy"
//! category = "destructive"
//! reason = "destroys infrastructure; run `terraform plan -destroy` and ask a person"
//! verb = ["terraform", "destroy"]
//! match = ["terraform destroy -auto-approve"]
//! not_match = ["terraform plan"]
//! "#,
//!     Layer::User,
//! );
//! let policy = Policy::compile(&[user]).unwrap();
//! assert_eq!(policy.deny_rules().len(), 1);
//! assert_eq!(policy.examples().len(), 2);
//! ```
//!
//! Compiling is all or nothing: every file is validated whole, every error carries file, line
//! and column ([`PolicyError`], one variant per kind of problem), and every glob and regex is
//! checked to compile. Matchers compile when a command first needs them.
//!
//! Every file takes that one path. The embedded default policy only saves work (see
//! [`Policy::compile_with`]): the build script turns `policies/default.toml` into a binary
//! form of the same value tree a TOML file is read into, so no TOML is parsed at run time, and
//! its checks and examples ran when it was built — in the test suite, and in `shellgate
//! check`, which runs them again ([`Examples::All`]).
//!
//! This crate is the language, not the engine: a deny rule's `match`/`not_match` examples
//! are recorded ([`Policy::examples`], each with its file, line and column) and run by
//! `shellgate_policy::load_policy` through the same walk the gate judges commands with.
//!
//! A deny rule's conditions (`verb`, `flags_any`, `args_any`, `cwd_under`, `raw`, …) are one
//! enum with one table of keys; [`glob`] is the one glob dialect of policy files and grants.
//!
//! Matching works on a [`CommandView`], so it applies equally to a clause as written and to a
//! command unwrapped from `sudo` or `bash -c`; the walk that finds every command a parsed
//! command line runs (`shellgate_policy::expand`) is the gate's, built on the catalog lookups
//! here ([`Policy::wrapper`], [`Policy::shell`], [`Policy::interpreter`],
//! [`Policy::command_name`]) and on [`flags`].

mod classify;
mod compile;
mod condition;
mod decision;
mod deny;
mod error;
mod example;
pub mod flags;
pub mod glob;
#[cfg(test)]
mod guard;
mod lazy;
mod model;
mod named;
mod names;
mod policy;
mod protected;
mod raw;
mod read;
mod safe;
pub mod sed;
#[cfg(test)]
mod testing;
mod tree;
mod verb_table;

pub mod pattern;

pub use classify::TokenClass;
pub use decision::Decision;
pub use error::{Located, Location, PolicyError};
pub use example::RuleExample;
pub use model::{
    ArgRole, Audience, Category, DenyKind, DenyRule, DisabledRule, EffectClass, ExecMode,
    InlineReader, Interpreter, Layer, OperandCount, PLACEHOLDERS, PolicySource, PolicyTest, Prefix,
    PrefixMode, ProgramReader, Protected, ReadZones, Role, Runs, SafeEntry, Setting, Settings,
    Shell, UnlessArg, UnlessFlag, VerbRoles, Wrapper, WrapperMode, WrapperOptions, ZoneTemplate,
    ZoneVars,
};
pub use names::folded_name;
pub use pattern::{
    Access, ArgGlob, HostGrant, PUBLIC_SECOND_LEVEL, PatternError, VerbPattern, ZonePath,
};
pub use policy::{CommandView, DEFAULT_POLICY, DEFAULT_POLICY_NAME, Examples, NamedTask, Policy};
pub use safe::{IncludeFilter, SafeVerdict, TaskFile};
pub use shellgate_parser::path::resolve as resolve_path;
