//! Combining every verdict into the evaluation and its one prompt.
//!
//! The decision is [`combine`]: a pure truth table over what the walk and the judges found
//! (unit-tested below). [`Run::finish`] gathers those facts, the clause verdicts and the
//! prompt's paths and clauses.

use std::collections::HashMap;

use shellgate_parser::{RedirectTarget, Word};
use shellgate_rules::{Access, Decision, HostGrant};

use crate::display;
use crate::evaluation::{
    ClauseVerdict, Evaluation, Prompt, PromptClause, PromptPath, Reason, ReasonKind,
};

use super::clause_text::summarizable;
use super::run::Run;
use super::verdict::Untrusted;
use crate::display::Replacement;

impl<'a> Run<'a> {
    /// Combines everything into the evaluation.
    pub(super) fn finish(mut self) -> Evaluation {
        let complete = self.parsed.complete && self.expansion.complete;
        let needs_display = !complete
            || !self.errors.is_empty()
            || (self.hard_deny.is_empty()
                && self
                    .judged
                    .iter()
                    .any(|j| j.verdict.decision == Decision::NeedsPrompt));
        let display = if needs_display {
            self.render_display()
        } else {
            String::new()
        };
        let judged_all = std::mem::take(&mut self.judged);
        let mut clauses: Vec<ClauseVerdict> = Vec::with_capacity(self.judged.len() + 1);
        let mut paths: Vec<PromptPath> = Vec::new();
        let mut path_index: HashMap<String, usize> = HashMap::new();
        let mut hosts: Vec<HostGrant> = Vec::new();
        let mut prompt_clauses: Vec<PromptClause> = Vec::new();
        let mut persistable = true;
        let mut strictest = Decision::Approved;
        for judged in judged_all {
            strictest = strictest.max(judged.verdict.decision);
            for hit in judged.denied_by {
                if !self.hard_deny.iter().any(|h| h.rule == hit.rule) {
                    self.hard_deny.push(hit);
                }
            }
            if judged.verdict.decision == Decision::NeedsPrompt {
                for untrusted in judged.untrusted {
                    if untrusted.zone.is_none() {
                        persistable = false;
                    }
                    add_path(&mut paths, &mut path_index, untrusted);
                }
                for host in judged.hosts {
                    if !hosts.contains(&host) {
                        hosts.push(host);
                    }
                }
                if judged.needs_person {
                    if !judged.saveable || judged.verdict.proposal.is_none() {
                        persistable = false;
                    }
                    let entry = PromptClause {
                        text: judged.verdict.text.clone(),
                        pattern: if judged.saveable {
                            judged.verdict.proposal.clone()
                        } else {
                            None
                        },
                    };
                    if !prompt_clauses.contains(&entry) {
                        prompt_clauses.push(entry);
                    }
                }
            }
            clauses.push(judged.verdict);
        }
        if !complete {
            let message = self
                .parsed
                .reason()
                .map(str::to_owned)
                .or_else(|| self.expansion.notes.first().cloned())
                .unwrap_or_else(|| "the command did not parse completely".to_owned());
            clauses.push(ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "parse".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(ReasonKind::Incomplete, None, message)],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            });
            persistable = false;
            let entry = PromptClause {
                text: display.clone(),
                pattern: None,
            };
            if !prompt_clauses.contains(&entry) {
                prompt_clauses.push(entry);
            }
        }
        for error in &self.errors {
            clauses.push(ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "internal".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(ReasonKind::Internal, None, error.clone())],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            });
            persistable = false;
        }
        if !self.errors.is_empty() && prompt_clauses.is_empty() {
            prompt_clauses.push(PromptClause {
                text: display.clone(),
                pattern: None,
            });
        }
        let decision = combine(Facts {
            denied: !self.hard_deny.is_empty(),
            strictest,
            complete,
            internal_error: !self.errors.is_empty(),
        });
        let prompt = (decision == Decision::NeedsPrompt).then_some(Prompt {
            paths,
            hosts,
            clauses: prompt_clauses,
            persistable,
            display,
            asked_by: std::mem::take(&mut self.asked_by),
        });
        Evaluation {
            decision,
            clauses,
            hard_deny: self.hard_deny,
            prompt,
            complete,
            errors: self.errors,
        }
    }

    /// The whole command on one line (see [`crate::display`]).
    pub(super) fn render_display(&self) -> String {
        let codes: Vec<&str> = self
            .expansion
            .sources
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        let mut replacements = Vec::new();
        for clause in self.parsed.graph.clauses() {
            let code_call = self.policy().interpreter(&clause.argv).is_some();
            let mut words: Vec<&Word> = clause.argv.iter().collect();
            words.extend(clause.assignments.iter().filter_map(|a| a.value.as_ref()));
            words.extend(
                clause
                    .assignments
                    .iter()
                    .filter_map(|a| a.array.as_ref())
                    .flatten(),
            );
            words.extend(clause.redirects.iter().filter_map(|r| match &r.target {
                RedirectTarget::Word(w) => Some(w),
                RedirectTarget::Heredoc(_) => None,
            }));
            for word in words {
                if summarizable(word) && !code_call && !codes.contains(&word.cooked.as_str()) {
                    replacements.push(Replacement {
                        start: word.span.start,
                        end: word.span.end,
                        text: display::summarize(&word.cooked),
                    });
                }
            }
        }
        display::render(self.command, replacements)
    }
}

/// What the decision of one evaluation is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Facts {
    /// A deny rule or a protected path hit some invocation (or the command text).
    pub(super) denied: bool,
    /// The strictest verdict of any invocation.
    pub(super) strictest: Decision,
    /// The command and all nested shell code parsed completely, within every limit.
    pub(super) complete: bool,
    /// Something went wrong inside the gate (recorded in `Evaluation::errors`).
    pub(super) internal_error: bool,
}

/// The decision of an evaluation: the strictest fact wins, and anything shellgate could not
/// see whole or judge without error needs a person.
pub(super) const fn combine(facts: Facts) -> Decision {
    match facts {
        // A deny rule or protected path matched: nothing a person is shown can approve it.
        Facts { denied: true, .. } => Decision::HardDenied,
        // An invocation denied by itself (never without a hit today, kept for strictness).
        Facts {
            denied: false,
            strictest: Decision::HardDenied,
            ..
        } => Decision::HardDenied,
        // Some invocation needs a person (an unknown verb, an untrusted path, opaque code).
        Facts {
            denied: false,
            strictest: Decision::NeedsPrompt,
            ..
        } => Decision::NeedsPrompt,
        // Everything that parsed is approved, but not everything parsed: what was not seen
        // cannot be approved (fail closed).
        Facts {
            denied: false,
            strictest: Decision::Approved,
            complete: false,
            ..
        } => Decision::NeedsPrompt,
        // Everything parsed and is approved, but the gate hit an internal error on the way.
        Facts {
            denied: false,
            strictest: Decision::Approved,
            complete: true,
            internal_error: true,
        } => Decision::NeedsPrompt,
        // Everything parsed, every invocation is approved, nothing went wrong.
        Facts {
            denied: false,
            strictest: Decision::Approved,
            complete: true,
            internal_error: false,
        } => Decision::Approved,
    }
}

/// Adds an untrusted path to the prompt: once per path, a write covering a read. `index` maps
/// each path shown to its place in `paths` (a command can name thousands: brace expansions).
pub(super) fn add_path(
    paths: &mut Vec<PromptPath>,
    index: &mut HashMap<String, usize>,
    untrusted: Untrusted,
) {
    if let Some(existing) = index.get(&untrusted.shown).and_then(|&i| paths.get_mut(i)) {
        if untrusted.access == Access::Write {
            existing.access = Access::Write;
        }
        if untrusted.zone.is_none() {
            existing.zone = None;
        }
        return;
    }
    index.insert(untrusted.shown.clone(), paths.len());
    paths.push(PromptPath {
        path: untrusted.shown,
        access: untrusted.access,
        zone: untrusted.zone,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn facts(
        denied: bool,
        strictest: Decision,
        complete: bool,
        internal_error: bool,
    ) -> Facts {
        Facts {
            denied,
            strictest,
            complete,
            internal_error,
        }
    }

    #[test]
    fn every_row_of_the_truth_table() {
        use Decision::{Approved, HardDenied, NeedsPrompt};
        let rows = [
            // denied, strictest, complete, internal error => decision
            (facts(false, Approved, true, false), Approved),
            (facts(false, Approved, true, true), NeedsPrompt),
            (facts(false, Approved, false, false), NeedsPrompt),
            (facts(false, Approved, false, true), NeedsPrompt),
            (facts(false, NeedsPrompt, true, false), NeedsPrompt),
            (facts(false, NeedsPrompt, false, true), NeedsPrompt),
            (facts(false, HardDenied, true, false), HardDenied),
            (facts(false, HardDenied, false, true), HardDenied),
            (facts(true, Approved, true, false), HardDenied),
            (facts(true, NeedsPrompt, false, true), HardDenied),
            (facts(true, HardDenied, true, false), HardDenied),
        ];
        for (given, expected) in rows {
            assert_eq!(combine(given), expected, "{given:?}");
        }
    }

    /// Combining is monotone: making any fact worse never lowers the decision.
    #[test]
    fn a_worse_fact_never_lowers_the_decision() {
        let decisions = [
            Decision::Approved,
            Decision::NeedsPrompt,
            Decision::HardDenied,
        ];
        let flags = [false, true];
        for denied in flags {
            for strictest in decisions {
                for complete in flags {
                    for error in flags {
                        let base = combine(facts(denied, strictest, complete, error));
                        let worse = [
                            facts(true, strictest, complete, error),
                            facts(
                                denied,
                                strictest.max(Decision::NeedsPrompt),
                                complete,
                                error,
                            ),
                            facts(denied, strictest, false, error),
                            facts(denied, strictest, complete, true),
                        ];
                        for w in worse {
                            assert!(combine(w) >= base, "{w:?} < {base:?}");
                        }
                    }
                }
            }
        }
    }
}
