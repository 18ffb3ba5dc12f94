//! The policy diff: every record is judged under the policy and under a baseline, and each
//! command whose decision changes is reported, grouped by change (`Approved → NeedsPrompt`, …).
//!
//! Each group counts every changed record; it lists up to [`COMMANDS_PER_CHANGE`] distinct
//! commands (with how often each changed and where it was first seen) so memory stays bounded,
//! and counts the records of the commands beyond that in `more`.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::judge::{Decision, decision_name};

/// Distinct commands listed per change.
pub const COMMANDS_PER_CHANGE: usize = 1000;

/// A command whose decision changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedCommand {
    /// The command text.
    pub command: String,
    /// How many records of this command changed this way.
    pub count: u64,
    /// The file of its first occurrence.
    pub file: String,
    /// The line of its first occurrence.
    pub line: u64,
}

/// All records that changed from one decision to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The decision under the baseline.
    pub from: &'static str,
    /// The decision under the policy.
    pub to: &'static str,
    /// Records that changed this way.
    pub count: u64,
    /// The commands, most frequent first, then in input order.
    pub commands: Vec<ChangedCommand>,
    /// Records of commands not listed (beyond the per-change limit).
    pub more: u64,
}

/// The policy diff of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiffReport {
    /// Records whose decision changed.
    pub changed: u64,
    /// Records whose decision did not change.
    pub unchanged: u64,
    /// The changes, from the strictest loosening to the strictest tightening: changes that
    /// lower a decision (the policy lets more through) come first.
    pub changes: Vec<Change>,
}

#[derive(Debug)]
struct Entry {
    count: u64,
    order: u64,
    file: usize,
    line: u64,
}

#[derive(Debug, Default)]
struct Group {
    count: u64,
    more: u64,
    commands: HashMap<String, Entry>,
}

/// The running diff.
#[derive(Debug, Default)]
pub(crate) struct Diff {
    unchanged: u64,
    next_order: u64,
    groups: BTreeMap<(Decision, Decision), Group>,
}

impl Diff {
    /// Counts a record judged `before` under the baseline and `after` under the policy.
    pub(crate) fn add(
        &mut self,
        before: Decision,
        after: Decision,
        command: &str,
        file: usize,
        line: u64,
    ) {
        if before == after {
            self.unchanged = self.unchanged.saturating_add(1);
            return;
        }
        let group = self.groups.entry((before, after)).or_default();
        group.count = group.count.saturating_add(1);
        if let Some(entry) = group.commands.get_mut(command) {
            entry.count = entry.count.saturating_add(1);
        } else if group.commands.len() < COMMANDS_PER_CHANGE {
            group.commands.insert(
                command.to_owned(),
                Entry {
                    count: 1,
                    order: self.next_order,
                    file,
                    line,
                },
            );
            self.next_order = self.next_order.saturating_add(1);
        } else {
            group.more = group.more.saturating_add(1);
        }
    }

    /// The report; `files` names the inputs by index.
    pub(crate) fn report(&self, files: &[String]) -> DiffReport {
        let mut groups: Vec<(&(Decision, Decision), &Group)> = self.groups.iter().collect();
        // Loosening changes (to < from) first, most severe first; then tightening ones.
        groups.sort_by_key(|((from, to), _)| (to > from, *to, std::cmp::Reverse(*from)));
        let changes = groups
            .into_iter()
            .map(|((from, to), group)| {
                let mut commands: Vec<(&String, &Entry)> = group.commands.iter().collect();
                commands.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.1.order.cmp(&b.1.order)));
                Change {
                    from: decision_name(*from),
                    to: decision_name(*to),
                    count: group.count,
                    commands: commands
                        .into_iter()
                        .map(|(command, entry)| ChangedCommand {
                            command: command.clone(),
                            count: entry.count,
                            file: files.get(entry.file).cloned().unwrap_or_default(),
                            line: entry.line,
                        })
                        .collect(),
                    more: group.more,
                }
            })
            .collect::<Vec<_>>();
        DiffReport {
            changed: changes.iter().map(|change| change.count).sum(),
            unchanged: self.unchanged,
            changes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_changes_and_orders_loosening_first() {
        let mut diff = Diff::default();
        let files = vec!["a.jsonl".to_owned()];
        diff.add(Decision::Approved, Decision::NeedsPrompt, "curl x", 0, 1);
        diff.add(Decision::HardDenied, Decision::Approved, "rm -rf /", 0, 2);
        diff.add(Decision::Approved, Decision::NeedsPrompt, "wget y", 0, 3);
        diff.add(Decision::Approved, Decision::NeedsPrompt, "wget y", 0, 4);
        diff.add(Decision::Approved, Decision::Approved, "ls", 0, 5);
        let report = diff.report(&files);
        assert_eq!(report.changed, 4);
        assert_eq!(report.unchanged, 1);
        type Row<'a> = (&'a str, &'a str, u64, Vec<(&'a str, u64, u64)>);
        let summary: Vec<Row<'_>> = report
            .changes
            .iter()
            .map(|change| {
                (
                    change.from,
                    change.to,
                    change.count,
                    change
                        .commands
                        .iter()
                        .map(|c| (c.command.as_str(), c.count, c.line))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("HardDenied", "Approved", 1, vec![("rm -rf /", 1, 2)]),
                (
                    "Approved",
                    "NeedsPrompt",
                    3,
                    vec![("wget y", 2, 3), ("curl x", 1, 1)]
                ),
            ]
        );
    }

    #[test]
    fn commands_beyond_the_limit_are_counted() {
        let mut diff = Diff::default();
        for i in 0..(COMMANDS_PER_CHANGE + 5) {
            diff.add(
                Decision::NeedsPrompt,
                Decision::Approved,
                &format!("cmd {i}"),
                0,
                1,
            );
        }
        let report = diff.report(&[]);
        assert_eq!(report.changes[0].commands.len(), COMMANDS_PER_CHANGE);
        assert_eq!(report.changes[0].more, 5);
        assert_eq!(report.changes[0].count, 1005);
    }
}
