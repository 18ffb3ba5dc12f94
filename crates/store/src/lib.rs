//! shellgate's store: the person's persisted approvals (the trust file), grants that last one
//! session, and the append-only audit log.
//!
//! # The trust file
//!
//! TOML, human-readable and editable, at `$XDG_CONFIG_HOME/shellgate/trust.toml` (else
//! `~/.config/shellgate/trust.toml`), overridable by `SHELLGATE_TRUST` and `--trust FILE`
//! (see [`resolve_trust_path`]):
//!
//! ```toml
//! version = 1
//!
//! [audience.personal]
//! zones = [
//!     { path = "/home/me/project", access = "write" },
//! ]
//! patterns = [
//!     "git push origin main *",
//! ]
//! ```
//!
//! Edits keep a person's comments and ordering. Every write replaces the file atomically under
//! an advisory lock on the sidecar `trust.toml.lock`; an unusable file is moved aside to
//! `trust.toml.quarantine-<UTC time>` and reported, never silently dropped.
//!
//! ```
//! use shellgate_rules::{Access, VerbPattern, ZonePath};
//! use shellgate_store::TrustStore;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("trust.toml");
//! let opened = TrustStore::open_with_home(&path, None)?;
//! assert!(opened.quarantined.is_none());
//! let mut store = opened.store;
//! let pattern: VerbPattern = "cargo test *".parse()?;
//! assert!(store.add_pattern("personal", &pattern)?.changed);
//! let zone = ZonePath::new("/tmp/build", None)?;
//! assert!(store.add_zone("personal", &zone, Access::Write)?.changed);
//! assert_eq!(store.snapshot("personal").patterns, vec![pattern]);
//! # Ok(())
//! # }
//! ```

mod audit;
mod disk;
mod document;
mod error;
mod grants;
mod location;
mod session;
mod time;
mod trust;

pub use audit::{AuditLog, AuditReader, AuditRecord, timestamp_at, timestamp_now};
pub use disk::{RACY_WINDOW, replace_file};
pub use error::StoreError;
pub use grants::{Grants, ZoneGrant, validate_audience};
pub use location::{TRUST_ENV, TRUST_FILE_NAME, default_trust_path, home_dir, resolve_trust_path};
pub use session::SessionGrants;
pub use shellgate_rules::{Access, HostGrant, VerbPattern, ZonePath};
pub use trust::{Opened, Outcome, Quarantine, Reload, TrustStore};

/// The only trust file version this build reads and writes.
pub const TRUST_FILE_VERSION: i64 = document::VERSION;
