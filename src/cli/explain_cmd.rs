//! `shellgate explain [options] -- COMMAND`: the clause graph, each clause's verdict, and the
//! rule, zone or pattern that decided it.

use std::fmt::Write as _;

use shellgate_parser::ParseOptions;
use shellgate_policy::display;

use super::eval_cmd::{self, GateArgs};
use super::parse_cmd;
use super::{Exit, output};

/// Explain the gate's decision on a command: the clause graph, each clause's verdict, and the
/// rule, zone or pattern that decided it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON object: the command, where it runs, the clause graph (as `parse --json`)
    /// and the evaluation (as `eval --json`).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gate: GateArgs,
}

/// Runs `shellgate explain`.
pub fn run(args: &Args) -> Exit {
    let prepared = match eval_cmd::prepare(&args.gate) {
        Ok(prepared) => prepared,
        Err(exit) => return exit,
    };
    let state = &prepared.state;
    let text = prepared.text();
    let parsed = shellgate_parser::parse(
        &text,
        &ParseOptions {
            cwd: Some(state.cwd().to_path_buf()),
            home: state.home().map(std::path::Path::to_path_buf),
        },
    );
    let evaluation = prepared.evaluate();
    if args.json {
        let path = |p: Option<&std::path::Path>| p.map(|p| p.display().to_string());
        let value = serde_json::json!({
            "command": text,
            "where": {
                "audience": state.audience(),
                "cwd": state.cwd().display().to_string(),
                "project": path(state.project()),
                "session": path(state.session()),
                "home": path(state.home()),
            },
            "parse": parse_cmd::to_json(&parsed),
            "evaluation": evaluation,
        });
        output::outln!("{value}");
        return eval_cmd::exit_for(evaluation.decision);
    }
    let mut out = String::new();
    let _ = writeln!(out, "command: {}", display::escape_bytes(&prepared.command));
    let _ = writeln!(
        out,
        "where: audience `{}`, cwd `{}`, project `{}`, session `{}`, home `{}`",
        state.audience(),
        state.cwd().display(),
        state
            .project()
            .map_or_else(|| "none".to_owned(), |p| p.display().to_string()),
        state
            .session()
            .map_or_else(|| "none".to_owned(), |p| p.display().to_string()),
        state
            .home()
            .map_or_else(|| "unknown".to_owned(), |p| p.display().to_string()),
    );
    let _ = writeln!(out, "policy: {}", prepared.layers);
    match parsed.reason() {
        None => {
            let _ = writeln!(out, "parse: complete, {} clause(s)", parsed.graph.len());
        }
        Some(reason) => {
            let _ = writeln!(out, "parse: incomplete: {reason}");
        }
    }
    for (index, clause) in parsed.graph.clauses().enumerate() {
        let words: Vec<String> = clause
            .argv
            .iter()
            .map(|w| display::escape(&w.raw))
            .collect();
        let _ = writeln!(
            out,
            "  clause {index} [{}{}] {}  (verb: {}; cwd: {})",
            clause.context.as_str(),
            clause
                .operator
                .map(|o| format!(", after `{}`", o.as_str()))
                .unwrap_or_default(),
            words.join(" "),
            clause.verb.join(" "),
            clause.cwd.as_ref().map_or_else(
                || "unknown".to_owned(),
                |c| display::escape(&c.to_string_lossy())
            ),
        );
        for verdict in evaluation
            .clauses
            .iter()
            .filter(|v| v.clause == Some(index))
        {
            let _ = writeln!(
                out,
                "    runs {}  [{}] -> {}",
                verdict.text, verdict.origin, verdict.decision
            );
            for reason in &verdict.reasons {
                match &reason.rule {
                    Some(rule) => {
                        let _ = writeln!(out, "      {} `{rule}`: {}", reason.kind, reason.message);
                    }
                    None => {
                        let _ = writeln!(out, "      {}: {}", reason.kind, reason.message);
                    }
                }
            }
        }
    }
    for verdict in evaluation.clauses.iter().filter(|v| v.clause.is_none()) {
        let _ = writeln!(out, "  {} -> {}", verdict.origin, verdict.decision);
        for reason in &verdict.reasons {
            let _ = writeln!(out, "      {}: {}", reason.kind, reason.message);
        }
    }
    for hit in &evaluation.hard_deny {
        let _ = writeln!(
            out,
            "hard deny `{}` ({}): {}",
            hit.rule, hit.category, hit.reason
        );
    }
    let _ = writeln!(
        out,
        "decision: {}",
        output::painted(evaluation.decision.as_str())
    );
    if let Some(prompt) = &evaluation.prompt {
        let _ = writeln!(out, "prompt: {}", prompt.display);
        for clause in &prompt.clauses {
            match &clause.pattern {
                Some(pattern) => {
                    let _ = writeln!(out, "  run {} (pattern `{pattern}`)", clause.text);
                }
                None => {
                    let _ = writeln!(out, "  run {} (cannot be saved)", clause.text);
                }
            }
        }
        for path in &prompt.paths {
            let _ = writeln!(out, "  {} {}", path.access, path.path);
        }
        for host in &prompt.hosts {
            let _ = writeln!(out, "  host {host}");
        }
        let choices = if prompt.persistable {
            "once, session, always, deny"
        } else {
            "once, deny"
        };
        let _ = writeln!(out, "  choices: {choices}");
    }
    output::out!("{out}");
    eval_cmd::exit_for(evaluation.decision)
}
