//! Grant suggestions: which single grant would remove the most prompts, proven by
//! re-evaluation.
//!
//! While the log streams by, the audit keeps every *distinct* record (command, cwd, audience)
//! that needed a person or was refused, with how often it occurred — agent logs repeat the same
//! commands, so this stays small — up to a fixed number of distinct records
//! ([`PROMPTS_KEPT`], [`DENIALS_KEPT`]). At the end the candidates are the most frequent
//! proposed patterns and the directories that hold the most untrusted paths. Each candidate is
//! then proven:
//!
//! - every kept refused record is judged again with the candidates added: a candidate under
//!   which any of them is no longer `HardDenied` is rejected (a grant must never beat a deny
//!   rule). Since adding a grant never raises a decision (a property the policy crate tests),
//!   one evaluation with every candidate at once proves all of them for a record that stays
//!   refused; only when it does not are the candidates judged one by one;
//! - the judge must admit the grant ([`GateJudge`](super::GateJudge) asks the policy's grant
//!   rule, as `shellgate approvals` does: never `git *`, `sudo *`, a shell, an interpreter, a
//!   package runner alone; never a zone holding the home directory, a system directory or a
//!   protected path);
//! - every kept prompting record the candidate may concern (its proposed patterns start with
//!   the candidate's words, or one of its untrusted paths lies in the candidate directory) is
//!   judged again with the candidate added, and the records that become `Approved` are counted.
//!
//! The counts are exact re-evaluations. When more distinct records occurred than were kept,
//! [`GrantCheck::complete`] is false and the counts cover only the kept ones.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::judge::{Access, Decision, Grant, Judge, Outcome, Record};

/// Distinct prompting records kept for the proof.
pub const PROMPTS_KEPT: usize = 8_192;
/// Distinct refused records kept for the proof.
pub const DENIALS_KEPT: usize = 4_096;
/// Candidates of each kind (patterns, zones) tried.
pub const CANDIDATES_PER_KIND: usize = 10;

/// A grant that removes prompts without letting anything refused through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GrantSuggestion {
    /// The grant.
    #[serde(flatten)]
    pub grant: Grant,
    /// Records that needed a person and would run silently with this grant.
    pub prompts_removed: u64,
}

/// A candidate grant that was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RejectedGrant {
    /// The grant.
    #[serde(flatten)]
    pub grant: Grant,
    /// Why it was rejected.
    pub reason: String,
}

/// How thoroughly the suggestions were checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GrantCheck {
    /// Distinct prompting records re-evaluated against the candidates.
    pub prompting_commands: u64,
    /// Distinct refused records re-evaluated against every candidate.
    pub refused_commands: u64,
    /// Whether every non-approved record of the run was kept (else the counts cover the kept
    /// ones only).
    pub complete: bool,
    /// Candidates that were rejected, and why.
    pub rejected: Vec<RejectedGrant>,
}

#[derive(Debug)]
struct Kept {
    line: u64,
    count: u64,
    decision: Decision,
    /// Proposed patterns and clause texts of the prompt (what a pattern may concern).
    words: Vec<String>,
    /// Untrusted paths (what a zone may concern).
    paths: Vec<String>,
}

type Key = (String, Option<String>, Option<String>);

/// The distinct non-approved records of a run, by the hash of their key (see
/// [`super::memo::Judgement::hash`]).
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    kept: HashMap<u64, (Key, Kept)>,
    /// Repeats folded in before their first occurrence (rayon judges a chunk out of order;
    /// results are folded in order, but the repeat may have been the one to find the memo
    /// filled): counted when the first occurrence arrives.
    waiting: HashMap<u64, u64>,
    prompts: usize,
    denials: usize,
    dropped: u64,
}

impl Evidence {
    /// Counts a non-approved record. `owned` (command, cwd, audience) comes with a record
    /// that was judged fresh; a repeat found in the memo comes without.
    pub(crate) fn add(&mut self, hash: u64, owned: Option<Key>, line: u64, outcome: &Outcome) {
        if let Some((key, kept)) = self.kept.get_mut(&hash) {
            // A different record under the same 64-bit keyed hash is not counted as this one.
            if owned.as_ref().is_none_or(|owned| owned == key) {
                kept.count = kept.count.saturating_add(1);
            } else {
                self.dropped = self.dropped.saturating_add(1);
            }
            return;
        }
        let Some(key) = owned else {
            let waiting = self.waiting.entry(hash).or_default();
            *waiting = waiting.saturating_add(1);
            return;
        };
        let earlier = self.waiting.remove(&hash).unwrap_or(0);
        let slot = match outcome.decision {
            Decision::Approved => return,
            Decision::NeedsPrompt => (&mut self.prompts, PROMPTS_KEPT),
            Decision::HardDenied => (&mut self.denials, DENIALS_KEPT),
        };
        if *slot.0 >= slot.1 {
            self.dropped = self.dropped.saturating_add(1).saturating_add(earlier);
            return;
        }
        *slot.0 = slot.0.saturating_add(1);
        let mut words: Vec<String> = Vec::new();
        for clause in &outcome.prompt_clauses {
            words.extend(clause.pattern.iter().cloned());
            words.push(clause.text.clone());
        }
        self.kept.insert(
            hash,
            (
                key,
                Kept {
                    line,
                    count: earlier.saturating_add(1),
                    decision: outcome.decision,
                    words,
                    paths: outcome
                        .untrusted_paths
                        .iter()
                        .map(|untrusted| untrusted.path.clone())
                        .collect(),
                },
            ),
        );
    }

    /// Repeats whose first occurrence never arrived (it was not kept) count as not kept.
    pub(crate) fn finish(&mut self) {
        let waiting: u64 = self.waiting.drain().map(|(_, count)| count).sum();
        self.dropped = self.dropped.saturating_add(waiting);
    }
}

/// Whether `pattern` may concern a prompt with these patterns and clause texts: the pattern's
/// words before its first glob are the first words of one of them.
fn pattern_may_concern(pattern: &str, words: &[String]) -> bool {
    let prefix: Vec<&str> = pattern
        .split_whitespace()
        .take_while(|word| !word.contains(['*', '?', '[']))
        .collect();
    !prefix.is_empty()
        && words.iter().any(|text| {
            let mut tokens = text.split_whitespace();
            prefix.iter().all(|word| tokens.next() == Some(word))
        })
}

/// Whether `path` lies in `dir` (component-wise).
fn inside(path: &str, dir: &str) -> bool {
    Path::new(path).starts_with(dir)
}

fn may_concern(grant: &Grant, kept: &Kept) -> bool {
    match grant {
        Grant::Pattern(pattern) => pattern_may_concern(pattern, &kept.words),
        Grant::Zone { path, .. } => kept.paths.iter().any(|untrusted| inside(untrusted, path)),
    }
}

#[derive(Clone, Default)]
struct Tally {
    removed: u64,
    lowered: u64,
}

/// Proves `candidates` against the evidence and returns the admissible ones that remove
/// prompts, most prompts first, at most `limit`.
pub(crate) fn prove<J: Judge>(
    judge: &J,
    evidence: &Evidence,
    candidates: Vec<Grant>,
    limit: usize,
) -> (Vec<GrantSuggestion>, GrantCheck) {
    let mut check = GrantCheck {
        prompting_commands: evidence.prompts as u64,
        refused_commands: evidence.denials as u64,
        complete: evidence.dropped == 0,
        rejected: Vec::new(),
    };
    let mut admitted = Vec::new();
    for grant in candidates {
        match judge.admissible(&grant) {
            Ok(()) => admitted.push(grant),
            Err(reason) => check.rejected.push(RejectedGrant { grant, reason }),
        }
    }
    let tallies = evidence
        .kept
        .par_iter()
        .fold(
            || vec![Tally::default(); admitted.len()],
            |mut tallies, (_, ((command, cwd, audience), kept))| {
                let record = Record {
                    line: kept.line,
                    command: Cow::Borrowed(command),
                    cwd: cwd.as_deref().map(Cow::Borrowed),
                    audience: audience.as_deref().map(Cow::Borrowed),
                };
                match kept.decision {
                    Decision::HardDenied => {
                        // Grants never raise a decision, so a record still refused with every
                        // candidate at once is refused with each one: one evaluation proves
                        // them all. Only if it is not are the candidates tried one by one.
                        if judge.judge(&record, &admitted).decision != Decision::HardDenied {
                            for (grant, tally) in admitted.iter().zip(tallies.iter_mut()) {
                                let alone = judge.judge(&record, std::slice::from_ref(grant));
                                if alone.decision != Decision::HardDenied {
                                    tally.lowered = tally.lowered.saturating_add(kept.count);
                                }
                            }
                        }
                    }
                    Decision::NeedsPrompt => {
                        for (grant, tally) in admitted.iter().zip(tallies.iter_mut()) {
                            if may_concern(grant, kept)
                                && judge.judge(&record, std::slice::from_ref(grant)).decision
                                    == Decision::Approved
                            {
                                tally.removed = tally.removed.saturating_add(kept.count);
                            }
                        }
                    }
                    Decision::Approved => {}
                }
                tallies
            },
        )
        .reduce(
            || vec![Tally::default(); admitted.len()],
            |mut left, right| {
                for (l, r) in left.iter_mut().zip(right) {
                    l.removed = l.removed.saturating_add(r.removed);
                    l.lowered = l.lowered.saturating_add(r.lowered);
                }
                left
            },
        );
    let mut suggestions = Vec::new();
    for (grant, tally) in admitted.into_iter().zip(tallies) {
        if tally.lowered > 0 {
            check.rejected.push(RejectedGrant {
                grant,
                reason: format!(
                    "would let {} refused record(s) through a deny rule",
                    tally.lowered
                ),
            });
        } else if tally.removed > 0 {
            suggestions.push(GrantSuggestion {
                grant,
                prompts_removed: tally.removed,
            });
        }
    }
    suggestions.sort_by(|a, b| {
        b.prompts_removed
            .cmp(&a.prompts_removed)
            .then_with(|| a.grant.cmp(&b.grant))
    });
    suggestions.truncate(limit);
    (suggestions, check)
}

/// Candidate grants: the most frequent proposed patterns, then the directories holding the
/// most untrusted paths.
pub(crate) fn candidates(patterns: Vec<String>, dirs: Vec<(String, Access)>) -> Vec<Grant> {
    let mut grants: Vec<Grant> = patterns
        .into_iter()
        .take(CANDIDATES_PER_KIND)
        .map(Grant::Pattern)
        .collect();
    grants.extend(
        dirs.into_iter()
            .take(CANDIDATES_PER_KIND)
            .map(|(path, access)| Grant::Zone { path, access }),
    );
    grants.dedup();
    grants
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_relevance_uses_the_words_before_the_glob() {
        let words = vec!["cargo test *".to_owned(), "cargo test -p api".to_owned()];
        assert!(pattern_may_concern("cargo test *", &words));
        assert!(pattern_may_concern("cargo *", &words));
        assert!(!pattern_may_concern("cargo build *", &words));
        assert!(!pattern_may_concern("*", &words));
    }

    #[test]
    fn repeats_folded_before_their_first_occurrence_still_count() {
        let prompt = Outcome::bare(Decision::NeedsPrompt);
        let key = |command: &str| (command.to_owned(), None, None);
        let mut evidence = Evidence::default();
        evidence.add(7, None, 2, &prompt);
        evidence.add(7, Some(key("ls")), 1, &prompt);
        evidence.add(7, None, 3, &prompt);
        // A different record under the same hash is not counted as this one.
        evidence.add(7, Some(key("pwd")), 4, &prompt);
        // A repeat whose first occurrence never arrives.
        evidence.add(9, None, 5, &prompt);
        evidence.finish();
        let counts: Vec<(&str, u64)> = evidence
            .kept
            .values()
            .map(|((command, _, _), kept)| (command.as_str(), kept.count))
            .collect();
        assert_eq!(counts, vec![("ls", 3)]);
        assert_eq!(evidence.dropped, 2);
    }

    #[test]
    fn zones_contain_paths_component_wise() {
        assert!(inside("/srv/data/a", "/srv/data"));
        assert!(inside("/srv/data", "/srv/data"));
        assert!(!inside("/srv/database/a", "/srv/data"));
    }
}
