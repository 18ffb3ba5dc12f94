//! [`GateJudge`]: the audit's [`Judge`] backed by the real [`GateEvaluator`].
//!
//! Each record is judged in a [`TrustState`] built like `shellgate eval` builds one — the
//! audience profile of the policy, the grants saved in the trust file for that audience, and
//! the session grants of the command line — for the record's working directory and audience
//! (or the defaults of the [`TrustRecipe`] when the log does not say). Symbolic links are not
//! resolved: a replayed log comes from another time, often another machine. States are cached
//! per (working directory, audience), since logs repeat a few directories.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use shellgate_policy::grant_rule::CodeHead;
use shellgate_policy::{
    Evaluation, GateEvaluator, GrantRefusal, GrantSource, TrustState, VerbPattern, ZonePath,
    deciding_rules,
};

pub use crate::trust_recipe::TrustRecipe;

use super::judge::{Grant, HardDenyHit, Judge, Outcome, PromptClause, Record, UntrustedPath};

/// States cached at most; past that, states are built per record.
const MAX_CACHED_STATES: usize = 4096;

/// The audit's judge over a real [`GateEvaluator`].
#[derive(Debug)]
pub struct GateJudge {
    gate: GateEvaluator,
    recipe: TrustRecipe,
    states: RwLock<HashMap<(String, String), Arc<TrustState>>>,
}

impl GateJudge {
    /// A judge evaluating with `gate` in states built from `recipe`. Symbolic links are never
    /// resolved, whatever the recipe says: a replayed log comes from another time, often
    /// another machine (and the audit's memo relies on it).
    #[must_use]
    pub fn new(gate: GateEvaluator, mut recipe: TrustRecipe) -> Self {
        recipe.resolve_symlinks = false;
        Self {
            gate,
            recipe,
            states: RwLock::new(HashMap::new()),
        }
    }

    /// The evaluator.
    #[must_use]
    pub const fn gate(&self) -> &GateEvaluator {
        &self.gate
    }

    /// The state a record with this working directory and audience is judged in.
    #[must_use]
    pub fn state(&self, cwd: Option<&str>, audience: Option<&str>) -> Arc<TrustState> {
        let cwd = cwd.filter(|cwd| Path::new(cwd).is_absolute());
        let key_cwd = cwd.map_or_else(
            || self.recipe.cwd.to_string_lossy(),
            std::borrow::Cow::Borrowed,
        );
        let audience = audience.unwrap_or(&self.recipe.audience);
        {
            let cache = self
                .states
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(state) = cache.get(&(key_cwd.as_ref().to_owned(), audience.to_owned())) {
                return Arc::clone(state);
            }
        }
        let state = Arc::new(self.build(Path::new(key_cwd.as_ref()), audience));
        let mut cache = self
            .states
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() < MAX_CACHED_STATES {
            cache.insert(
                (key_cwd.into_owned(), audience.to_owned()),
                Arc::clone(&state),
            );
        }
        state
    }

    fn build(&self, cwd: &Path, audience: &str) -> TrustState {
        // An audience the policy does not know gets no profile: it trusts less, never more.
        let (state, _unknown_audience) = self.recipe.state_for(&self.gate, cwd, audience);
        state
    }

    /// The evaluation of `record`, with `grants` added as session grants.
    #[must_use]
    pub fn evaluate(&self, record: &Record<'_>, grants: &[Grant]) -> Evaluation {
        let state = self.state(record.cwd.as_deref(), record.audience.as_deref());
        if grants.is_empty() {
            return self.gate.evaluate(&record.command, &state);
        }
        let mut state = (*state).clone();
        for grant in grants {
            match grant {
                Grant::Pattern(text) => {
                    if let Ok(pattern) = text.parse::<VerbPattern>() {
                        state.add_pattern(pattern, GrantSource::Session);
                    }
                }
                Grant::Zone { path, access } => {
                    state.add_zone(path, *access, GrantSource::Session);
                }
            }
        }
        self.gate.evaluate(&record.command, &state)
    }
}

/// The compact outcome of an evaluation.
#[must_use]
pub fn outcome(evaluation: Evaluation) -> Outcome {
    let rules = deciding_rules(&evaluation)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let (prompt_clauses, untrusted_paths) = evaluation.prompt.map_or_else(
        || (Vec::new(), Vec::new()),
        |prompt| {
            (
                prompt
                    .clauses
                    .into_iter()
                    .map(|clause| PromptClause {
                        text: clause.text,
                        pattern: clause.pattern.map(|pattern| pattern.as_str().to_owned()),
                    })
                    .collect(),
                prompt
                    .paths
                    .into_iter()
                    .map(|path| UntrustedPath {
                        path: path.path,
                        access: path.access,
                    })
                    .collect(),
            )
        },
    );
    Outcome {
        decision: evaluation.decision,
        rules,
        hard_deny: evaluation
            .hard_deny
            .into_iter()
            .map(|hit| HardDenyHit {
                rule: hit.rule,
                category: hit.category,
                reason: hit.reason,
            })
            .collect(),
        prompt_clauses,
        untrusted_paths,
    }
}

impl Judge for GateJudge {
    fn judge(&self, record: &Record<'_>, grants: &[Grant]) -> Outcome {
        outcome(self.evaluate(record, grants))
    }

    /// A grant the gate's [`GrantRule`](shellgate_policy::GrantRule) admits. On top of it,
    /// an interpreter's exact command (which the rule admits, since it matches only that
    /// command) is never *suggested*: it removes one prompt and widens nothing.
    fn admissible(&self, grant: &Grant) -> Result<(), String> {
        let rule = self.gate.grant_rule();
        match grant {
            Grant::Pattern(text) => {
                let pattern = text
                    .parse::<VerbPattern>()
                    .map_err(|e| format!("not a valid pattern: {e}"))?;
                rule.check_pattern(&pattern).map_err(|e| refusal(&e))?;
                let prefix: Vec<&str> = pattern.prefix().iter().map(String::as_str).collect();
                if let Some((head, CodeHead::Interpreter)) = rule.code_head(&prefix) {
                    return Err(format!(
                        "`{}` is an interpreter: its exact commands are saved when a prompt offers them, never suggested",
                        head.join(" ")
                    ));
                }
                Ok(())
            }
            Grant::Zone { path, access } => {
                let home = self.recipe.home.as_deref();
                let zone =
                    ZonePath::new(path, home).map_err(|e| format!("not a valid zone: {e}"))?;
                rule.check_zone(zone.as_path(), *access, home)
                    .map_err(|e| refusal(&e))
            }
        }
    }
}

/// A refusal and its narrower alternative, on one line.
fn refusal(refusal: &GrantRefusal) -> String {
    format!("{refusal}; {}", refusal.alternative())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shellgate_policy::Policy;

    use super::*;
    use crate::audit::judge::Access;

    /// Issue 13: the audit's suggestions go through the same grant rule as `shellgate
    /// approvals` and the workflow's "Always" (the reasons are the rule's, with its help).
    #[test]
    fn suggestions_are_admitted_by_the_grant_rule() {
        let judge = GateJudge::new(
            GateEvaluator::new(Policy::embedded_default().unwrap()),
            TrustRecipe {
                audience: "personal".to_owned(),
                cwd: PathBuf::from("/home/u/proj"),
                home: Some(PathBuf::from("/home/u")),
                ..TrustRecipe::default()
            },
        );
        let pattern = |text: &str| judge.admissible(&Grant::Pattern(text.to_owned()));
        let zone = |path: &str| {
            judge.admissible(&Grant::Zone {
                path: path.to_owned(),
                access: Access::Write,
            })
        };
        let cases = [
            (pattern("cargo build --release *"), Ok::<(), &str>(())),
            (zone("/srv/data"), Ok(())),
            (
                pattern("git *"),
                Err(
                    "`git *` would approve every `git` subcommand; name the subcommand, such as `git status *` or `git log *`",
                ),
            ),
            (
                pattern("npx *"),
                Err(
                    "`npx *` would approve too much: `npx` is a package runner, which downloads and runs whatever package it is named; approve the package's own command instead: for `npx prettier --write .` that is `prettier --write *`",
                ),
            ),
            (
                pattern("python3 -c print(0) *"),
                Err(
                    "`python3` is an interpreter: its exact commands are saved when a prompt offers them, never suggested",
                ),
            ),
            (
                zone("/home/u"),
                Err(
                    "`/home/u` would trust the whole home directory `/home/u`; trust a project directory inside it instead, such as `~/src/project`",
                ),
            ),
            (
                zone("/usr/local/share/x"),
                Err(
                    "`/usr/local/share/x` is inside the system directory `/usr`: writing there changes what other programs load and run; trust it for reading only (`--read-only`), or a directory of your own for writing",
                ),
            ),
            (
                pattern("git push *x y"),
                Err("not a valid pattern: `git push *x y` has no trailing argument glob"),
            ),
        ];
        for (got, expected) in cases {
            assert_eq!(got, expected.map_err(str::to_owned));
        }
    }
}
