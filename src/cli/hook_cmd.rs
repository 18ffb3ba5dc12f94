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
use std::sync::Mutex;
use std::time::Duration;

use shellgate::hook::{
    Agent, Answer, HookError, MAX_INPUT_BYTES, ToolCall, answer_for, parse_request, render,
};
use shellgate_policy::{GateEvaluator, GrantSource, Policy, TrustState, deciding_rules};
use shellgate_store::{AuditLog, AuditRecord, timestamp_now};

use super::Exit;
use super::eval_cmd::load_policy;

/// The environment variable naming the audit log.
pub const AUDIT_LOG_ENV: &str = "SHELLGATE_AUDIT_LOG";

/// Answer an agent's pre-tool hook (JSON on standard input) with the gate's decision.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent: `claude-code`, `codex` or `gemini`.
    #[arg(value_name = "AGENT", value_parser = ["claude-code", "codex", "gemini"])]
    agent: String,
    /// A policy file layered on the embedded default (as a user layer); repeatable.
    #[arg(long = "policy", value_name = "FILE")]
    policies: Vec<PathBuf>,
    /// The trust file with saved approvals.
    #[arg(long, value_name = "FILE")]
    trust: Option<PathBuf>,
    /// The audience profile.
    #[arg(long, value_name = "NAME", default_value = "personal")]
    audience: String,
    /// The audit log (default: `$SHELLGATE_AUDIT_LOG`, else
    /// `$XDG_STATE_HOME/shellgate/audit.jsonl`, else `~/.local/state/shellgate/audit.jsonl`).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// Do not append to the audit log.
    #[arg(long)]
    no_audit_log: bool,
    /// Answer deny where the answer would be ask (for agent versions that ignore ask).
    #[arg(long)]
    ask_as_deny: bool,
    /// Answer ask if no decision is ready after this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    deadline_ms: u64,
}

/// Whether an answer was printed; the lock is held while printing so exactly one answer is
/// printed whole, by the main thread or by the deadline watchdog.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Prints `answer` unless one was printed already.
fn emit(agent: Agent, answer: &Answer) {
    let mut answered = ANSWERED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *answered {
        return;
    }
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{}", render(agent, answer));
    let _ = out.flush();
    *answered = true;
}

fn agent_named(name: &str) -> Agent {
    Agent::ALL
        .into_iter()
        .find(|agent| agent.name() == name)
        .unwrap_or(Agent::ClaudeCode)
}

/// Runs `shellgate hook`.
pub fn run(args: &Args) -> Exit {
    let agent = agent_named(&args.agent);
    let ask_as_deny = args.ask_as_deny;
    let deadline = Duration::from_millis(args.deadline_ms);
    std::thread::spawn(move || {
        std::thread::sleep(deadline);
        let late = Answer::failed(&format!("no decision within {} ms", deadline.as_millis()));
        emit(
            agent,
            &if ask_as_deny {
                late.ask_as_deny()
            } else {
                late
            },
        );
        std::process::exit(0);
    });
    let answer = catch_unwind(AssertUnwindSafe(|| decide(args, agent)))
        .unwrap_or_else(|_| Answer::failed(&"internal error"));
    let answer = if ask_as_deny {
        answer.ask_as_deny()
    } else {
        answer
    };
    emit(agent, &answer);
    Exit::Ok
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
    // The embedded default alone takes the fast path (no files to read or layer).
    let policy = if args.policies.is_empty() {
        Policy::embedded_default().ok()
    } else {
        load_policy(&args.policies).ok()
    };
    let Some(policy) = policy else {
        return Answer::failed(&"the policy could not be loaded");
    };
    let gate = GateEvaluator::new(policy);
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
    let mut state = TrustState::new(&args.audience, &cwd);
    state.set_project(&project);
    if let Some(home) = &home {
        state.set_home(home);
    }
    state.set_tmp(std::env::temp_dir());
    if let Err(e) = gate.apply_profile(&mut state) {
        return Answer::failed(&e);
    }
    add_stored_grants(args.trust.as_deref(), home.as_deref(), &mut state);
    let evaluation = gate.evaluate(command, &state);
    if !args.no_audit_log {
        let record = AuditRecord {
            timestamp: timestamp_now(),
            command: command.clone(),
            cwd: cwd.display().to_string(),
            audience: args.audience.clone(),
            decision: evaluation.decision.as_str().to_owned(),
            rule_ids: deciding_rules(&evaluation)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            choice: None,
        };
        // A failing log write is reported but never changes the answer.
        if let Err(e) = append(args.audit_log.as_deref(), &record) {
            eprintln!("shellgate: warning: cannot append to the audit log: {e}");
        }
    }
    let answer = answer_for(&evaluation);
    // The process exits right after answering: freeing the policy's tens of thousands of small
    // allocations was about a fifth of a hook call's instructions, so they are left to the OS.
    std::mem::forget(gate);
    std::mem::forget(state);
    std::mem::forget(evaluation);
    answer
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

/// Adds the trust file's grants for the state's audience. An unreadable trust file trusts
/// nothing (decisions only get stricter) and is reported on standard error.
fn add_stored_grants(explicit: Option<&Path>, home: Option<&Path>, state: &mut TrustState) {
    let Ok(path) = shellgate_store::default_trust_path(explicit) else {
        return;
    };
    match shellgate_store::TrustStore::open_with_home(&path, home.map(Path::to_path_buf)) {
        Ok(opened) => {
            if let Some(quarantine) = &opened.quarantined {
                eprintln!("shellgate: warning: {quarantine}");
            }
            let grants = opened.store.snapshot(state.audience());
            for zone in &grants.zones {
                state.add_zone(zone.path.as_path(), zone.access, GrantSource::Store);
            }
            for pattern in grants.patterns {
                state.add_pattern(pattern, GrantSource::Store);
            }
        }
        Err(e) => eprintln!("shellgate: warning: the trust file is not used: {e}"),
    }
}

/// The audit log's path: `explicit`, else `$SHELLGATE_AUDIT_LOG`, else
/// `$XDG_STATE_HOME/shellgate/audit.jsonl`, else `$HOME/.local/state/shellgate/audit.jsonl`.
fn audit_log_path(explicit: Option<&Path>) -> Option<PathBuf> {
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
