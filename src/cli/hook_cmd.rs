//! `shellgate hook claude-code|codex|gemini`: answer an agent's pre-tool hook.
//!
//! Reads the agent's JSON payload on standard input, evaluates the shell command with the
//! embedded default policy (plus `--policy` files) and the grants of the trust file (as `eval`
//! does; symbolic links resolved), prints the agent's answer on standard output, appends the
//! decision to the audit log, and always exits 0. Anything that goes wrong answers ask — also
//! when no answer is ready after `--deadline-ms`. See [`shellgate::hook`] for the formats.
//!
//! Session grants cannot carry over: every hook call is a new process, so a person's "this
//! session" choice in the agent's own dialog is the agent's business, and shellgate only knows
//! what the trust file holds.

use std::io::{self, Read as _, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use shellgate::TrustRecipe;
use shellgate::hook::{
    Agent, Answer, HookError, MAX_INPUT_BYTES, ToolCall, answer_after_deadline,
    answer_denied_after_deadline, answer_for, answer_on_floor, answer_without_project,
    parse_request, read_answer, render,
};
use shellgate_policy::{Decision, GateEvaluator, Policy, deciding_rules};
use shellgate_store::{AuditLog, AuditRecord, timestamp_now};

use super::Exit;
use super::output::errln;
use super::policy_files;
use super::trust_args::{PolicyArgs, stored_grants};

/// The environment variable naming the audit log.
pub const AUDIT_LOG_ENV: &str = "SHELLGATE_AUDIT_LOG";

/// Answer an agent's pre-tool hook (JSON on standard input) with the gate's decision.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent: `claude-code`, `codex` or `gemini`.
    #[arg(value_name = "AGENT", value_parser = ["claude-code", "codex", "gemini"])]
    agent: String,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// The audit log (default: `$SHELLGATE_AUDIT_LOG`, else
    /// `$XDG_STATE_HOME/shellgate/audit.jsonl`, else `~/.local/state/shellgate/audit.jsonl`).
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Do not append to the audit log.
    #[arg(long)]
    pub no_audit_log: bool,
    /// Answer deny where the answer would be ask (for agent versions that ignore ask).
    #[arg(long, conflicts_with = "defer_ask")]
    pub ask_as_deny: bool,
    /// Answer no opinion (`{}`) where the answer would be ask, leaving the call to the agent's
    /// own approval flow (for Codex, whose hooks cannot ask: instead of refusing).
    #[arg(long)]
    pub defer_ask: bool,
    /// Answer ask if no decision is ready after this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    deadline_ms: u64,
}

/// Whether an answer was printed; the lock is held while printing so exactly one answer is
/// printed whole, by the main thread or by the deadline watchdog.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// How long the deadline watchdog waits for the embedded default policy's judgement before it
/// answers ask.
const LATE_JUDGEMENT: Duration = Duration::from_millis(500);

/// The call being decided, once it is read: what the deadline watchdog judges with the
/// embedded default policy alone when the full decision is late.
static PENDING: OnceLock<Pending> = OnceLock::new();

/// A shell call's command and where it runs.
struct Pending {
    command: String,
    cwd: PathBuf,
    project: PathBuf,
    home: Option<PathBuf>,
}

/// The answer when the decision is late: the embedded default policy's deny rules and
/// protected paths still refuse (a project policy that stalls the gate must not turn a deny
/// into a question); anything else asks. Without a call read yet, ask.
fn late_answer(deadline: Duration) -> Answer {
    let late = || Answer::failed(&format!("no decision within {} ms", deadline.as_millis()));
    let Some(pending) = PENDING.get() else {
        return late();
    };
    let Ok(policy) = Policy::embedded_default() else {
        return late();
    };
    let gate = GateEvaluator::new(policy);
    let recipe = TrustRecipe {
        cwd: pending.cwd.clone(),
        project: Some(pending.project.clone()),
        home: pending.home.clone(),
        tmp: std::env::temp_dir(),
        resolve_symlinks: true,
        ..TrustRecipe::default()
    };
    let (state, _) = recipe.state(&gate);
    // The deny rules first: they need no path judged, so a command slow to judge (many paths)
    // is still refused in time.
    let hits = gate.deny_rule_hits(&pending.command, &state);
    if !hits.is_empty() {
        return answer_denied_after_deadline(&hits, deadline.as_millis());
    }
    answer_after_deadline(
        &gate.evaluate(&pending.command, &state),
        deadline.as_millis(),
    )
}

/// Prints `answer` unless one was printed already; whether it printed it.
fn emit(agent: Agent, answer: &Answer) -> bool {
    let mut answered = ANSWERED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *answered {
        return false;
    }
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{}", render(agent, answer));
    let _ = out.flush();
    *answered = true;
    true
}

/// Appends the late answer to the audit log (`audit_log`), when the call was read: every
/// answer the agent is sent is recorded, a late one too.
fn log_late(agent: Agent, answer: &Answer, audit_log: Option<&Path>, audience: &str, ms: u128) {
    let Some(pending) = PENDING.get() else {
        return;
    };
    let verdict = sent(agent, answer);
    let record = AuditRecord {
        timestamp: timestamp_now(),
        command: pending.command.clone(),
        cwd: pending.cwd.display().to_string(),
        audience: audience.to_owned(),
        decision: if verdict == "deny" {
            Decision::HardDenied
        } else {
            Decision::NeedsPrompt
        }
        .as_str()
        .to_owned(),
        rule_ids: Vec::new(),
        choice: None,
        error: Some(format!("no decision within {ms} ms")),
        agent: Some(agent.name().to_owned()),
        session_id: None,
        answer: Some(verdict.to_owned()),
        reason: match read_answer(agent, &render(agent, answer)) {
            Some(Answer::Decide { reason, .. }) if !reason.is_empty() => Some(reason),
            _ => None,
        },
    };
    if let Err(e) = append(audit_log, &record) {
        errln!("shellgate: warning: cannot append to the audit log: {e}");
    }
}

/// Runs `shellgate hook`.
pub fn run(args: &Args) -> Exit {
    let agent = super::program::agent_named(&args.agent);
    let ask_as_deny = args.ask_as_deny;
    let defer_ask = args.defer_ask;
    let deadline = Duration::from_millis(args.deadline_ms);
    let late_log = (!args.no_audit_log).then(|| args.audit_log.clone());
    let audience = args.policy.audience.clone();
    std::thread::spawn(move || {
        std::thread::sleep(deadline);
        // The default policy's own judgement gets a bounded time too: a command that is slow to
        // judge (many glob words) must not hold the answer back past the agent's timeout.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let answer = catch_unwind(|| late_answer(deadline)).ok();
            let _ = sender.send(answer);
        });
        let late = receiver
            .recv_timeout(LATE_JUDGEMENT)
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                Answer::failed(&format!("no decision within {} ms", deadline.as_millis()))
            });
        let late = adjust(late, ask_as_deny, defer_ask);
        if emit(agent, &late)
            && let Some(audit_log) = &late_log
        {
            log_late(
                agent,
                &late,
                audit_log.as_deref(),
                &audience,
                deadline.as_millis(),
            );
        }
        std::process::exit(0);
    });
    // `decide` adjusts the answer it logs; adjusting twice changes nothing, and the early
    // answers (unusable input) are adjusted here.
    let answer = catch_unwind(AssertUnwindSafe(|| decide(args, agent)))
        .unwrap_or_else(|_| Answer::failed(&"internal error"));
    emit(agent, &adjust(answer, ask_as_deny, defer_ask));
    Exit::Ok
}

/// The answer after `--ask-as-deny` or `--defer-ask`.
pub fn adjust(answer: Answer, ask_as_deny: bool, defer_ask: bool) -> Answer {
    if ask_as_deny {
        answer.ask_as_deny()
    } else if defer_ask {
        answer.defer_ask()
    } else {
        answer
    }
}

/// Reads, evaluates and logs one hook call.
fn decide(args: &Args, agent: Agent) -> Answer {
    let mut input = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    if let Err(e) = io::stdin().lock().take(limit).read_to_end(&mut input) {
        return Answer::failed(&HookError::Read(e.to_string()));
    }
    let request = match parse_request(agent, &input) {
        Ok(request) => request,
        Err(e) => return Answer::failed(&e),
    };
    let ToolCall::Shell { command, .. } = &request.call else {
        return Answer::PassThrough;
    };
    let current = std::env::current_dir().ok();
    let Some(cwd) = request
        .workdir()
        .filter(|dir| dir.is_absolute())
        .or(current)
    else {
        return Answer::failed(&"no working directory");
    };
    let home = shellgate_store::home_dir();
    let project = project_dir(agent)
        .or_else(|| request.cwd.clone().filter(|dir| dir.is_absolute()))
        .unwrap_or_else(|| cwd.clone());
    let _ = PENDING.set(Pending {
        command: command.clone(),
        cwd: cwd.clone(),
        project: project.clone(),
        home: home.clone(),
    });
    // A policy that does not load leaves the embedded default as a floor: its deny rules and
    // protected paths still refuse, and nothing is approved (see `answer_on_floor`). A project
    // layer that is refused leaves the default and user layers as the floor
    // (`answer_without_project`).
    let project_files = policy_files::project_files(&args.policy.project_policies, Some(&project));
    let (policy, floor) =
        match policy_files::load_layered(&args.policy.files.policies, &project_files) {
            Ok(layered) => {
                let floor = layered.refused.as_ref().map(|error| {
                    error.report();
                    Floor::WithoutProject(error.one_line())
                });
                (layered.policy, floor)
            }
            Err(error) => {
                error.report();
                match Policy::embedded_default() {
                    Ok(floor) => (floor, Some(Floor::Default(error.one_line()))),
                    Err(_) => return Answer::failed(&"the policy could not be loaded"),
                }
            }
        };
    let policy_error = floor.as_ref().map(|f| match f {
        Floor::Default(problem) | Floor::WithoutProject(problem) => problem.clone(),
    });
    let gate = GateEvaluator::new(policy);
    // An unreadable trust file trusts nothing (decisions only get stricter).
    let stored = stored_grants(args.policy.trust.as_deref(), home.as_deref()).unwrap_or_else(|e| {
        errln!("shellgate: warning: the trust file is not used: {e}");
        super::trust_args::StoredGrants::default()
    });
    let quarantine = stored.quarantined.as_ref().map(ToString::to_string);
    if let Some(quarantine) = &quarantine {
        errln!("shellgate: warning: {quarantine}");
    }
    let recipe = TrustRecipe {
        audience: args.policy.audience.clone(),
        cwd,
        project: Some(project),
        home,
        tmp: std::env::temp_dir(),
        resolve_symlinks: true,
        stored: stored.grants,
        ..TrustRecipe::default()
    };
    let (state, unknown_audience) = recipe.state(&gate);
    // On the floor an audience of the broken policy is unknown: it gets no profile (it trusts
    // less) and the answer is at most ask anyway.
    if let Some(e) = unknown_audience
        && policy_error.is_none()
    {
        return Answer::failed(&e);
    }
    let evaluation = gate.evaluate(command, &state);
    let (answer, decision) = match &floor {
        None => (answer_for(&evaluation), evaluation.decision),
        Some(Floor::Default(problem)) => (
            answer_on_floor(&evaluation, problem),
            evaluation.decision.max(Decision::NeedsPrompt),
        ),
        Some(Floor::WithoutProject(problem)) => (
            answer_without_project(&evaluation, problem),
            evaluation.decision.max(Decision::NeedsPrompt),
        ),
    };
    let answer = match &quarantine {
        Some(quarantine) => answer.with_note(quarantine),
        None => answer,
    };
    let answer = adjust(answer, args.ask_as_deny, args.defer_ask);
    if !args.no_audit_log {
        let problems: Vec<&str> = [policy_error.as_deref(), quarantine.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let record = AuditRecord {
            timestamp: timestamp_now(),
            command: command.clone(),
            cwd: recipe.cwd.display().to_string(),
            audience: args.policy.audience.clone(),
            decision: decision.as_str().to_owned(),
            rule_ids: deciding_rules(&evaluation)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            choice: None,
            error: (!problems.is_empty()).then(|| problems.join("; ")),
            agent: Some(agent.name().to_owned()),
            session_id: request.session_id.clone(),
            answer: Some(sent(agent, &answer).to_owned()),
            reason: match read_answer(agent, &render(agent, &answer)) {
                Some(Answer::Decide { reason, .. }) if !reason.is_empty() => Some(reason),
                _ => None,
            },
        };
        // A failing log write is reported but never changes the answer.
        if let Err(e) = append(args.audit_log.as_deref(), &record) {
            errln!("shellgate: warning: cannot append to the audit log: {e}");
        }
    }
    // The process exits right after answering: freeing the policy's tens of thousands of small
    // allocations was about a fifth of a hook call's instructions, so they are left to the OS.
    std::mem::forget(gate);
    std::mem::forget(state);
    std::mem::forget(evaluation);
    std::mem::forget(recipe);
    answer
}

/// The answer `agent` is actually sent, as it reads it: `allow`, `ask`, `deny` or `none` (no
/// opinion: Codex's approval, `--defer-ask`).
pub fn sent(agent: Agent, answer: &Answer) -> &'static str {
    match read_answer(agent, &render(agent, answer)) {
        Some(Answer::Decide { verdict, .. }) => verdict.as_str(),
        Some(Answer::PassThrough) | None => "none",
    }
}

/// Which layers answer when a policy file did not load, and why (file, line and column).
enum Floor {
    /// The default and user layers did not load: the embedded default alone.
    Default(String),
    /// The project layer was refused: the default and user layers.
    WithoutProject(String),
}

/// The agent's project directory, from the environment the agent gives its hooks.
fn project_dir(agent: Agent) -> Option<PathBuf> {
    let names: &[&str] = match agent {
        Agent::ClaudeCode => &["CLAUDE_PROJECT_DIR"],
        Agent::Gemini => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        Agent::Codex => &[],
    };
    names
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .find(|dir| dir.is_absolute())
}

/// The audit log's path: `explicit`, else `$SHELLGATE_AUDIT_LOG`, else
/// `$XDG_STATE_HOME/shellgate/audit.jsonl`, else `$HOME/.local/state/shellgate/audit.jsonl`.
pub fn audit_log_path(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return Some(path.to_path_buf());
    }
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    var(AUDIT_LOG_ENV)
        .or_else(|| {
            var("XDG_STATE_HOME")
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join("shellgate").join("audit.jsonl"))
        })
        .or_else(|| {
            shellgate_store::home_dir().map(|home| {
                home.join(".local")
                    .join("state")
                    .join("shellgate")
                    .join("audit.jsonl")
            })
        })
}

fn append(explicit: Option<&Path>, record: &AuditRecord) -> Result<(), String> {
    let path = audit_log_path(explicit)
        .ok_or_else(|| "no location (set HOME or SHELLGATE_AUDIT_LOG)".to_owned())?;
    AuditLog::open(path)
        .and_then(|log| log.append(record))
        .map_err(|e| e.to_string())
}
