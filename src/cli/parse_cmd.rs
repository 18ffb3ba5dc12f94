//! `shellgate parse [--json] [--cwd DIR] [--home DIR] -- COMMAND`: show the clause graph.

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;

use serde_json::{Value, json};
use shellgate_parser::{
    Clause, Diagnostic, DiagnosticKind, ParseOptions, ParseOutput, RedirectTarget, parse,
};

use super::Exit;
use super::output::{errln, out, outln};

/// Arguments of `shellgate parse`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the clause graph as JSON (a stable contract; see README.md).
    #[arg(long)]
    pub json: bool,
    /// The directory the command starts in [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The home directory for `cd`, `cd ~` and `~/…` [default: $HOME].
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The command to parse (`-` reads it from standard input). Several arguments are joined
    /// with single spaces.
    #[arg(required = true, num_args = 1.., value_name = "COMMAND", allow_hyphen_values = true)]
    pub command: Vec<OsString>,
}

/// Runs `shellgate parse`: 0 when the parse is complete, 2 when incomplete, 1 on errors.
pub fn run(args: &Args) -> Exit {
    let bytes = if args.command.len() == 1 && args.command.first().is_some_and(|c| c == "-") {
        let mut bytes = Vec::new();
        if let Err(error) = std::io::stdin().read_to_end(&mut bytes) {
            errln!("error: cannot read the command from standard input: {error}");
            return Exit::Error;
        }
        bytes
    } else {
        args.command
            .iter()
            .map(|word| word.as_bytes())
            .collect::<Vec<_>>()
            .join(&b' ')
    };
    // Bytes that are not UTF-8 are parsed as their lossy text, and the parse is incomplete.
    let not_utf8 = std::str::from_utf8(&bytes).err().map(|error| {
        let offset = error.valid_up_to();
        let byte = bytes.get(offset).copied().unwrap_or_default();
        Diagnostic {
            kind: DiagnosticKind::Unsupported,
            message: format!("the command is not valid UTF-8 (byte 0x{byte:02x})"),
            offset,
        }
    });
    let command = String::from_utf8_lossy(&bytes);
    let options = ParseOptions {
        cwd: args.cwd.clone().or_else(|| std::env::current_dir().ok()),
        home: args
            .home
            .clone()
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from)),
    };
    let mut output = parse(&command, &options);
    if let Some(diagnostic) = not_utf8 {
        output.complete = false;
        output.diagnostics.insert(0, diagnostic);
    }
    if args.json {
        outln!("{}", to_json(&output));
    } else {
        out!("{}", readable(&output));
    }
    if output.complete {
        Exit::Ok
    } else {
        Exit::NeedsPrompt
    }
}

/// The `--json` object (exact keys are a contract). Keys are written in alphabetical order,
/// as they always were printed (`serde_json` keeps insertion order).
pub fn to_json(output: &ParseOutput) -> Value {
    let clauses: Vec<Value> = output.graph.clauses().map(clause_json).collect();
    json!({
        "clauses": clauses,
        "complete": output.complete,
        "reason": output.reason(),
    })
}

fn clause_json(clause: &Clause) -> Value {
    let redirects: Vec<Value> = clause
        .redirects
        .iter()
        .map(|r| json!({"op": r.op.as_str(), "target": target_text(&r.target)}))
        .collect();
    json!({
        "argv": clause.cooked_argv().collect::<Vec<_>>(),
        "context": clause.context.as_str(),
        "cwd": clause.cwd.as_ref().map(|p| p.display().to_string()),
        "literal_verb": clause.literal_verb,
        "operator": clause.operator.map(|o| o.as_str()),
        "redirects": redirects,
        "span": clause.span.pair(),
        "verb": clause.verb,
    })
}

/// A redirection target as text: the cooked word, or the heredoc's delimiter.
fn target_text(target: &RedirectTarget) -> &str {
    match target {
        RedirectTarget::Word(word) => &word.cooked,
        RedirectTarget::Heredoc(heredoc) => &heredoc.delimiter,
    }
}

/// One line per clause, indented by depth.
fn readable(output: &ParseOutput) -> String {
    let mut out = String::new();
    if output.complete {
        out.push_str("complete\n");
    } else {
        let (reason, offset) = output
            .diagnostics
            .first()
            .map_or(("unknown", 0), |d| (d.message.as_str(), d.offset));
        out.push_str(&format!("incomplete: {reason} (at byte {offset})\n"));
    }
    for (index, clause) in output.graph.clauses().enumerate() {
        let raw: Vec<&str> = clause.argv.iter().map(|w| w.raw.as_str()).collect();
        out.push_str(&"  ".repeat(clause.depth.saturating_add(1)));
        out.push_str(&format!("[{index}] {}", clause.context.as_str()));
        if let Some(op) = clause.operator {
            out.push_str(&format!(" {}", op.as_str()));
        }
        out.push_str(&format!(" `{}`", raw.join(" ")));
        if !clause.verb.is_empty() {
            out.push_str(&format!(" verb={}", clause.verb.join(" ")));
        }
        for redirect in &clause.redirects {
            out.push_str(&format!(
                " {}{}",
                redirect.op.as_str(),
                target_text(&redirect.target)
            ));
        }
        match &clause.cwd {
            Some(cwd) => out.push_str(&format!(" cwd={}", cwd.display())),
            None => out.push_str(" cwd=?"),
        }
        if let Some(parent) = clause.parent {
            out.push_str(&format!(" in=[{parent}]"));
        }
        out.push('\n');
    }
    out
}
