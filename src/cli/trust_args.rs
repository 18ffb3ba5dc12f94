//! The options that build a trust state, shared by `eval`, `explain`, `audit` and `hook`:
//! [`PolicyArgs`] (`--policy`, `--trust`, `--audience`) and [`SessionArgs`] (`--cwd`,
//! `--project`, `--session`, `--home`, `--zone`, `--read-zone`, `--allow`, `--allow-host`), together
//! [`TrustArgs`]. `approvals` takes [`PolicyFiles`] (`--policy`) alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use shellgate::TrustRecipe;
use shellgate_policy::{Access, HostGrant, VerbPattern};
use shellgate_store::{Grants, Quarantine, StoreError, TrustStore};

use super::Exit;
use super::output::errln;
use super::policy_files::report;

/// The policy files.
#[derive(Debug, clap::Args)]
pub struct PolicyFiles {
    /// A policy file layered on the embedded default (as a user layer); repeatable. A file named
    /// `default.toml` replaces the embedded default.
    #[arg(long = "policy", value_name = "FILE")]
    pub policies: Vec<PathBuf>,
}

/// The policy and the trust file.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    #[command(flatten)]
    pub files: PolicyFiles,
    /// A project policy file (a project layer: it may only tighten); repeatable. Default: the
    /// project directory's `.shellgate/policy.toml`, when it exists.
    #[arg(long = "project-policy", value_name = "FILE")]
    pub project_policies: Vec<PathBuf>,
    /// The trust file with saved approvals.
    #[arg(long, value_name = "FILE")]
    pub trust: Option<PathBuf>,
    /// The audience profile.
    #[arg(long, value_name = "NAME", default_value = "personal")]
    pub audience: String,
}

/// Where the command runs, and grants for this session only.
#[derive(Debug, clap::Args)]
pub struct SessionArgs {
    /// The directory the command runs in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The project directory (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The session directory (default: none).
    #[arg(long, value_name = "DIR")]
    pub session: Option<PathBuf>,
    /// The home directory (default: `$HOME`).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Trust a directory for reading and writing in this session; repeatable.
    #[arg(long = "zone", value_name = "DIR")]
    pub zones: Vec<PathBuf>,
    /// Trust a directory for reading in this session; repeatable.
    #[arg(long = "read-zone", value_name = "DIR")]
    pub read_zones: Vec<PathBuf>,
    /// Approve a verb pattern such as `'git push origin main *'` in this session; repeatable.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Grant plain reads (GET, HEAD, OPTIONS, nothing sent) of a host such as `api.github.com`,
    /// or `*.example.com` for its subdomains, in this session; repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
}

/// Every option of a trust state.
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub session: SessionArgs,
}

/// The trust file's grants for every audience, and the quarantine that happened while opening
/// it, if any.
#[derive(Debug, Default)]
pub struct StoredGrants {
    /// The grants, per audience.
    pub grants: BTreeMap<String, Grants>,
    /// Set when the file was unusable and was moved aside (it then trusts nothing).
    pub quarantined: Option<Quarantine>,
}

/// Opens the trust file (`explicit`, else `$SHELLGATE_TRUST`, else the XDG location) and reads
/// every audience's grants. No location at all (no `HOME`) trusts nothing.
///
/// # Errors
///
/// [`StoreError`] when the file exists but cannot be read.
pub fn stored_grants(
    explicit: Option<&Path>,
    home: Option<&Path>,
) -> Result<StoredGrants, StoreError> {
    let path = match shellgate_store::default_trust_path(explicit) {
        Ok(path) => path,
        Err(StoreError::NoLocation) => return Ok(StoredGrants::default()),
        Err(error) => return Err(error),
    };
    let opened = TrustStore::open_with_home(&path, home.map(Path::to_path_buf))?;
    Ok(StoredGrants {
        grants: opened
            .store
            .audiences()
            .map(|(name, grants)| (name.to_owned(), grants.clone()))
            .collect(),
        quarantined: opened.quarantined,
    })
}

/// Reports `error` on standard error; the exit code that goes with it.
fn reported(error: &dyn miette::Diagnostic) -> Exit {
    report(error);
    Exit::Error
}

/// Each of `texts` read as a `T`; the first that does not read is reported.
fn parse_each<T>(texts: &[String]) -> Result<Vec<T>, Exit>
where
    T: FromStr,
    T::Err: miette::Diagnostic,
{
    texts
        .iter()
        .map(|text| text.parse().map_err(|e: T::Err| reported(&e)))
        .collect()
}

impl TrustArgs {
    /// The recipe of these options: paths made absolute against the current directory, the
    /// trust file's grants (a quarantine is reported on standard error), the session grants.
    ///
    /// # Errors
    ///
    /// [`Exit::Error`] after a diagnostic: no current directory, an unreadable trust file, a
    /// bad `--allow` pattern or `--allow-host` host.
    pub fn recipe(&self, resolve_symlinks: bool) -> Result<TrustRecipe, Exit> {
        let current = std::env::current_dir().map_err(|e| {
            errln!("error: cannot read the current directory: {e}");
            Exit::Error
        })?;
        let absolute = |path: &Path| {
            if path.is_absolute() {
                path.to_path_buf()
            } else {
                current.join(path)
            }
        };
        let session = &self.session;
        let home = session
            .home
            .as_deref()
            .map(absolute)
            .or_else(shellgate_store::home_dir);
        let patterns: Vec<VerbPattern> = parse_each(&session.allow)?;
        let hosts: Vec<HostGrant> = parse_each(&session.allow_hosts)?;
        let stored = stored_grants(self.policy.trust.as_deref(), home.as_deref())
            .map_err(|e| reported(&e))?;
        if let Some(quarantine) = &stored.quarantined {
            errln!("warning: {quarantine}");
        }
        Ok(TrustRecipe {
            audience: self.policy.audience.clone(),
            cwd: session
                .cwd
                .as_deref()
                .map_or_else(|| current.clone(), absolute),
            project: session.project.as_deref().map(absolute),
            session: session.session.as_deref().map(absolute),
            home,
            tmp: std::env::temp_dir(),
            resolve_symlinks,
            stored: stored.grants,
            zones: session
                .zones
                .iter()
                .map(|zone| (absolute(zone), Access::Write))
                .chain(
                    session
                        .read_zones
                        .iter()
                        .map(|zone| (absolute(zone), Access::Read)),
                )
                .collect(),
            patterns,
            hosts,
        })
    }
}
