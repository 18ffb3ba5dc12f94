//! Trusted zone directories and the access a zone grant gives.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize, Serializer};
use shellgate_parser::path;

use super::{PatternError, escape_controls};

crate::named_enum! {
    /// The access a zone grant gives.
    ///
    /// `Write` implies `Read`: a writable zone may also be read (see [`Access::allows`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Access {
        /// Reading files inside the zone.
        Read = "read",
        /// Reading and writing files inside the zone.
        Write = "write",
    }
}

impl Access {
    /// Whether a grant with this access covers a use that needs `needed`.
    ///
    /// `Write` covers both; `Read` covers only `Read`.
    #[must_use]
    pub const fn allows(self, needed: Self) -> bool {
        match (self, needed) {
            // A writable zone may be read and written.
            (Self::Write, Self::Read | Self::Write) => true,
            // A readable zone may be read.
            (Self::Read, Self::Read) => true,
            // A read-only zone never allows writing.
            (Self::Read, Self::Write) => false,
        }
    }
}

impl FromStr for Access {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::from_name(text).ok_or_else(|| PatternError::UnknownAccess {
            text: text.to_owned(),
        })
    }
}

/// A trusted zone: an absolute, lexically normalised directory at least two segments deep.
///
/// Built with [`ZonePath::new`], which expands a leading `~`, `~/`, `$HOME` or `${HOME}` against
/// the given home directory, then removes `.` segments, duplicate and trailing `/`, and resolves
/// `..` lexically (without touching the file system, so symbolic links are not followed).
///
/// ```
/// use std::path::Path;
/// use shellgate_rules::pattern::ZonePath;
///
/// let home = Path::new("/home/me");
/// assert_eq!(ZonePath::new("~/src//app/", Some(home)).unwrap().as_str(), "/home/me/src/app");
/// assert!(ZonePath::new("/etc", Some(home)).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ZonePath {
    /// The normalised absolute path, as text.
    text: String,
}

impl ZonePath {
    /// The fewest normal segments a zone may have.
    pub const MIN_DEPTH: usize = 2;

    /// Expands, normalises and validates a zone directory.
    ///
    /// # Errors
    ///
    /// [`PatternError`] when the text is empty or has a control character, uses an expansion
    /// other than `~` or `$HOME` (or `~` with no `home`), is not absolute after expansion, or is
    /// fewer than [`MIN_DEPTH`](Self::MIN_DEPTH) segments deep after normalisation.
    pub fn new(text: &str, home: Option<&Path>) -> Result<Self, PatternError> {
        if text.chars().any(char::is_control) {
            return Err(PatternError::ControlCharacter {
                text: escape_controls(text),
            });
        }
        if text.trim().is_empty() {
            return Err(PatternError::EmptyZone);
        }
        let expanded = expand_home(text, home)?;
        // A Windows prefix is not absolute in our sense.
        let prefixed = matches!(expanded.components().next(), Some(Component::Prefix(_)));
        if !expanded.is_absolute() || prefixed {
            return Err(PatternError::RelativeZone {
                text: text.to_owned(),
            });
        }
        let normal = path::normalize_path(&expanded);
        let Some(normal) = normal.to_str() else {
            return Err(PatternError::NotUtf8 {
                text: text.to_owned(),
            });
        };
        if normal.split('/').filter(|s| !s.is_empty()).count() < Self::MIN_DEPTH {
            return Err(PatternError::TooBroad {
                text: text.to_owned(),
            });
        }
        Ok(Self {
            text: normal.to_owned(),
        })
    }

    /// The normalised path.
    #[must_use]
    pub fn as_path(&self) -> &Path {
        Path::new(&self.text)
    }

    /// The normalised path as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for ZonePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for ZonePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// Expands a leading `~`, `~/`, `$HOME` or `${HOME}` against `home`; any other `~` or `$`
/// prefix is refused rather than guessed.
fn expand_home(text: &str, home: Option<&Path>) -> Result<PathBuf, PatternError> {
    let Some((_, rest)) = path::home_prefix(text) else {
        if text.starts_with(['~', '$']) {
            // `~user` would need the password database; `$PWD` another variable.
            return Err(PatternError::UnsupportedExpansion {
                text: text.to_owned(),
            });
        }
        return Ok(PathBuf::from(text));
    };
    let Some(home) = home else {
        return Err(PatternError::NoHome {
            text: text.to_owned(),
        });
    };
    Ok(match rest.trim_start_matches('/') {
        "" => home.to_path_buf(),
        rest => home.join(rest),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_write_implies_read() {
        assert!(Access::Write.allows(Access::Read));
        assert!(Access::Write.allows(Access::Write));
        assert!(Access::Read.allows(Access::Read));
        assert!(!Access::Read.allows(Access::Write));
        assert_eq!(serde_json::to_string(&Access::Write).unwrap(), "\"write\"");
        assert_eq!(
            serde_json::from_str::<Access>("\"read\"").unwrap(),
            Access::Read
        );
        assert_eq!("write".parse::<Access>(), Ok(Access::Write));
        assert_eq!(
            "rw".parse::<Access>(),
            Err(PatternError::UnknownAccess { text: "rw".into() })
        );
    }

    #[test]
    fn zones_expand_and_normalise() {
        let home = Some(Path::new("/home/u"));
        let cases = [
            ("/home/u", "/home/u"),
            ("/tmp/x", "/tmp/x"),
            ("~", "/home/u"),
            ("~/proj", "/home/u/proj"),
            ("$HOME", "/home/u"),
            ("$HOME/proj/", "/home/u/proj"),
            ("${HOME}/a/b", "/home/u/a/b"),
            ("//tmp///x//", "/tmp/x"),
            ("/tmp/./x/.", "/tmp/x"),
            ("/tmp/x/../y", "/tmp/y"),
            ("/../../tmp/x", "/tmp/x"),
            ("~/../other", "/home/other"),
            // Regression: `~//etc` and `$HOME//etc` were joined as the absolute `/etc`.
            ("~//etc", "/home/u/etc"),
            ("$HOME//etc", "/home/u/etc"),
        ];
        for (text, expected) in cases {
            let zone = ZonePath::new(text, home).unwrap();
            assert_eq!(zone.as_str(), expected, "{text}");
            assert_eq!(zone.as_path(), Path::new(expected), "{text}");
        }
    }

    #[test]
    fn bad_zones_are_rejected() {
        let home = Some(Path::new("/home/u"));
        let cases = [
            ("", PatternError::EmptyZone),
            ("/", PatternError::TooBroad { text: "/".into() }),
            (
                "/etc",
                PatternError::TooBroad {
                    text: "/etc".into(),
                },
            ),
            (
                "/home",
                PatternError::TooBroad {
                    text: "/home".into(),
                },
            ),
            (
                "/home/u/..",
                PatternError::TooBroad {
                    text: "/home/u/..".into(),
                },
            ),
            (
                "/tmp/x/../..",
                PatternError::TooBroad {
                    text: "/tmp/x/../..".into(),
                },
            ),
            (
                "~/..",
                PatternError::TooBroad {
                    text: "~/..".into(),
                },
            ),
            (
                "relative/dir",
                PatternError::RelativeZone {
                    text: "relative/dir".into(),
                },
            ),
            (".", PatternError::RelativeZone { text: ".".into() }),
            (
                "~root/x",
                PatternError::UnsupportedExpansion {
                    text: "~root/x".into(),
                },
            ),
            (
                "$HOMEDIR/x",
                PatternError::UnsupportedExpansion {
                    text: "$HOMEDIR/x".into(),
                },
            ),
            (
                "$PWD/x",
                PatternError::UnsupportedExpansion {
                    text: "$PWD/x".into(),
                },
            ),
            (
                "/tmp/a\nb",
                PatternError::ControlCharacter {
                    text: "/tmp/a\\nb".into(),
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(ZonePath::new(text, home), Err(expected), "{text:?}");
        }
        assert_eq!(
            ZonePath::new("~/x", None),
            Err(PatternError::NoHome { text: "~/x".into() })
        );
        assert_eq!(
            ZonePath::new("~/x", Some(Path::new("relative-home"))),
            Err(PatternError::RelativeZone { text: "~/x".into() })
        );
    }
}
