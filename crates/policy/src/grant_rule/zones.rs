//! Zones and protected paths: the system directories a zone grant may not cover, and what a
//! grant of a directory (or a recursive read of it) would reach.

use std::path::{Path, PathBuf};

use shellgate_rules::{Access, Decision, Policy, Protected, resolve_path};

use super::{GrantRefusal, GrantRule};
use crate::paths;

/// Names no protected glob is about, for [`GrantRule::protected_filter`]: a filter that
/// selects one of these selects a kind of file (`--include='*.json'` admits `.mcp.json` and
/// `package.json` alike), not secrets; the walk below the searched directory then looks for
/// the protected ones that are there.
const ORDINARY_NAMES: &[&str] = &[
    "zz",
    "zz.txt",
    ".zz",
    "zz.json",
    "zz.yaml",
    "zz.yml",
    "zz.toml",
    "zz.js",
    "zz.ts",
    "zz.py",
    "zz.md",
    "zz.cfg",
    "zz.ini",
    "zz.xml",
    "zz.conf",
    "zz.properties",
    "zz.sh",
    "zz.rb",
    "zz.go",
    "zz.rs",
    "zz.java",
    "zz.kt",
    "zz.html",
    "zz.css",
];

/// The literal bases of every protected entry's globs for one home directory.
#[derive(Debug)]
pub(super) struct ProtectedBases {
    home: Option<PathBuf>,
    bases: Vec<Vec<Option<PathBuf>>>,
}

impl ProtectedBases {
    fn new(policy: &Policy, home: Option<&Path>) -> Self {
        Self {
            home: home.map(Path::to_path_buf),
            bases: policy
                .protected_entries()
                .iter()
                .map(|entry| {
                    entry
                        .paths
                        .iter()
                        .map(|glob| literal_base(glob, home))
                        .collect()
                })
                .collect(),
        }
    }
}

/// The system directories, normalised: the policy's `settings.system_dirs` and
/// `settings.trusted_bin_dirs`.
pub(super) fn system_dirs(policy: &Policy) -> Vec<PathBuf> {
    let mut system_dirs: Vec<PathBuf> = policy.system_dirs().to_vec();
    for dir in policy.trusted_bin_dirs() {
        if let Some(dir) = paths::normalize(dir)
            && !system_dirs.contains(&dir)
        {
            system_dirs.push(dir);
        }
    }
    system_dirs
}

/// For each unanchored one-segment protected glob whose reads are forced (`**/.env`,
/// `**/*.ppk`): its entry's position and a name it matches (`.env`, `x.ppk`).
pub(super) fn protected_names(policy: &Policy) -> Vec<(usize, String)> {
    policy
        .protected_entries()
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.read != Decision::Approved)
        .flat_map(|(at, entry)| {
            entry.paths.iter().filter_map(move |glob| {
                let name = glob.strip_prefix("**/")?;
                (!name.contains(['/', '[', '{', '\\'])).then(|| (at, name.replace(['*', '?'], "x")))
            })
        })
        .collect()
}

impl GrantRule {
    /// The protected entry a file-name filter selects, if any: `filter` (`*.env` of
    /// `grep -r --include='*.env'`, `rg -g`, `find -name`) is matched, as a glob, against a name
    /// each unanchored protected glob matches (`.env` for `**/.env`), so a recursive read
    /// filtered to secrets is known to read them. The name the filter matched comes with it. A
    /// filter that also selects ordinary names (`*`, `.*`, `*.*`) selects nothing in particular.
    #[must_use]
    pub fn protected_filter(&self, filter: &str) -> Option<(&Protected, &str)> {
        let glob = shellgate_rules::glob::WordGlob::new(filter);
        // A filter that selects ordinary names too (`*`, `.*`) shows no aim at secrets.
        if ORDINARY_NAMES.iter().any(|name| glob.is_match(name)) {
            return None;
        }
        self.protected_names.iter().find_map(|(at, name)| {
            let entry = self.policy.protected_entries().get(*at)?;
            glob.is_match(name).then_some((entry, name.as_str()))
        })
    }

    /// The first system directory `test` accepts, as text.
    fn system_dir(&self, test: impl Fn(&Path) -> bool) -> Option<String> {
        self.system_dirs
            .iter()
            .find(|dir| test(dir))
            .map(|dir| dir.display().to_string())
    }

    /// Whether `dir` is too broad to be a project or session directory: `/`, the home
    /// directory or a directory holding it, or one holding a system directory. Its write and
    /// run zones would make writes and runs anywhere in the home directory silent (an editor's
    /// start-up files, `~/.local/bin`), as a zone grant of it would.
    ///
    /// So is one holding a path the policy refuses to write silently below the home directory
    /// or an absolute place (a project at `~/.config` holds `~/.config/nvim`, editors' and
    /// shells' start-up files): a zone grant of it would be refused too.
    #[must_use]
    pub fn too_broad(&self, dir: &Path, home: Option<&Path>) -> bool {
        dir.parent().is_none()
            || home.is_some_and(|home| paths::is_within(home, dir))
            || self
                .system_dir(|system| paths::is_within(system, dir))
                .is_some()
            || self
                .protected_below(dir, home, |entry| entry.write != Decision::Approved)
                .is_some()
    }

    /// Checks a zone for persisting with `access` (see the [module docs](crate::grant_rule)).
    /// `zone` is absolute and normalised; `home` is the home directory, if known.
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::Home`], [`GrantRefusal::System`], [`GrantRefusal::InsideSystem`],
    /// [`GrantRefusal::CoversProtected`] or [`GrantRefusal::InsideProtected`].
    pub fn check_zone(
        &self,
        zone: &Path,
        access: Access,
        home: Option<&Path>,
    ) -> Result<(), GrantRefusal> {
        let shown = zone.display().to_string();
        if zone.parent().is_none() {
            return Err(GrantRefusal::System {
                zone: shown,
                dir: "/".to_owned(),
            });
        }
        if let Some(home) = home
            && paths::is_within(home, zone)
        {
            return Err(GrantRefusal::Home {
                zone: shown,
                home: home.display().to_string(),
            });
        }
        if let Some(dir) = self.system_dir(|dir| paths::is_within(dir, zone)) {
            return Err(GrantRefusal::System { zone: shown, dir });
        }
        if access == Access::Write
            && let Some(dir) = self.system_dir(|dir| paths::is_within(zone, dir))
        {
            return Err(GrantRefusal::InsideSystem { zone: shown, dir });
        }
        let forced = |entry: &Protected| match access {
            Access::Read => entry.read != Decision::Approved,
            // A write zone lets its files be read too.
            Access::Write => entry.read != Decision::Approved || entry.write != Decision::Approved,
        };
        if let Some(entry) = self
            .policy
            .protected_all(zone, home)
            .into_iter()
            .find(|entry| forced(entry))
        {
            // The glob whose directory holds the zone (`~/.azure/**` for `~/.azure/x`), else
            // the first one (an unanchored glob such as `**/.git/hooks/**`).
            let glob = entry
                .paths
                .iter()
                .find(|glob| {
                    literal_base(glob, home).is_some_and(|base| paths::is_within(zone, &base))
                })
                .or_else(|| entry.paths.first())
                .cloned()
                .unwrap_or_default();
            return Err(GrantRefusal::InsideProtected {
                zone: shown,
                glob,
                id: entry.id.clone(),
                why: entry.why.clone(),
            });
        }
        if let Some((entry, base)) = self.protected_below(zone, home, forced) {
            return Err(GrantRefusal::CoversProtected {
                zone: shown,
                path: base.display().to_string(),
                id: entry.id.clone(),
                why: entry.why.clone(),
            });
        }
        Ok(())
    }

    /// The first protected entry (one `applies` to) whose literal base directory is `dir` or
    /// lies below it, with that base: what a grant of `dir`, or a recursive read of it
    /// (`grep -r AKIA ~` reaches `~/.aws/credentials`), would reach.
    pub fn protected_below(
        &self,
        dir: &Path,
        home: Option<&Path>,
        applies: impl Fn(&Protected) -> bool,
    ) -> Option<(&Protected, PathBuf)> {
        let cached = self
            .bases
            .get_or_init(|| ProtectedBases::new(&self.policy, home));
        let computed;
        let bases = if cached.home.as_deref() == home {
            cached
        } else {
            computed = ProtectedBases::new(&self.policy, home);
            &computed
        };
        self.policy
            .protected_entries()
            .iter()
            .zip(&bases.bases)
            .filter(|(entry, _)| applies(entry))
            .find_map(|(entry, globs)| {
                globs
                    .iter()
                    .flatten()
                    .find(|base| paths::is_within(base, dir))
                    .map(|base| (entry, base.clone()))
            })
    }
}

/// The literal directory of an anchored protected glob (`~/.ssh/**` → `/home/u/.ssh`,
/// `/proc/*/environ` → `/proc`); `None` for an unanchored one (`**/.env`) or a `~` glob when the
/// home directory is unknown.
pub(super) fn literal_base(glob: &str, home: Option<&Path>) -> Option<PathBuf> {
    let literal = match glob.find(['*', '?', '[', '{']) {
        Some(at) => glob.get(..at)?.rsplit_once('/').map_or("", |(dir, _)| dir),
        None => glob,
    };
    if literal.is_empty() || !(literal.starts_with('/') || literal.starts_with('~')) {
        return None;
    }
    if literal.starts_with('~') && home.is_none() {
        return None;
    }
    Some(resolve_path(literal, None, home))
}
