//! Load-time checking of every deny rule's `match` and `not_match` examples, through the walk
//! the gate judges commands with ([`crate::expand::walk`] and [`crate::expand::deny_hits`]).

use std::path::PathBuf;

use shellgate_rules::{Policy, PolicyError};

use crate::GateEvaluator;
use crate::display::code_list;
use crate::error::GateError;
use crate::expand::{deny_hits, walk};
use crate::trust::TrustState;

/// The working directory examples run in.
pub const EXAMPLE_CWD: &str = "/home/u/proj";

/// The home directory examples run with.
pub const EXAMPLE_HOME: &str = "/home/u";

/// The trust state examples and `[[test]]` cases run in by default: `audience` working in its
/// project [`EXAMPLE_CWD`] with home [`EXAMPLE_HOME`], symbolic links not resolved, the
/// audience's profile (zones) applied.
///
/// # Errors
/// [`GateError::UnknownAudience`] when the policy has no such audience.
pub fn example_state(gate: &GateEvaluator, audience: &str) -> Result<TrustState, GateError> {
    let mut state = TrustState::new(audience, EXAMPLE_CWD);
    state.set_home(EXAMPLE_HOME);
    state.set_project(EXAMPLE_CWD);
    state.set_resolve_symlinks(false);
    gate.apply_profile(&mut state)?;
    Ok(state)
}

/// Whether the deny rule `id` of `policy` hits `command` (parsed, expanded and matched exactly
/// as the gate does, in [`EXAMPLE_CWD`] with home [`EXAMPLE_HOME`]), and what shellgate saw.
#[must_use]
pub fn example_hits(policy: &Policy, id: &str, command: &str) -> (bool, Vec<String>) {
    let (_, expansion) = walk(
        policy,
        command,
        Some(PathBuf::from(EXAMPLE_CWD)),
        Some(PathBuf::from(EXAMPLE_HOME)),
    );
    let hit = deny_hits(policy, command, &expansion)
        .iter()
        .any(|h| h.rule.id == id && h.asks == h.rule.is_ask());
    let seen = expansion.invocations.into_iter().map(|i| i.text).collect();
    (hit, seen)
}

/// Runs every example `policy` recorded ([`Policy::examples`]); all failures are returned
/// together, each at its example's file, line and column.
///
/// # Errors
/// [`PolicyError::ExampleFailed`] (or [`PolicyError::Several`] of them).
pub fn check_examples(policy: &Policy) -> Result<(), PolicyError> {
    let mut errors = Vec::new();
    for example in policy.examples() {
        // A rule a user layer disabled has no examples to keep.
        if policy.deny_rule(example.rule()).is_none() {
            continue;
        }
        let (hit, seen) = example_hits(policy, example.rule(), example.command());
        if hit == example.must_match() {
            continue;
        }
        let seen = if seen.is_empty() {
            "shellgate sees no command in it".to_owned()
        } else {
            format!("shellgate sees {}", code_list(&seen, ", "))
        };
        errors.push(if example.must_match() {
            example.failed(
                format!(
                    "deny rule `{}` does not match its example `{}`",
                    example.rule(),
                    example.command()
                ),
                "not matched",
                format!("{seen}; fix the rule's matchers or move the example to `not_match`"),
            )
        } else {
            example.failed(
                format!(
                    "deny rule `{}` matches its `not_match` example `{}`",
                    example.rule(),
                    example.command()
                ),
                "matched",
                format!("{seen}; narrow the rule's matchers or move the example to `match`"),
            )
        });
    }
    PolicyError::combine(errors).map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use shellgate_rules::{Examples, Layer, PolicySource};

    use super::*;

    /// The embedded default as loaded (binary form, lazy matchers, guards) passes every
    /// example of the default policy through the gate's walk.
    #[test]
    fn the_embedded_default_passes_every_example() {
        let policy = Policy::compile_with(&[Policy::default_source()], Examples::All).unwrap();
        assert_ne!(policy.examples().len(), 0);
        check_examples(&policy).unwrap();
    }

    #[test]
    fn a_failing_example_names_its_place_and_what_shellgate_saw() {
        let text = "version = 1\n[[deny]]\nid = \"no-x\"\ncategory = \"destructive\"\nreason = \"x is bad; ask a person\"\nverb = [\"x\"]\nmatch = [\"sudo y\"]\n";
        let policy = Policy::compile(&[PolicySource::new("p.toml", text, Layer::User)]).unwrap();
        let error = check_examples(&policy).unwrap_err();
        assert_eq!(
            error.to_string(),
            "deny rule `no-x` does not match its example `sudo y`"
        );
        let located = error.located().unwrap();
        assert!(matches!(error, PolicyError::ExampleFailed(_)));
        assert_eq!(located.label(), "not matched");
        assert_eq!(
            located.help(),
            Some(
                "shellgate sees `sudo y`; fix the rule's matchers or move the example to `not_match`"
            )
        );
        assert_eq!(
            (located.location().line, located.location().column),
            (7, 10)
        );
    }

    #[test]
    fn a_disabled_rule_keeps_no_examples() {
        let base = "version = 1\n[[deny]]\nid = \"no-x\"\ncategory = \"destructive\"\nreason = \"x is bad; ask a person\"\nverb = [\"x\"]\nmatch = [\"x\"]\n";
        let user = "version = 1\ndisable = [\"no-x\"]\ndisable_reason = \"we need x\"\n";
        let policy = Policy::compile(&[
            PolicySource::new("base.toml", base, Layer::Default),
            PolicySource::new("user.toml", user, Layer::User),
        ])
        .unwrap();
        assert_eq!(policy.examples().len(), 1);
        assert!(check_examples(&policy).is_ok());
    }
}
