//! A deny rule's `match` and `not_match` examples, as written and where they were written.
//!
//! The language only records them: running one means walking the command through wrappers and
//! shell code exactly as the gate does, which is the gate's work (`shellgate-policy` checks
//! them when it loads a policy, through the walk it judges commands with).

use std::ops::Range;

use crate::error::{PolicyError, SourceFile};

/// One `match` or `not_match` example of a deny rule.
#[derive(Clone, Debug)]
pub struct RuleExample {
    pub(crate) rule: String,
    pub(crate) command: String,
    pub(crate) must_match: bool,
    pub(crate) file: SourceFile,
    pub(crate) span: Range<usize>,
}

impl RuleExample {
    /// The id of the deny rule it belongs to.
    #[must_use]
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// The example command.
    #[must_use]
    pub fn command(&self) -> &str {
        &self.command
    }

    /// True for a `match` example (the rule must hit it), false for `not_match`.
    #[must_use]
    pub const fn must_match(&self) -> bool {
        self.must_match
    }

    /// The error that this example failed: `message` with `label` and `help` at the example
    /// in its file (file, line and column).
    #[must_use]
    pub fn failed(&self, message: String, label: &str, help: String) -> PolicyError {
        self.file.error(
            PolicyError::ExampleFailed,
            self.span.clone(),
            message,
            label,
            Some(help),
        )
    }
}
