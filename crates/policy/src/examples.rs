//! Load-time checking of every deny rule's `match` and `not_match` examples.

use std::path::PathBuf;

use shellgate_parser::ParseOptions;

use crate::compile::PendingExample;
use crate::error::PolicyError;
use crate::expand::ExpandOptions;
use crate::policy::Policy;

/// The working directory examples run in.
pub const EXAMPLE_CWD: &str = "/home/u/proj";

/// The home directory examples run with.
pub const EXAMPLE_HOME: &str = "/home/u";

impl Policy {
    /// Whether the deny rule `id` hits `command` (parsed, expanded and matched exactly as the
    /// gate does, in [`EXAMPLE_CWD`] with home [`EXAMPLE_HOME`]), and what shellgate saw.
    #[must_use]
    pub fn example_hits(&self, id: &str, command: &str) -> (bool, Vec<String>) {
        let options = ParseOptions {
            cwd: Some(PathBuf::from(EXAMPLE_CWD)),
            home: Some(PathBuf::from(EXAMPLE_HOME)),
        };
        let parsed = shellgate_parser::parse(command, &options);
        let expansion = self.expand(
            &parsed,
            &ExpandOptions {
                cwd: Some(PathBuf::from(EXAMPLE_CWD)),
                home: Some(PathBuf::from(EXAMPLE_HOME)),
                max_depth: None,
            },
        );
        let hit = self
            .deny_expansion(command, &expansion)
            .iter()
            .any(|h| h.rule.id == id);
        let seen = expansion
            .invocations
            .iter()
            .map(|i| i.text.clone())
            .collect();
        (hit, seen)
    }

    /// Checks every pending example; all failures are returned together.
    pub(crate) fn check_examples(&self, examples: &[PendingExample]) -> Result<(), PolicyError> {
        let mut errors = Vec::new();
        for example in examples {
            // A rule a user layer disabled has no examples to keep.
            if self.deny_rule(&example.rule).is_none() {
                continue;
            }
            let (hit, seen) = self.example_hits(&example.rule, &example.command);
            if hit == example.must_match {
                continue;
            }
            let seen = if seen.is_empty() {
                "shellgate sees no command in it".to_owned()
            } else {
                format!(
                    "shellgate sees {}",
                    seen.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let (message, label, help) = if example.must_match {
                (
                    format!(
                        "deny rule `{}` does not match its example `{}`",
                        example.rule, example.command
                    ),
                    "not matched",
                    format!("{seen}; fix the rule's matchers or move the example to `not_match`"),
                )
            } else {
                (
                    format!(
                        "deny rule `{}` matches its `not_match` example `{}`",
                        example.rule, example.command
                    ),
                    "matched",
                    format!("{seen}; narrow the rule's matchers or move the example to `match`"),
                )
            };
            errors.push(example.file.error(
                PolicyError::ExampleFailed,
                example.span.clone(),
                message,
                label,
                Some(help),
            ));
        }
        PolicyError::combine(errors).map_or(Ok(()), Err)
    }
}
