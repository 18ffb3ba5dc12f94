//! The gate's decision, ordered so that the strictest one wins.

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
    from_str = "decision";
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
        let err = "maybe".parse::<Decision>().unwrap_err();
        assert_eq!(err.to_string(), "unknown decision `maybe`");
        assert_eq!(
            err.help_text(),
            Some("a decision is `Approved`, `NeedsPrompt` or `HardDenied`")
        );
        let err = "global".parse::<crate::Layer>().unwrap_err();
        assert_eq!(
            err.help_text(),
            Some("a layer is `default`, `user` or `project`")
        );
    }
}
