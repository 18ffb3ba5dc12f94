//! `shellgate eval [--json] [options] -- COMMAND`: the gate's decision on one command.
//!
//! The options (shared with `explain`) build the trust state: the audience profile of the
//! policy (`--audience`, default `personal`), the zones and patterns saved in the trust file
//! (`--trust`, default `$SHELLGATE_TRUST`, else `$XDG_CONFIG_HOME/shellgate/trust.toml`, else
//! `~/.config/shellgate/trust.toml`; a missing file trusts nothing), and session grants from
//! `--zone` (read and write), `--read-zone` and `--allow` (a pattern). The working directory
//! defaults to the current one, the project to the working directory, the home to `$HOME`;
//! there is no session directory unless `--session` names one.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme};
use shellgate_policy::{
    Access, Decision, Evaluation, GateEvaluator, GrantSource, Policy, TrustState, VerbPattern,
};
use shellgate_rules::{Layer, PolicyError, PolicySource};

use super::Exit;

/// The options shared by `eval` and `explain`.
#[derive(Debug, clap::Args)]
pub struct GateArgs {
    /// A policy file layered on the embedded default (as a user layer); repeatable. A file named
    /// `default.toml` replaces the embedded default.
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
    /// The trust file with saved approvals.
    #[arg(long, value_name = "FILE")]
    pub trust: Option<PathBuf>,
    /// The audience profile.
    #[arg(long, value_name = "NAME", default_value = "personal")]
    pub audience: String,
    /// The directory the command runs in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The project directory (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The session directory (default: none).
    #[arg(long, value_name = "DIR")]
    pub session: Option<PathBuf>,
    /// The home directory (default: `$HOME`).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Trust a directory for reading and writing in this session; repeatable.
    #[arg(long = "zone", value_name = "DIR")]
    pub zones: Vec<PathBuf>,
    /// Trust a directory for reading in this session; repeatable.
    #[arg(long = "read-zone", value_name = "DIR")]
    pub read_zones: Vec<PathBuf>,
    /// Approve a verb pattern such as `'git push origin main *'` in this session; repeatable.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// The command to judge (after `--`); `-` reads it from standard input.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Show the gate's decision on a command.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the evaluation as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gate: GateArgs,
}

/// Everything an evaluation needs, prepared from the options.
pub struct Prepared {
    /// The evaluator.
    pub gate: GateEvaluator,
    /// The trust state.
    pub state: TrustState,
    /// The command text.
    pub command: String,
}

/// Runs `shellgate eval`.
pub fn run(args: &Args) -> Exit {
    let prepared = match prepare(&args.gate) {
        Ok(prepared) => prepared,
        Err(exit) => return exit,
    };
    let evaluation = prepared.gate.evaluate(&prepared.command, &prepared.state);
    if args.json {
        match serde_json::to_string(&evaluation) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: cannot write the evaluation: {e}");
                return Exit::Error;
            }
        }
    } else {
        print!("{}", render(&evaluation));
    }
    exit_for(evaluation.decision)
}

/// The exit status for a decision.
pub const fn exit_for(decision: Decision) -> Exit {
    match decision {
        Decision::Approved => Exit::Ok,
        Decision::NeedsPrompt => Exit::NeedsPrompt,
        Decision::HardDenied => Exit::HardDenied,
    }
}

/// The readable form of an evaluation: the decision, each clause's verdict with its reasons,
/// the hard-deny rules and the prompt.
pub fn render(evaluation: &Evaluation) -> String {
    let mut out = format!("{}\n", evaluation.decision);
    for hit in &evaluation.hard_deny {
        out.push_str(&format!(
            "hard deny `{}` ({}): {}\n",
            hit.rule, hit.category, hit.reason
        ));
    }
    for clause in &evaluation.clauses {
        out.push_str(&format!(
            "- {} {} [{}]\n",
            clause.decision, clause.text, clause.origin
        ));
        for reason in &clause.reasons {
            match &reason.rule {
                Some(rule) => out.push_str(&format!(
                    "    {} `{rule}`: {}\n",
                    reason.kind, reason.message
                )),
                None => out.push_str(&format!("    {}: {}\n", reason.kind, reason.message)),
            }
        }
    }
    if let Some(prompt) = &evaluation.prompt {
        out.push_str(&format!("prompt: {}\n", prompt.display));
        for clause in &prompt.clauses {
            match &clause.pattern {
                Some(pattern) => {
                    out.push_str(&format!("  run {} (pattern `{pattern}`)\n", clause.text))
                }
                None => out.push_str(&format!("  run {} (cannot be saved)\n", clause.text)),
            }
        }
        for path in &prompt.paths {
            out.push_str(&format!("  {} {}\n", path.access, path.path));
        }
        let choices = if prompt.persistable {
            "once, session, always, deny"
        } else {
            "once, deny"
        };
        out.push_str(&format!("  choices: {choices}\n"));
    }
    out
}

/// Loads the policy, the trust state and the command from the options.
///
/// # Errors
///
/// The exit status after a diagnostic was printed.
pub fn prepare(args: &GateArgs) -> Result<Prepared, Exit> {
    let policy = load_policy(&args.policies)?;
    let gate = GateEvaluator::new(policy);
    let current = std::env::current_dir().map_err(|e| {
        eprintln!("error: cannot read the current directory: {e}");
        Exit::Error
    })?;
    let absolute = |path: &Path| {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            current.join(path)
        }
    };
    let cwd = args
        .cwd
        .as_deref()
        .map_or_else(|| current.clone(), absolute);
    let project = args
        .project
        .as_deref()
        .map_or_else(|| cwd.clone(), absolute);
    let home = args
        .home
        .as_deref()
        .map(absolute)
        .or_else(shellgate_store::home_dir);
    let mut state = TrustState::new(&args.audience, &cwd);
    state.set_project(&project);
    if let Some(home) = &home {
        state.set_home(home);
    }
    if let Some(session) = &args.session {
        state.set_session(absolute(session));
    }
    state.set_tmp(std::env::temp_dir());
    if let Err(e) = gate.apply_profile(&mut state) {
        report(&e);
        return Err(Exit::Error);
    }
    load_trust(args, home.as_deref(), &mut state)?;
    for zone in &args.zones {
        state.add_zone(absolute(zone), Access::Write, GrantSource::Session);
    }
    for zone in &args.read_zones {
        state.add_zone(absolute(zone), Access::Read, GrantSource::Session);
    }
    for text in &args.allow {
        match text.parse::<VerbPattern>() {
            Ok(pattern) => state.add_pattern(pattern, GrantSource::Session),
            Err(e) => {
                report(&e);
                return Err(Exit::Error);
            }
        }
    }
    let command = read_command(&args.command)?;
    Ok(Prepared {
        gate,
        state,
        command,
    })
}

/// The command text: the words after `--` joined by spaces, or standard input for `-`.
fn read_command(words: &[String]) -> Result<String, Exit> {
    if let [single] = words
        && single == "-"
    {
        let mut text = String::new();
        return match std::io::stdin().read_to_string(&mut text) {
            Ok(_) => Ok(text.strip_suffix('\n').map_or(text.clone(), str::to_owned)),
            Err(e) => {
                eprintln!("error: cannot read the command from standard input: {e}");
                Err(Exit::Error)
            }
        };
    }
    Ok(words.join(" "))
}

/// Loads the embedded default policy (or a `default.toml` given) and the other files as user
/// layers.
///
/// # Errors
///
/// The exit status after the diagnostics were printed.
pub fn load_policy(files: &[PathBuf]) -> Result<Policy, Exit> {
    let mut defaults = Vec::new();
    let mut others = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| {
            eprintln!("error: cannot read `{name}`: {e}");
            eprintln!("  help: check the path and its permissions");
            Exit::Error
        })?;
        if file.file_name().is_some_and(|n| n == "default.toml") {
            defaults.push(PolicySource::new(name, text, Layer::Default));
        } else {
            others.push(PolicySource::new(name, text, Layer::User));
        }
    }
    if defaults.is_empty() {
        defaults.push(PolicySource::new(
            shellgate_rules::DEFAULT_POLICY_NAME,
            shellgate_rules::DEFAULT_POLICY,
            Layer::Default,
        ));
    }
    defaults.extend(others);
    Policy::load(&defaults).map_err(|e| {
        render_policy_error(&e);
        Exit::Error
    })
}

/// Adds the trust file's zones and patterns for the state's audience.
fn load_trust(args: &GateArgs, home: Option<&Path>, state: &mut TrustState) -> Result<(), Exit> {
    let path = match &args.trust {
        Some(path) => path.clone(),
        None => match shellgate_store::default_trust_path(None) {
            Ok(path) => path,
            // No location at all (no HOME): nothing is trusted.
            Err(_) => return Ok(()),
        },
    };
    let opened = shellgate_store::TrustStore::open_with_home(&path, home.map(Path::to_path_buf))
        .map_err(|e| {
            report(&e);
            Exit::Error
        })?;
    if let Some(quarantine) = &opened.quarantined {
        eprintln!("warning: {quarantine}");
    }
    let grants = opened.store.snapshot(state.audience());
    for zone in &grants.zones {
        state.add_zone(zone.path.as_path(), zone.access, GrantSource::Store);
    }
    for pattern in grants.patterns {
        state.add_pattern(pattern, GrantSource::Store);
    }
    Ok(())
}

/// Prints one diagnostic to standard error.
fn report(error: &dyn miette::Diagnostic) {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    let mut out = String::new();
    if handler.render_report(&mut out, error).is_err() {
        out = format!("error: {error}\n");
    }
    eprint!("{out}");
}

/// Prints every policy diagnostic to standard error.
pub fn render_policy_error(error: &PolicyError) {
    for single in error.errors() {
        report(single);
    }
    let count = error.errors().len();
    eprintln!(
        "{count} error{} found; the policy was not loaded",
        if count == 1 { "" } else { "s" }
    );
}
