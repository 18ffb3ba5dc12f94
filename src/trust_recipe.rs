//! [`TrustRecipe`]: the one place that turns the grants a person made (the trust file, the
//! command line's session grants) and where a command runs into a [`TrustState`].
//!
//! `shellgate eval`, `explain`, `hook` and `audit` all build their states here, in the same
//! order: the audience profile of the policy, the trust file's grants for the audience, then the
//! session zones and patterns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shellgate_policy::{
    Access, GateError, GateEvaluator, GrantSource, HostGrant, TrustState, VerbPattern,
};
use shellgate_store::Grants;

/// How to build the trust state of a command.
#[derive(Clone, Debug, Default)]
pub struct TrustRecipe {
    /// The audience of commands that do not name one.
    pub audience: String,
    /// The working directory of commands that do not name one (absolute).
    pub cwd: PathBuf,
    /// The project directory; `None` takes the command's working directory.
    pub project: Option<PathBuf>,
    /// The session directory, if any.
    pub session: Option<PathBuf>,
    /// The home directory, if any.
    pub home: Option<PathBuf>,
    /// The temporary directory.
    pub tmp: PathBuf,
    /// Whether paths are resolved through symbolic links (true for a live command, false for
    /// a replayed log, which often comes from another machine).
    pub resolve_symlinks: bool,
    /// Grants saved in the trust file, per audience.
    pub stored: BTreeMap<String, Grants>,
    /// Session zones (`--zone`, `--read-zone`), for every audience.
    pub zones: Vec<(PathBuf, Access)>,
    /// Session patterns (`--allow`), for every audience.
    pub patterns: Vec<VerbPattern>,
    /// Session host grants (`--allow-host`), for every audience.
    pub hosts: Vec<HostGrant>,
}

impl TrustRecipe {
    /// Where a zone leads: resolved through symbolic links when the recipe resolves them (a
    /// zone that is a link to `~` is `~`), else as written.
    fn real(&self, path: &Path) -> PathBuf {
        if self.resolve_symlinks {
            shellgate_policy::paths::resolve_symlinks(path).unwrap_or_else(|| path.to_path_buf())
        } else {
            path.to_path_buf()
        }
    }

    /// The state of a command run in the recipe's own working directory by its own audience.
    /// See [`state_for`](Self::state_for).
    #[must_use]
    pub fn state(&self, gate: &GateEvaluator) -> (TrustState, Option<GateError>) {
        self.state_for(gate, &self.cwd, &self.audience)
    }

    /// The state of a command run in `cwd` by `audience`: the audience profile of `gate`'s
    /// policy, the stored grants of `audience` (source [`GrantSource::Store`]), then the session
    /// zones, patterns and hosts (source [`GrantSource::Session`]).
    ///
    /// An audience the policy does not define gets no profile — it trusts less, never more —
    /// and the error is returned beside the state, for callers that refuse such an audience.
    #[must_use]
    pub fn state_for(
        &self,
        gate: &GateEvaluator,
        cwd: &Path,
        audience: &str,
    ) -> (TrustState, Option<GateError>) {
        let mut state = TrustState::new(audience, cwd);
        state.set_resolve_symlinks(self.resolve_symlinks);
        state.set_project(self.project.as_deref().unwrap_or(cwd));
        if let Some(session) = &self.session {
            state.set_session(session);
        }
        if let Some(home) = &self.home {
            state.set_home(home);
        }
        state.set_tmp(&self.tmp);
        let unknown_audience = gate.apply_profile(&mut state).err();
        // A trust file is edited by hand too: what `shellgate approvals` would refuse to save
        // (a zone of `~`, `/usr/local/bin`; a pattern such as `git *`) is not trusted either.
        let rule = gate.grant_rule();
        if let Some(grants) = self.stored.get(audience) {
            for zone in &grants.zones {
                let path = zone.path.as_path();
                if rule
                    .check_zone(&self.real(path), zone.access, self.home.as_deref())
                    .is_ok()
                {
                    state.add_zone(path, zone.access, GrantSource::Store);
                }
            }
            for pattern in &grants.patterns {
                if rule.check_pattern(pattern).is_ok() {
                    state.add_pattern(pattern.clone(), GrantSource::Store);
                }
            }
            for host in &grants.hosts {
                state.add_host(host.clone(), GrantSource::Store);
            }
        }
        // A session write zone (`--zone`) that is `/`, the home directory or holds one is no
        // zone, as for a project directory (a read zone such as `/etc` is).
        for (path, access) in &self.zones {
            if *access == Access::Read || !rule.too_broad(&self.real(path), self.home.as_deref()) {
                state.add_zone(path, *access, GrantSource::Session);
            }
        }
        for pattern in &self.patterns {
            state.add_pattern(pattern.clone(), GrantSource::Session);
        }
        for host in &self.hosts {
            state.add_host(host.clone(), GrantSource::Session);
        }
        (state, unknown_audience)
    }
}

#[cfg(test)]
mod tests {
    use shellgate_policy::{Decision, Policy, ZonePath};

    use super::*;

    fn recipe() -> TrustRecipe {
        TrustRecipe {
            audience: "personal".to_owned(),
            cwd: PathBuf::from("/home/u/proj"),
            home: Some(PathBuf::from("/home/u")),
            tmp: PathBuf::from("/tmp"),
            ..TrustRecipe::default()
        }
    }

    #[test]
    fn profile_then_stored_then_session_grants() {
        let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
        let mut recipe = recipe();
        recipe.stored.insert(
            "personal".to_owned(),
            Grants {
                zones: vec![shellgate_store::ZoneGrant {
                    path: ZonePath::new("/srv/data", None).unwrap(),
                    access: Access::Write,
                }],
                patterns: vec!["cargo build *".parse().unwrap()],
                hosts: vec!["*.example.com".parse().unwrap()],
            },
        );
        recipe
            .zones
            .push((PathBuf::from("/srv/out"), Access::Write));
        recipe
            .patterns
            .push("git push origin main *".parse().unwrap());
        recipe.hosts.push("pypi.org".parse().unwrap());
        let (state, unknown) = recipe.state(&gate);
        assert_eq!(unknown, None);
        assert_eq!(state.project(), Some(Path::new("/home/u/proj")));
        // Each grant by where it came from (the profile's own zones left out).
        let zones = state
            .zones()
            .iter()
            .filter(|zone| zone.source() != GrantSource::Profile)
            .map(|zone| (zone.path().display().to_string(), zone.source()));
        let patterns = state
            .patterns()
            .iter()
            .map(|p| (p.pattern.as_str().to_owned(), p.source));
        let hosts = state
            .hosts()
            .iter()
            .map(|h| (h.host.as_str().to_owned(), h.source));
        let granted: Vec<(String, GrantSource)> = zones.chain(patterns).chain(hosts).collect();
        let expected = [
            ("/srv/data", GrantSource::Store),
            ("/srv/out", GrantSource::Session),
            ("cargo build *", GrantSource::Store),
            ("git push origin main *", GrantSource::Session),
            ("*.example.com", GrantSource::Store),
            ("pypi.org", GrantSource::Session),
        ];
        assert_eq!(
            granted,
            expected.map(|(text, source)| (text.to_owned(), source))
        );
        assert_eq!(
            gate.evaluate("cargo build > /srv/out/log", &state).decision,
            Decision::Approved
        );
        assert_eq!(
            gate.evaluate("curl -s https://cdn.example.com/x", &state)
                .decision,
            Decision::Approved
        );
    }

    #[test]
    fn an_unknown_audience_gets_no_profile_and_says_so() {
        let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
        let (state, unknown) = recipe().state_for(&gate, Path::new("/home/u/proj"), "nobody");
        assert!(
            matches!(unknown, Some(GateError::UnknownAudience { ref name, .. }) if name == "nobody")
        );
        assert!(state.zones().is_empty());
        assert_eq!(state.read_all(), None);
    }

    #[test]
    fn hand_edited_grants_the_grant_rule_refuses_are_not_trusted() {
        let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
        let mut recipe = recipe();
        recipe.stored.insert(
            "personal".to_owned(),
            Grants {
                zones: vec![
                    shellgate_store::ZoneGrant {
                        path: ZonePath::new("/home/u", None).unwrap(),
                        access: Access::Write,
                    },
                    shellgate_store::ZoneGrant {
                        path: ZonePath::new("/home/u/proj/..", None).unwrap(),
                        access: Access::Write,
                    },
                ],
                patterns: vec!["git *".parse().unwrap()],
                hosts: Vec::new(),
            },
        );
        recipe.zones.push((PathBuf::from("/"), Access::Write));
        let (state, _) = recipe.state(&gate);
        for command in [
            "touch /home/u/notes.txt",
            "touch /etc/x",
            "git push --force origin feat",
        ] {
            assert_eq!(
                gate.evaluate(command, &state).decision,
                Decision::NeedsPrompt,
                "{command}"
            );
        }
    }
}
