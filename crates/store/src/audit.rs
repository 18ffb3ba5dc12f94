//! The append-only JSONL audit log.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead as _, BufReader, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::{StoreError, time};

/// One decision, as recorded in the audit log (one JSON object per line).
///
/// ```json
/// {"timestamp":"2026-01-02T03:04:05.678Z","command":"git push","cwd":"/home/me/p",
///  "audience":"personal","decision":"NeedsPrompt","rule_ids":["git.push"],"choice":"once"}
/// ```
///
/// A decision taken while something was wrong — a policy that did not load (the embedded
/// default was the floor), a trust file that was quarantined — carries an `error` key with
/// what went wrong; other records have none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When the decision was made: RFC 3339 UTC with milliseconds.
    pub timestamp: String,
    /// The command as the agent wrote it.
    pub command: String,
    /// The working directory it was judged in.
    pub cwd: String,
    /// The audience whose grants applied, such as `personal`.
    pub audience: String,
    /// `Approved`, `NeedsPrompt` or `HardDenied`.
    pub decision: String,
    /// The ids of the rules that decided.
    pub rule_ids: Vec<String>,
    /// What the person chose when asked (such as `once`, `session`, `always`, `deny`), or null
    /// when nobody was asked.
    pub choice: Option<String>,
    /// What went wrong while deciding (such as `team.toml:3:7: unknown field `dny``), or
    /// `None` (the key is then left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The agent whose hook asked (`claude-code`, `codex`, `gemini`); left out when unknown
    /// (records written before it was added, or not by a hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The agent's session id, when the hook payload carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The answer the agent was actually sent, as the agent reads it: `allow`, `ask`, `deny`
    /// or `none` (no opinion, `{}`) — so Codex's deny for a command that needed a person is
    /// `deny` here while `decision` is `NeedsPrompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The reason sent with the answer (what a person must approve, the rules that refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The current time in the audit log's format, such as `2026-01-02T03:04:05.678Z`.
#[must_use]
pub fn timestamp_now() -> String {
    timestamp_at(SystemTime::now())
}

/// `when` in the audit log's format. Timestamps in this format sort as text in time order.
#[must_use]
pub fn timestamp_at(when: SystemTime) -> String {
    time::rfc3339_millis(when)
}

/// An open audit log. Each [`append`](Self::append) is one `write` of one whole line to a file
/// opened with `O_APPEND`, so records from concurrent processes never interleave.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: File,
}

impl AuditLog {
    /// Opens (creating it and its directory when missing) the log at `path` for appending.
    ///
    /// # Errors
    ///
    /// [`StoreError::AuditOpen`] when the file or directory cannot be created or opened.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let path = path.into();
        let open_error = |source| StoreError::AuditOpen {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(open_error)?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(&path)
            .map_err(open_error)?;
        Ok(Self { path, file })
    }

    /// The log's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line, in a single write.
    ///
    /// # Errors
    ///
    /// [`StoreError::AuditEncode`] (a bug) or [`StoreError::AuditWrite`].
    pub fn append(&self, record: &AuditRecord) -> Result<(), StoreError> {
        let mut line =
            serde_json::to_vec(record).map_err(|source| StoreError::AuditEncode { source })?;
        line.push(b'\n');
        (&self.file)
            .write_all(&line)
            .map_err(|source| StoreError::AuditWrite {
                path: self.path.clone(),
                source,
            })
    }

    /// Reads the log at `path` record by record. A missing file has no records.
    ///
    /// # Errors
    ///
    /// [`StoreError::AuditRead`] when the file exists but cannot be opened.
    pub fn read(path: impl Into<PathBuf>) -> Result<AuditReader, StoreError> {
        let path = path.into();
        let lines = match File::open(&path) {
            Ok(file) => Some(BufReader::new(file)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(source) => return Err(StoreError::AuditRead { path, source }),
        };
        Ok(AuditReader {
            path,
            lines,
            line: 0,
        })
    }
}

/// Iterates over an audit log's records. A line that is not a record (such as one cut short
/// by a crash) yields an [`StoreError::AuditRecord`] and reading goes on with the next line.
#[derive(Debug)]
pub struct AuditReader {
    path: PathBuf,
    lines: Option<BufReader<File>>,
    line: u64,
}

impl Iterator for AuditReader {
    type Item = Result<AuditRecord, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.lines.as_mut()?;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    self.lines = None;
                    return Some(Err(StoreError::AuditRead {
                        path: self.path.clone(),
                        source,
                    }));
                }
            }
            self.line += 1;
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let record = serde_json::from_slice(&buf).map_err(|err| StoreError::AuditRecord {
                path: self.path.clone(),
                line: self.line,
                reason: err.to_string(),
            });
            return Some(record);
        }
    }
}
