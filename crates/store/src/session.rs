//! Grants that last one session and live only in memory.

use std::collections::BTreeMap;

use shellgate_rules::{Access, HostGrant, VerbPattern, ZonePath};

use crate::Grants;

/// Per-session grants (the person chose "this session"), kept in memory only and never written.
///
/// ```
/// use shellgate_rules::VerbPattern;
/// use shellgate_store::SessionGrants;
///
/// let mut sessions = SessionGrants::new();
/// let pattern: VerbPattern = "cargo test *".parse().unwrap();
/// assert!(sessions.add_pattern("s1", &pattern));
/// assert_eq!(sessions.snapshot("s1").patterns, vec![pattern]);
/// assert!(sessions.snapshot("s2").is_empty());
/// sessions.end("s1");
/// assert!(sessions.snapshot("s1").is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionGrants {
    by_session: BTreeMap<String, Grants>,
}

impl SessionGrants {
    /// No session has any grant.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts `zone` with `access` for `session`; returns whether anything changed.
    pub fn add_zone(&mut self, session: &str, zone: &ZonePath, access: Access) -> bool {
        self.by_session
            .entry(session.to_owned())
            .or_default()
            .upsert_zone(zone, access)
    }

    /// Trusts `pattern` for `session`; returns whether anything changed.
    pub fn add_pattern(&mut self, session: &str, pattern: &VerbPattern) -> bool {
        self.by_session
            .entry(session.to_owned())
            .or_default()
            .insert_pattern(pattern)
    }

    /// Grants plain reads of `host` for `session`; returns whether anything changed.
    pub fn add_host(&mut self, session: &str, host: &HostGrant) -> bool {
        self.by_session
            .entry(session.to_owned())
            .or_default()
            .insert_host(host)
    }

    /// Revokes `host` for `session`; returns whether it was granted.
    pub fn revoke_host(&mut self, session: &str, host: &HostGrant) -> bool {
        self.by_session
            .get_mut(session)
            .is_some_and(|grants| grants.remove_host(host))
    }

    /// Revokes `zone` for `session`; returns whether it was granted.
    pub fn revoke_zone(&mut self, session: &str, zone: &ZonePath) -> bool {
        self.by_session
            .get_mut(session)
            .is_some_and(|grants| grants.remove_zone(zone))
    }

    /// Revokes `pattern` for `session`; returns whether it was granted.
    pub fn revoke_pattern(&mut self, session: &str, pattern: &VerbPattern) -> bool {
        self.by_session
            .get_mut(session)
            .is_some_and(|grants| grants.remove_pattern(pattern))
    }

    /// A copy of the session's grants (empty for an unknown session).
    #[must_use]
    pub fn snapshot(&self, session: &str) -> Grants {
        self.by_session.get(session).cloned().unwrap_or_default()
    }

    /// Forgets everything granted to `session`.
    pub fn end(&mut self, session: &str) {
        self.by_session.remove(session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ZoneGrant;

    #[test]
    fn sessions_are_isolated_and_updates_are_reported() {
        let zone = ZonePath::new("/tmp/work", None).unwrap();
        let mut sessions = SessionGrants::new();
        assert!(sessions.add_zone("a", &zone, Access::Read));
        assert!(!sessions.add_zone("a", &zone, Access::Read));
        assert!(sessions.add_zone("a", &zone, Access::Write));
        assert_eq!(
            sessions.snapshot("a").zones,
            vec![ZoneGrant {
                path: zone.clone(),
                access: Access::Write
            }]
        );
        assert!(sessions.snapshot("b").is_empty());
        assert!(!sessions.revoke_zone("b", &zone));
        assert!(sessions.revoke_zone("a", &zone));
        assert!(!sessions.revoke_zone("a", &zone));
        let pattern: VerbPattern = "make *".parse().unwrap();
        assert!(sessions.add_pattern("b", &pattern));
        assert!(!sessions.add_pattern("b", &pattern));
        assert!(sessions.revoke_pattern("b", &pattern));
        assert!(sessions.snapshot("b").is_empty());
    }
}
