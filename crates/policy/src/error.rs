//! The crate's error type.

use crate::display::code_list;

/// Errors of the policy crate outside evaluation (evaluation itself never fails).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum GateError {
    /// The trust state names an audience the policy does not define.
    #[error("unknown audience `{name}`")]
    #[diagnostic(code(shellgate::gate::unknown_audience), help("{help}"))]
    UnknownAudience {
        /// The audience as given.
        name: String,
        /// What to do instead.
        help: String,
    },
}

impl GateError {
    /// An unknown-audience error with a "did you mean" among `known`.
    #[must_use]
    pub fn unknown_audience(name: &str, known: &[&str]) -> Self {
        let help = match did_you_mean(name, known) {
            Some(best) => format!("did you mean `{best}`?"),
            None if known.is_empty() => "the policy defines no audience".to_owned(),
            None => format!("the policy defines {}", code_list(known, ", ")),
        };
        Self::UnknownAudience {
            name: name.to_owned(),
            help,
        }
    }
}

/// The closest of `candidates` to `name` within an edit distance of 2 (or a third of its
/// length), if any.
fn did_you_mean<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    candidates
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(usize::from(ca != *cb));
            let delete = previous
                .get(j + 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let insert = current
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            current.push(substitute.min(delete).min(insert));
        }
        previous = current;
    }
    previous.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::Diagnostic as _;

    #[test]
    fn unknown_audience_suggests_the_closest() {
        let err = GateError::unknown_audience("personl", &["personal", "public", "team"]);
        assert_eq!(err.to_string(), "unknown audience `personl`");
        assert_eq!(err.help().unwrap().to_string(), "did you mean `personal`?");
        let err = GateError::unknown_audience("zzz", &["personal", "team"]);
        assert_eq!(
            err.help().unwrap().to_string(),
            "the policy defines `personal`, `team`"
        );
    }
}
