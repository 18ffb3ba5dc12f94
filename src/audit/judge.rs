//! The seam between the audit pipeline and the gate: a [`Judge`] turns one [`Record`] into the
//! compact [`Outcome`] the summary, the policy diff and `--decisions` need.
//!
//! The pipeline never sees a whole evaluation: workers keep only what is aggregated, so a chunk
//! of results stays small. [`GateJudge`](super::GateJudge) is the judge backed by the real
//! `GateEvaluator`; tests may use any `Fn(&Record, &[Grant]) -> Outcome`.

use std::borrow::Cow;

pub use shellgate_policy::{Access, Decision};

/// One command read from a log, borrowed from the reader's buffer where possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// 1-based line number in its file.
    pub line: u64,
    /// The command text.
    pub command: Cow<'a, str>,
    /// The working directory the command ran in, when the log recorded it.
    pub cwd: Option<Cow<'a, str>>,
    /// The audience the command ran for, when the log recorded it.
    pub audience: Option<Cow<'a, str>>,
}

/// A hard-deny rule that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HardDenyHit {
    /// The rule id.
    pub rule: String,
    /// The rule's category.
    pub category: String,
    /// The rule's reason (names the safer alternative).
    pub reason: String,
}

/// A clause that needs a person, with the narrow pattern the gate proposes for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptClause {
    /// The clause as displayed (one line, escaped).
    pub text: String,
    /// The proposed verb pattern, or `None` when the clause cannot be saved.
    pub pattern: Option<String>,
}

/// A path the command touches that no zone trusts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UntrustedPath {
    /// The absolute, normalised path.
    pub path: String,
    /// Whether the command reads or writes it.
    pub access: Access,
}

/// What the audit keeps of one evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The decision.
    pub decision: Decision,
    /// Ids of the rules behind the decision (hard-deny rules first), deduplicated.
    pub rules: Vec<String>,
    /// Hard-deny rules that matched.
    pub hard_deny: Vec<HardDenyHit>,
    /// Clauses that need a person.
    pub prompt_clauses: Vec<PromptClause>,
    /// Untrusted paths.
    pub untrusted_paths: Vec<UntrustedPath>,
}

impl Outcome {
    /// An outcome with only a decision.
    #[must_use]
    pub const fn bare(decision: Decision) -> Self {
        Self {
            decision,
            rules: Vec::new(),
            hard_deny: Vec::new(),
            prompt_clauses: Vec::new(),
            untrusted_paths: Vec::new(),
        }
    }
}

/// One grant a person could give, tried by the audit to find the grants that remove the most
/// prompts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grant {
    /// Approve a verb pattern such as `cargo test *`.
    Pattern(String),
    /// Trust a directory for reading, or for reading and writing.
    Zone {
        /// The absolute directory.
        path: String,
        /// `Read` trusts reads only; `Write` trusts reads and writes.
        access: Access,
    },
}

impl serde::Serialize for Grant {
    /// `{"kind": "pattern", "pattern": …}` or `{"kind": "zone", "path": …, "access": …}`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Self::Pattern(pattern) => {
                map.serialize_entry("kind", "pattern")?;
                map.serialize_entry("pattern", pattern)?;
            }
            Self::Zone { path, access } => {
                map.serialize_entry("kind", "zone")?;
                map.serialize_entry("path", path)?;
                map.serialize_entry("access", access_name(*access))?;
            }
        }
        map.end()
    }
}

/// Evaluates records for the audit. Must be shareable across rayon workers.
pub trait Judge: Sync {
    /// Judges `record`, as if `grants` had been given in addition to the trust the judge was
    /// built with (usually none).
    fn judge(&self, record: &Record<'_>, grants: &[Grant]) -> Outcome;

    /// Whether a person may be offered `grant` at all (never a banned widening, never a zone
    /// the store would refuse), or why not. The default admits every grant.
    ///
    /// # Errors
    ///
    /// Why the grant is not admissible, on one line.
    fn admissible(&self, grant: &Grant) -> Result<(), String> {
        let _ = grant;
        Ok(())
    }
}

impl<F> Judge for F
where
    F: Fn(&Record<'_>, &[Grant]) -> Outcome + Sync,
{
    fn judge(&self, record: &Record<'_>, grants: &[Grant]) -> Outcome {
        self(record, grants)
    }
}

/// The stable name of a decision, as in `eval --json`.
#[must_use]
pub const fn decision_name(decision: Decision) -> &'static str {
    decision.as_str()
}

/// The stable name of an access, as in `eval --json`.
#[must_use]
pub const fn access_name(access: Access) -> &'static str {
    access.as_str()
}
