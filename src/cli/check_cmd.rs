//! `shellgate check FILE… [--layer L] [--json]`: validate policy files layered on the embedded
//! default.

use std::path::PathBuf;

use miette::{GraphicalReportHandler, GraphicalTheme};
use shellgate_rules::{Examples, Layer, Policy, PolicyError};

use super::Exit;
use super::output::{self, errln, outln};
use super::policy_files;

/// Validate policy files layered on the embedded default policy.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Policy files, applied in the order given after the embedded default. A file named
    /// `default.toml` is checked as the default policy itself (it replaces the embedded one).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The layer of the other files: `user` or `project`.
    #[arg(long, value_name = "LAYER", default_value = "user")]
    layer: String,
    /// Print one JSON object instead of diagnostics.
    #[arg(long)]
    json: bool,
}

/// One problem, for `--json`.
#[derive(serde::Serialize)]
struct JsonError {
    file: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
    code: &'static str,
    message: String,
    help: Option<String>,
}

/// What a clean policy holds, for `--json` and the summary line.
#[derive(serde::Serialize)]
struct Summary {
    deny: usize,
    ask: usize,
    examples: usize,
    safe: usize,
    wrappers: usize,
    shells: usize,
    interpreters: usize,
    verbs: usize,
    audiences: usize,
    protected: usize,
    tests: usize,
    disabled: usize,
}

/// The `--json` output.
#[derive(serde::Serialize)]
struct Report {
    ok: bool,
    files: Vec<String>,
    errors: Vec<JsonError>,
    summary: Option<Summary>,
    /// The layers applied, in order (left out when the policy did not load).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    layers: Vec<JsonLayer>,
}

/// One layer applied, for `--json`.
#[derive(serde::Serialize)]
struct JsonLayer {
    layer: Layer,
    file: String,
}

/// Runs `shellgate check`.
pub fn run(args: &Args) -> Exit {
    let files: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
    let mut layers = Vec::new();
    let (errors, summary) = match check(args) {
        Ok((policy, applied)) => {
            layers = applied;
            (Vec::new(), Some(summarize(&policy)))
        }
        Err(Failure::Policy(e)) => {
            if !args.json {
                render(&e);
            }
            (e.errors().into_iter().map(json_error).collect(), None)
        }
        Err(Failure::Other(errors)) => {
            if !args.json {
                for error in &errors {
                    errln!("error: {}", error.message);
                    if let Some(help) = &error.help {
                        errln!("  help: {help}");
                    }
                }
            }
            (errors, None)
        }
    };
    let ok = errors.is_empty();
    if args.json {
        let report = Report {
            ok,
            files,
            errors,
            summary,
            layers,
        };
        if let Err(exit) = output::json_line(&report, "report") {
            return exit;
        }
    } else if let Some(s) = &summary {
        outln!(
            "ok: {} checked: {} deny rules ({} examples), {} safe entries, {} wrappers, {} shells, {} interpreters, {} verb roles, {} audiences, {} protected paths, {} tests",
            files.join(", "),
            s.deny,
            s.examples,
            s.safe,
            s.wrappers,
            s.shells,
            s.interpreters,
            s.verbs,
            s.audiences,
            s.protected,
            s.tests
        );
        if s.ask > 0 {
            outln!("{} ask rules", s.ask);
        }
        let applied: Vec<String> = layers
            .iter()
            .map(|l| format!("{} {}", l.layer, l.file))
            .collect();
        outln!("layers: {}", applied.join(", "));
    }
    if ok { Exit::Ok } else { Exit::Error }
}

/// Why a check failed.
enum Failure {
    /// The policy does not load.
    Policy(PolicyError),
    /// A usage problem or an unreadable file.
    Other(Vec<JsonError>),
}

/// Reads, layers and loads the files, checking every example; the policy and its layers.
fn check(args: &Args) -> Result<(Policy, Vec<JsonLayer>), Failure> {
    let layer = match args.layer.parse::<Layer>() {
        Ok(Layer::Default) => {
            return Err(Failure::Other(vec![usage(
                "`--layer default` is not needed: a file named `default.toml` is checked as the default policy",
            )]));
        }
        Ok(layer) => layer,
        Err(e) => return Err(Failure::Other(vec![json_error(&e)])),
    };
    let sources = policy_files::sources(&args.files, layer).map_err(|unreadable| {
        Failure::Other(
            unreadable
                .iter()
                .map(|file| JsonError {
                    file: Some(file.file.clone()),
                    line: None,
                    column: None,
                    code: "shellgate::policy::io",
                    message: file.message(),
                    help: Some(policy_files::UNREADABLE_HELP.to_owned()),
                })
                .collect(),
        )
    })?;
    let layers = sources
        .iter()
        .map(|s| JsonLayer {
            layer: s.layer,
            file: s.name.clone(),
        })
        .collect();
    let policy =
        shellgate_policy::load_policy_with(&sources, Examples::All).map_err(Failure::Policy)?;
    Ok((policy, layers))
}

fn usage(message: &str) -> JsonError {
    JsonError {
        file: None,
        line: None,
        column: None,
        code: "shellgate::usage",
        message: message.to_owned(),
        help: None,
    }
}

fn json_error(error: &PolicyError) -> JsonError {
    let location = error.location();
    JsonError {
        file: location.map(|l| l.file.clone()),
        line: location.map(|l| l.line),
        column: location.map(|l| l.column),
        code: error.code_str(),
        message: error.to_string(),
        help: error.help_text().map(str::to_owned),
    }
}

/// Prints every diagnostic to standard error, with the offending source line.
fn render(error: &PolicyError) {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    for single in error.errors() {
        let mut out = String::new();
        if handler.render_report(&mut out, single).is_err() {
            out = format!("error: {single}\n");
        }
        errln!("{out}");
    }
    let count = error.errors().len();
    errln!(
        "{count} error{} found; the policy was not loaded",
        if count == 1 { "" } else { "s" }
    );
}

fn summarize(policy: &Policy) -> Summary {
    Summary {
        deny: policy.deny_rules().iter().filter(|r| !r.is_ask()).count(),
        ask: policy.deny_rules().iter().filter(|r| r.is_ask()).count(),
        examples: policy
            .deny_rules()
            .iter()
            .map(|r| r.examples.len() + r.counter_examples.len())
            .sum(),
        safe: policy.safe_entries().len(),
        wrappers: policy.wrappers().len(),
        shells: policy.shells().len(),
        interpreters: policy.interpreters().len(),
        verbs: policy.verb_roles().len(),
        audiences: policy.audiences().len(),
        protected: policy.protected_entries().len(),
        tests: policy.tests().len(),
        disabled: policy.disabled().len(),
    }
}
