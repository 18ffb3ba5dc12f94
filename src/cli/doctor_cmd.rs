//! `shellgate doctor [--project DIR]`: is shellgate really guarding the agents?
//!
//! Checks, printing one `ok`, `FAIL` or `note` line each: `shellgate` on `PATH`; which agents'
//! settings files (user level and the project's) run the shellgate hook; for each installed
//! hook, that its command line is valid, that its policy layers load, that its trust file is
//! readable (read only: an unusable file is reported, never moved aside) and that its audit log
//! is writable; and a sample allow, ask and deny through the hook, run as the agent runs it
//! (`sh -c COMMAND`, the agent's JSON payload on standard input). Exit 0 only when nothing
//! failed.

use std::fs::{self, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use clap::Parser as _;
use shellgate::hook::{Agent, Answer, Verdict, read_answer, render};
use shellgate::install;

use super::hook_cmd::{self, adjust};
use super::output::{outln, painted};
use super::{Cli, Command, Exit, policy_files, program};

/// Check that shellgate is installed and working for each agent.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project whose agent settings (`.claude/`, `.codex/`, `.gemini/`) are checked too
    /// (default: the current directory).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

/// How long one sample hook call may take before it counts as failed.
const SAMPLE_LIMIT: Duration = Duration::from_secs(30);

/// The sample commands: the decision each must get, and the command.
const SAMPLES: [(Verdict, &str); 3] = [
    (Verdict::Allow, "git status"),
    (Verdict::Ask, "shellgate-doctor-unknown-command --probe"),
    (Verdict::Deny, "rm -rf ~"),
];

/// The checks' outcome so far.
#[derive(Default)]
struct Report {
    failed: usize,
}

impl Report {
    fn ok(&self, message: &str) {
        outln!("{}    {message}", painted("ok"));
    }

    fn note(&self, message: &str) {
        outln!("{}  {message}", painted("note"));
    }

    fn fail(&mut self, message: &str, help: &str) {
        self.failed += 1;
        outln!("{}  {message}", painted("FAIL"));
        outln!("      help: {help}");
    }
}

/// A shellgate hook found in a settings file.
struct Installed {
    agent: Agent,
    file: PathBuf,
    command: String,
}

/// Runs `shellgate doctor`.
pub fn run(args: &Args) -> Exit {
    let mut report = Report::default();
    let project = match &args.project {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let on_path = program::find_on_path("shellgate");
    match &on_path {
        Some(found) => {
            let this =
                std::env::current_exe().is_ok_and(|current| program::same_file(&current, found));
            report.ok(&format!(
                "`shellgate` on PATH: `{}`{}",
                found.display(),
                if this { "" } else { " (not this program)" }
            ));
        }
        None => report.note("`shellgate` is not on PATH"),
    }
    let installed = find_hooks(&mut report, &project);
    if installed.is_empty() {
        report.fail(
            "no agent runs the shellgate hook",
            "run `shellgate install claude-code` (or `codex`, `gemini`)",
        );
    }
    if on_path.is_none() && installed.iter().any(|hook| runs_bare_name(&hook.command)) {
        report.fail(
            "a hook runs `shellgate` by name, but it is not on PATH",
            "put the shellgate binary on PATH, or reinstall the hook (`shellgate install AGENT`) to use its full path",
        );
    }
    let sandbox = std::env::temp_dir().join(format!("shellgate-doctor-{}", std::process::id()));
    if let Err(e) = fs::create_dir_all(&sandbox) {
        report.fail(
            &format!("cannot create `{}` for the samples: {e}", sandbox.display()),
            "check the temporary directory ($TMPDIR)",
        );
    } else {
        for hook in &installed {
            check_hook(&mut report, hook, &project, &sandbox);
        }
        // Best effort: a leftover directory in the temporary directory is harmless.
        let _ignored = fs::remove_dir_all(&sandbox);
    }
    if report.failed == 0 {
        outln!("all is well");
        Exit::Ok
    } else {
        outln!(
            "{} problem{} found",
            report.failed,
            if report.failed == 1 { "" } else { "s" }
        );
        Exit::Error
    }
}

/// The shellgate hooks in every agent's user-level and project settings files.
fn find_hooks(report: &mut Report, project: &Path) -> Vec<Installed> {
    let home = shellgate_store::home_dir();
    let mut installed = Vec::new();
    for agent in Agent::ALL {
        let mut files = Vec::new();
        if let Some(home) = &home {
            files.push(install::user_settings_path(agent, home, program::env_path));
        }
        files.push(install::project_settings_path(agent, project));
        if agent == Agent::ClaudeCode {
            files.push(project.join(".claude").join("settings.local.json"));
        }
        files.dedup();
        let before = installed.len();
        for file in files {
            let text = match fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    report.fail(
                        &format!("{agent}: cannot read `{}`: {e}", file.display()),
                        "check the file's permissions",
                    );
                    continue;
                }
            };
            // Any settings file the agent reads may switch every hook off, shellgate's in
            // another file included (a project's committed `.claude/settings.json`).
            if install::parse_settings(&text)
                .is_ok_and(|settings| install::hooks_disabled(&settings))
            {
                report.fail(
                    &format!(
                        "{agent}: `{}` sets `disableAllHooks`: the agent runs no hooks, shellgate's included",
                        file.display()
                    ),
                    "remove `disableAllHooks` from the file",
                );
            }
            let found = install::parse_settings(&text)
                .and_then(|settings| install::handlers(agent, &settings));
            match found {
                Ok(commands) => {
                    for (command, inert) in commands {
                        if let Some(why) = inert {
                            report.fail(
                                &format!(
                                    "{agent}: hook in `{}` never runs for the shell tool: {why}: `{command}`",
                                    file.display()
                                ),
                                &format!("fix the entry, or remove it and run `shellgate install {agent}`"),
                            );
                            continue;
                        }
                        report.ok(&format!(
                            "{agent}: hook in `{}`: `{command}`",
                            file.display()
                        ));
                        installed.push(Installed {
                            agent,
                            file: file.clone(),
                            command,
                        });
                    }
                }
                Err(e) => report.fail(
                    &format!("{agent}: `{}`: {e}", file.display()),
                    "fix the file; the agent cannot read its hooks either",
                ),
            }
        }
        if installed.len() == before {
            report.note(&format!(
                "{agent}: no shellgate hook (`shellgate install {agent}` adds one)"
            ));
        }
    }
    installed
}

/// Whether a hook command runs the program by bare name (found through `PATH`).
fn runs_bare_name(command: &str) -> bool {
    command
        .split_whitespace()
        .next()
        .is_some_and(|program| !program.contains('/'))
}

/// Checks one installed hook: its command line, policy, trust file, audit log and samples.
fn check_hook(report: &mut Report, hook: &Installed, project: &Path, sandbox: &Path) {
    let agent = hook.agent;
    // One plain command, nothing else: `shellgate hook AGENT; other` or `./bin/shellgate hook …`
    // (a program inside the project) is not the hook `install` writes, and the samples below
    // run the command's words without a shell.
    let words: Vec<String> = {
        let parsed =
            shellgate_parser::parse(&hook.command, &shellgate_parser::ParseOptions::default());
        let mut clauses = parsed.graph.clauses();
        match (clauses.next(), clauses.next()) {
            (Some(clause), None)
                if parsed.complete
                    && clause.redirects.is_empty()
                    && clause.assignments.is_empty()
                    && clause.argv.iter().all(|w| w.literal) =>
            {
                clause.cooked_argv().map(str::to_owned).collect()
            }
            _ => Vec::new(),
        }
    };
    let program = words.first().map(PathBuf::from);
    let inside_project = program
        .as_ref()
        .filter(|p| p.components().count() > 1)
        .is_some_and(|p| {
            let absolute = if p.is_absolute() {
                p.clone()
            } else {
                project.join(p)
            };
            absolute.starts_with(project)
        });
    if inside_project {
        report.fail(
            &format!(
                "{agent}: `{}` runs a program inside the project, not an installed shellgate",
                hook.command
            ),
            &format!("reinstall it: `shellgate install {agent} --uninstall` then `shellgate install {agent}`"),
        );
        return;
    }
    let args = match Cli::try_parse_from(&words) {
        Ok(Cli {
            command: Command::Hook(args),
            ..
        }) => args,
        Ok(_) | Err(_) => {
            report.fail(
                &format!("{agent}: `{}` is not a valid `shellgate hook` command line", hook.command),
                &format!("reinstall it: `shellgate install {agent} --uninstall` then `shellgate install {agent}`"),
            );
            return;
        }
    };
    let absolute = |path: &Path| {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            project.join(path)
        }
    };
    let policies: Vec<PathBuf> = args
        .policy
        .files
        .policies
        .iter()
        .map(|p| absolute(p))
        .collect();
    match policy_files::load(&policies) {
        Ok(_) => report.ok(&format!(
            "{agent}: policy loads: the embedded default{}",
            policies
                .iter()
                .map(|file| format!(" + `{}`", file.display()))
                .collect::<String>()
        )),
        Err(error) => report.fail(
            &format!("{agent}: the policy does not load: {}", error.one_line()),
            "check it with `shellgate check FILE`; meanwhile the hook asks about everything",
        ),
    }
    let trust_usable = check_trust(
        report,
        agent,
        args.policy.trust.as_deref().map(absolute).as_deref(),
    );
    if args.no_audit_log {
        report.note(&format!(
            "{agent}: the hook keeps no audit log (--no-audit-log)"
        ));
    } else {
        check_audit_log(
            report,
            agent,
            args.audit_log.as_deref().map(absolute).as_deref(),
        );
    }
    if !trust_usable {
        report.note(&format!(
            "{agent}: samples skipped: the hook would move the unusable trust file aside"
        ));
        return;
    }
    for (verdict, command) in SAMPLES {
        let expected = adjust(
            Answer::Decide {
                verdict,
                reason: String::new(),
            },
            args.ask_as_deny,
            args.defer_ask,
        );
        let expected = read_answer(agent, &render(agent, &expected)).map(|answer| kind(&answer));
        match sample(agent, &words, command, project, sandbox) {
            Ok(answer) if Some(kind(&answer)) == expected => report.ok(&format!(
                "{agent}: `{command}` → {}",
                shown_kind(kind(&answer))
            )),
            Ok(answer) => report.fail(
                &format!(
                    "{agent}: `{command}` → {} (expected {}){}",
                    shown_kind(kind(&answer)),
                    expected.map_or("nothing", shown_kind),
                    match &answer {
                        Answer::Decide { reason, .. } if !reason.is_empty() =>
                            format!(": {reason}"),
                        _ => String::new(),
                    }
                ),
                "run `shellgate explain -- COMMAND` to see why",
            ),
            Err(problem) => {
                report.fail(
                    &format!(
                        "{agent}: `{}` (in `{}`) does not answer: {problem}",
                        hook.command,
                        hook.file.display()
                    ),
                    "run the hook command by hand with a payload on standard input (see README, Hooks)",
                );
                // The other samples would fail the same way.
                break;
            }
        }
    }
}

/// The verdict of an answer, `None` for no opinion.
fn kind(answer: &Answer) -> Option<Verdict> {
    match answer {
        Answer::Decide { verdict, .. } => Some(*verdict),
        Answer::PassThrough => None,
    }
}

fn shown_kind(kind: Option<Verdict>) -> &'static str {
    kind.map_or("no opinion (`{}`)", Verdict::as_str)
}

/// Checks the trust file without changing it; false when it exists but is unusable.
fn check_trust(report: &mut Report, agent: Agent, explicit: Option<&Path>) -> bool {
    let path = match shellgate_store::default_trust_path(explicit) {
        Ok(path) => path,
        Err(e) => {
            report.note(&format!(
                "{agent}: no trust file location ({e}); nothing is trusted"
            ));
            return true;
        }
    };
    let shown = path.display();
    match shellgate_store::TrustStore::inspect(&path, shellgate_store::home_dir()) {
        Ok(Ok(None)) => report.ok(&format!(
            "{agent}: trust file `{shown}` does not exist yet (nothing saved)"
        )),
        Ok(Ok(Some(grants))) => report.ok(&format!(
            "{agent}: trust file `{shown}` readable ({grants} saved grant{})",
            if grants == 1 { "" } else { "s" }
        )),
        Ok(Err(reason)) => {
            report.fail(
                &format!("{agent}: trust file `{shown}` is unusable: {reason}"),
                "fix it by hand, or let the next hook call move it aside (it then trusts nothing)",
            );
            return false;
        }
        Err(e) => report.fail(
            &format!("{agent}: trust file `{shown}`: {e}"),
            "check the file's permissions",
        ),
    }
    true
}

/// Checks that the audit log can be appended to (opening it for appending writes nothing; a
/// missing log is created empty, as the first hook call would).
fn check_audit_log(report: &mut Report, agent: Agent, explicit: Option<&Path>) {
    let Some(path) = hook_cmd::audit_log_path(explicit) else {
        report.fail(
            &format!("{agent}: the audit log has no location"),
            "set HOME or SHELLGATE_AUDIT_LOG",
        );
        return;
    };
    let opened = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| OpenOptions::new().append(true).create(true).open(&path));
    match opened {
        Ok(_) => report.ok(&format!("{agent}: audit log `{}` writable", path.display())),
        Err(e) => report.fail(
            &format!(
                "{agent}: audit log `{}` is not writable: {e}",
                path.display()
            ),
            "fix its permissions, or give the hook `--audit-log FILE`",
        ),
    }
}

/// Runs the hook command as the agent would (in the project directory, when it exists), on a
/// payload for `command` run in `sandbox`, and reads its answer.
fn sample(
    agent: Agent,
    hook: &[String],
    command: &str,
    project: &Path,
    sandbox: &Path,
) -> Result<Answer, String> {
    let payload = payload(agent, command, sandbox);
    let Some((program, args)) = hook.split_first() else {
        return Err("the hook has no command".to_owned());
    };
    // The samples never write the hook's own audit log (a repository's settings could point it
    // at `~/.bashrc`): `--audit-log FILE` is dropped and `--no-audit-log` given instead.
    let mut kept: Vec<&str> = Vec::with_capacity(args.len() + 1);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--audit-log" {
            words.next();
        } else if !word.starts_with("--audit-log=") && word != "--no-audit-log" {
            kept.push(word);
        }
    }
    kept.push("--no-audit-log");
    let mut child = Process::new(program)
        .args(&kept)
        .current_dir(if project.is_dir() { project } else { sandbox })
        .env("CLAUDE_PROJECT_DIR", sandbox)
        .env("GEMINI_PROJECT_DIR", sandbox)
        .env(hook_cmd::AUDIT_LOG_ENV, sandbox.join("audit.jsonl"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that exits without reading its input is judged by its answer below.
        let _ignored = stdin.write_all(payload.as_bytes());
    }
    let drain = |pipe: Option<Box<dyn io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ignored = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > SAMPLE_LIMIT => {
                let _ignored = child.kill();
                let _ignored = child.wait();
                return Err(format!("no answer within {} s", SAMPLE_LIMIT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let last_error = stderr.lines().last().unwrap_or_default().to_owned();
    if !status.success() {
        return Err(format!("it exited with {status}: {last_error}"));
    }
    read_answer(agent, &stdout).ok_or_else(|| {
        format!(
            "its answer is not the JSON {agent} reads: `{}` {last_error}",
            stdout.trim()
        )
    })
}

/// The agent's pre-tool payload for a shell call of `command` in `dir`.
fn payload(agent: Agent, command: &str, dir: &Path) -> String {
    let cwd = dir.display().to_string();
    let value = match agent {
        Agent::ClaudeCode | Agent::Codex => serde_json::json!({
            "session_id": "shellgate-doctor",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "shellgate-doctor",
        }),
        Agent::Gemini => serde_json::json!({
            "session_id": "shellgate-doctor",
            "cwd": cwd,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }),
    };
    value.to_string()
}
