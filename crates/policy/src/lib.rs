//! shellgate-policy (work in progress)

pub mod display;
pub mod matching;
pub mod paths;
pub mod trust;

pub use shellgate_rules::{Access, VerbPattern};
pub use trust::{ApprovedPattern, GrantSource, TrustState, Zone};
