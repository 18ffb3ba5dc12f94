//! The gate's decision, ordered so that the strictest one wins.

use std::fmt;
use std::str::FromStr;

use crate::error::{PolicyError, did_you_mean};

/// What the gate decides about a command. Ordered `Approved < NeedsPrompt < HardDenied`, so
/// combining the decisions of several clauses is `max`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Decision {
    /// Runs silently.
    Approved,
    /// A person must approve it first.
    NeedsPrompt,
    /// Refused, whatever anyone approved.
    HardDenied,
}

impl Decision {
    /// Every decision, least strict first.
    pub const ALL: [Self; 3] = [Self::Approved, Self::NeedsPrompt, Self::HardDenied];

    /// The name used in policy files and JSON: `Approved`, `NeedsPrompt` or `HardDenied`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "Approved",
            Self::NeedsPrompt => "NeedsPrompt",
            Self::HardDenied => "HardDenied",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Decision {
    type Err = PolicyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|d| d.as_str() == text)
            .ok_or_else(|| PolicyError::UnknownName {
                what: "decision",
                name: text.to_owned(),
                help: did_you_mean(text, Self::ALL.iter().map(|d| d.as_str())).unwrap_or_else(
                    || "a decision is `Approved`, `NeedsPrompt` or `HardDenied`".to_owned(),
                ),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strictest_wins() {
        assert_eq!(
            Decision::Approved.max(Decision::HardDenied),
            Decision::HardDenied
        );
        assert_eq!(
            Decision::NeedsPrompt.max(Decision::Approved),
            Decision::NeedsPrompt
        );
        assert_eq!(
            [Decision::Approved, Decision::NeedsPrompt]
                .into_iter()
                .max(),
            Some(Decision::NeedsPrompt)
        );
    }

    #[test]
    fn names_round_trip() {
        for d in Decision::ALL {
            assert_eq!(d.as_str().parse::<Decision>().ok(), Some(d));
        }
        let err = "Aproved".parse::<Decision>().unwrap_err();
        assert_eq!(err.to_string(), "unknown decision `Aproved`");
        assert_eq!(err.help_text(), Some("did you mean `Approved`?"));
    }
}
