//! The value an evaluation returns: the decision with its evidence and the one prompt.
//!
//! Its serde form is the `shellgate eval --json` contract:
//!
//! ```json
//! {"decision": "Approved"|"NeedsPrompt"|"HardDenied",
//!  "clauses": [{"verb": [string], "argv": [string], "origin": string, "decision": string,
//!               "reasons": [{"kind": string, "rule": string|null, "message": string}]}],
//!  "hard_deny": [{"rule": string, "category": string, "reason": string}],
//!  "prompt": null | {"paths": [{"path": string, "access": "read"|"write"}],
//!                    "hosts": [string],
//!                    "clauses": [{"text": string, "pattern": string|null}],
//!                    "persistable": bool, "display": string,
//!                    "asked_by": [{"rule": string, "category": string, "reason": string}]}}
//! ```
//!
//! (`asked_by` is left out when no `[[ask]]` rule matched.)

use std::path::PathBuf;

use serde::Serialize;
use shellgate_rules::{Access, Decision, HostGrant, VerbPattern};

/// The result of evaluating one command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    /// The decision: the strictest over every clause and every command-level rule.
    pub decision: Decision,
    /// Each judged clause (after unwrapping wrappers and parsing shell code again), in order.
    pub clauses: Vec<ClauseVerdict>,
    /// Every hard-deny rule that matched, once each; a protected path whose access is never
    /// allowed is listed too, with category `protected`.
    pub hard_deny: Vec<DenyHit>,
    /// The one prompt, present exactly when the decision is `NeedsPrompt`.
    pub prompt: Option<Prompt>,
    /// Whether the command parsed completely (and every nested shell code too).
    #[serde(skip)]
    pub complete: bool,
    /// Internal errors met while evaluating; each one raised the decision.
    #[serde(skip)]
    pub errors: Vec<String>,
}

impl Evaluation {
    /// Whether every clause was judged and passed: true exactly when the decision is
    /// `Approved`.
    #[must_use]
    pub fn all_clauses_passed(&self) -> bool {
        self.complete
            && self.errors.is_empty()
            && self.hard_deny.is_empty()
            && self
                .clauses
                .iter()
                .all(|c| c.decision == Decision::Approved)
    }
}

impl Evaluation {
    /// This evaluation raised to at least `NeedsPrompt` for a reason outside its clauses
    /// (`verdict` says why, about the whole command): `HardDenied` stays; otherwise the one
    /// prompt asks about the command as `verdict.text` shows it, with no proposal, never
    /// persistable, keeping the untrusted paths (not as zones) and the ask rules.
    #[must_use]
    pub fn require_person(mut self, verdict: ClauseVerdict) -> Self {
        let shown = verdict.text.clone();
        self.clauses.push(verdict);
        for clause in &mut self.clauses {
            clause.proposal = None;
        }
        if self.decision == Decision::HardDenied {
            return self;
        }
        let (paths, asked_by) = self
            .prompt
            .take()
            .map(|prompt| (prompt.paths, prompt.asked_by))
            .unwrap_or_default();
        let paths = paths
            .into_iter()
            .map(|mut path| {
                path.zone = None;
                path
            })
            .collect();
        self.decision = Decision::NeedsPrompt;
        self.prompt = Some(Prompt {
            hosts: Vec::new(),
            paths,
            clauses: vec![PromptClause {
                text: shown.clone(),
                pattern: None,
            }],
            persistable: false,
            display: shown,
            asked_by,
        });
        self
    }
}

impl ClauseVerdict {
    /// A verdict about the command as a whole (not one clause), shown as `text`: it needs a
    /// person, for `reason`; `origin` says where it comes from (`parse`, `policy`).
    #[must_use]
    pub fn whole_command(origin: &str, reason: Reason, text: String) -> Self {
        Self {
            verb: Vec::new(),
            argv: Vec::new(),
            origin: origin.to_owned(),
            decision: Decision::NeedsPrompt,
            reasons: vec![reason],
            text,
            clause: None,
            proposal: None,
        }
    }
}

/// The verdict on one clause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClauseVerdict {
    /// The verb hint (display only).
    pub verb: Vec<String>,
    /// The cooked words that run (after unwrapping).
    pub argv: Vec<String>,
    /// Where the clause comes from: its context (`top`, `pipeline`, `substitution`…), then
    /// each wrapper or shell it was found through, joined by ` > ` (`top > sudo > bash -c`).
    pub origin: String,
    /// This clause's decision.
    pub decision: Decision,
    /// Why: every check that decided or informed the decision, in order.
    pub reasons: Vec<Reason>,
    /// The clause shown on one line (escaped, multi-line arguments summarised).
    #[serde(skip)]
    pub text: String,
    /// The index of the top-level clause (in the parse's clause graph) it comes from; `None`
    /// for the pseudo-verdicts of an incomplete parse or an internal error.
    #[serde(skip)]
    pub clause: Option<usize>,
    /// The pattern proposed when the clause's verb needs a person.
    #[serde(skip)]
    pub proposal: Option<VerbPattern>,
}

/// One piece of evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// What kind of check produced it.
    pub kind: ReasonKind,
    /// The rule id, zone, pattern or catalog entry that decided, if any.
    pub rule: Option<String>,
    /// A one-line explanation.
    pub message: String,
}

impl Reason {
    /// A reason with a deciding rule.
    #[must_use]
    pub fn new(kind: ReasonKind, rule: Option<String>, message: impl Into<String>) -> Self {
        Self {
            kind,
            rule,
            message: message.into(),
        }
    }
}

shellgate_rules::named_enum! {
    /// The kinds of evidence, serialised in snake case.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ReasonKind {
        /// A hard-deny rule matched.
        HardDeny = "hard_deny",
        /// An `[[ask]]` rule matched: a person decides, whatever a grant says.
        Ask = "ask",
        /// About the executable: dynamic, or path-qualified.
        Executable = "executable",
        /// A path is trusted by a zone.
        Zone = "zone",
        /// A path is not trusted.
        Path = "path",
        /// A protected path forced a decision.
        Protected = "protected",
        /// The safe catalog admitted the verb.
        Safe = "safe",
        /// The safe catalog refused the verb (an unsafe flag or argument).
        Unsafe = "unsafe",
        /// A pure side-effect verb.
        Pure = "pure",
        /// An approved pattern matched.
        Pattern = "pattern",
        /// The verb is not approved by anything.
        Verb = "verb",
        /// An assignment prefix changes how the command behaves.
        Assignment = "assignment",
        /// Embedded code the gate cannot read.
        Interpreter = "interpreter",
        /// Code that is not visible at all (a script file, code from a pipe, a remote command).
        Opaque = "opaque",
        /// Through a wrapper that changes privilege.
        Privileged = "privileged",
        /// What the command does on the network: the hosts it connects to, what it sends.
        Network = "network",
        /// The command prints the environment or a secret-looking variable into the transcript.
        Exposure = "exposure",
        /// The project's own code runs (a toolchain, a project script or program, repository
        /// hooks): whether it runs in a run zone of the audience.
        Code = "code",
        /// The command (or nested shell code) did not parse completely.
        Incomplete = "incomplete",
        /// An internal error; the decision was raised.
        Internal = "internal",
        /// A policy layer was refused (a broken or loosening project policy): the layers before it
        /// apply, and nothing runs without a person.
        Policy = "policy",
    }
}

/// A hard-deny rule that matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DenyHit {
    /// The rule id.
    pub rule: String,
    /// Its category (`destructive`, `privilege`…).
    pub category: String,
    /// Its reason, naming the safer alternative.
    pub reason: String,
}

/// The one prompt a person answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prompt {
    /// Every untrusted path, once (a path both read and written is listed as written).
    pub paths: Vec<PromptPath>,
    /// Every host a clause reads from that is not granted, once, as the host grant a person
    /// may give for it (a plain read of one host: never a request that sends data or uploads).
    pub hosts: Vec<HostGrant>,
    /// Every clause whose verb, executable or code needs a person, once.
    pub clauses: Vec<PromptClause>,
    /// Whether "Session" and "Always" can be offered: false when a clause is dynamic, opaque,
    /// unparsed or has no pattern, or a path cannot be trusted as a zone.
    pub persistable: bool,
    /// The whole command on one line.
    pub display: String,
    /// The `[[ask]]` rules that matched, once each: their reasons are shown with the prompt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub asked_by: Vec<DenyHit>,
}

/// An untrusted path in the prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptPath {
    /// The path as judged (absolute, resolved), or the word as written when it is dynamic.
    pub path: String,
    /// The access needed.
    pub access: Access,
    /// The zone a person may trust for it (the path itself), when it can be one.
    #[serde(skip)]
    pub zone: Option<PathBuf>,
}

/// A clause in the prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptClause {
    /// The clause on one line.
    pub text: String,
    /// The proposed pattern, when one can be saved.
    pub pattern: Option<VerbPattern>,
}
