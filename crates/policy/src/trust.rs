//! What an audience trusts: zones, approved verb patterns, granted hosts and where the command
//! runs.

use std::path::{Path, PathBuf};

use shellgate_rules::{Access, HostGrant, VerbPattern};

use crate::paths;
use crate::workflow::Effect;

/// Where a grant comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GrantSource {
    /// The audience profile of the policy (`[audience.NAME]`).
    Profile,
    /// The persisted trust store (a person chose "Always").
    Store,
    /// The current session (a person chose "Session", or `--zone`/`--allow` on the command line).
    Session,
}

impl GrantSource {
    /// The lowercase name used in evidence: `profile`, `store` or `session`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Profile => "profile",
            Self::Store => "store",
            Self::Session => "session",
        }
    }
}

/// A trusted directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    /// The directory as given, lexically normalised.
    path: PathBuf,
    /// The directory the gate compares with: `path` resolved through symbolic links when the
    /// state resolves them, else `path`.
    resolved: PathBuf,
    /// What the zone allows; `Write` implies `Read`.
    access: Access,
    /// Where the grant comes from.
    source: GrantSource,
}

impl Zone {
    /// The directory as given, lexically normalised.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory compared with judged paths.
    #[must_use]
    pub fn resolved(&self) -> &Path {
        &self.resolved
    }

    /// What the zone allows.
    #[must_use]
    pub const fn access(&self) -> Access {
        self.access
    }

    /// Where the grant comes from.
    #[must_use]
    pub const fn source(&self) -> GrantSource {
        self.source
    }
}

/// An approved verb pattern and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovedPattern {
    /// The pattern.
    pub pattern: VerbPattern,
    /// Where the grant comes from (`Store` for persisted, `Session` for this session).
    pub source: GrantSource,
}

/// A granted network host and where it comes from: plain reads of it run silently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantedHost {
    /// The host (exact, or `*.domain` for its subdomains).
    pub host: HostGrant,
    /// Where the grant comes from (`Store` for persisted, `Session` for this session).
    pub source: GrantSource,
}

/// Everything the gate needs to know about who runs a command and where.
///
/// Build it with [`TrustState::new`], then add the audience profile
/// ([`GateEvaluator::apply_profile`](crate::GateEvaluator::apply_profile)), the persisted and
/// session grants. Paths are stored absolute and lexically normalised; when symbolic links are
/// resolved (the default, right for a live gate; turn it off to replay logs from another
/// machine), zones are also resolved through their links so a path is compared with the
/// directory it really is.
///
/// ```
/// use shellgate_policy::{Access, GrantSource, TrustState};
///
/// let mut state = TrustState::new("personal", "/home/u/proj");
/// state.set_resolve_symlinks(false);
/// state.set_home("/home/u");
/// state.add_zone("/home/u/proj", Access::Write, GrantSource::Session);
/// assert!(state.zone_for("/home/u/proj/src/a.rs".as_ref(), Access::Write).is_some());
/// assert!(state.zone_for("/home/u/projevil/a.rs".as_ref(), Access::Read).is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustState {
    audience: String,
    cwd: PathBuf,
    project: Option<PathBuf>,
    session: Option<PathBuf>,
    home: Option<PathBuf>,
    tmp: PathBuf,
    read_all: Option<GrantSource>,
    zones: Vec<Zone>,
    run_zones: Vec<Zone>,
    patterns: Vec<ApprovedPattern>,
    hosts: Vec<GrantedHost>,
    resolve_symlinks: bool,
}

impl TrustState {
    /// A state for `audience` running in `cwd`, with nothing trusted, symbolic-link resolution
    /// on, no project, session or home directory, and `/tmp` as the temporary directory.
    #[must_use]
    pub fn new(audience: impl Into<String>, cwd: impl AsRef<Path>) -> Self {
        Self {
            audience: audience.into(),
            cwd: clean(cwd.as_ref()),
            project: None,
            session: None,
            home: None,
            tmp: PathBuf::from("/tmp"),
            read_all: None,
            zones: Vec::new(),
            run_zones: Vec::new(),
            patterns: Vec::new(),
            hosts: Vec::new(),
            resolve_symlinks: true,
        }
    }

    /// The audience name.
    #[must_use]
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The working directory the command starts in.
    #[must_use]
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The project directory, if any.
    #[must_use]
    pub fn project(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// The session directory, if any.
    #[must_use]
    pub fn session(&self) -> Option<&Path> {
        self.session.as_deref()
    }

    /// The home directory, if known.
    #[must_use]
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The temporary directory (`{tmp}` in audience profiles).
    #[must_use]
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// Whether symbolic links are resolved before paths are judged.
    #[must_use]
    pub const fn resolve_symlinks(&self) -> bool {
        self.resolve_symlinks
    }

    /// Whether every path may be read, and from which grant.
    #[must_use]
    pub const fn read_all(&self) -> Option<GrantSource> {
        self.read_all
    }

    /// The trusted zones, in the order they were added.
    #[must_use]
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// The run zones: where the project's own code runs silently (toolchains, project scripts
    /// and programs, repository hooks), in the order they were added.
    #[must_use]
    pub fn run_zones(&self) -> &[Zone] {
        &self.run_zones
    }

    /// The approved verb patterns, in the order they were added.
    #[must_use]
    pub fn patterns(&self) -> &[ApprovedPattern] {
        &self.patterns
    }

    /// The granted hosts, in the order they were added.
    #[must_use]
    pub fn hosts(&self) -> &[GrantedHost] {
        &self.hosts
    }

    /// Sets the working directory.
    pub fn set_cwd(&mut self, cwd: impl AsRef<Path>) {
        self.cwd = clean(cwd.as_ref());
    }

    /// Sets the project directory.
    pub fn set_project(&mut self, project: impl AsRef<Path>) {
        self.project = Some(clean(project.as_ref()));
    }

    /// Sets the session directory.
    pub fn set_session(&mut self, session: impl AsRef<Path>) {
        self.session = Some(clean(session.as_ref()));
    }

    /// Sets the home directory (for `~` and `$HOME`).
    pub fn set_home(&mut self, home: impl AsRef<Path>) {
        self.home = Some(clean(home.as_ref()));
    }

    /// Sets the temporary directory.
    pub fn set_tmp(&mut self, tmp: impl AsRef<Path>) {
        self.tmp = clean(tmp.as_ref());
    }

    /// Turns symbolic-link resolution on or off; the zones already added are resolved again.
    pub fn set_resolve_symlinks(&mut self, resolve: bool) {
        self.resolve_symlinks = resolve;
        for zone in &mut self.zones {
            zone.resolved = resolve_zone(&zone.path, resolve);
        }
    }

    /// Lets every path be read (an audience profile with `read = "all"`).
    pub fn set_read_all(&mut self, source: GrantSource) {
        self.read_all = Some(source);
    }

    /// A zone for `path`: taken against the working directory when relative, lexically
    /// normalised, and resolved through symbolic links when the state resolves them.
    fn zone(&self, path: &Path, access: Access, source: GrantSource) -> Zone {
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        };
        let path = clean(&joined);
        let resolved = resolve_zone(&path, self.resolve_symlinks);
        Zone {
            path,
            resolved,
            access,
            source,
        }
    }

    /// Trusts a directory. A relative path is taken against the working directory; the path is
    /// lexically normalised (and resolved through symbolic links when the state resolves
    /// them). Adding the same directory with the same access and source twice keeps one.
    pub fn add_zone(&mut self, path: impl AsRef<Path>, access: Access, source: GrantSource) {
        let zone = self.zone(path.as_ref(), access, source);
        if !self.zones.contains(&zone) {
            self.zones.push(zone);
        }
    }

    /// Lets the project's code run silently in a directory (see [`TrustState::run_zones`]). A
    /// relative path is taken against the working directory; the path is normalised (and
    /// resolved through symbolic links when the state resolves them).
    pub fn add_run_zone(&mut self, path: impl AsRef<Path>, source: GrantSource) {
        let zone = self.zone(path.as_ref(), Access::Write, source);
        if !self.run_zones.contains(&zone) {
            self.run_zones.push(zone);
        }
    }

    /// Approves a verb pattern. Adding the same pattern from the same source twice keeps one.
    pub fn add_pattern(&mut self, pattern: VerbPattern, source: GrantSource) {
        let approved = ApprovedPattern { pattern, source };
        if !self.patterns.contains(&approved) {
            self.patterns.push(approved);
        }
    }

    /// Grants plain reads of a host. Adding the same host from the same source twice keeps one.
    pub fn add_host(&mut self, host: HostGrant, source: GrantSource) {
        let granted = GrantedHost { host, source };
        if !self.hosts.contains(&granted) {
            self.hosts.push(granted);
        }
    }

    /// Removes every grant of `host`; returns how many were removed.
    pub fn remove_host(&mut self, host: &HostGrant) -> usize {
        let before = self.hosts.len();
        self.hosts.retain(|granted| &granted.host != host);
        before - self.hosts.len()
    }

    /// The first grant that covers `host` (a host name as a URL names it), if any.
    #[must_use]
    pub fn host_grant_for(&self, host: &str) -> Option<&GrantedHost> {
        self.hosts.iter().find(|granted| granted.host.matches(host))
    }

    /// Removes every zone whose directory (as given) is `path`; returns how many were removed.
    pub fn remove_zone(&mut self, path: impl AsRef<Path>) -> usize {
        let path = clean(path.as_ref());
        let before = self.zones.len();
        self.zones.retain(|zone| zone.path != path);
        before - self.zones.len()
    }

    /// Removes every approval of `pattern`; returns how many were removed.
    pub fn remove_pattern(&mut self, pattern: &VerbPattern) -> usize {
        let before = self.patterns.len();
        self.patterns
            .retain(|approved| &approved.pattern != pattern);
        before - self.patterns.len()
    }

    /// Applies the grants of a workflow's effects: session zones, patterns and hosts with source
    /// [`GrantSource::Session`], persisted ones with [`GrantSource::Store`] (they take effect at
    /// once; writing them to the trust store is the caller's job). `Complete` is ignored.
    pub fn apply_effects(&mut self, effects: &[Effect]) {
        for effect in effects {
            match effect {
                Effect::AddSessionZone { path, access } => {
                    self.add_zone(path, *access, GrantSource::Session)
                }
                Effect::AddSessionPattern(pattern) => {
                    self.add_pattern(pattern.clone(), GrantSource::Session)
                }
                Effect::PersistZone { path, access } => {
                    self.add_zone(path.as_path(), *access, GrantSource::Store)
                }
                Effect::PersistPattern(pattern) => {
                    self.add_pattern(pattern.clone(), GrantSource::Store)
                }
                Effect::AddSessionHost(host) => self.add_host(host.clone(), GrantSource::Session),
                Effect::PersistHost(host) => self.add_host(host.clone(), GrantSource::Store),
                // Completion is the caller's decision to run the command or not.
                Effect::Complete(_) => {}
            }
        }
    }

    /// The first run zone holding `path` (an absolute, already resolved path).
    #[must_use]
    pub fn run_zone_for(&self, path: &Path) -> Option<&Zone> {
        self.run_zones
            .iter()
            .find(|zone| paths::is_within(path, &zone.resolved))
    }

    /// The first zone that allows `access` to `path` (an absolute, already resolved path).
    #[must_use]
    pub fn zone_for(&self, path: &Path, access: Access) -> Option<&Zone> {
        self.zones
            .iter()
            .find(|zone| zone.access.allows(access) && paths::is_within(path, &zone.resolved))
    }
}

/// Lexically normalises an absolute path; a relative one is kept as given (the evaluator then
/// treats paths relative to it as unknown).
fn clean(path: &Path) -> PathBuf {
    paths::normalize(path).unwrap_or_else(|| path.to_path_buf())
}

/// The directory a zone is compared as.
fn resolve_zone(path: &Path, symlinks: bool) -> PathBuf {
    if symlinks {
        paths::resolve_symlinks(path).unwrap_or_else(|| path.to_path_buf())
    } else {
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_normalised_and_deduplicated() {
        let mut state = TrustState::new("personal", "/w/proj/");
        state.set_resolve_symlinks(false);
        state.add_zone("/tmp/x/../y/", Access::Write, GrantSource::Store);
        state.add_zone("/tmp/y", Access::Write, GrantSource::Store);
        state.add_zone("sub", Access::Read, GrantSource::Session);
        assert_eq!(state.cwd(), Path::new("/w/proj"));
        let zones: Vec<_> = state
            .zones()
            .iter()
            .map(|z| (z.path().to_path_buf(), z.access()))
            .collect();
        assert_eq!(
            zones,
            vec![
                (PathBuf::from("/tmp/y"), Access::Write),
                (PathBuf::from("/w/proj/sub"), Access::Read),
            ]
        );
        assert!(
            state
                .zone_for(Path::new("/w/proj/sub/a"), Access::Read)
                .is_some()
        );
        assert!(
            state
                .zone_for(Path::new("/w/proj/sub/a"), Access::Write)
                .is_none()
        );
        assert!(state.zone_for(Path::new("/tmp/yz"), Access::Read).is_none());
        assert_eq!(state.remove_zone("/tmp/y"), 1);
        assert!(
            state
                .zone_for(Path::new("/tmp/y/a"), Access::Read)
                .is_none()
        );
    }

    #[test]
    fn patterns_are_deduplicated_and_removable() {
        let mut state = TrustState::new("personal", "/w");
        let pattern: VerbPattern = "git push *".parse().unwrap();
        for source in [
            GrantSource::Session,
            GrantSource::Session,
            GrantSource::Store,
        ] {
            state.add_pattern(pattern.clone(), source);
        }
        assert_eq!(state.patterns().len(), 2);
        assert_eq!(state.remove_pattern(&pattern), 2);
        assert!(state.patterns().is_empty());
    }

    #[test]
    fn hosts_are_deduplicated_found_and_removable() {
        let mut state = TrustState::new("personal", "/w");
        let wildcard: HostGrant = "*.example.com".parse().unwrap();
        state.add_host(wildcard.clone(), GrantSource::Store);
        state.add_host(wildcard.clone(), GrantSource::Store);
        state.add_host("api.github.com".parse().unwrap(), GrantSource::Session);
        assert_eq!(state.hosts().len(), 2);
        assert_eq!(
            state.host_grant_for("cdn.example.com").map(|g| g.source),
            Some(GrantSource::Store)
        );
        assert_eq!(state.host_grant_for("example.com"), None);
        assert_eq!(
            state.host_grant_for("API.github.com.").map(|g| g.source),
            Some(GrantSource::Session)
        );
        assert_eq!(state.remove_host(&wildcard), 1);
        assert_eq!(state.host_grant_for("cdn.example.com"), None);
    }

    #[test]
    fn zones_follow_symlinks_when_resolving() {
        let (_dir, root) = crate::testing::temp_tree(&["real"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        let mut state = TrustState::new("personal", &root);
        state.add_zone(root.join("alias"), Access::Write, GrantSource::Session);
        assert_eq!(state.zones()[0].resolved(), root.join("real"));
        state.set_resolve_symlinks(false);
        assert_eq!(state.zones()[0].resolved(), root.join("alias"));
    }
}
