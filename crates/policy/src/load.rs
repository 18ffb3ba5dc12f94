//! Loading a policy for the gate: the language compiles it (`shellgate-rules`), then every deny
//! rule's `match`/`not_match` example runs through the gate's own walk ([`crate::examples`]).
//! All or nothing: no policy whose examples fail is returned.

use shellgate_rules::{Examples, Policy, PolicyError, PolicySource};

use crate::examples::check_examples;

/// Loads layers in order (the default layer first, then user files, then project files):
/// validates every file whole, compiles the result and checks the deny rules' `match` and
/// `not_match` examples against it — all of them except those of a source whose text is
/// exactly the embedded default (checked by the test suite; see [`Examples`]).
///
/// # Errors
/// Every problem found, as one [`PolicyError`] (or [`PolicyError::Several`]); no partial
/// policy is ever returned.
pub fn load_policy(sources: &[PolicySource]) -> Result<Policy, PolicyError> {
    load_policy_with(sources, Examples::SkipEmbeddedDefault)
}

/// [`load_policy`] with a choice of which files' checks and examples run
/// ([`Examples::All`] is what `shellgate check` does).
///
/// # Errors
/// As [`load_policy`].
pub fn load_policy_with(
    sources: &[PolicySource],
    examples: Examples,
) -> Result<Policy, PolicyError> {
    let policy = Policy::compile_with(sources, examples)?;
    check_examples(&policy)?;
    Ok(policy)
}
