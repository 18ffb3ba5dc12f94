//! File-system primitives: reading with a change fingerprint, the sidecar lock, atomic
//! replacement and quarantine.

use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::time;

/// How long after a file's last change a matching fingerprint is still not trusted, because a
/// second change within the file system's timestamp granularity could leave it unchanged.
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// What identifies one version of a file without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Fingerprint {
    /// The fingerprint of a file's metadata.
    pub(crate) fn of(meta: &Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The later of the modification and status-change times.
    fn changed_at(&self) -> SystemTime {
        let to_time = |(secs, nanos): (i64, i64)| {
            let secs = u64::try_from(secs).unwrap_or(0);
            let nanos = u32::try_from(nanos).unwrap_or(0);
            UNIX_EPOCH + Duration::new(secs, nanos)
        };
        to_time(self.mtime).max(to_time(self.ctime))
    }

    /// Whether a later change could hide behind this fingerprint: the file changed so close to
    /// `verified_at` (when its content was last read) that a second change in the same timestamp
    /// tick would look the same.
    pub(crate) fn is_racy(&self, verified_at: SystemTime) -> bool {
        self.changed_at() + RACY_WINDOW >= verified_at
    }
}

/// What is at the trust file's path.
pub(crate) enum OnDisk {
    /// Nothing.
    Missing,
    /// A directory (or another non-file).
    NotAFile,
    /// A regular file, its content and its fingerprint taken from the same open handle.
    File {
        bytes: Vec<u8>,
        fingerprint: Fingerprint,
        mode: u32,
    },
}

/// Reads whatever is at `path`.
pub(crate) fn read(path: &Path) -> io::Result<OnDisk> {
    // Looked at before opening: opening a named pipe would wait for a writer.
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Ok(OnDisk::NotAFile),
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(OnDisk::Missing),
        _ => {}
    }
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(OnDisk::Missing),
        Err(err) if err.kind() == io::ErrorKind::IsADirectory => return Ok(OnDisk::NotAFile),
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(OnDisk::NotAFile);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(OnDisk::File {
        bytes,
        fingerprint: Fingerprint::of(&meta),
        mode: meta.mode() & 0o7777,
    })
}

/// The path of the sidecar lock file: `trust.toml.lock` beside `trust.toml`.
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    sibling(path, "", ".lock")
}

/// `dir/<prefix><file name><suffix>`.
fn sibling(path: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "trust.toml".into(), |name| name.to_string_lossy());
    parent(path).join(format!("{prefix}{name}{suffix}"))
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The prefix of this store's temporary files.
fn temp_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(|| "trust.toml".into(), |name| name.to_string_lossy());
    format!(".{name}.")
}

/// Suffix of this store's temporary files.
const TEMP_SUFFIX: &str = ".tmp";

/// Runs `f` while holding the exclusive advisory lock on the sidecar lock file.
///
/// The lock is on a separate file because the trust file itself is replaced by rename, which
/// would leave a lock on the old inode protecting nothing.
pub(crate) fn with_lock<T, E>(
    lock: &Path,
    on_error: impl FnOnce(io::Error) -> E,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(lock)
    {
        Ok(file) => file,
        Err(err) => return Err(on_error(err)),
    };
    let mut lock = fd_lock::RwLock::new(file);
    let guard = match lock.write() {
        Ok(guard) => guard,
        Err(err) => return Err(on_error(err)),
    };
    let result = f();
    drop(guard);
    result
}

/// Deletes temporary files a killed writer left behind. Call only while holding the lock: then
/// no other writer can be using one.
pub(crate) fn remove_stale_temps(path: &Path) {
    let prefix = temp_prefix(path);
    let Ok(entries) = fs::read_dir(parent(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(TEMP_SUFFIX) {
            // Best effort: a leftover we cannot delete is harmless.
            let _ignored = fs::remove_file(entry.path());
        }
    }
}

/// Replaces `path` with `bytes` atomically: a temporary file in the same directory, written and
/// `sync_all`ed, renamed over `path`, then the directory synced. Returns the new fingerprint.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> io::Result<Fingerprint> {
    let dir = parent(path);
    let mut temp = tempfile::Builder::new()
        .prefix(&temp_prefix(path))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    temp.as_file()
        .set_permissions(Permissions::from_mode(mode))?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    // On failure the temporary file is dropped, which deletes it.
    let file = temp.persist(path).map_err(|err| err.error)?;
    let fingerprint = Fingerprint::of(&file.metadata()?);
    sync_dir(dir)?;
    Ok(fingerprint)
}

/// Replaces `path` with `bytes` atomically (as the trust file is written: a temporary file in
/// the same directory, `sync_all`, rename, directory sync), with permissions `mode`. For other
/// files the tools edit, such as an agent's settings.
///
/// # Errors
///
/// Any I/O error; `path` is then unchanged.
pub fn replace_file(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    write_atomic(path, bytes, mode).map(|_| ())
}

/// Syncs a directory so a rename in it survives a crash.
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Moves the regular file at `path` to `<name>.quarantine-<UTC time>[-N]`, never overwriting
/// an earlier quarantine. Call only while holding the lock. Returns the new path. Anything
/// else at `path` (a directory, a device, a pipe, a link) is left where it is, with an error:
/// the store was pointed at something that is not its file.
pub(crate) fn quarantine(path: &Path) -> io::Result<PathBuf> {
    if !fs::symlink_metadata(path)?.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file, so it is left where it is",
        ));
    }
    let stamp = time::compact(SystemTime::now());
    for n in 0..10_000_u32 {
        let suffix = if n == 0 {
            format!(".quarantine-{stamp}")
        } else {
            format!(".quarantine-{stamp}-{n}")
        };
        let candidate = sibling(path, "", &suffix);
        match fs::symlink_metadata(&candidate) {
            Ok(_) => continue,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                fs::rename(path, &candidate)?;
                sync_dir(parent(path))?;
                return Ok(candidate);
            }
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "every quarantine name for this second is taken",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed_at(secs: i64) -> Fingerprint {
        Fingerprint {
            dev: 1,
            ino: 2,
            len: 3,
            mtime: (secs, 0),
            ctime: (secs - 1, 500),
        }
    }

    #[test]
    fn a_fingerprint_is_trusted_only_after_the_racy_window() {
        let at = |secs: u64, millis: u64| UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis);
        let print = changed_at(100);
        assert!(print.is_racy(at(100, 0)));
        assert!(print.is_racy(at(101, 999)));
        assert!(print.is_racy(at(102, 0)));
        assert!(!print.is_racy(at(102, 1)));
        assert!(!print.is_racy(at(500, 0)));
        // The later of mtime and ctime counts.
        let ctime_later = Fingerprint {
            ctime: (200, 0),
            ..print
        };
        assert!(ctime_later.is_racy(at(201, 0)));
    }

    #[test]
    fn sidecar_names_sit_beside_the_file() {
        assert_eq!(
            lock_path(Path::new("/a/b/trust.toml")),
            Path::new("/a/b/trust.toml.lock")
        );
        assert_eq!(
            lock_path(Path::new("trust.toml")),
            Path::new("./trust.toml.lock")
        );
        assert_eq!(temp_prefix(Path::new("/a/b/t.toml")), ".t.toml.");
    }
}
