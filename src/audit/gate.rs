//! [`GateJudge`]: the audit's [`Judge`] backed by the real [`GateEvaluator`].
//!
//! Each record is judged in a [`TrustState`] built like `shellgate eval` builds one — the
//! audience profile of the policy, the grants saved in the trust file for that audience, and
//! the session grants of the command line — for the record's working directory and audience
//! (or the defaults of the [`TrustRecipe`] when the log does not say). Symbolic links are not
//! resolved: a replayed log comes from another time, often another machine. States are cached
//! per (working directory, audience), since logs repeat a few directories.

use std::collections::HashMap;
use std::path::{Component, Path};
use std::sync::{Arc, RwLock};

use shellgate_policy::proposal::{NEVER_HEADS, SUBCOMMAND_HEADS};
use shellgate_policy::{
    Evaluation, GateEvaluator, GrantSource, TrustState, VerbPattern, ZonePath, deciding_rules,
};
use shellgate_rules::WrapperMode;

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

    /// A pattern must parse, must not be headed by a shell, interpreter, wrapper or privilege
    /// tool (the proposal's banned widenings, plus the policy's own shells, interpreters and
    /// prefix wrappers — even an exact interpreter command is never *suggested*), and must not
    /// be a bare subcommand head (`git *`, `npx *`). A zone must be a valid trust-file zone
    /// (absolute, at least two segments deep) that is neither the home directory nor one of its
    /// parents.
    fn admissible(&self, grant: &Grant) -> Result<(), String> {
        match grant {
            Grant::Pattern(text) => {
                let pattern = text
                    .parse::<VerbPattern>()
                    .map_err(|e| format!("not a valid pattern: {e}"))?;
                let prefix: Vec<&str> = pattern.prefix().iter().map(String::as_str).collect();
                let head = prefix.first().copied().unwrap_or_default();
                // The evaluator's own list: shells, interpreters and prefix wrappers.
                let policy = self.gate.policy();
                let mut policy_heads = policy
                    .shells()
                    .iter()
                    .map(|shell| &shell.verb)
                    .chain(
                        policy
                            .interpreters()
                            .iter()
                            .map(|interpreter| &interpreter.verb),
                    )
                    .chain(
                        policy
                            .wrappers()
                            .iter()
                            .filter(|wrapper| wrapper.mode == WrapperMode::Prefix)
                            .map(|wrapper| &wrapper.verb),
                    );
                if NEVER_HEADS.contains(&head)
                    || policy_heads
                        .any(|verb| matches!(verb.as_slice(), [single] if single == head))
                {
                    return Err(format!(
                        "`{head}` runs other code (a shell, interpreter or wrapper); it is never suggested"
                    ));
                }
                if SUBCOMMAND_HEADS
                    .iter()
                    .any(|subcommand_head| subcommand_head.starts_with(&prefix))
                {
                    return Err(format!(
                        "`{}` needs a subcommand before the glob",
                        prefix.join(" ")
                    ));
                }
                Ok(())
            }
            Grant::Zone { path, .. } => {
                let home = self.recipe.home.as_deref();
                let zone =
                    ZonePath::new(path, home).map_err(|e| format!("not a valid zone: {e}"))?;
                let zone = zone.as_path();
                if !zone
                    .components()
                    .all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
                {
                    return Err("not a normalised absolute directory".to_owned());
                }
                if home.is_some_and(|home| home.starts_with(zone)) {
                    return Err("it would trust the whole home directory".to_owned());
                }
                Ok(())
            }
        }
    }
}
