//! Load-time checks of the matchers a file writes: every glob, glob list and regex compiles.
//!
//! Validation records a [`Check`] for each of them and builds the matcher to compile on first
//! use (`lazy.rs`); the checks of a file run when it loads, with the author's text and a span
//! in every error. The embedded default's checks (and examples) ran when it was built: the
//! test suite runs them on the same text (`Examples::All`, as `shellgate check` does).

use std::ops::Range;

use regex::{Regex, RegexSet};

use crate::error::{PolicyError, SourceFile};
use crate::glob;
use crate::lazy::glob_set;

/// One matcher to compile, with where it is written.
pub(crate) enum Check {
    /// One glob of `key`.
    Glob {
        span: Range<usize>,
        key: &'static str,
        glob: String,
    },
    /// The globs of `key` compiled together (one set per list).
    GlobList {
        span: Range<usize>,
        key: &'static str,
        globs: Vec<String>,
    },
    /// The regexes of `key` compiled together (one set).
    Regexes {
        key: &'static str,
        regexes: Vec<(Range<usize>, String)>,
    },
}

impl Check {
    /// Compiles the matcher; any error is pushed with the author's text.
    pub(crate) fn run(&self, file: &SourceFile, errors: &mut Vec<PolicyError>) {
        match self {
            Self::Glob { span, key, glob } => {
                if let Err(e) = glob::path_glob(glob) {
                    errors.push(file.error(
                        PolicyError::BadGlob,
                        span.clone(),
                        format!("invalid glob `{glob}` in `{key}`: {}", e.kind()),
                        "invalid glob",
                        Some(
                            "globs use `*` (within one path segment), `**` (any depth), `?` and \
                             `[…]`; write `[*]` for a literal `*`"
                                .to_owned(),
                        ),
                    ));
                }
            }
            Self::GlobList { span, key, globs } => {
                // Each bad glob is reported by its own check; this is about their number.
                let each_compiles = globs.iter().all(|g| glob::path_glob(g).is_ok());
                if let (true, Err(e)) = (each_compiles, glob_set(globs, false)) {
                    errors.push(file.error(
                        PolicyError::BadGlob,
                        span.clone(),
                        format!("the globs in `{key}` cannot be compiled together"),
                        "these globs",
                        Some(format!("{e}; split them over several entries")),
                    ));
                }
            }
            Self::Regexes { key, regexes } => {
                let Err(set_error) = RegexSet::new(regexes.iter().map(|(_, r)| r)) else {
                    return;
                };
                // Each bad regex with the author's text; if none is bad alone, the set is too
                // large, shown at its first regex.
                let bad: Vec<_> = regexes
                    .iter()
                    .filter_map(|(span, regex)| {
                        let error = Regex::new(regex).err()?;
                        let message = format!("invalid regex `{regex}` in `{key}`");
                        Some((span, message, "invalid regex", error.to_string()))
                    })
                    .collect();
                let too_large = regexes.first().filter(|_| bad.is_empty()).map(|(span, _)| {
                    let message = format!("the regexes in `{key}` are too large together");
                    (span, message, "first regex", set_error.to_string())
                });
                for (span, message, label, help) in bad.into_iter().chain(too_large) {
                    let error = file.error(
                        PolicyError::BadRegex,
                        span.clone(),
                        message,
                        label,
                        Some(help),
                    );
                    errors.push(error);
                }
            }
        }
    }
}
