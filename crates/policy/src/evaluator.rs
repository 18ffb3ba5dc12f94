//! The [`GateEvaluator`]: one command in, one decision with its evidence out.
//!
//! # Order of judgement
//!
//! The command is parsed, then [`crate::expand`] finds every command it runs: each clause of
//! the graph, every command inside a wrapper (`sudo`, `env`, `timeout`, `xargs`, `find -exec`,
//! `git -C`) and every command in shell code parsed again (`bash -c`, `eval`, heredocs fed to a
//! shell), with interpreters and unreadable code marked opaque. Then:
//!
//! 1. **Hard deny** on every invocation, `raw` rules on the whole text and every nested code
//!    string, `pipeline` rules on every pipeline — also on whatever parsed when the parse is
//!    incomplete. A hit makes the decision `HardDenied`; no grant beats it.
//! 2. **The executable** of each leaf invocation: a non-literal verb (`$CMD`, `$(…)`, a glob, a
//!    brace expansion) needs a person and cannot be saved; a path-qualified verb is the bare
//!    name only in a trusted bin directory (`/usr/bin/cat` is `cat`, `./cat` is not).
//! 3. **Paths**: every operand the verb's roles mark as a read or write path, every redirect
//!    target (except `/dev/null`, `/dev/stdout`, `/dev/stderr` for writes and `/dev/null`,
//!    `/dev/stdin` for reads; descriptor duplications are not paths), every `cd`/`pushd` target
//!    (a read), and, for `xargs` and `find -exec`, the arguments they append (unknown, so
//!    dynamic). Each is resolved (see [`crate::paths`]); a protected path forces its decision
//!    (checked on the path as written and on its symlink target); a read needs a read zone (or
//!    a profile with `read = "all"`), a write a write zone. A dynamic path is untrusted, never
//!    skipped. A glob is judged by its literal directory (every match lies below it) and, when
//!    symbolic links are resolved, by each file it matches.
//! 4. **The verb**: it passes when the safe catalog admits it (a safe or pure verb that writes
//!    through a redirect is not read-only, so it does not pass this way), or when an approved
//!    pattern matches (see [`crate::matching`]). Otherwise it needs a person and a narrow
//!    pattern is proposed (see [`crate::proposal`]). Inner commands of a privilege-changing
//!    wrapper (`sudo`) never pass silently and cannot be saved. An assignment that changes how
//!    programs load or run (`PATH`, `LD_PRELOAD`, `GIT_SSH_COMMAND`…) needs a person and cannot
//!    be saved.
//! 5. **Embedded code**: an interpreter call needs a person and can only be saved as the exact
//!    command; a script file, code from a pipe, remote or dynamic code needs a person and cannot
//!    be saved. So does an expansion that evaluates data as code (`$((x))`, `${a[i]}`, `${s:n}`,
//!    `${!x}`, `${x@P}`, see [`shellgate_parser::evaluates::evaluating_parts`]) — in a word, an assignment, a
//!    redirection, an unquoted heredoc, a wrapper's options or a `for`/`select`/`case` word — and
//!    a loop variable or `${NAME:=…}` default that sets a variable such as `PATH`.
//! 6. **An incomplete parse** (or nested shell code that did not parse, or a depth limit) needs a
//!    person and cannot be saved.
//!
//! The decision is the maximum over every clause. One [`Prompt`](crate::evaluation::Prompt) lists every clause that needs
//! a person and every untrusted path, deduplicated.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use shellgate_rules::{Access, Policy, ReadZones, ZoneVars};

use crate::error::GateError;
use crate::evaluation::Evaluation;
use crate::grant_rule::GrantRule;
use crate::trust::{GrantSource, TrustState};

mod absent_operands;
mod assignments;
mod brought_files;
mod builds;
mod clause_text;
mod combine;
mod command_exposure;
mod descriptors;
mod foreign_repository;
mod invocation;
mod keyword;
mod link_targets;
mod network;
mod path_effects;
mod path_words;
mod project_code;
mod recursive_paths;
mod repository_secrets;
mod run;
mod runner;
mod secrets_inside;
mod tree_copies;
mod verdict;

use run::Run;

/// The gate: an immutable, shareable evaluator over one compiled [`Policy`].
///
/// ```
/// use shellgate_policy::{Decision, GateEvaluator, Policy, TrustState};
///
/// let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
/// let mut state = TrustState::new("personal", "/home/u/proj");
/// state.set_home("/home/u");
/// state.set_project("/home/u/proj");
/// state.set_resolve_symlinks(false);
/// gate.apply_profile(&mut state).unwrap();
/// assert_eq!(gate.evaluate("git status", &state).decision, Decision::Approved);
/// assert_eq!(gate.evaluate("rm -rf /", &state).decision, Decision::HardDenied);
/// ```
#[derive(Clone, Debug)]
pub struct GateEvaluator {
    policy: Arc<Policy>,
    /// What may be granted for good, and so proposed; built when first needed (an approved
    /// command never needs it).
    grant_rule: OnceLock<GrantRule>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<GateEvaluator>();
};

impl GateEvaluator {
    /// An evaluator over `policy`.
    #[must_use]
    pub fn new(policy: impl Into<Arc<Policy>>) -> Self {
        Self {
            policy: policy.into(),
            grant_rule: OnceLock::new(),
        }
    }

    /// What may be granted for good (and so proposed) under this policy.
    #[must_use]
    pub fn grant_rule(&self) -> &GrantRule {
        self.grant_rule
            .get_or_init(|| GrantRule::new(Arc::clone(&self.policy)))
    }

    /// The policy.
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Adds the zones of the state's audience profile (`{project}`, `{session}`, `{home}`,
    /// `{tmp}` from the state), with source [`GrantSource::Profile`].
    ///
    /// # Errors
    ///
    /// [`GateError::UnknownAudience`] when the policy has no such audience.
    pub fn apply_profile(&self, state: &mut TrustState) -> Result<(), GateError> {
        let Some(audience) = self.policy.audience(state.audience()) else {
            let known: Vec<&str> = self.policy.audiences().keys().map(String::as_str).collect();
            return Err(GateError::unknown_audience(state.audience(), &known));
        };
        let home = state.home().map(Path::to_path_buf);
        let zone_dir = |dir: Option<&Path>| dir.and_then(|dir| self.zone_dir(dir, state));
        let project = zone_dir(state.project());
        let session = zone_dir(state.session());
        let tmp = state.tmp().to_path_buf();
        let vars = ZoneVars {
            project: project.as_deref(),
            session: session.as_deref(),
            home: home.as_deref(),
            tmp: Some(&tmp),
        };
        let mut zones: Vec<(PathBuf, Access)> = Vec::new();
        match &audience.read {
            ReadZones::All => state.set_read_all(GrantSource::Profile),
            ReadZones::Templates(templates) => {
                zones.extend(
                    templates
                        .iter()
                        .filter_map(|t| t.resolve(&vars))
                        .map(|p| (p, Access::Read)),
                );
            }
        }
        zones.extend(
            audience
                .write
                .iter()
                .filter_map(|t| t.resolve(&vars))
                .map(|p| (p, Access::Write)),
        );
        for (path, access) in zones {
            state.add_zone(path, access, GrantSource::Profile);
        }
        for path in audience.run.iter().filter_map(|t| t.resolve(&vars)) {
            state.add_run_zone(path, GrantSource::Profile);
        }
        Ok(())
    }

    /// A project or session directory as the zone it gives, normalised; `None` when it gives
    /// none: it is `/`, holds the home directory, a system directory or a home-anchored
    /// protected path (an agent started in `~` or `~/.config`), or is the temporary directory
    /// itself (`/tmp`, where anyone may have put the files it would run; it stays a write zone
    /// as `{tmp}`). Judged where it leads when the state resolves links (a link to `~` is `~`).
    pub(crate) fn zone_dir(&self, dir: &Path, state: &TrustState) -> Option<PathBuf> {
        let dir = crate::paths::normalize(dir)?;
        let real = if state.resolve_symlinks() {
            crate::paths::resolve_symlinks(&dir).unwrap_or_else(|| dir.clone())
        } else {
            dir.clone()
        };
        let tmp = crate::paths::normalize(state.tmp());
        (!self.grant_rule().too_broad(&real, state.home()) && Some(&real) != tmp.as_ref())
            .then_some(dir)
    }

    /// Evaluates `command` as `state`'s audience would run it. Never fails: every problem
    /// raises the decision and is recorded in the result.
    ///
    /// An empty or blank command needs a person (see [`crate::odd_input`]).
    #[must_use]
    pub fn evaluate(&self, command: &str, state: &TrustState) -> Evaluation {
        if crate::odd_input::is_blank(command) {
            return crate::odd_input::blank(command);
        }
        let cwd = state.cwd().is_absolute().then(|| state.cwd().to_path_buf());
        let home = state
            .home()
            .filter(|h| h.is_absolute())
            .map(Path::to_path_buf);
        let (parsed, expansion) = crate::expand::walk(&self.policy, command, cwd.clone(), home);
        let mut run = Run::new(self, state, command, &parsed, &expansion);
        if cwd.is_none() {
            run.errors.push(format!(
                "the working directory `{}` is not absolute",
                state.cwd().display()
            ));
        }
        run.judge_all();
        run.finish()
    }

    /// The deny rules (not ask rules) `command` hits, without judging its paths: what the hook
    /// can still refuse in a few milliseconds when a full evaluation is late. Protected paths
    /// are not looked at.
    #[must_use]
    pub fn deny_rule_hits(&self, command: &str, state: &TrustState) -> Vec<crate::DenyHit> {
        let cwd = state.cwd().is_absolute().then(|| state.cwd().to_path_buf());
        let home = state
            .home()
            .filter(|h| h.is_absolute())
            .map(Path::to_path_buf);
        let (_, expansion) = crate::expand::walk(&self.policy, command, cwd, home);
        let mut hits: Vec<crate::DenyHit> = Vec::new();
        for hit in crate::expand::deny_hits(&self.policy, command, &expansion) {
            let rule = hit.rule;
            if !hit.asks && !hits.iter().any(|h| h.rule == rule.id) {
                hits.push(crate::DenyHit {
                    rule: rule.id.clone(),
                    category: rule.category.as_str().to_owned(),
                    reason: rule.reason.clone(),
                });
            }
        }
        hits
    }
}
