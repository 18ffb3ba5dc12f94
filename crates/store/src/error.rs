//! The store's one error type.

use std::io;
use std::path::PathBuf;

use shellgate_rules::PatternError;

/// Everything that can go wrong in the trust store, the session grants or the audit log.
///
/// I/O variants keep the operating system's error as their [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum StoreError {
    /// The trust file exists but cannot be read.
    #[error("cannot read trust file `{}`", path.display())]
    #[diagnostic(
        code(shellgate::store::read),
        help("check that the file and its directory are readable; nothing was changed")
    )]
    Read {
        /// The trust file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The trust file (or its directory) cannot be written.
    #[error("cannot write trust file `{}`", path.display())]
    #[diagnostic(
        code(shellgate::store::write),
        help(
            "check that the directory exists, is a directory and is writable; the trust file was not changed"
        )
    )]
    Write {
        /// The trust file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The lock file beside the trust file cannot be created or locked.
    #[error("cannot lock `{}`", path.display())]
    #[diagnostic(
        code(shellgate::store::lock),
        help(
            "the lock file lives beside the trust file; check that its directory is writable; nothing was changed"
        )
    )]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// An unusable trust file could not be moved aside.
    #[error("trust file `{}` is unusable ({reason}) and cannot be moved aside", path.display())]
    #[diagnostic(
        code(shellgate::store::quarantine),
        help("fix or move the file by hand, then try again; shellgate did not change it")
    )]
    Quarantine {
        /// The trust file.
        path: PathBuf,
        /// Why the file is unusable.
        reason: String,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// A pattern, zone or access failed validation.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(#[from] PatternError),
    /// An audience name is empty, too long or has characters outside `[A-Za-z0-9_-]`.
    #[error("audience `{name}` is not a valid name")]
    #[diagnostic(
        code(shellgate::store::audience),
        help("use 1 to 64 letters, digits, `-` or `_`, such as `personal`")
    )]
    InvalidAudience {
        /// The name as given.
        name: String,
    },
    /// Neither `--trust`, `SHELLGATE_TRUST`, `XDG_CONFIG_HOME` nor `HOME` says where the file is.
    #[error("cannot find where the trust file lives")]
    #[diagnostic(
        code(shellgate::store::location),
        help("pass `--trust FILE`, or set `SHELLGATE_TRUST`, `XDG_CONFIG_HOME` or `HOME`")
    )]
    NoLocation,
    /// The trust file's hand-written layout cannot take the requested edit.
    #[error("cannot edit trust file `{}`: {reason}", path.display())]
    #[diagnostic(
        code(shellgate::store::edit),
        help(
            "the file was not changed; fix its layout by hand (see the trust file format in README.md)"
        )
    )]
    Edit {
        /// The trust file.
        path: PathBuf,
        /// What is in the way.
        reason: String,
    },
    /// The audit log cannot be opened or created.
    #[error("cannot open audit log `{}`", path.display())]
    #[diagnostic(
        code(shellgate::audit::open),
        help("check that the directory exists and is writable")
    )]
    AuditOpen {
        /// The audit log.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// A record could not be appended to the audit log.
    #[error("cannot append to audit log `{}`", path.display())]
    #[diagnostic(
        code(shellgate::audit::write),
        help("check free space and permissions; earlier records are unaffected")
    )]
    AuditWrite {
        /// The audit log.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The audit log cannot be read.
    #[error("cannot read audit log `{}`", path.display())]
    #[diagnostic(code(shellgate::audit::read), help("check that the file is readable"))]
    AuditRead {
        /// The audit log.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// One line of the audit log is not a record.
    #[error("audit log `{}` line {line} is not a record: {reason}", path.display())]
    #[diagnostic(
        code(shellgate::audit::record),
        help(
            "the line was skipped; a line cut short usually means a writer was killed mid-record"
        )
    )]
    AuditRecord {
        /// The audit log.
        path: PathBuf,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A record could not be encoded as JSON.
    #[error("cannot encode an audit record")]
    #[diagnostic(
        code(shellgate::audit::encode),
        help("this is a bug in shellgate; please report it")
    )]
    AuditEncode {
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
}
