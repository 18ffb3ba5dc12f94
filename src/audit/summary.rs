//! The audit summary: decision counts, top hard-deny rules, top prompting clauses with their
//! proposed patterns, most frequent untrusted paths, and malformed lines. Every per-key counter
//! is a bounded [`TopK`], so the summary's memory does not grow with the log.

use std::path::{Component, Path};

use serde::Serialize;

use super::judge::{Access, Decision, Outcome, PromptClause, UntrustedPath, access_name};
use super::reader::{Format, Malformed};
use super::topk::TopK;

/// Keys kept by each counter (it holds up to twice as many between compactions).
const COUNTER_CAPACITY: usize = 2048;
/// Malformed lines listed individually; the rest are only counted.
const MALFORMED_LISTED: usize = 100;

/// One input file of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// The path as given (`-` for standard input).
    pub path: String,
    /// The format it was read as.
    #[serde(serialize_with = "serialize_format")]
    pub format: Format,
    /// Lines read.
    pub lines: u64,
    /// Records judged.
    pub records: u64,
    /// Malformed lines.
    pub malformed: u64,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's serialize_with passes a reference"
)]
fn serialize_format<S: serde::Serializer>(
    format: &Format,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(format.name())
}

/// Records per decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DecisionCounts {
    /// Records that would run silently.
    #[serde(rename = "Approved")]
    pub approved: u64,
    /// Records that would need a person.
    #[serde(rename = "NeedsPrompt")]
    pub needs_prompt: u64,
    /// Records that would be refused.
    #[serde(rename = "HardDenied")]
    pub hard_denied: u64,
}

impl DecisionCounts {
    fn add(&mut self, decision: Decision) {
        let slot = match decision {
            Decision::Approved => &mut self.approved,
            Decision::NeedsPrompt => &mut self.needs_prompt,
            Decision::HardDenied => &mut self.hard_denied,
        };
        *slot = slot.saturating_add(1);
    }

    /// All records counted.
    #[must_use]
    pub const fn total(&self) -> u64 {
        self.approved
            .saturating_add(self.needs_prompt)
            .saturating_add(self.hard_denied)
    }
}

/// A malformed line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MalformedLine {
    /// The file, as given.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// Why it was not read.
    pub reason: String,
}

/// Malformed lines of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MalformedReport {
    /// How many lines were malformed.
    pub count: u64,
    /// The first of them, in input order.
    pub lines: Vec<MalformedLine>,
}

/// A hard-deny rule and how many records it refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// Rule id.
    pub rule: String,
    /// Rule category.
    pub category: String,
    /// Rule reason.
    pub reason: String,
    /// Records it refused.
    pub count: u64,
    /// Whether `count` is exact (see the module docs of the counter).
    pub exact: bool,
}

/// A proposed pattern (or an unsaveable clause) and how many records prompted for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptCount {
    /// The proposed pattern, or `null` when the clause cannot be saved.
    pub pattern: Option<String>,
    /// A clause that prompted, as displayed.
    pub example: String,
    /// Records that prompted for it.
    pub count: u64,
    /// Whether `count` is exact.
    pub exact: bool,
}

/// An untrusted path and how many records touched it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathCount {
    /// The path.
    pub path: String,
    /// `write` if any record wrote it, else `read`.
    #[serde(serialize_with = "serialize_access")]
    pub access: Access,
    /// Records that touched it untrusted.
    pub count: u64,
    /// Whether `count` is exact.
    pub exact: bool,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's serialize_with passes a reference"
)]
pub(crate) fn serialize_access<S: serde::Serializer>(
    access: &Access,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(access_name(*access))
}

#[derive(Debug)]
struct PromptInfo {
    pattern: Option<String>,
    example: String,
}

#[derive(Debug)]
struct RuleInfo {
    category: String,
    reason: String,
}

/// Marks keys of clauses that cannot be saved, so they never collide with a pattern.
const UNSAVEABLE_KEY_PREFIX: char = '\u{1}';

/// The running summary.
#[derive(Debug)]
pub(crate) struct Summary {
    pub files: Vec<FileReport>,
    pub decisions: DecisionCounts,
    pub malformed: MalformedReport,
    rules: TopK<RuleInfo>,
    prompts: TopK<PromptInfo>,
    paths: TopK<Access>,
    dirs: TopK<Access>,
    scratch: String,
}

impl Summary {
    pub(crate) fn new() -> Self {
        Self {
            files: Vec::new(),
            decisions: DecisionCounts::default(),
            malformed: MalformedReport::default(),
            rules: TopK::new(COUNTER_CAPACITY),
            prompts: TopK::new(COUNTER_CAPACITY),
            paths: TopK::new(COUNTER_CAPACITY),
            dirs: TopK::new(COUNTER_CAPACITY),
            scratch: String::new(),
        }
    }

    /// Starts a new file; later calls count into it.
    pub(crate) fn start_file(&mut self, path: String, format: Format) {
        self.files.push(FileReport {
            path,
            format,
            lines: 0,
            records: 0,
            malformed: 0,
        });
    }

    fn file_mut(&mut self) -> Option<&mut FileReport> {
        self.files.last_mut()
    }

    /// Counts lines read from the current file.
    pub(crate) fn add_lines(&mut self, lines: u64) {
        if let Some(file) = self.file_mut() {
            file.lines = file.lines.saturating_add(lines);
        }
    }

    /// Counts a malformed line of the current file.
    pub(crate) fn add_malformed(&mut self, line: u64, reason: &Malformed) {
        self.malformed.count = self.malformed.count.saturating_add(1);
        let name = self.file_mut().map_or_else(String::new, |file| {
            file.malformed = file.malformed.saturating_add(1);
            file.path.clone()
        });
        if self.malformed.lines.len() < MALFORMED_LISTED {
            self.malformed.lines.push(MalformedLine {
                file: name,
                line,
                reason: reason.to_string(),
            });
        }
    }

    /// Counts one judged record of the current file. Each rule, pattern, path and directory
    /// counts once per record; nothing is allocated unless a key is new.
    pub(crate) fn add(&mut self, outcome: &Outcome) {
        self.decisions.add(outcome.decision);
        if let Some(file) = self.file_mut() {
            file.records = file.records.saturating_add(1);
        }
        for (i, hit) in outcome.hard_deny.iter().enumerate() {
            if outcome
                .hard_deny
                .iter()
                .take(i)
                .any(|earlier| earlier.rule == hit.rule)
            {
                continue;
            }
            self.rules.add(&hit.rule, 1, || RuleInfo {
                category: hit.category.clone(),
                reason: hit.reason.clone(),
            });
        }
        for (i, clause) in outcome.prompt_clauses.iter().enumerate() {
            let same_key = |earlier: &PromptClause| match (&earlier.pattern, &clause.pattern) {
                (Some(a), Some(b)) => a == b,
                (None, None) => earlier.text == clause.text,
                _ => false,
            };
            if outcome.prompt_clauses.iter().take(i).any(same_key) {
                continue;
            }
            let key = match &clause.pattern {
                Some(pattern) => pattern.as_str(),
                None => {
                    self.scratch.clear();
                    self.scratch.push(UNSAVEABLE_KEY_PREFIX);
                    self.scratch.push_str(&clause.text);
                    self.scratch.as_str()
                }
            };
            self.prompts.add(key, 1, || PromptInfo {
                pattern: clause.pattern.clone(),
                example: clause.text.clone(),
            });
        }
        let paths = &outcome.untrusted_paths;
        for (i, untrusted) in paths.iter().enumerate() {
            if !paths
                .iter()
                .take(i)
                .any(|earlier| earlier.path == untrusted.path)
            {
                bump(&mut self.paths, &untrusted.path, untrusted.access);
            }
            let Some(dir) = zone_candidate(&untrusted.path) else {
                continue;
            };
            let in_dir = |other: &&UntrustedPath| zone_candidate(&other.path) == Some(dir);
            if paths.iter().take(i).any(|earlier| in_dir(&earlier)) {
                continue;
            }
            let access = paths
                .iter()
                .filter(in_dir)
                .map(|other| other.access)
                .max()
                .unwrap_or(untrusted.access);
            bump(&mut self.dirs, dir, access);
        }
    }

    pub(crate) fn top_rules(&self, k: usize) -> Vec<RuleCount> {
        self.rules
            .top(k)
            .into_iter()
            .map(|(rule, slot)| RuleCount {
                rule: rule.to_owned(),
                category: slot.value.category.clone(),
                reason: slot.value.reason.clone(),
                count: slot.count,
                exact: slot.error == 0,
            })
            .collect()
    }

    pub(crate) fn top_prompts(&self, k: usize) -> Vec<PromptCount> {
        self.prompts
            .top(k)
            .into_iter()
            .map(|(_, slot)| PromptCount {
                pattern: slot.value.pattern.clone(),
                example: slot.value.example.clone(),
                count: slot.count,
                exact: slot.error == 0,
            })
            .collect()
    }

    pub(crate) fn top_paths(&self, k: usize) -> Vec<PathCount> {
        self.paths
            .top(k)
            .into_iter()
            .map(|(path, slot)| PathCount {
                path: path.to_owned(),
                access: slot.value,
                count: slot.count,
                exact: slot.error == 0,
            })
            .collect()
    }

    /// The most frequent directories holding untrusted paths, with the access they need.
    pub(crate) fn top_dirs(&self, k: usize) -> Vec<(String, Access)> {
        self.dirs
            .top(k)
            .into_iter()
            .map(|(dir, slot)| (dir.to_owned(), slot.value))
            .collect()
    }
}

/// Counts `key` once, remembering the strongest access seen for it.
fn bump(counter: &mut TopK<Access>, key: &str, access: Access) {
    counter.add(key, 1, || access);
    if let Some(slot) = counter.get_mut(key) {
        slot.value = slot.value.max(access);
    }
}

/// The directory a zone grant would trust to cover `path`: its parent, when that parent is
/// absolute and at least two segments deep (`/home/me`, not `/` or `/etc`), as the store
/// requires of zones.
pub(crate) fn zone_candidate(path: &str) -> Option<&str> {
    let parent = Path::new(path).parent()?;
    let normal = parent
        .components()
        .filter(|component| matches!(component, Component::Normal(_)))
        .count();
    let clean = parent
        .components()
        .all(|component| matches!(component, Component::RootDir | Component::Normal(_)));
    (parent.is_absolute() && clean && normal >= 2)
        .then(|| parent.to_str())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::judge::{HardDenyHit, PromptClause, UntrustedPath};

    #[test]
    fn zone_candidates_are_two_segments_deep() {
        assert_eq!(
            zone_candidate("/home/me/other/file.rs"),
            Some("/home/me/other")
        );
        assert_eq!(zone_candidate("/tmp/x/run.txt"), Some("/tmp/x"));
        assert_eq!(zone_candidate("/tmp/run.txt"), None);
        assert_eq!(zone_candidate("/etc"), None);
        assert_eq!(zone_candidate("relative/dir/file"), None);
        assert_eq!(zone_candidate("/a/../b/c"), None);
    }

    #[test]
    fn counts_each_key_once_per_record() {
        let mut summary = Summary::new();
        summary.start_file("log".to_owned(), Format::Lines);
        let outcome = Outcome {
            decision: Decision::HardDenied,
            rules: vec!["r1".to_owned()],
            hard_deny: vec![
                HardDenyHit {
                    rule: "r1".to_owned(),
                    category: "c".to_owned(),
                    reason: "why".to_owned(),
                },
                HardDenyHit {
                    rule: "r1".to_owned(),
                    category: "c".to_owned(),
                    reason: "why".to_owned(),
                },
            ],
            prompt_clauses: vec![
                PromptClause {
                    text: "git push origin main".to_owned(),
                    pattern: Some("git push origin *".to_owned()),
                },
                PromptClause {
                    text: "git push origin dev".to_owned(),
                    pattern: Some("git push origin *".to_owned()),
                },
                PromptClause {
                    text: "$CMD".to_owned(),
                    pattern: None,
                },
            ],
            untrusted_paths: vec![
                UntrustedPath {
                    path: "/srv/data/a".to_owned(),
                    access: Access::Read,
                },
                UntrustedPath {
                    path: "/srv/data/b".to_owned(),
                    access: Access::Write,
                },
            ],
        };
        summary.add(&outcome);
        summary.add(&outcome);
        assert_eq!(summary.decisions.hard_denied, 2);
        assert_eq!(summary.top_rules(5)[0].count, 2);
        let prompts = summary.top_prompts(5);
        assert_eq!(
            prompts
                .iter()
                .map(|p| (p.pattern.as_deref(), p.example.as_str(), p.count))
                .collect::<Vec<_>>(),
            vec![
                (None, "$CMD", 2),
                (Some("git push origin *"), "git push origin main", 2)
            ]
        );
        assert_eq!(
            summary.top_dirs(5),
            vec![("/srv/data".to_owned(), Access::Write)]
        );
        assert_eq!(summary.files[0].records, 2);
    }
}
