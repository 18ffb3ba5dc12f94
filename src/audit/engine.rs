//! The audit pipeline: read a chunk, judge it on the rayon pool while the next chunk is read,
//! fold the results into the summary in input order, drop the chunk.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::diff::{Diff, DiffReport};
use super::judge::{Decision, Judge, Outcome, Record, decision_name};
use super::memo::Memo;
use super::reader::{Chunk, ChunkLimits, Format, LineReader, Malformed, Parsed, parse_line};
use super::suggest::{Evidence, GrantCheck, GrantSuggestion, candidates, prove};
use super::summary::{
    DecisionCounts, FileReport, MalformedReport, PathCount, PromptCount, RuleCount, Summary,
};

/// One input of an audit run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Input {
    /// `-` is standard input; anything else a file.
    #[must_use]
    pub fn from_arg(arg: &Path) -> Self {
        if arg.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::File(arg.to_path_buf())
        }
    }

    /// The name shown in reports.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Stdin => "-".to_owned(),
        }
    }

    fn path(&self) -> Option<&Path> {
        match self {
            Self::File(path) => Some(path),
            Self::Stdin => None,
        }
    }

    fn open(&self) -> io::Result<Box<dyn BufRead + Send>> {
        Ok(match self {
            Self::File(path) => Box::new(BufReader::with_capacity(1 << 18, File::open(path)?)),
            Self::Stdin => Box::new(BufReader::with_capacity(1 << 18, io::stdin())),
        })
    }
}

/// Options of an audit run.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// The input format; `None` detects it per file (see [`Format::detect`]).
    pub format: Option<Format>,
    /// Worker threads; `None` uses one per core.
    pub threads: Option<NonZeroUsize>,
    /// Entries in each list of the summary.
    pub top: usize,
    /// Whether to look for the grants that remove the most prompts.
    pub suggest_grants: bool,
    /// Lines per chunk.
    pub chunk_lines: usize,
    /// Bytes per chunk (a chunk stops growing once it holds this many).
    pub chunk_bytes: usize,
    /// Lines longer than this are reported as malformed and skipped unread.
    pub max_line_bytes: usize,
    /// Distinct records whose outcome is memoised (0: judge every record). Valid because a
    /// replay does not resolve symbolic links, so an outcome depends only on the command, its
    /// working directory and its audience.
    pub memo_capacity: usize,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            format: None,
            threads: None,
            top: 10,
            suggest_grants: true,
            chunk_lines: 8 * 1024,
            chunk_bytes: 1 << 20,
            max_line_bytes: 8 << 20,
            memo_capacity: 16 * 1024,
        }
    }
}

/// Progress of a run, reported after each chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Bytes read so far, over all inputs.
    pub bytes: u64,
    /// Total bytes of all inputs, when every input is a file.
    pub total_bytes: Option<u64>,
    /// Records judged so far.
    pub records: u64,
}

/// Why an audit run stopped. Malformed records never stop a run; these do.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// An input could not be opened or read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The input, as given.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The `--decisions` output could not be written.
    #[error("cannot write the decisions: {0}")]
    WriteDecisions(#[source] io::Error),
    /// The worker pool could not be started.
    #[error("cannot start {threads} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The pool's error.
        message: String,
    },
}

/// The result of an audit run. Its JSON form is the `--json` contract of `shellgate audit`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The inputs, in order.
    pub files: Vec<FileReport>,
    /// Records judged.
    pub records: u64,
    /// Records per decision.
    pub decisions: DecisionCounts,
    /// Malformed lines.
    pub malformed: MalformedReport,
    /// The hard-deny rules that refused the most records.
    pub hard_deny: Vec<RuleCount>,
    /// The proposed patterns (and unsaveable clauses) that prompted the most records.
    pub prompts: Vec<PromptCount>,
    /// The untrusted paths touched by the most records.
    pub untrusted_paths: Vec<PathCount>,
    /// The grants that would remove the most prompts, proven by re-evaluation.
    pub suggested_grants: Vec<GrantSuggestion>,
    /// How the suggestions were checked.
    pub grant_check: GrantCheck,
    /// The policy diff, when a baseline was given.
    pub baseline: Option<DiffReport>,
    /// Evaluations the judge ran for the records (repeated records are judged once); not part
    /// of the JSON.
    #[serde(skip)]
    pub evaluations: u64,
}

/// A record's command, cwd and audience, owned.
type Owned = (String, Option<String>, Option<String>);

#[derive(Debug)]
struct Judged {
    line: u64,
    outcome: Arc<Outcome>,
    baseline: Option<Decision>,
    hash: u64,
    owned: Option<Owned>,
    decision_line: Option<Vec<u8>>,
}

#[derive(Debug)]
enum LineOut {
    Skip,
    Malformed(u64, Malformed),
    One(Judged),
    Many(Vec<Judged>),
}

#[derive(Serialize)]
struct DecisionLine<'a> {
    line: u64,
    command: &'a str,
    decision: &'static str,
    rules: &'a [String],
}

struct Context<'j, J> {
    judge: &'j J,
    baseline: Option<&'j J>,
    memo: Memo,
    baseline_memo: Option<Memo>,
    decisions: bool,
    keep_evidence: bool,
    max_line_bytes: usize,
}

impl<J: Judge> Context<'_, J> {
    fn judge(&self, record: &Record<'_>, key: &mut Vec<u8>) -> Judged {
        let judgement = self.memo.judge(self.judge, record, key);
        let outcome = judgement.outcome;
        let baseline = self
            .baseline
            .zip(self.baseline_memo.as_ref())
            .map(|(baseline, memo)| memo.judge(baseline, record, key).outcome.decision);
        // The evidence needs the record's text once (its first occurrence); the diff for each
        // changed record.
        let keep =
            (self.keep_evidence && outcome.decision != Decision::Approved && judgement.fresh)
                || baseline.is_some_and(|before| before != outcome.decision);
        let owned = keep.then(|| {
            (
                record.command.clone().into_owned(),
                record.cwd.as_deref().map(str::to_owned),
                record.audience.as_deref().map(str::to_owned),
            )
        });
        let decision_line = self.decisions.then(|| {
            let mut line = Vec::with_capacity(record.command.len().saturating_add(64));
            let _ = serde_json::to_writer(
                &mut line,
                &DecisionLine {
                    line: record.line,
                    command: &record.command,
                    decision: decision_name(outcome.decision),
                    rules: &outcome.rules,
                },
            );
            line.push(b'\n');
            line
        });
        Judged {
            line: record.line,
            outcome,
            baseline,
            hash: judgement.hash,
            owned,
            decision_line,
        }
    }

    fn line(
        &self,
        chunk: &Chunk,
        format: Format,
        raw: &super::reader::RawLine,
        key: &mut Vec<u8>,
    ) -> LineOut {
        if raw.too_long {
            return LineOut::Malformed(
                raw.no,
                Malformed::TooLong {
                    limit: self.max_line_bytes,
                },
            );
        }
        match parse_line(format, raw.no, chunk.text(raw)) {
            Parsed::Skip => LineOut::Skip,
            Parsed::One(record) => LineOut::One(self.judge(&record, key)),
            Parsed::Many(records) => LineOut::Many(
                records
                    .iter()
                    .map(|record| self.judge(record, key))
                    .collect(),
            ),
            Parsed::Malformed(reason) => LineOut::Malformed(raw.no, reason),
        }
    }
}

struct Totals<'w> {
    summary: Summary,
    diff: Option<Diff>,
    evidence: Evidence,
    decisions: Option<&'w mut (dyn Write + Send)>,
    records: u64,
    keep_evidence: bool,
}

impl Totals<'_> {
    /// Folds one chunk's results into the totals, leaving `out` empty for reuse.
    fn absorb(&mut self, out: &mut Vec<LineOut>, lines: u64) -> Result<(), AuditError> {
        self.summary.add_lines(lines);
        let file = self.summary.files.len().saturating_sub(1);
        for line in out.drain(..) {
            match line {
                LineOut::Skip => {}
                LineOut::Malformed(no, reason) => self.summary.add_malformed(no, &reason),
                LineOut::One(judged) => self.record(judged, file)?,
                LineOut::Many(all) => {
                    for judged in all {
                        self.record(judged, file)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn record(&mut self, judged: Judged, file: usize) -> Result<(), AuditError> {
        self.records = self.records.saturating_add(1);
        self.summary.add(&judged.outcome);
        if let (Some(diff), Some(before)) = (self.diff.as_mut(), judged.baseline) {
            let command = judged.owned.as_ref().map_or("", |owned| owned.0.as_str());
            diff.add(before, judged.outcome.decision, command, file, judged.line);
        }
        if let (Some(out), Some(line)) = (self.decisions.as_mut(), &judged.decision_line) {
            out.write_all(line).map_err(AuditError::WriteDecisions)?;
        }
        if self.keep_evidence && judged.outcome.decision != Decision::Approved {
            let owned = judged.owned;
            self.evidence
                .add(judged.hash, owned, judged.line, &judged.outcome);
        }
        Ok(())
    }
}

/// Audits `inputs`: judges every record with `judge` (and with `baseline`, for the policy
/// diff), writes one JSON object per record to `decisions` in input order, and returns the
/// summary. `progress` is called after each chunk.
///
/// # Errors
///
/// When an input cannot be opened or read, the decisions cannot be written, or the worker pool
/// cannot start. Malformed records are counted, never an error.
pub fn audit<J: Judge>(
    judge: &J,
    baseline: Option<&J>,
    inputs: &[Input],
    options: &AuditOptions,
    decisions: Option<&mut (dyn Write + Send)>,
    progress: Option<&dyn Fn(Progress)>,
) -> Result<Report, AuditError> {
    let threads = options.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        NonZeroUsize::get,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("shellgate-audit-{index}"))
        .build()
        .map_err(|error| AuditError::Threads {
            threads,
            message: error.to_string(),
        })?;
    let limits = ChunkLimits {
        lines: options.chunk_lines.max(1),
        bytes: options.chunk_bytes.max(1),
        line_bytes: options.max_line_bytes.max(1),
    };
    let context = Context {
        judge,
        baseline,
        memo: Memo::new(options.memo_capacity),
        baseline_memo: baseline.map(|_| Memo::new(options.memo_capacity)),
        decisions: decisions.is_some(),
        keep_evidence: options.suggest_grants,
        max_line_bytes: limits.line_bytes,
    };
    let total_bytes = inputs
        .iter()
        .map(|input| {
            input
                .path()
                .and_then(|path| std::fs::metadata(path).ok())
                .map(|metadata| metadata.len())
        })
        .sum::<Option<u64>>();
    let mut totals = Totals {
        summary: Summary::new(),
        diff: baseline.map(|_| Diff::default()),
        evidence: Evidence::default(),
        decisions,
        records: 0,
        keep_evidence: options.suggest_grants,
    };
    let mut bytes_before = 0u64;
    let mut current = Chunk::default();
    let mut next = Chunk::default();
    // The results of the chunk before `current`, folded in while `current` is judged.
    let mut pending: Vec<LineOut> = Vec::new();
    let mut pending_lines = 0u64;
    let mut spare: Vec<LineOut> = Vec::new();
    for input in inputs {
        let read_error = |source| AuditError::Read {
            path: input.name(),
            source,
        };
        let mut reader = LineReader::new(input.open().map_err(read_error)?);
        let filled = reader.fill(&mut current, limits).map_err(read_error)?;
        let format = options
            .format
            .unwrap_or_else(|| Format::detect(input.path(), current.first_non_blank()));
        totals.summary.start_file(input.name(), format);
        let mut more = filled;
        while more {
            let mut judged = std::mem::take(&mut spare);
            let (step, ()) = pool.install(|| {
                rayon::join(
                    || -> Result<bool, AuditError> {
                        totals.absorb(&mut pending, pending_lines)?;
                        reader.fill(&mut next, limits).map_err(read_error)
                    },
                    || {
                        current
                            .lines
                            .par_iter()
                            .with_min_len(64)
                            .map_init(Vec::new, |key, raw| {
                                context.line(&current, format, raw, key)
                            })
                            .collect_into_vec(&mut judged);
                    },
                )
            });
            more = step?;
            spare = std::mem::replace(&mut pending, judged);
            pending_lines = current.lines.len() as u64;
            std::mem::swap(&mut current, &mut next);
            if let Some(report) = progress {
                report(Progress {
                    bytes: bytes_before.saturating_add(reader.consumed()),
                    total_bytes,
                    records: totals.records,
                });
            }
        }
        // The file's last chunk, before the next file starts.
        totals.absorb(&mut pending, pending_lines)?;
        pending_lines = 0;
        bytes_before = bytes_before.saturating_add(reader.consumed());
    }
    if let Some(out) = totals.decisions.as_mut() {
        out.flush().map_err(AuditError::WriteDecisions)?;
    }
    totals.evidence.finish();
    let summary = &totals.summary;
    let (suggested_grants, grant_check) = if options.suggest_grants {
        let patterns = summary
            .top_prompts(usize::MAX)
            .into_iter()
            .filter_map(|prompt| prompt.pattern)
            .collect();
        let grants = candidates(patterns, summary.top_dirs(usize::MAX));
        pool.install(|| prove(judge, &totals.evidence, grants, options.top))
    } else {
        (Vec::new(), GrantCheck::default())
    };
    let names: Vec<String> = inputs.iter().map(Input::name).collect();
    Ok(Report {
        files: summary.files.clone(),
        records: totals.records,
        decisions: summary.decisions,
        malformed: summary.malformed.clone(),
        hard_deny: summary.top_rules(options.top),
        prompts: summary.top_prompts(options.top),
        untrusted_paths: summary.top_paths(options.top),
        suggested_grants,
        grant_check,
        baseline: totals.diff.as_ref().map(|diff| diff.report(&names)),
        evaluations: context.memo.misses(),
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::audit::judge::{Access, Grant, HardDenyHit, PromptClause, UntrustedPath};

    /// A judge with a tiny fixed policy: `rm -rf /…` is refused, `git push …` and reads of
    /// `/srv/…` need a person unless granted, everything else runs.
    fn fake(record: &Record<'_>, grants: &[Grant]) -> Outcome {
        let command = &*record.command;
        if command.starts_with("rm -rf /") {
            let mut outcome = Outcome::bare(Decision::HardDenied);
            outcome.rules.push("rm-root".to_owned());
            outcome.hard_deny.push(HardDenyHit {
                rule: "rm-root".to_owned(),
                category: "destructive".to_owned(),
                reason: "use a path inside the project".to_owned(),
            });
            return outcome;
        }
        if command.starts_with("git push")
            && !grants.contains(&Grant::Pattern("git push *".to_owned()))
        {
            let mut outcome = Outcome::bare(Decision::NeedsPrompt);
            outcome.prompt_clauses.push(PromptClause {
                text: command.to_owned(),
                pattern: Some("git push *".to_owned()),
            });
            return outcome;
        }
        if let Some(path) = command.strip_prefix("cat /srv/") {
            let granted = grants
                .iter()
                .any(|grant| matches!(grant, Grant::Zone { path, .. } if path == "/srv/data"));
            if !granted {
                let mut outcome = Outcome::bare(Decision::NeedsPrompt);
                outcome.untrusted_paths.push(UntrustedPath {
                    path: format!("/srv/{path}"),
                    access: Access::Read,
                });
                return outcome;
            }
        }
        Outcome::bare(Decision::Approved)
    }

    fn stricter(record: &Record<'_>, grants: &[Grant]) -> Outcome {
        if record.command.starts_with("ls") {
            return Outcome::bare(Decision::NeedsPrompt);
        }
        fake(record, grants)
    }

    type Fake = fn(&Record<'_>, &[Grant]) -> Outcome;

    fn run(
        input: &str,
        name: &str,
        baseline: Option<Fake>,
        options: &AuditOptions,
    ) -> (Report, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::File::create(&path)
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let mut decisions = Vec::new();
        let judge: Fake = fake;
        let report = audit(
            &judge,
            baseline.as_ref(),
            &[Input::File(path)],
            options,
            Some(&mut decisions),
            None,
        )
        .unwrap();
        (report, String::from_utf8(decisions).unwrap())
    }

    #[test]
    fn decisions_keep_input_order_across_chunks_and_threads() {
        let mut input = String::new();
        let mut expected = String::new();
        for i in 1..=2000u64 {
            let (command, decision) = match i % 3 {
                0 => (format!("git push origin b{i}"), "NeedsPrompt"),
                1 => (format!("echo {i}"), "Approved"),
                _ => (format!("rm -rf /tmp{i}"), "HardDenied"),
            };
            let rules = if decision == "HardDenied" {
                r#"["rm-root"]"#
            } else {
                "[]"
            };
            input.push_str(&command);
            input.push('\n');
            expected.push_str(&format!(
                "{{\"line\":{i},\"command\":\"{command}\",\"decision\":\"{decision}\",\"rules\":{rules}}}\n"
            ));
        }
        let options = AuditOptions {
            threads: NonZeroUsize::new(2),
            chunk_lines: 7,
            ..AuditOptions::default()
        };
        let (report, decisions) = run(&input, "cmds.txt", None, &options);
        assert_eq!(decisions, expected);
        assert_eq!(report.records, 2000);
        assert_eq!(
            report.decisions,
            DecisionCounts {
                approved: 667,
                needs_prompt: 666,
                hard_denied: 667
            }
        );
        assert_eq!(report.files[0].format, Format::Lines);
        assert_eq!(report.files[0].lines, 2000);
    }

    #[test]
    fn malformed_lines_are_counted_and_the_run_goes_on() {
        let input = "{\"command\":\"ls\"}\nnot json\n{\"cwd\":\"/x\"}\n\n{\"command\":\"git push\",\"cwd\":\"/p\"}\n{\"command\":";
        let (report, decisions) = run(input, "log.jsonl", None, &AuditOptions::default());
        assert_eq!(report.records, 2);
        assert_eq!(report.malformed.count, 3);
        let lines: Vec<(u64, &str)> = report
            .malformed
            .lines
            .iter()
            .map(|m| (m.line, m.reason.as_str()))
            .collect();
        assert_eq!(
            lines,
            vec![
                (2, "not a valid record: expected ident at line 1 column 2"),
                (3, "no `command` string"),
                (
                    6,
                    "not a valid record: EOF while parsing a value at line 1 column 11"
                ),
            ]
        );
        assert_eq!(
            decisions,
            "{\"line\":1,\"command\":\"ls\",\"decision\":\"Approved\",\"rules\":[]}\n\
             {\"line\":5,\"command\":\"git push\",\"decision\":\"NeedsPrompt\",\"rules\":[]}\n"
        );
    }

    #[test]
    fn suggests_proven_grants() {
        let mut input = String::new();
        for i in 0..30 {
            input.push_str(&format!("git push origin b{}\n", i % 4));
        }
        for _ in 0..5 {
            input.push_str("cat /srv/data/report.csv\n");
        }
        input.push_str("rm -rf /\n");
        let (report, _) = run(&input, "cmds.log", None, &AuditOptions::default());
        assert_eq!(
            report.suggested_grants,
            vec![
                GrantSuggestion {
                    grant: Grant::Pattern("git push *".to_owned()),
                    prompts_removed: 30,
                },
                GrantSuggestion {
                    grant: Grant::Zone {
                        path: "/srv/data".to_owned(),
                        access: Access::Read,
                    },
                    prompts_removed: 5,
                },
            ]
        );
        assert!(report.grant_check.complete);
        assert_eq!(report.grant_check.prompting_commands, 5);
        assert_eq!(report.grant_check.refused_commands, 1);
        assert_eq!(report.hard_deny[0].rule, "rm-root");
        assert_eq!(report.prompts[0].pattern.as_deref(), Some("git push *"));
        assert_eq!(report.prompts[0].count, 30);
        assert_eq!(report.untrusted_paths[0].path, "/srv/data/report.csv");
    }

    #[test]
    fn a_grant_that_would_beat_a_deny_rule_is_rejected() {
        fn leaky(record: &Record<'_>, grants: &[Grant]) -> Outcome {
            if grants.contains(&Grant::Pattern("git push *".to_owned()))
                && record.command.starts_with("rm -rf /")
            {
                return Outcome::bare(Decision::Approved);
            }
            fake(record, grants)
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cmds.txt");
        std::fs::write(&path, "git push a\nrm -rf /\n").unwrap();
        let judge: Fake = leaky;
        let report = audit(
            &judge,
            None,
            &[Input::File(path)],
            &AuditOptions::default(),
            None,
            None,
        )
        .unwrap();
        assert!(report.suggested_grants.is_empty());
        assert_eq!(
            report.grant_check.rejected,
            vec![crate::audit::suggest::RejectedGrant {
                grant: Grant::Pattern("git push *".to_owned()),
                reason: "would let 1 refused record(s) through a deny rule".to_owned(),
            }]
        );
    }

    #[test]
    fn baseline_diff_groups_changes() {
        let input = "ls\nls -la\nls\ngit push\necho hi\n";
        let (report, _) = run(input, "cmds.txt", Some(stricter), &AuditOptions::default());
        let diff = report.baseline.unwrap();
        assert_eq!(diff.changed, 3);
        assert_eq!(diff.unchanged, 2);
        assert_eq!(diff.changes.len(), 1);
        let change = &diff.changes[0];
        assert_eq!(
            (change.from, change.to, change.count),
            ("NeedsPrompt", "Approved", 3)
        );
        let commands: Vec<(&str, u64, u64)> = change
            .commands
            .iter()
            .map(|c| (c.command.as_str(), c.count, c.line))
            .collect();
        assert_eq!(commands, vec![("ls", 2, 1), ("ls -la", 1, 2)]);
    }
}
