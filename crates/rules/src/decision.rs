//! The gate's decision, ordered so that the strictest one wins.

use std::str::FromStr;

use crate::error::PolicyError;

crate::named_enum! {
    /// What the gate decides about a command. Ordered `Approved < NeedsPrompt < HardDenied`, so
    /// combining the decisions of several clauses is `max` (`ALL` is least strict first).
    #[derive(
        Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
    )]
    pub enum Decision {
        /// Runs silently.
        Approved = "Approved",
        /// A person must approve it first.
        NeedsPrompt = "NeedsPrompt",
        /// Refused, whatever anyone approved.
        HardDenied = "HardDenied",
    }
}

impl FromStr for Decision {
    type Err = PolicyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::from_name(text).ok_or_else(|| {
            PolicyError::unknown_name(
                "decision",
                text,
                Self::ALL.map(Self::as_str),
                "a decision is `Approved`, `NeedsPrompt` or `HardDenied`",
            )
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
