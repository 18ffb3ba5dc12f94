//! Matching deny rules: `command` rules against one command, `raw` rules against text and
//! `pipeline` rules against the stages of a pipeline.

use std::borrow::Cow;

use shellgate_parser::Word;

use crate::condition::{Condition, Facts, Row};
use crate::model::DenyRule;
use crate::names::folded_name;
use crate::policy::{CommandView, Policy};

impl Policy {
    /// Where a deny rule's verb prefix ends in `words`: the index after its last word, or
    /// `None` when the words do not start with it. The strict reading of `Policy::starts_with`
    /// (any directory) that also lets option words stand *between* the prefix's words, so
    /// `git --no-pager push` and `git --bare push` meet a `["git", "push"]` rule (a top-level
    /// option never changes which subcommand runs). This only ever matches more, which is the
    /// safe direction for a deny rule; the safe catalog keeps the exact reading.
    #[must_use]
    pub fn deny_prefix_end(&self, words: &[Word], verb: &[String]) -> Option<usize> {
        let (first, rest) = verb.split_first()?;
        let name = self.deny_name(words.first()?)?;
        if name != first.as_str() {
            return None;
        }
        let mut i = 1;
        for v in rest {
            while words.get(i).is_some_and(|w| {
                w.literal && w.cooked.len() > 1 && w.cooked.starts_with('-') && w.cooked != *v
            }) {
                i += 1;
            }
            let word = words.get(i)?;
            if !(word.literal && word.cooked == *v) {
                return None;
            }
            i += 1;
        }
        Some(i)
    }

    /// The command name a deny rule's verb is compared with: in any directory, and as a
    /// case-insensitive file system or Windows resolves it (`GIT`, `Chmod`, `git.exe`,
    /// `git.cmd` run `git`, `chmod`), which only ever matches more.
    fn deny_name<'w>(&self, word: &'w Word) -> Option<Cow<'w, str>> {
        let (name, _) = self.command_name(word)?;
        Some(folded_name(name).map_or(Cow::Borrowed(name), Cow::Owned))
    }

    /// The command deny rules (`verb`, flags, `args_any`, `redirect_to`, `env`) that `view`
    /// hits, in declaration order. The verb is compared by command name in any directory
    /// (`/tmp/x/rm` is `rm`), which only ever matches more.
    #[must_use]
    pub fn deny(&self, view: &CommandView<'_>) -> Vec<&DenyRule> {
        let keyed = view.words.first().and_then(|w| self.deny_name(w));
        let mut candidates: Vec<usize> = keyed
            .map(|name| {
                self.declared
                    .deny
                    .candidates(&name)
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default();
        candidates.extend(self.deny_any_verb.iter().copied());
        if candidates.is_empty() {
            return Vec::new();
        }
        candidates.sort_unstable();
        candidates.dedup();
        let facts = Facts::default();
        candidates
            .into_iter()
            .filter_map(|i| self.deny_rules().get(i))
            .filter(|rule| self.command_hits(&rule.conditions, view, &facts))
            .collect()
    }

    /// Whether every condition of a `command` rule holds for `view`.
    fn command_hits(
        &self,
        conditions: &[(&Row, Condition)],
        view: &CommandView<'_>,
        facts: &Facts,
    ) -> bool {
        // Arguments start after the command word, or after the prefix once `verb` matched.
        let mut start = 1;
        conditions
            .iter()
            .all(|(_, condition)| condition.holds(self, view, facts, &mut start))
    }

    /// The `raw` deny rules whose regex matches anywhere in `text`, in declaration order.
    #[must_use]
    pub fn deny_raw(&self, text: &str) -> Vec<&DenyRule> {
        if self.raw.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<usize> = self
            .raw
            .matches(text)
            .into_iter()
            .filter_map(|i| self.raw_rules.get(i).copied())
            .collect();
        hits.sort_unstable();
        hits.into_iter()
            .filter_map(|i| self.deny_rules().get(i))
            .collect()
    }

    /// The `pipeline` deny rules hit by a pipeline whose stages are `stages`, in order: a
    /// stage matching `from` followed (directly or later) by a stage matching `to`.
    #[must_use]
    pub fn deny_pipeline(&self, stages: &[CommandView<'_>]) -> Vec<&DenyRule> {
        self.pipeline_hits(stages.len(), &|stage, verb| {
            stages
                .get(stage)
                .is_some_and(|view| self.deny_prefix_end(view.words, verb).is_some())
        })
    }

    /// Pipeline rules hit, given a predicate "stage `i` runs a command starting with `verb`"
    /// (the gate's walk answers it from the invocations each stage produced).
    #[must_use]
    pub fn pipeline_hits(
        &self,
        stages: usize,
        runs: &dyn Fn(usize, &[String]) -> bool,
    ) -> Vec<&DenyRule> {
        self.pipeline_rules
            .iter()
            .filter_map(|i| self.deny_rules().get(*i))
            .filter(|rule| {
                let Some((from, to)) = rule.pipeline() else {
                    return false;
                };
                (0..stages).any(|i| {
                    from.iter().any(|v| runs(i, v))
                        && (i + 1..stages).any(|j| to.iter().any(|v| runs(j, v)))
                })
            })
            .collect()
    }
}
