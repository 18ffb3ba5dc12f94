//! What a person has granted: zones, verb patterns and network hosts.

use serde::Serialize;
use shellgate_rules::{Access, HostGrant, VerbPattern, ZonePath};

/// A trusted directory and how it may be used.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ZoneGrant {
    /// The directory (absolute, normalised).
    pub path: ZonePath,
    /// `read` or `write` (which implies read).
    pub access: Access,
}

/// The grants of one audience (persisted) or one session (in memory), in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Grants {
    /// Trusted directories.
    pub zones: Vec<ZoneGrant>,
    /// Trusted verb patterns.
    pub patterns: Vec<VerbPattern>,
    /// Hosts granted for plain reads.
    pub hosts: Vec<HostGrant>,
}

impl Grants {
    /// Whether there are no zones, no patterns and no hosts.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty() && self.patterns.is_empty() && self.hosts.is_empty()
    }

    /// Adds or updates a zone; returns whether anything changed.
    pub(crate) fn upsert_zone(&mut self, path: &ZonePath, access: Access) -> bool {
        if let Some(existing) = self.zones.iter_mut().find(|zone| zone.path == *path) {
            let changed = existing.access != access;
            existing.access = access;
            return changed;
        }
        self.zones.push(ZoneGrant {
            path: path.clone(),
            access,
        });
        true
    }

    /// Adds a pattern unless present; returns whether anything changed.
    pub(crate) fn insert_pattern(&mut self, pattern: &VerbPattern) -> bool {
        if self.patterns.contains(pattern) {
            return false;
        }
        self.patterns.push(pattern.clone());
        true
    }

    /// Adds a host unless present; returns whether anything changed.
    pub(crate) fn insert_host(&mut self, host: &HostGrant) -> bool {
        if self.hosts.contains(host) {
            return false;
        }
        self.hosts.push(host.clone());
        true
    }

    /// Removes a host; returns whether it was present.
    pub(crate) fn remove_host(&mut self, host: &HostGrant) -> bool {
        let before = self.hosts.len();
        self.hosts.retain(|h| h != host);
        self.hosts.len() != before
    }

    /// Removes a zone; returns whether it was present.
    pub(crate) fn remove_zone(&mut self, path: &ZonePath) -> bool {
        let before = self.zones.len();
        self.zones.retain(|zone| zone.path != *path);
        self.zones.len() != before
    }

    /// Removes a pattern; returns whether it was present.
    pub(crate) fn remove_pattern(&mut self, pattern: &VerbPattern) -> bool {
        let before = self.patterns.len();
        self.patterns.retain(|p| p != pattern);
        self.patterns.len() != before
    }
}

/// Checks an audience name: 1 to 64 ASCII letters, digits, `-` or `_`.
///
/// # Errors
///
/// [`StoreError::InvalidAudience`](crate::StoreError::InvalidAudience) otherwise.
pub fn validate_audience(name: &str) -> Result<(), crate::StoreError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(crate::StoreError::InvalidAudience {
            name: name.to_owned(),
        })
    }
}
