//! Validated building blocks of a person's grants: verb patterns and trusted zone directories.
//!
//! Both types validate on construction, so a value that exists is well formed: a
//! [`VerbPattern`] always has a literal prefix and a trailing argument glob, and a [`ZonePath`]
//! is always an absolute, lexically normalised directory at least two segments deep. The trust
//! store validates every grant through these types before it writes it.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use shellgate_parser::path;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The characters that make a token a glob.
const GLOB_CHARS: [char; 3] = ['*', '?', '['];

/// The access a zone grant gives.
///
/// `Write` implies `Read`: a writable zone may also be read (see [`Access::allows`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reading files inside the zone.
    Read,
    /// Reading and writing files inside the zone.
    Write,
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

    /// The lowercase name used in files and JSON: `read` or `write`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Access {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "read" => Ok(Self::Read),
            "write" => Ok(Self::Write),
            other => Err(PatternError::UnknownAccess {
                text: other.to_owned(),
            }),
        }
    }
}

/// Why a verb pattern, zone path or access name was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PatternError {
    /// The pattern has no tokens.
    #[error("the pattern is empty")]
    #[diagnostic(
        code(shellgate::pattern::empty),
        help("write a command prefix and an argument glob, such as `git push *`")
    )]
    EmptyPattern,
    /// The last token is not a glob.
    #[error("`{text}` has no trailing argument glob")]
    #[diagnostic(
        code(shellgate::pattern::no_trailing_glob),
        help(
            "a pattern needs a trailing argument glob such as `git push *`; add ` *` to allow any arguments"
        )
    )]
    NoTrailingGlob {
        /// The pattern as written.
        text: String,
    },
    /// The pattern is only a glob, with no literal command before it.
    #[error("`{text}` has no literal command before its argument glob")]
    #[diagnostic(
        code(shellgate::pattern::no_prefix),
        help(
            "name the command literally, such as `cargo test *`; a pattern may not trust every command"
        )
    )]
    NoPrefix {
        /// The pattern as written.
        text: String,
    },
    /// A token before the trailing glob contains a glob character.
    #[error("`{token}` in `{text}` is a glob, but only the last token may be one")]
    #[diagnostic(
        code(shellgate::pattern::glob_in_prefix),
        help(
            "spell the command and its leading arguments literally, such as `git push origin main *`; `*`, `?` and `[` may appear only in the last token"
        )
    )]
    GlobInPrefix {
        /// The pattern as written.
        text: String,
        /// The offending token.
        token: String,
    },
    /// The text contains a control character such as a newline or tab.
    #[error("`{text}` contains a control character")]
    #[diagnostic(
        code(shellgate::pattern::control_character),
        help("write it on one line, with plain spaces between the words")
    )]
    ControlCharacter {
        /// The text as written, with control characters escaped.
        text: String,
    },
    /// A zone path is empty.
    #[error("the zone path is empty")]
    #[diagnostic(
        code(shellgate::zone::empty),
        help("give an absolute directory, such as `~/src/project`")
    )]
    EmptyZone,
    /// A zone path is not absolute after `~` and `$HOME` expansion.
    #[error("zone `{text}` is not an absolute path")]
    #[diagnostic(
        code(shellgate::zone::relative),
        help("give an absolute directory such as `/home/me/project`, or start it with `~/`")
    )]
    RelativeZone {
        /// The path as written.
        text: String,
    },
    /// A zone path uses `~user` or another variable than `$HOME`.
    #[error("zone `{text}` uses an expansion that shellgate does not perform")]
    #[diagnostic(
        code(shellgate::zone::unsupported_expansion),
        help(
            "only `~`, `~/…`, `$HOME` and `${{HOME}}` are expanded; write the rest of the path literally"
        )
    )]
    UnsupportedExpansion {
        /// The path as written.
        text: String,
    },
    /// A zone path is `/` or a single directory under it.
    #[error("zone `{text}` is too broad")]
    #[diagnostic(
        code(shellgate::zone::too_broad),
        help(
            "a zone must be at least two directories deep, such as `/home/me` or `/tmp/build`; `/`, `/etc` or `/home` trust too much"
        )
    )]
    TooBroad {
        /// The path as written.
        text: String,
    },
    /// A zone path needs the home directory, which is unknown.
    #[error("zone `{text}` starts with `~` but the home directory is unknown")]
    #[diagnostic(
        code(shellgate::zone::no_home),
        help("set `HOME`, or give the zone as an absolute path")
    )]
    NoHome {
        /// The path as written.
        text: String,
    },
    /// A zone path is not valid UTF-8 after expansion.
    #[error("zone `{text}` is not valid UTF-8 after expansion")]
    #[diagnostic(
        code(shellgate::zone::not_utf8),
        help(
            "zones are stored as text; choose a directory whose name, and the home directory's, are UTF-8"
        )
    )]
    NotUtf8 {
        /// The path as written.
        text: String,
    },
    /// An access name other than `read` or `write`.
    #[error("unknown access `{text}`")]
    #[diagnostic(
        code(shellgate::zone::unknown_access),
        help("access is `read` or `write`")
    )]
    UnknownAccess {
        /// The name as written.
        text: String,
    },
}

/// Escapes control characters so an error message stays on one line.
fn escape_controls(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Whether a token contains a glob character.
fn is_glob(token: &str) -> bool {
    token.contains(GLOB_CHARS)
}

/// A verb pattern: a literal command prefix followed by one argument glob.
///
/// The text is split on whitespace into tokens. Every token but the last is a literal word that
/// must equal the command's cooked word at the same position; the last token is an argument glob
/// (`*`, or a word or path containing `*` or `?`, such as `/tmp/build/*`). Quotes are not
/// interpreted: tokens are compared as written. The canonical text joins the tokens with single
/// spaces.
///
/// ```
/// use shellgate_rules::pattern::VerbPattern;
///
/// let pattern: VerbPattern = "git  push *".parse().unwrap();
/// assert_eq!(pattern.prefix(), ["git", "push"]);
/// assert_eq!(pattern.arg_glob(), "*");
/// assert_eq!(pattern.as_str(), "git push *");
/// assert!("git push".parse::<VerbPattern>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerbPattern {
    /// The canonical text: tokens joined by one space.
    text: String,
    /// The literal tokens before the glob; never empty.
    prefix: Vec<String>,
    /// The trailing argument glob; always contains `*` or `?`.
    arg_glob: String,
}

impl VerbPattern {
    /// Parses and validates a pattern.
    ///
    /// # Errors
    ///
    /// [`PatternError`] when the text is empty, contains a control character, has no trailing
    /// argument glob, has no literal prefix, or has a glob before its last token.
    pub fn new(text: &str) -> Result<Self, PatternError> {
        if text.chars().any(char::is_control) {
            return Err(PatternError::ControlCharacter {
                text: escape_controls(text),
            });
        }
        let mut tokens: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        let Some(arg_glob) = tokens.pop() else {
            return Err(PatternError::EmptyPattern);
        };
        if !arg_glob.contains(['*', '?']) {
            return Err(PatternError::NoTrailingGlob {
                text: text.trim().to_owned(),
            });
        }
        if tokens.is_empty() {
            return Err(PatternError::NoPrefix {
                text: text.trim().to_owned(),
            });
        }
        if let Some(token) = tokens.iter().find(|token| is_glob(token)) {
            return Err(PatternError::GlobInPrefix {
                text: text.trim().to_owned(),
                token: token.clone(),
            });
        }
        let mut canonical = tokens.join(" ");
        canonical.push(' ');
        canonical.push_str(&arg_glob);
        Ok(Self {
            text: canonical,
            prefix: tokens,
            arg_glob,
        })
    }

    /// The literal tokens before the argument glob (at least one).
    #[must_use]
    pub fn prefix(&self) -> &[String] {
        &self.prefix
    }

    /// The trailing argument glob, such as `*` or `/tmp/build/*`.
    #[must_use]
    pub fn arg_glob(&self) -> &str {
        &self.arg_glob
    }

    /// The canonical text: the tokens joined by single spaces.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `words` starts with this pattern's prefix: the first N cooked words equal the N
    /// prefix tokens exactly.
    ///
    /// This is only the prefix half of matching; how the remaining words are matched against
    /// [`arg_glob`](Self::arg_glob) is decided by the policy engine.
    #[must_use]
    pub fn prefix_matches(&self, words: &[&str]) -> bool {
        words.len() >= self.prefix.len()
            && self
                .prefix
                .iter()
                .zip(words)
                .all(|(token, word)| token == word)
    }
}

impl fmt::Display for VerbPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for VerbPattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::new(text)
    }
}

impl Serialize for VerbPattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for VerbPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::new(&text).map_err(serde::de::Error::custom)
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

    fn pattern(text: &str) -> VerbPattern {
        VerbPattern::new(text).unwrap()
    }

    #[test]
    fn patterns_split_into_prefix_and_glob() {
        let cases: [(&str, &[&str], &str, &str); 6] = [
            ("git push *", &["git", "push"], "*", "git push *"),
            ("cargo test *", &["cargo", "test"], "*", "cargo test *"),
            (
                "rm /tmp/build/*",
                &["rm"],
                "/tmp/build/*",
                "rm /tmp/build/*",
            ),
            (
                "  git   push origin main  * ",
                &["git", "push", "origin", "main"],
                "*",
                "git push origin main *",
            ),
            ("ls ?", &["ls"], "?", "ls ?"),
            ("make test-*", &["make"], "test-*", "make test-*"),
        ];
        for (text, prefix, glob, canonical) in cases {
            let parsed = pattern(text);
            assert_eq!(parsed.prefix(), prefix, "{text}");
            assert_eq!(parsed.arg_glob(), glob, "{text}");
            assert_eq!(parsed.as_str(), canonical, "{text}");
            assert_eq!(parsed.to_string(), canonical, "{text}");
            assert_eq!(canonical.parse::<VerbPattern>().unwrap(), parsed, "{text}");
        }
    }

    #[test]
    fn bad_patterns_are_rejected_with_their_text() {
        let cases = [
            ("", PatternError::EmptyPattern),
            ("   ", PatternError::EmptyPattern),
            (
                "git push",
                PatternError::NoTrailingGlob {
                    text: "git push".into(),
                },
            ),
            (
                "rm /tmp/build/[ab]",
                PatternError::NoTrailingGlob {
                    text: "rm /tmp/build/[ab]".into(),
                },
            ),
            ("*", PatternError::NoPrefix { text: "*".into() }),
            (
                "git * *",
                PatternError::GlobInPrefix {
                    text: "git * *".into(),
                    token: "*".into(),
                },
            ),
            (
                "gi? push *",
                PatternError::GlobInPrefix {
                    text: "gi? push *".into(),
                    token: "gi?".into(),
                },
            ),
            (
                "git [ab] *",
                PatternError::GlobInPrefix {
                    text: "git [ab] *".into(),
                    token: "[ab]".into(),
                },
            ),
            (
                "git push *\nrm *",
                PatternError::ControlCharacter {
                    text: "git push *\\nrm *".into(),
                },
            ),
            (
                "git\tpush *",
                PatternError::ControlCharacter {
                    text: "git\\tpush *".into(),
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(VerbPattern::new(text), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn error_messages_and_help_follow_the_style() {
        use miette::Diagnostic as _;
        let err = VerbPattern::new("git push").unwrap_err();
        assert_eq!(err.to_string(), "`git push` has no trailing argument glob");
        assert_eq!(
            err.help().unwrap().to_string(),
            "a pattern needs a trailing argument glob such as `git push *`; add ` *` to allow any arguments"
        );
        let err = ZonePath::new("/etc", None).unwrap_err();
        assert_eq!(err.to_string(), "zone `/etc` is too broad");
        assert!(
            err.help()
                .unwrap()
                .to_string()
                .contains("at least two directories deep")
        );
        let err = ZonePath::new("$USER/x", None).unwrap_err();
        assert_eq!(
            err.help().unwrap().to_string(),
            "only `~`, `~/…`, `$HOME` and `${HOME}` are expanded; write the rest of the path literally"
        );
    }

    #[test]
    fn prefix_matching_compares_the_first_tokens_exactly() {
        let p = pattern("git push origin *");
        assert!(p.prefix_matches(&["git", "push", "origin"]));
        assert!(p.prefix_matches(&["git", "push", "origin", "main", "--force"]));
        assert!(!p.prefix_matches(&["git", "push"]));
        assert!(!p.prefix_matches(&["git", "pull", "origin"]));
        assert!(!p.prefix_matches(&["git", "push", "Origin"]));
        assert!(!p.prefix_matches(&[]));
    }

    #[test]
    fn patterns_serialize_as_strings() {
        let p = pattern("git  push *");
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"git push *\"");
        let back: VerbPattern = serde_json::from_str("\"cargo test *\"").unwrap();
        assert_eq!(back, pattern("cargo test *"));
        let err = serde_json::from_str::<VerbPattern>("\"cargo test\"").unwrap_err();
        assert!(
            err.to_string()
                .contains("`cargo test` has no trailing argument glob"),
            "{err}"
        );
    }

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
