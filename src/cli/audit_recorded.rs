//! `shellgate audit --as-recorded FILE…`: summarise the decisions shellgate's own audit log
//! recorded (what the hook decided and answered at the time), instead of judging the commands
//! again with today's policy and grants.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;
use shellgate_policy::display;
use shellgate_store::{AuditLog, AuditRecord};

use super::Exit;
use super::audit_cmd::section;
use super::output::{self, errln, out};

/// The summary of recorded decisions (the `--json` object).
#[derive(Debug, Default, Serialize)]
struct Recorded {
    /// Records read.
    records: u64,
    /// Lines that are not records.
    malformed: u64,
    /// Records per decision.
    decisions: BTreeMap<String, u64>,
    /// Records per answer sent (`unknown` for records written before answers were recorded).
    answers: BTreeMap<String, u64>,
    /// Records per agent (`unknown` when not recorded).
    agents: BTreeMap<String, u64>,
    /// The deciding rules of refused records, most frequent first.
    rules: Vec<Count>,
    /// The commands that needed a person most often.
    prompts: Vec<Count>,
}

/// A name and how often it occurred.
#[derive(Debug, Serialize)]
struct Count {
    name: String,
    count: u64,
}

/// Reads the logs and prints the summary (`top` entries per list).
pub fn run(files: &[PathBuf], json: bool, top: usize) -> Exit {
    let mut recorded = Recorded::default();
    let mut rules: BTreeMap<String, u64> = BTreeMap::new();
    let mut prompts: BTreeMap<String, u64> = BTreeMap::new();
    for file in files {
        let reader = match AuditLog::read(file) {
            Ok(reader) => reader,
            Err(e) => {
                errln!("error: {e}");
                return Exit::Error;
            }
        };
        for record in reader {
            match record {
                Ok(record) => add(&mut recorded, &mut rules, &mut prompts, record),
                Err(_) => recorded.malformed += 1,
            }
        }
    }
    recorded.rules = most_frequent(rules, top);
    recorded.prompts = most_frequent(prompts, top);
    if json {
        if let Err(exit) = output::json_line(&recorded, "summary") {
            return exit;
        }
    } else {
        out!("{}", render(&recorded, files.len()));
    }
    Exit::Ok
}

fn add(
    recorded: &mut Recorded,
    rules: &mut BTreeMap<String, u64>,
    prompts: &mut BTreeMap<String, u64>,
    record: AuditRecord,
) {
    recorded.records += 1;
    let unknown = || "unknown".to_owned();
    *recorded
        .decisions
        .entry(record.decision.clone())
        .or_default() += 1;
    *recorded
        .answers
        .entry(record.answer.unwrap_or_else(unknown))
        .or_default() += 1;
    *recorded
        .agents
        .entry(record.agent.unwrap_or_else(unknown))
        .or_default() += 1;
    match record.decision.as_str() {
        "HardDenied" => {
            for rule in record.rule_ids {
                *rules.entry(rule).or_default() += 1;
            }
        }
        "NeedsPrompt" => *prompts.entry(record.command).or_default() += 1,
        _ => {}
    }
}

/// The `top` most frequent entries, ties in name order.
fn most_frequent(counts: BTreeMap<String, u64>, top: usize) -> Vec<Count> {
    let mut counts: Vec<Count> = counts
        .into_iter()
        .map(|(name, count)| Count { name, count })
        .collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    counts.truncate(top);
    counts
}

fn render(recorded: &Recorded, files: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "recorded decisions: {} records from {files} file{} ({} lines not records); not judged again",
        recorded.records,
        if files == 1 { "" } else { "s" },
        recorded.malformed
    );
    let line = |counts: &BTreeMap<String, u64>| {
        counts
            .iter()
            .map(|(name, count)| format!("{} {count}", display::escape(name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "  decisions: {}", line(&recorded.decisions));
    let _ = writeln!(out, "  answers sent: {}", line(&recorded.answers));
    let _ = writeln!(out, "  agents: {}", line(&recorded.agents));
    section(&mut out, "rules that refused", &recorded.rules, |rule| {
        format!("{:>6}  {}", rule.count, display::escape(&rule.name))
    });
    section(
        &mut out,
        "commands that needed a person most",
        &recorded.prompts,
        |prompt| format!("{:>6}  {}", prompt.count, display::escape(&prompt.name)),
    );
    out
}
