//! `shellgate audit [options] [--baseline FILE]… [--format F] [--threads N] [--json]
//! [--decisions PATH|-] FILE…`: replay agent command logs through the gate.
//!
//! The policy and trust options are those of `eval`; a record's own `cwd` and `audience` (when
//! the log has them) override `--cwd` and `--audience`, and the project defaults to each
//! record's working directory unless `--project` names one. Symbolic links are not resolved.
//! See [`shellgate::audit`] for the pipeline.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal as _, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use shellgate::audit::{
    Access, AuditError, AuditOptions, Format, GateJudge, Grant, Input, Progress, Report, audit,
};
use shellgate::hook::shell_quote;
use shellgate_policy::GateEvaluator;

use super::Exit;
use super::output::{self, errln};
use super::policy_files;
use super::trust_args::TrustArgs;

/// Replay agent command logs through the gate and summarise what it would decide.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("audience", |arg| arg.help("The audience of records that do not name one")),
    mut_arg("cwd", |arg| arg.help(
        "The working directory of records that do not name one (default: the current directory)"
    )),
    mut_arg("project", |arg| arg.help(
        "The project directory (default: each record's working directory)"
    )),
    mut_arg("zones", |arg| arg.help("Trust a directory for reading and writing; repeatable")),
    mut_arg("read_zones", |arg| arg.help("Trust a directory for reading; repeatable")),
    mut_arg("allow", |arg| arg.help(
        "Approve a verb pattern such as `'git push origin main *'`; repeatable"
    )),
)]
pub struct Args {
    #[command(flatten)]
    trust: TrustArgs,
    /// Also judge every record under this policy (layered like `--policy`; repeatable) and
    /// report each command whose decision changes.
    #[arg(long = "baseline", value_name = "FILE")]
    baseline: Vec<PathBuf>,
    /// The input format (default: by extension, then by content).
    #[arg(long, value_name = "FORMAT", value_parser = ["jsonl", "lines", "claude"])]
    format: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// Write one JSON object per record, in input order, to PATH (`-`: standard output, and
    /// the summary goes to standard error).
    #[arg(long, value_name = "PATH")]
    decisions: Option<PathBuf>,
    /// Entries in each list of the summary.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// Lines per chunk (for tests and tuning).
    #[arg(long, value_name = "N", hide = true)]
    chunk_lines: Option<usize>,
    /// Judge every record, even repeated ones (for benchmarks).
    #[arg(long, hide = true)]
    no_memo: bool,
    /// Summarise the decisions recorded in shellgate audit logs (what the hook decided and
    /// answered at the time) instead of judging the commands again.
    #[arg(long)]
    as_recorded: bool,
    /// Logs to audit (`-`: standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Runs `shellgate audit`.
pub fn run(args: &Args) -> Exit {
    if args.as_recorded {
        return super::audit_recorded::run(&args.files, args.json, args.top);
    }
    match audit_files(args) {
        Ok(()) => Exit::Ok,
        Err(exit) => exit,
    }
}

fn audit_files(args: &Args) -> Result<(), Exit> {
    let recipe = args.trust.recipe(false)?;
    // The project layer comes from `--project-policy`, else the `.shellgate/policy.toml` of
    // `--project`, else of the working directory; a refused one is reported and left out.
    let project = recipe.project.as_deref().unwrap_or(&recipe.cwd);
    let layered = policy_files::load_for_project(&args.trust.policy, project)?;
    let judge = GateJudge::new(GateEvaluator::new(layered.policy), recipe.clone());
    let baseline = if args.baseline.is_empty() {
        None
    } else {
        Some(GateJudge::new(
            GateEvaluator::new(policy_files::load_or_report(&args.baseline)?),
            recipe,
        ))
    };
    let defaults = AuditOptions::default();
    let options = AuditOptions {
        format: args.format.as_deref().and_then(Format::from_name),
        threads: args.threads,
        top: args.top,
        chunk_lines: args.chunk_lines.unwrap_or(defaults.chunk_lines),
        memo_capacity: if args.no_memo {
            0
        } else {
            defaults.memo_capacity
        },
        ..defaults
    };
    let inputs: Vec<Input> = args
        .files
        .iter()
        .map(|file| Input::from_arg(file))
        .collect();
    let to_stdout = args
        .decisions
        .as_deref()
        .is_some_and(|path| path.as_os_str() == "-");
    let mut sink: Option<Box<dyn Write + Send>> = match args.decisions.as_deref() {
        None => None,
        Some(_) if to_stdout => Some(Box::new(BufWriter::with_capacity(1 << 16, io::stdout()))),
        Some(path) => Some(Box::new(BufWriter::with_capacity(
            1 << 16,
            File::create(path)
                .map_err(|e| fail(&format!("cannot create `{}`: {e}", path.display())))?,
        ))),
    };
    let bar = progress_bar();
    let tick = |progress: Progress| {
        if let Some(bar) = &bar {
            if let Some(total) = progress.total_bytes {
                bar.set_length(total);
            }
            bar.set_position(progress.bytes);
            bar.set_message(format!("{} records", progress.records));
        }
    };
    // A reborrow with a shorter trait-object lifetime (`as_deref_mut` would keep `'static`).
    #[expect(
        clippy::option_as_ref_deref,
        reason = "as_deref_mut keeps the boxed object's 'static bound and ties up `sink`"
    )]
    let decisions = sink
        .as_mut()
        .map(|sink| -> &mut (dyn Write + Send) { &mut **sink });
    let started = Instant::now();
    let result = audit(
        &judge,
        baseline.as_ref(),
        &inputs,
        &options,
        decisions,
        Some(&tick),
    );
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    drop(sink);
    let report = match result {
        Ok(report) => report,
        // `--decisions -` read by a pipe that closed (`… | head -1`): the reader has what it
        // wanted, so the run ends here, quietly and successfully.
        Err(AuditError::WriteDecisions(error))
            if to_stdout && error.kind() == io::ErrorKind::BrokenPipe =>
        {
            output::stdout_failed(&error);
            return Ok(());
        }
        Err(error) => return Err(fail(&error.to_string())),
    };
    let text = if args.json {
        let mut json = serde_json::to_string(&report)
            .map_err(|e| fail(&format!("cannot write the summary: {e}")))?;
        json.push('\n');
        json
    } else {
        // After the first line (what was audited): what it was judged with.
        let mut text = render(&report, elapsed, &args.trust.policy.audience);
        let at = text.find('\n').map_or(text.len(), |end| end + 1);
        text.insert_str(at, &applied(args));
        text
    };
    if to_stdout {
        output::err!("{text}");
    } else {
        output::out!("{text}");
    }
    Ok(())
}

/// The policy layers and the trust file the run applied, one line each.
fn applied(args: &Args) -> String {
    let files = &args.trust.policy.files.policies;
    let mut policy = if files.iter().any(|file| policy_files::is_default(file)) {
        String::new()
    } else {
        "the embedded default".to_owned()
    };
    for file in files {
        if !policy.is_empty() {
            policy.push_str(" + ");
        }
        let _ = write!(policy, "`{}`", file.display());
    }
    let trust = match shellgate_store::default_trust_path(args.trust.policy.trust.as_deref()) {
        Ok(path) if path.exists() => format!("`{}`", path.display()),
        Ok(path) => format!("none (`{}` does not exist)", path.display()),
        Err(_) => "none (no location)".to_owned(),
    };
    format!("  policy: {policy}; trust file: {trust}\n")
}

/// Prints an error and returns the error exit status.
fn fail(message: &str) -> Exit {
    errln!("error: {message}");
    Exit::Error
}

/// A progress bar on standard error, only when it is a terminal.
fn progress_bar() -> Option<indicatif::ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// `n` with a `≈` when the count is an estimate.
/// A titled section of a text report, after a blank line, one indented row per item; nothing
/// when there are no items.
pub(super) fn section<T>(out: &mut String, title: &str, items: &[T], row: impl Fn(&T) -> String) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}");
    for item in items {
        let _ = writeln!(out, "  {}", row(item));
    }
}

fn count(n: u64, exact: bool) -> String {
    if exact {
        n.to_string()
    } else {
        format!("≈{n}")
    }
}

fn percent(part: u64, total: u64) -> String {
    if total == 0 {
        return "-".to_owned();
    }
    #[expect(clippy::cast_precision_loss, reason = "a percentage for display")]
    let value = part as f64 * 100.0 / total as f64;
    format!("{value:.1}%")
}

/// The command a person runs to give `grant`.
fn grant_command(grant: &Grant, audience: &str) -> String {
    let mut command = match grant {
        Grant::Pattern(pattern) => {
            format!("shellgate approvals trust-verb {}", shell_quote(pattern))
        }
        Grant::Zone { path, access } => format!(
            "shellgate approvals trust-zone {}{}",
            shell_quote(path),
            if *access == Access::Read {
                " --read-only"
            } else {
                ""
            }
        ),
    };
    if audience != "personal" {
        let _ = write!(command, " --audience {}", shell_quote(audience));
    }
    command
}

/// The readable summary.
fn render(report: &Report, elapsed: Duration, audience: &str) -> String {
    let mut out = String::new();
    let secs = elapsed.as_secs_f64();
    #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
    let rate = if secs > 0.0 {
        report.records as f64 / secs
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "audited {} records from {} file{} in {secs:.2} s ({rate:.0} records/s; {} evaluated, the rest repeats)",
        report.records,
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" },
        report.evaluations,
    );
    for file in &report.files {
        let _ = writeln!(
            out,
            "  {}  ({}, {} lines, {} records, {} malformed)",
            file.path, file.format, file.lines, file.records, file.malformed
        );
    }
    let total = report.decisions.total();
    let _ = writeln!(out, "\ndecisions");
    for (name, n) in [
        ("Approved", report.decisions.approved),
        ("NeedsPrompt", report.decisions.needs_prompt),
        ("HardDenied", report.decisions.hard_denied),
    ] {
        let _ = writeln!(out, "  {name:<12} {n:>9}  {:>6}", percent(n, total));
    }
    section(&mut out, "top hard-deny rules", &report.hard_deny, |rule| {
        format!(
            "{:>9}  {} ({}): {}",
            count(rule.count, rule.exact),
            rule.rule,
            rule.category,
            rule.reason
        )
    });
    section(
        &mut out,
        "top prompting clauses (proposed pattern, then an example)",
        &report.prompts,
        |prompt| {
            let pattern = prompt.pattern.as_deref().unwrap_or("(cannot be saved)");
            format!(
                "{:>9}  {pattern}    e.g. {}",
                count(prompt.count, prompt.exact),
                prompt.example
            )
        },
    );
    section(
        &mut out,
        "most frequent untrusted paths",
        &report.untrusted_paths,
        |path| {
            format!(
                "{:>9}  {:<5}  {}",
                count(path.count, path.exact),
                path.access.as_str(),
                path.path
            )
        },
    );
    let check = &report.grant_check;
    if !report.suggested_grants.is_empty() {
        let _ = writeln!(
            out,
            "\ngrants that would remove the most prompts (proven by re-evaluating {} prompting and {} refused distinct commands{})",
            check.prompting_commands,
            check.refused_commands,
            if check.complete {
                ""
            } else {
                "; not every command was kept, counts are lower bounds"
            }
        );
        for suggestion in &report.suggested_grants {
            let _ = writeln!(
                out,
                "  {:>9} prompts  {}",
                suggestion.prompts_removed,
                grant_command(&suggestion.grant, audience)
            );
        }
    }
    for rejected in &check.rejected {
        let _ = writeln!(
            out,
            "  rejected  {}: {}",
            grant_command(&rejected.grant, audience),
            rejected.reason
        );
    }
    if let Some(diff) = &report.baseline {
        let _ = writeln!(
            out,
            "\npolicy diff against the baseline: {} record{} changed, {} unchanged",
            diff.changed,
            if diff.changed == 1 { "" } else { "s" },
            diff.unchanged
        );
        for change in &diff.changes {
            let _ = writeln!(out, "  {} -> {}: {}", change.from, change.to, change.count);
            for command in &change.commands {
                let _ = writeln!(
                    out,
                    "  {:>9}  {}    ({}:{})",
                    command.count, command.command, command.file, command.line
                );
            }
            if change.more > 0 {
                let _ = writeln!(out, "  {:>9}  more records of other commands", change.more);
            }
        }
    }
    let malformed = &report.malformed;
    let _ = writeln!(out, "\nmalformed lines: {}", malformed.count);
    for line in &malformed.lines {
        let _ = writeln!(out, "  {}:{}: {}", line.file, line.line, line.reason);
    }
    if malformed.count > malformed.lines.len() as u64 {
        let _ = writeln!(
            out,
            "  … and {} more",
            malformed.count - malformed.lines.len() as u64
        );
    }
    out
}
