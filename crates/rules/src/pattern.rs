//! Validated building blocks of a person's grants: verb patterns, trusted zone directories and
//! granted network hosts.
//!
//! Both types validate on construction, so a value that exists is well formed: a
//! [`VerbPattern`] always has a literal prefix and a trailing argument glob, and a [`ZonePath`]
//! is always an absolute, lexically normalised directory at least two segments deep. The trust
//! store validates every grant through these types before it writes it.

/// `Display` and `Serialize` as the grant's validated `text`, and `FromStr` by its `new`.
macro_rules! text_grant {
    ($grant:ty) => {
        impl std::fmt::Display for $grant {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.text)
            }
        }

        impl std::str::FromStr for $grant {
            type Err = crate::pattern::PatternError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::new(text)
            }
        }

        impl serde::Serialize for $grant {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.text)
            }
        }
    };
}

mod host;
mod verb;
mod zone;

pub use host::{HostGrant, PUBLIC_SECOND_LEVEL};
pub use verb::{ArgGlob, PathArg, VerbPattern};
pub use zone::{Access, ZonePath};

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
            "spell the command and its leading arguments literally, such as `git push origin main *`; `*`, `?` and `[` may appear only in the last token, or as a word stem before a final ` *` (`npm run test* *`)"
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
    /// A host grant is empty.
    #[error("the host is empty")]
    #[diagnostic(
        code(shellgate::host::empty),
        help("give a host name, such as `api.github.com`, or `*.example.com` for its subdomains")
    )]
    EmptyHost,
    /// A host grant is a URL or not a host name.
    #[error("`{text}` is not a host: {why}")]
    #[diagnostic(
        code(shellgate::host::not_a_host),
        help(
            "give the host name alone, such as `api.github.com`, or `*.example.com` for its subdomains"
        )
    )]
    NotAHost {
        /// The host as written.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A host wildcard that covers a top-level domain, a public suffix or an IP range.
    #[error("`{text}` would trust too many hosts: {why}")]
    #[diagnostic(
        code(shellgate::host::too_broad),
        help(
            "name the host, such as `api.github.com`, or the subdomains of one registered domain, such as `*.github.com`"
        )
    )]
    HostTooBroad {
        /// The host as written.
        text: String,
        /// What it would cover.
        why: &'static str,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
