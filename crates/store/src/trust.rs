//! The persisted trust store.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use shellgate_rules::{Access, HostGrant, VerbPattern, ZonePath};
use toml_edit::DocumentMut;

use crate::disk::{self, Fingerprint, OnDisk};
use crate::document::{self, Audiences, Listed};
use crate::grants::{Grants, validate_audience};
use crate::{StoreError, location};

/// The mode of a trust file shellgate creates: readable and writable by its owner only.
const NEW_FILE_MODE: u32 = 0o600;

/// A bad trust file that was moved aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quarantine {
    /// Where the trust file was.
    pub original: PathBuf,
    /// Where it is now.
    pub moved_to: PathBuf,
    /// Why it could not be used, such as `unknown version `2``.
    pub reason: String,
}

impl fmt::Display for Quarantine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trust file `{}` was unusable ({}); it was moved to `{}` and shellgate started with no saved approvals",
            self.original.display(),
            self.reason,
            self.moved_to.display()
        )
    }
}

/// The result of [`TrustStore::open`]. Check `quarantined` and report it loudly.
#[derive(Debug)]
#[must_use = "a quarantined trust file must be reported"]
pub struct Opened {
    /// The store.
    pub store: TrustStore,
    /// Set when the file on disk was unusable and was moved aside; the store is then empty.
    pub quarantined: Option<Quarantine>,
}

/// The result of an add or revoke.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "a quarantined trust file must be reported"]
pub struct Outcome {
    /// Whether the grants changed (and so the file was written). `false` means the grant was
    /// already there (add) or was not there (revoke); the file was then left untouched.
    pub changed: bool,
    /// Set when the file on disk was unusable and was moved aside before the edit; the edit was
    /// then applied to an empty store.
    pub quarantined: Option<Quarantine>,
}

/// The result of [`TrustStore::reload_if_changed`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "a quarantined trust file must be reported"]
pub enum Reload {
    /// The file is as last seen.
    Unchanged,
    /// The file changed (or vanished) and the grants were re-read.
    Reloaded,
    /// The file became unusable, was moved aside, and the store is now empty.
    Quarantined(Quarantine),
}

/// Follows a symbolic link at `path` (such as a trust file kept in a dotfiles repository), so
/// that atomic replacement updates the link's target instead of replacing the link. A dangling
/// link is kept as it is.
fn resolve_link(path: PathBuf) -> PathBuf {
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(&path).unwrap_or(path),
        Ok(_) | Err(_) => path,
    }
}

/// What this store last saw on disk.
#[derive(Debug)]
enum Seen {
    /// No file.
    Missing,
    /// A usable file.
    File {
        bytes: Vec<u8>,
        fingerprint: Fingerprint,
        /// When `bytes` were known to be current.
        verified_at: SystemTime,
    },
}

/// A usable state read from disk, or why the disk content is unusable.
enum Loaded {
    Good { audiences: Audiences, seen: Seen },
    Bad { reason: String },
}

/// The persisted grants of every audience, kept in step with the trust file.
///
/// Reads take no lock (writers replace the file atomically); every add or revoke is a
/// read-modify-write under an exclusive lock on `trust.toml.lock`, starting from the file's
/// current content, so concurrent processes lose nothing. Call
/// [`reload_if_changed`](Self::reload_if_changed) before judging a command so that a
/// revocation by another process applies at once.
#[derive(Debug)]
pub struct TrustStore {
    path: PathBuf,
    home: Option<PathBuf>,
    audiences: Audiences,
    seen: Seen,
}

impl TrustStore {
    /// Opens the store at `path`, expanding `~` in hand-written zones against `$HOME`.
    ///
    /// A missing file is an empty store (nothing is created until the first grant). An
    /// unusable file — unknown version, not TOML, invalid grants, a directory — is moved aside
    /// (see [`Quarantine`]) and the store starts empty.
    ///
    /// # Errors
    ///
    /// [`StoreError::Read`] when the file exists but cannot be read;
    /// [`StoreError::Quarantine`] or [`StoreError::Lock`] when an unusable file cannot be moved
    /// aside (it is then left as it was).
    pub fn open(path: impl Into<PathBuf>) -> Result<Opened, StoreError> {
        Self::open_with_home(path, location::home_dir())
    }

    /// [`open`](Self::open) with an explicit home directory for `~` expansion.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with_home(
        path: impl Into<PathBuf>,
        home: Option<PathBuf>,
    ) -> Result<Opened, StoreError> {
        let mut store = Self {
            path: resolve_link(path.into()),
            home,
            audiences: Audiences::new(),
            seen: Seen::Missing,
        };
        let quarantined = match store.load()? {
            Loaded::Good { audiences, seen } => {
                store.audiences = audiences;
                store.seen = seen;
                None
            }
            Loaded::Bad { .. } => store.quarantine_or_recover()?,
        };
        Ok(Opened { store, quarantined })
    }

    /// Reads the trust file at `path` without changing anything (an unusable file is *not*
    /// moved aside, unlike [`open`](Self::open)): `Ok(None)` when it is missing,
    /// `Ok(Some(grants))` with the number of saved grants, `Err(reason)` when it is unusable.
    ///
    /// # Errors
    ///
    /// [`StoreError::Read`] when the file exists but cannot be read; the `Ok(Err(reason))`
    /// case is a file that was read but is not a usable trust file.
    pub fn inspect(
        path: impl Into<PathBuf>,
        home: Option<PathBuf>,
    ) -> Result<Result<Option<usize>, String>, StoreError> {
        let store = Self {
            path: resolve_link(path.into()),
            home,
            audiences: Audiences::new(),
            seen: Seen::Missing,
        };
        Ok(match store.load()? {
            Loaded::Good {
                seen: Seen::Missing,
                ..
            } => Ok(None),
            Loaded::Good { audiences, .. } => Ok(Some(
                audiences
                    .values()
                    .map(|grants| grants.zones.len() + grants.patterns.len())
                    .sum(),
            )),
            Loaded::Bad { reason } => Err(reason),
        })
    }

    /// The trust file's path (the target, when the path given to `open` was a symbolic link).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A copy of one audience's grants (empty when the audience has none).
    #[must_use]
    pub fn snapshot(&self, audience: &str) -> Grants {
        self.audiences.get(audience).cloned().unwrap_or_default()
    }

    /// Every audience with its grants, in name order.
    pub fn audiences(&self) -> impl Iterator<Item = (&str, &Grants)> {
        self.audiences
            .iter()
            .map(|(name, grants)| (name.as_str(), grants))
    }

    /// Re-reads the file when it changed on disk since this store last saw it.
    ///
    /// Costs one `stat` when nothing changed; the content is read and compared only when the
    /// fingerprint (device, inode, size, modification and change times) differs or the file
    /// changed within [`RACY_WINDOW`](crate::RACY_WINDOW) of the last read.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open); on error the previous grants stay in place.
    pub fn reload_if_changed(&mut self) -> Result<Reload, StoreError> {
        match (&self.seen, std::fs::metadata(&self.path)) {
            (Seen::Missing, Err(err)) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Reload::Unchanged);
            }
            (
                Seen::File {
                    fingerprint,
                    verified_at,
                    ..
                },
                Ok(meta),
            ) if Fingerprint::of(&meta) == *fingerprint && !fingerprint.is_racy(*verified_at) => {
                return Ok(Reload::Unchanged);
            }
            _ => {}
        }
        match self.load()? {
            Loaded::Good { audiences, seen } => {
                let same = match (&self.seen, &seen) {
                    (Seen::Missing, Seen::Missing) => true,
                    (Seen::File { bytes: old, .. }, Seen::File { bytes: new, .. }) => old == new,
                    (Seen::Missing, Seen::File { .. }) | (Seen::File { .. }, Seen::Missing) => {
                        false
                    }
                };
                self.seen = seen;
                if same {
                    return Ok(Reload::Unchanged);
                }
                self.audiences = audiences;
                Ok(Reload::Reloaded)
            }
            Loaded::Bad { .. } => match self.quarantine_or_recover()? {
                Some(quarantine) => Ok(Reload::Quarantined(quarantine)),
                None => Ok(Reload::Reloaded),
            },
        }
    }

    /// Trusts `zone` with `access` for `audience`; an existing grant for the same directory
    /// takes the new access.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidAudience`], or an I/O error from the locked read-modify-write (the
    /// file is then unchanged).
    pub fn add_zone(
        &mut self,
        audience: &str,
        zone: &ZonePath,
        access: Access,
    ) -> Result<Outcome, StoreError> {
        validate_audience(audience)?;
        let home = self.home.clone();
        self.mutate(|doc| document::add_zone(doc, audience, zone, access, home.as_deref()))
    }

    /// Trusts `pattern` for `audience`.
    ///
    /// # Errors
    ///
    /// As [`add_zone`](Self::add_zone).
    pub fn add_pattern(
        &mut self,
        audience: &str,
        pattern: &VerbPattern,
    ) -> Result<Outcome, StoreError> {
        self.add_listed(audience, pattern)
    }

    /// Grants plain reads of `host` for `audience`.
    ///
    /// # Errors
    ///
    /// As [`add_zone`](Self::add_zone).
    pub fn add_host(&mut self, audience: &str, host: &HostGrant) -> Result<Outcome, StoreError> {
        self.add_listed(audience, host)
    }

    /// Revokes `host` for `audience`.
    ///
    /// # Errors
    ///
    /// As [`add_zone`](Self::add_zone).
    pub fn revoke_host(&mut self, audience: &str, host: &HostGrant) -> Result<Outcome, StoreError> {
        self.revoke_listed(audience, host)
    }

    /// Revokes every grant of `zone` for `audience`.
    ///
    /// # Errors
    ///
    /// As [`add_zone`](Self::add_zone).
    pub fn revoke_zone(&mut self, audience: &str, zone: &ZonePath) -> Result<Outcome, StoreError> {
        validate_audience(audience)?;
        let home = self.home.clone();
        self.mutate(|doc| document::remove_zone(doc, audience, zone, home.as_deref()))
    }

    /// Revokes `pattern` for `audience`.
    ///
    /// # Errors
    ///
    /// As [`add_zone`](Self::add_zone).
    pub fn revoke_pattern(
        &mut self,
        audience: &str,
        pattern: &VerbPattern,
    ) -> Result<Outcome, StoreError> {
        self.revoke_listed(audience, pattern)
    }

    /// Reads and classifies what is on disk now.
    fn load(&self) -> Result<Loaded, StoreError> {
        let verified_at = SystemTime::now();
        let on_disk = disk::read(&self.path).map_err(|source| StoreError::Read {
            path: self.path.clone(),
            source,
        })?;
        Ok(self.classify(on_disk, verified_at))
    }

    /// Like [`classify`](Self::classify), but skips parsing when the content is what this store
    /// last saw (the common case for a single writer).
    fn reuse_or_classify(&self, on_disk: OnDisk, verified_at: SystemTime) -> Loaded {
        match (on_disk, &self.seen) {
            (
                OnDisk::File {
                    bytes, fingerprint, ..
                },
                Seen::File { bytes: seen, .. },
            ) if bytes == *seen => Loaded::Good {
                audiences: self.audiences.clone(),
                seen: Seen::File {
                    bytes,
                    fingerprint,
                    verified_at,
                },
            },
            (on_disk, _) => self.classify(on_disk, verified_at),
        }
    }

    /// Validates what was read.
    fn classify(&self, on_disk: OnDisk, verified_at: SystemTime) -> Loaded {
        match on_disk {
            OnDisk::Missing => Loaded::Good {
                audiences: Audiences::new(),
                seen: Seen::Missing,
            },
            OnDisk::NotAFile => Loaded::Bad {
                reason: "it is not a regular file but a directory, a device or a pipe".to_owned(),
            },
            OnDisk::File {
                bytes, fingerprint, ..
            } => match std::str::from_utf8(&bytes) {
                Err(err) => Loaded::Bad {
                    reason: format!("not valid UTF-8 at byte {}", err.valid_up_to()),
                },
                Ok(text) => match document::parse(text, self.home.as_deref()) {
                    Ok(audiences) => Loaded::Good {
                        audiences,
                        seen: Seen::File {
                            bytes,
                            fingerprint,
                            verified_at,
                        },
                    },
                    Err(reason) => Loaded::Bad { reason },
                },
            },
        }
    }

    /// Under the lock, re-reads the file; if it is still unusable, moves it aside and empties
    /// the store; if another process fixed it meanwhile, uses it.
    fn quarantine_or_recover(&mut self) -> Result<Option<Quarantine>, StoreError> {
        // Something that is not a file is not the store's to move, nor to lock beside.
        if let Ok(OnDisk::NotAFile) = disk::read(&self.path) {
            return Err(StoreError::Quarantine {
                path: self.path.clone(),
                reason: "it is not a regular file but a directory, a device or a pipe".to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "it is left where it is",
                ),
            });
        }
        let lock = disk::lock_path(&self.path);
        let lock_error = |source| StoreError::Lock {
            path: lock.clone(),
            source,
        };
        disk::with_lock(&lock, lock_error, || match self.load()? {
            Loaded::Good { audiences, seen } => {
                self.audiences = audiences;
                self.seen = seen;
                Ok(None)
            }
            Loaded::Bad { reason } => {
                let quarantine = self.quarantine_locked(reason)?;
                Ok(Some(quarantine))
            }
        })
    }

    /// Moves the file aside (the caller holds the lock) and empties the store.
    fn quarantine_locked(&mut self, reason: String) -> Result<Quarantine, StoreError> {
        match disk::quarantine(&self.path) {
            Ok(moved_to) => {
                self.audiences = Audiences::new();
                self.seen = Seen::Missing;
                Ok(Quarantine {
                    original: self.path.clone(),
                    moved_to,
                    reason,
                })
            }
            Err(source) => Err(StoreError::Quarantine {
                path: self.path.clone(),
                reason,
                source,
            }),
        }
    }

    /// Adds a grant kept as a list (a pattern, a host) for `audience`.
    fn add_listed<T: Listed>(&mut self, audience: &str, grant: &T) -> Result<Outcome, StoreError> {
        validate_audience(audience)?;
        self.mutate(|doc| document::add(doc, audience, grant))
    }

    /// Revokes a grant kept as a list (a pattern, a host) for `audience`.
    fn revoke_listed<T: Listed>(
        &mut self,
        audience: &str,
        grant: &T,
    ) -> Result<Outcome, StoreError> {
        validate_audience(audience)?;
        self.mutate(|doc| document::remove(doc, audience, grant))
    }

    /// The locked read-modify-write behind every add and revoke.
    fn mutate(
        &mut self,
        edit: impl FnOnce(&mut DocumentMut) -> Result<bool, String>,
    ) -> Result<Outcome, StoreError> {
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Write { path, source }
        };
        let dir = disk::parent(&self.path).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(write_error(&self.path))?;
        let lock = disk::lock_path(&self.path);
        let lock_error = |source| StoreError::Lock {
            path: lock.clone(),
            source,
        };
        disk::with_lock(&lock, lock_error, || {
            disk::remove_stale_temps(&self.path);
            let verified_at = SystemTime::now();
            let on_disk = disk::read(&self.path).map_err(|source| StoreError::Read {
                path: self.path.clone(),
                source,
            })?;
            let mode = match &on_disk {
                OnDisk::File { mode, .. } => *mode,
                OnDisk::Missing | OnDisk::NotAFile => NEW_FILE_MODE,
            };
            let (quarantined, current) = match self.reuse_or_classify(on_disk, verified_at) {
                Loaded::Good { audiences, seen } => {
                    self.audiences = audiences;
                    self.seen = seen;
                    (None, self.current_text())
                }
                Loaded::Bad { reason } => (Some(self.quarantine_locked(reason)?), None),
            };
            let edit_error = |reason| StoreError::Edit {
                path: self.path.clone(),
                reason,
            };
            let mut doc = document::document(current.as_deref()).map_err(edit_error)?;
            let changed = edit(&mut doc).map_err(edit_error)?;
            let text = doc.to_string();
            if !changed || current.as_deref() == Some(text.as_str()) {
                return Ok(Outcome {
                    changed: false,
                    quarantined,
                });
            }
            // Validation on write: what we write must load.
            let audiences = document::parse(&text, self.home.as_deref()).map_err(edit_error)?;
            let written_at = SystemTime::now();
            let fingerprint = disk::write_atomic(&self.path, text.as_bytes(), mode)
                .map_err(write_error(&self.path))?;
            self.audiences = audiences;
            self.seen = Seen::File {
                bytes: text.into_bytes(),
                fingerprint,
                verified_at: written_at,
            };
            Ok(Outcome {
                changed: true,
                quarantined,
            })
        })
    }

    /// The content last seen, as text.
    fn current_text(&self) -> Option<String> {
        match &self.seen {
            Seen::Missing => None,
            Seen::File { bytes, .. } => std::str::from_utf8(bytes).ok().map(str::to_owned),
        }
    }
}
