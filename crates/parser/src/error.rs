//! The crate's error type and the diagnostics it becomes.
//!
//! `parse()` never returns an error: every failure is a [`Diagnostic`] in an incomplete
//! [`crate::ParseOutput`]. Internally the tree builder uses [`ParseError`] with `?`.

/// What kind of problem made a parse incomplete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum DiagnosticKind {
    /// The input is not valid bash as this grammar understands it.
    Syntax,
    /// The input ends inside a quote, substitution, compound command or heredoc.
    Unterminated,
    /// A resource limit was hit: input size, nesting depth, clause count or parser work.
    Limit,
    /// The input contains something the parser refuses on purpose (a NUL byte).
    Unsupported,
    /// A bug in the parser: a grammar rule the tree builder did not expect.
    Internal,
}

impl DiagnosticKind {
    /// The lowercase name of the kind.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Unterminated => "unterminated",
            Self::Limit => "limit",
            Self::Unsupported => "unsupported",
            Self::Internal => "internal",
        }
    }
}

/// Why a parse is incomplete, and where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The kind of problem.
    pub kind: DiagnosticKind,
    /// A lowercase message without a final period; user input is quoted in backticks.
    pub message: String,
    /// The byte offset in the input where the problem was found.
    pub offset: usize,
}

/// Errors raised while building the typed tree.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParseError {
    /// A syntax error (possibly in a nested backtick or heredoc body).
    #[error("{message}")]
    Syntax {
        kind: DiagnosticKind,
        message: String,
        offset: usize,
    },
    /// Nesting deeper than the limit.
    #[error("nesting is deeper than {limit} levels")]
    Depth { limit: usize, offset: usize },
    /// The grammar produced a pair the builder does not handle.
    #[error("internal parser error: unexpected `{rule}` in `{parent}`")]
    Internal {
        rule: String,
        parent: &'static str,
        offset: usize,
    },
}

impl ParseError {
    /// The grammar gave `parent` none of a part it always has (its first pipeline, its body).
    pub(crate) fn nothing(parent: &'static str, offset: usize) -> Self {
        Self::Internal {
            rule: "nothing".to_owned(),
            parent,
            offset,
        }
    }

    /// The diagnostic this error becomes.
    pub(crate) fn into_diagnostic(self) -> Diagnostic {
        let message = self.to_string();
        match self {
            Self::Syntax { kind, offset, .. } => Diagnostic {
                kind,
                message,
                offset,
            },
            Self::Depth { offset, .. } => Diagnostic {
                kind: DiagnosticKind::Limit,
                message,
                offset,
            },
            Self::Internal { offset, .. } => Diagnostic {
                kind: DiagnosticKind::Internal,
                message,
                offset,
            },
        }
    }
}
