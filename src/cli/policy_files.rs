//! Policy files given on the command line (`--policy`, `check`, `test`), read and layered on the
//! embedded default, and the project layer (`--project-policy`, else the project's
//! `.shellgate/policy.toml`).
//!
//! A file named `default.toml` is the default layer itself (it replaces the embedded default);
//! every other file is layered after it, in the order given. Project files come last, as
//! project layers: they may only tighten. A project file that does not load is refused and the
//! layers before it still apply (see [`Layered`]): a broken or loosening project file never
//! drops the deny floor, and the callers make nothing run without a person while it is broken.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme};
use shellgate_rules::{Layer, Policy, PolicyError, PolicySource};

use super::Exit;
use super::output::{err, errln};
use super::trust_args::PolicyArgs;

/// A policy file that could not be read.
#[derive(Debug)]
pub struct Unreadable {
    /// The file, as given.
    pub file: String,
    /// Why.
    pub error: std::io::Error,
}

impl Unreadable {
    /// `cannot read `FILE`: ERROR`.
    pub fn message(&self) -> String {
        format!("cannot read `{}`: {}", self.file, self.error)
    }
}

/// The fix printed under an [`Unreadable`] file.
pub const UNREADABLE_HELP: &str = "check the path and its permissions";

/// Why the policy did not load.
#[derive(Debug)]
pub enum LoadError {
    /// Files that could not be read (nothing was loaded).
    Unreadable(Vec<Unreadable>),
    /// The files were read but do not make a valid policy.
    Policy(PolicyError),
}

impl LoadError {
    /// Prints every diagnostic to standard error, with the offending source line.
    pub fn report(&self) {
        match self {
            Self::Unreadable(files) => {
                for file in files {
                    errln!("error: {}", file.message());
                    errln!("  help: {UNREADABLE_HELP}");
                }
            }
            Self::Policy(error) => {
                for single in error.errors() {
                    report(single);
                }
                let count = error.errors().len();
                errln!(
                    "{count} error{} found; the policy was not loaded",
                    if count == 1 { "" } else { "s" }
                );
            }
        }
    }

    /// The first problem (a misspelt key before the others) on one line, with its file, line and column when it has them, and
    /// how many more there are: `team.toml:5:12: unknown category `destrutive` (did you mean
    /// `destructive`?); 1 more error`.
    pub fn one_line(&self) -> String {
        let (mut line, more) = match self {
            Self::Unreadable(files) => (
                files.first().map(Unreadable::message).unwrap_or_default(),
                files.len().saturating_sub(1),
            ),
            Self::Policy(error) => {
                let errors = error.errors();
                // A misspelt key explains the "missing key" reported for its table: show it.
                let first = errors
                    .iter()
                    .find(|e| matches!(e, shellgate_rules::PolicyError::UnknownKey(_)))
                    .or_else(|| errors.first());
                let first = first.map_or_else(String::new, |first| {
                    let mut text = match first.location() {
                        Some(location) => format!("{location}: {first}"),
                        None => first.to_string(),
                    };
                    if let Some(help) = first.help_text() {
                        let _ = write!(text, " ({help})");
                    }
                    text
                });
                (first, errors.len().saturating_sub(1))
            }
        };
        if more > 0 {
            let _ = write!(
                line,
                "; {more} more error{}",
                if more == 1 { "" } else { "s" }
            );
        }
        line
    }
}

/// Whether a file is the default policy itself.
pub fn is_default(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "default.toml")
}

/// Reads the files into sources: `default.toml` files as the default layer (first), the
/// embedded default when none is given, then the others in order, as `layer`.
///
/// # Errors
///
/// Every file that could not be read.
pub fn sources(files: &[PathBuf], layer: Layer) -> Result<Vec<PolicySource>, Vec<Unreadable>> {
    let mut defaults = Vec::new();
    let mut others = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let name = file.display().to_string();
        match std::fs::read_to_string(file) {
            Ok(text) if is_default(file) => {
                defaults.push(PolicySource::new(name, text, Layer::Default));
            }
            Ok(text) => others.push(PolicySource::new(name, text, layer)),
            Err(error) => unreadable.push(Unreadable { file: name, error }),
        }
    }
    if !unreadable.is_empty() {
        return Err(unreadable);
    }
    if defaults.is_empty() {
        defaults.push(Policy::default_source());
    }
    defaults.extend(others);
    Ok(defaults)
}

/// Loads the embedded default policy (or a `default.toml` given) and the other files as user
/// layers.
///
/// # Errors
///
/// [`LoadError`] when a file cannot be read or the policy does not load.
pub fn load(files: &[PathBuf]) -> Result<Policy, LoadError> {
    if files.is_empty() {
        return Policy::embedded_default().map_err(LoadError::Policy);
    }
    let sources = sources(files, Layer::User).map_err(LoadError::Unreadable)?;
    shellgate_policy::load_policy(&sources).map_err(LoadError::Policy)
}

/// Where a project keeps its policy, relative to the project directory.
pub const PROJECT_POLICY: &str = ".shellgate/policy.toml";

/// The project layer's files: `explicit` (`--project-policy`) when given, else the project's
/// `.shellgate/policy.toml` when it exists — as a link too, even one that leads nowhere (which
/// is then refused, not taken for no layer).
pub fn project_files(explicit: &[PathBuf], project: Option<&Path>) -> Vec<PathBuf> {
    if !explicit.is_empty() {
        return explicit.to_vec();
    }
    project
        .map(|dir| dir.join(PROJECT_POLICY))
        .filter(|file| file.symlink_metadata().is_ok())
        .into_iter()
        .collect()
}

/// A policy loaded from the user files and the project files, and the project files' problem
/// when they were refused.
#[derive(Debug)]
pub struct Layered {
    /// The policy: every layer, or the default and user layers alone when the project layer
    /// was refused.
    pub policy: Policy,
    /// Each file applied, with its layer, in order (the embedded default first).
    pub applied: Vec<(Layer, String)>,
    /// Why the project layer was refused, when it was.
    pub refused: Option<LoadError>,
}

impl Layered {
    /// The layers applied, on one line: `default policies/default.toml, project ./x.toml`.
    pub fn describe(&self) -> String {
        self.applied
            .iter()
            .map(|(layer, file)| format!("{layer} {file}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reports a refused project layer on standard error (every diagnostic, then what applies
    /// instead).
    pub fn report_refused(&self) {
        if let Some(error) = &self.refused {
            error.report();
            errln!(
                "warning: the project policy was refused; only these layers apply: {}; and nothing runs without a person",
                self.describe()
            );
        }
    }
}

/// The layers of `sources`, in order.
fn applied(sources: &[PolicySource]) -> Vec<(Layer, String)> {
    sources.iter().map(|s| (s.layer, s.name.clone())).collect()
}

/// Loads the user files (as [`load`]) and then the project files as project layers. When the
/// project files are unreadable or do not make a valid policy with the rest, they are refused:
/// the policy is the default and user layers alone, and [`Layered::refused`] says why.
///
/// # Errors
///
/// [`LoadError`] when the default and user layers themselves do not load.
pub fn load_layered(user: &[PathBuf], project: &[PathBuf]) -> Result<Layered, LoadError> {
    let mut sources = if user.is_empty() {
        vec![Policy::default_source()]
    } else {
        sources(user, Layer::User).map_err(LoadError::Unreadable)?
    };
    let without_project = || -> Result<Policy, LoadError> { load(user) };
    if project.is_empty() {
        let policy = without_project()?;
        return Ok(Layered {
            applied: applied(&sources),
            policy,
            refused: None,
        });
    }
    let mut unreadable = Vec::new();
    for file in project {
        let name = file.display().to_string();
        match read_project_file(file) {
            Ok(text) => sources.push(PolicySource::new(name, text, Layer::Project)),
            Err(error) => unreadable.push(Unreadable { file: name, error }),
        }
    }
    let refused = if unreadable.is_empty() {
        match shellgate_policy::load_policy(&sources) {
            Ok(policy) => {
                return Ok(Layered {
                    applied: applied(&sources),
                    policy,
                    refused: None,
                });
            }
            Err(error) => LoadError::Policy(error),
        }
    } else {
        LoadError::Unreadable(unreadable)
    };
    let policy = without_project()?;
    sources.retain(|s| s.layer != Layer::Project);
    Ok(Layered {
        applied: applied(&sources),
        policy,
        refused: Some(refused),
    })
}

/// The most bytes a project layer may hold: a repository's file is read on every hook call,
/// within the hook's deadline.
pub const PROJECT_POLICY_LIMIT: u64 = 1024 * 1024;

/// Reads a project layer: a regular file (after symbolic links) of at most
/// [`PROJECT_POLICY_LIMIT`] bytes. A repository can commit anything at
/// `.shellgate/policy.toml` — a link to `/dev/zero`, a FIFO, a huge file — and none of them
/// may stall the hook past its deadline.
fn read_project_file(file: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let invalid = |message: String| std::io::Error::new(std::io::ErrorKind::InvalidData, message);
    let metadata = std::fs::metadata(file)?;
    if !metadata.is_file() {
        return Err(invalid("not a regular file".to_owned()));
    }
    if metadata.len() > PROJECT_POLICY_LIMIT {
        return Err(invalid(format!(
            "{} bytes, more than the {PROJECT_POLICY_LIMIT} a project policy may hold",
            metadata.len()
        )));
    }
    let mut text = String::new();
    std::fs::File::open(file)?
        .take(PROJECT_POLICY_LIMIT + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > PROJECT_POLICY_LIMIT {
        return Err(invalid(format!(
            "more than the {PROJECT_POLICY_LIMIT} bytes a project policy may hold"
        )));
    }
    Ok(text)
}

/// [`load_layered`], reporting a failure of the default and user layers on standard error and
/// a refused project layer as a warning.
///
/// # Errors
///
/// [`Exit::Error`] after the diagnostics were printed.
pub fn load_layered_or_report(user: &[PathBuf], project: &[PathBuf]) -> Result<Layered, Exit> {
    let layered = load_layered(user, project).map_err(|error| {
        error.report();
        Exit::Error
    })?;
    layered.report_refused();
    Ok(layered)
}

/// [`load_layered_or_report`] for the policy options of a command that runs in `project`: the
/// `--policy` files, then the `--project-policy` files, else the project's own
/// `.shellgate/policy.toml`.
///
/// # Errors
///
/// [`Exit::Error`] after the diagnostics were printed.
pub fn load_for_project(args: &PolicyArgs, project: &Path) -> Result<Layered, Exit> {
    load_layered_or_report(
        &args.files.policies,
        &project_files(&args.project_policies, Some(project)),
    )
}

/// [`load`], reporting a failure on standard error.
///
/// # Errors
///
/// [`Exit::Error`] after the diagnostics were printed.
pub fn load_or_report(files: &[PathBuf]) -> Result<Policy, Exit> {
    load(files).map_err(|error| {
        error.report();
        Exit::Error
    })
}

/// Prints one diagnostic to standard error, drawn with its source line when it has one.
pub fn report(error: &dyn miette::Diagnostic) {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    let mut out = String::new();
    if handler.render_report(&mut out, error).is_err() {
        out = format!("error: {error}\n");
    }
    err!("{out}");
}
