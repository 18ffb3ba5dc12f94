//! `shellgate log [--since 2h] [--agent A] [--decision D] [--follow] [--json] [--audit-log FILE]`:
//! a readable view of the hook's audit log.
//!
//! One line per record: time, agent, decision and the answer sent when they differ (Codex's
//! deny for a prompt shows as `NeedsPrompt→deny`), the command (escaped), then the deciding
//! rules, the reason and any error indented below. `--json` prints the matching records as they
//! are stored, one JSON object per line. `--follow` keeps printing records as they are
//! appended (a record still being written is waited for whole). Lines that are not records are
//! skipped with a warning on standard error.

use std::fs::File;
use std::io::{self, BufRead as _, BufReader};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use shellgate_policy::display;
use shellgate_store::AuditRecord;

use super::Exit;
use super::hook_cmd::audit_log_path;
use super::output::{errln, outln, painted};

/// Show the hook's audit log.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only records newer than this: `30s`, `15m`, `2h`, `7d`, or a timestamp
    /// (`2026-11-23T19:00:00Z`).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only this agent's records (`claude-code`, `codex`, `gemini`).
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// Only records with this decision (`Approved`, `NeedsPrompt`, `HardDenied`) or answer
    /// (`allow`, `ask`, `deny`, `none`).
    #[arg(long, value_name = "D")]
    decision: Option<String>,
    /// Keep printing records as they are appended (stop with Ctrl-C).
    #[arg(long)]
    follow: bool,
    /// Print the records as stored, one JSON object per line.
    #[arg(long)]
    json: bool,
    /// The audit log (default: the hook's: `$SHELLGATE_AUDIT_LOG`, else
    /// `$XDG_STATE_HOME/shellgate/audit.jsonl`, else `~/.local/state/shellgate/audit.jsonl`).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
}

/// How often `--follow` looks for new records.
const FOLLOW_POLL: Duration = Duration::from_millis(250);

/// Runs `shellgate log`.
pub fn run(args: &Args) -> Exit {
    let since = match args.since.as_deref().map(cutoff).transpose() {
        Ok(since) => since,
        Err(message) => {
            errln!("error: {message}");
            return Exit::Error;
        }
    };
    let Some(path) = audit_log_path(args.audit_log.as_deref()) else {
        errln!(
            "error: the audit log has no location (set HOME or SHELLGATE_AUDIT_LOG, or give --audit-log)"
        );
        return Exit::Error;
    };
    let file = match File::open(&path) {
        Ok(file) => Some(file),
        Err(e) if e.kind() == io::ErrorKind::NotFound && args.follow => None,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            errln!("note: no audit log at `{}` yet", path.display());
            return Exit::Ok;
        }
        Err(e) => {
            errln!("error: cannot read `{}`: {e}", path.display());
            return Exit::Error;
        }
    };
    let filter = Filter {
        since,
        agent: args.agent.clone(),
        decision: args.decision.clone(),
    };
    let mut reader = file.map(BufReader::new);
    let mut pending = String::new();
    let mut line_number = 0_usize;
    loop {
        if reader.is_none() {
            // `--follow` on a log that does not exist yet: wait for it.
            reader = File::open(&path).ok().map(BufReader::new);
        }
        let read = match reader.as_mut() {
            Some(reader) => reader.read_line(&mut pending),
            None => Ok(0),
        };
        match read {
            Ok(0) => {
                if !args.follow {
                    return Exit::Ok;
                }
                std::thread::sleep(FOLLOW_POLL);
            }
            Ok(_) if !pending.ends_with('\n') => {
                // A record still being written: wait for the rest of it.
                if !args.follow {
                    show(args, &filter, &mut line_number, &pending, &path);
                    return Exit::Ok;
                }
            }
            Ok(_) => {
                show(args, &filter, &mut line_number, &pending, &path);
                pending.clear();
            }
            Err(e) => {
                errln!("error: cannot read `{}`: {e}", path.display());
                return Exit::Error;
            }
        }
    }
}

/// Prints one line of the log if it is a record that passes the filter.
fn show(args: &Args, filter: &Filter, line_number: &mut usize, line: &str, path: &std::path::Path) {
    *line_number += 1;
    let line = line.trim_end_matches('\n');
    if line.trim().is_empty() {
        return;
    }
    let record: AuditRecord = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(e) => {
            errln!(
                "warning: `{}` line {line_number} is not an audit record: {e}",
                path.display()
            );
            return;
        }
    };
    if !filter.keeps(&record) {
        return;
    }
    if args.json {
        outln!("{line}");
    } else {
        outln!("{}", render(&record));
    }
}

/// The records `shellgate log` prints.
struct Filter {
    /// The oldest timestamp kept, in the log's own format (which sorts as text).
    since: Option<String>,
    agent: Option<String>,
    decision: Option<String>,
}

impl Filter {
    fn keeps(&self, record: &AuditRecord) -> bool {
        let recent = self
            .since
            .as_ref()
            .is_none_or(|since| record.timestamp.as_str() >= since.as_str());
        let agent = self
            .agent
            .as_ref()
            .is_none_or(|agent| record.agent.as_deref() == Some(agent.as_str()));
        let decision = self.decision.as_ref().is_none_or(|wanted| {
            record.decision.eq_ignore_ascii_case(wanted)
                || record
                    .answer
                    .as_deref()
                    .is_some_and(|answer| answer.eq_ignore_ascii_case(wanted))
        });
        recent && agent && decision
    }
}

/// `--since`: a duration back from now (`30s`, `15m`, `2h`, `7d`) or a timestamp, as a
/// timestamp in the log's format.
fn cutoff(text: &str) -> Result<String, String> {
    if text.contains('T') {
        return Ok(text.to_owned());
    }
    let unit_at = text.len().saturating_sub(1);
    let (number, unit) = (text.get(..unit_at), text.get(unit_at..));
    let seconds = match unit {
        Some("s") => 1,
        Some("m") => 60,
        Some("h") => 3600,
        Some("d") => 86_400,
        _ => 0,
    };
    let amount = number.and_then(|n| n.parse::<u64>().ok());
    match (amount, seconds) {
        (Some(amount), 1..) => {
            let back = Duration::from_secs(amount.saturating_mul(seconds));
            let when = SystemTime::now()
                .checked_sub(back)
                .unwrap_or(SystemTime::UNIX_EPOCH);
            Ok(shellgate_store::timestamp_at(when))
        }
        _ => Err(format!(
            "`--since {text}` is not a duration or a timestamp (write `30s`, `15m`, `2h`, `7d` or `2026-11-23T19:00:00Z`)"
        )),
    }
}

/// One record as text.
///
/// Every field is escaped: a record's text is whatever the log file holds, and the log may sit
/// where an agent can write (`SHELLGATE_AUDIT_LOG`), so no field may reach the terminal as
/// control characters or start a line of its own.
fn render(record: &AuditRecord) -> String {
    let decision = display::escape(&record.decision);
    let outcome = match record.answer.as_deref() {
        Some(answer) if !matches_decision(&record.decision, answer) => {
            format!("{}→{}", painted(&decision), display::escape(answer))
        }
        _ => painted(&decision),
    };
    let mut text = format!(
        "{}  {}  {outcome}  {}",
        display::escape(&record.timestamp),
        display::escape(record.agent.as_deref().unwrap_or("-")),
        display::escape(&record.command)
    );
    if !record.rule_ids.is_empty() {
        let rules: Vec<String> = record.rule_ids.iter().map(|r| display::escape(r)).collect();
        text.push_str(&format!("\n    rules: {}", rules.join(", ")));
    }
    if let Some(reason) = &record.reason {
        text.push_str(&format!("\n    reason: {}", display::escape(reason)));
    }
    if let Some(error) = &record.error {
        text.push_str(&format!("\n    error: {}", display::escape(error)));
    }
    text
}

/// Whether the answer sent is the plain one for the decision.
fn matches_decision(decision: &str, answer: &str) -> bool {
    matches!(
        (decision, answer),
        ("Approved", "allow") | ("NeedsPrompt", "ask") | ("HardDenied", "deny")
    )
}
