//! `shellgate eval [--json] [options] -- COMMAND`: the gate's decision on one command.
//!
//! The options (shared with `explain`) build the trust state: the audience profile of the
//! policy (`--audience`, default `personal`), the zones and patterns saved in the trust file
//! (`--trust`, default `$SHELLGATE_TRUST`, else `$XDG_CONFIG_HOME/shellgate/trust.toml`, else
//! `~/.config/shellgate/trust.toml`; a missing file trusts nothing), and session grants from
//! `--zone` (read and write), `--read-zone` and `--allow` (a pattern). The working directory
//! defaults to the current one, the project to the working directory, the home to `$HOME`;
//! there is no session directory unless `--session` names one.

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;

use shellgate_policy::{
    ClauseVerdict, Decision, DenyHit, Evaluation, GateEvaluator, Reason, ReasonKind, TrustState,
    display,
};

use super::Exit;
use super::output::{self, errln, out};
use super::policy_files::{self, report};
use super::trust_args::TrustArgs;

/// The options shared by `eval` and `explain`.
#[derive(Debug, clap::Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub trust: TrustArgs,
    /// The command to judge (after `--`); `-` reads it from standard input.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
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
    /// The command as given: bytes, which need not be UTF-8.
    pub command: Vec<u8>,
    /// The policy layers applied (the embedded default first).
    pub layers: String,
    /// Why the project policy was refused (file, line and column), when it was: the other
    /// layers apply and nothing runs without a person.
    pub refused: Option<String>,
}

impl Prepared {
    /// The command as text, every byte that is not UTF-8 replaced by U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.command)
    }

    /// The gate's evaluation of the command (see
    /// [`GateEvaluator::evaluate_bytes`]).
    pub fn evaluate(&self) -> Evaluation {
        let evaluation = self.gate.evaluate_bytes(&self.command, &self.state);
        match &self.refused {
            None => evaluation,
            Some(problem) => project_floor(evaluation, problem, &self.command),
        }
    }
}

/// Runs `shellgate eval`.
pub fn run(args: &Args) -> Exit {
    let prepared = match prepare(&args.gate) {
        Ok(prepared) => prepared,
        Err(exit) => return exit,
    };
    let evaluation = prepared.evaluate();
    if args.json {
        if let Err(exit) = output::json_line(&evaluation, "evaluation") {
            return exit;
        }
    } else {
        out!("{}", render(&evaluation));
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

/// A line `LABEL `rule` (category): reason` for each rule in `hits`.
fn push_hits(out: &mut String, label: &str, hits: &[DenyHit]) {
    for hit in hits {
        out.push_str(&format!(
            "{label} `{}` ({}): {}\n",
            hit.rule, hit.category, hit.reason
        ));
    }
}

/// The readable form of an evaluation: the decision, each clause's verdict with its reasons,
/// the hard-deny rules and the prompt.
pub fn render(evaluation: &Evaluation) -> String {
    let mut out = format!("{}\n", super::output::painted(evaluation.decision.as_str()));
    push_hits(&mut out, "hard deny", &evaluation.hard_deny);
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
        push_hits(&mut out, "  ask", &prompt.asked_by);
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
        for host in &prompt.hosts {
            out.push_str(&format!("  host {host}\n"));
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
    let recipe = args.trust.recipe(true)?;
    let project = recipe.project.as_deref().unwrap_or(&recipe.cwd);
    let layered = policy_files::load_for_project(&args.trust.policy, project)?;
    let layers = layered.describe();
    let refused = layered
        .refused
        .as_ref()
        .map(policy_files::LoadError::one_line);
    let gate = GateEvaluator::new(layered.policy);
    let (state, unknown_audience) = recipe.state(&gate);
    if let Some(error) = unknown_audience {
        report(&error);
        return Err(Exit::Error);
    }
    let command = read_command(&args.command)?;
    Ok(Prepared {
        gate,
        state,
        command,
        layers,
        refused,
    })
}

/// An evaluation made without a refused project layer: `HardDenied` stays, anything else
/// needs a person, and the reason names the problem (file, line and column).
pub fn project_floor(evaluation: Evaluation, problem: &str, command: &[u8]) -> Evaluation {
    let message = format!(
        "the project policy was refused ({problem}), so only the default and user policies apply and nothing runs without a person; fix it (check it with `shellgate check --layer project FILE`)"
    );
    evaluation.require_person(ClauseVerdict::whole_command(
        "policy",
        Reason::new(ReasonKind::Policy, None, message),
        display::cap(display::escape_bytes(command)),
    ))
}

/// The command: the words after `--` joined by spaces, or standard input for `-` (without
/// its final line feed). Bytes, which need not be UTF-8.
fn read_command(words: &[OsString]) -> Result<Vec<u8>, Exit> {
    if let [single] = words
        && single == "-"
    {
        let mut bytes = Vec::new();
        return match std::io::stdin().read_to_end(&mut bytes) {
            Ok(_) => {
                if bytes.last() == Some(&b'\n') {
                    bytes.pop();
                }
                Ok(bytes)
            }
            Err(e) => {
                errln!("error: cannot read the command from standard input: {e}");
                Err(Exit::Error)
            }
        };
    }
    Ok(words
        .iter()
        .map(|word| word.as_bytes())
        .collect::<Vec<_>>()
        .join(&b' '))
}
