//! Policy files given on the command line (`--policy`, `check`, `test`), read and layered on the
//! embedded default.
//!
//! A file named `default.toml` is the default layer itself (it replaces the embedded default);
//! every other file is layered after it, in the order given.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme};
use shellgate_rules::{Layer, Policy, PolicyError, PolicySource};

use super::Exit;
use super::output::{err, errln};

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
