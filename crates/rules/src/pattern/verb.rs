//! Verb patterns: a literal command prefix and one argument glob.

use serde::{Deserialize, Deserializer};

use super::{PatternError, escape_controls};
use crate::glob::{SegmentGlobs, WordGlob};

/// The characters that make a token a glob.
const GLOB_CHARS: [char; 3] = ['*', '?', '['];

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
/// One more form covers the words that *start with* a literal stem: `npm run test* *` is the
/// prefix `npm run`, then one word starting with `test` (`test`, `test:unit`), then any words.
/// The stem token stands after at least one literal word (never the command itself), holds no
/// glob character but its final `*`, and is followed by exactly ` *` (the text form of Claude
/// Code's `Bash(npm run test:*)`).
///
/// ```
/// use shellgate_rules::pattern::VerbPattern;
///
/// let pattern: VerbPattern = "git  push *".parse().unwrap();
/// assert_eq!(pattern.prefix(), ["git", "push"]);
/// assert_eq!(pattern.arg_glob(), "*");
/// assert_eq!(pattern.as_str(), "git push *");
/// assert!("git push".parse::<VerbPattern>().is_err());
///
/// let stem: VerbPattern = "npm run test* *".parse().unwrap();
/// assert_eq!(stem.prefix(), ["npm", "run"]);
/// assert_eq!(stem.stem(), Some("test"));
/// assert_eq!(stem.arg_glob(), "*");
/// ```
///
/// How a pattern meets a command (the prefix, the stem and the argument glob) is
/// `shellgate_policy::matching`.
///
/// Equality, order and hashing look at the canonical text only (everything else is read from
/// it).
#[derive(Clone, Debug)]
pub struct VerbPattern {
    /// The canonical text: tokens joined by one space.
    text: String,
    /// The literal tokens before the glob (and before the stem); never empty.
    prefix: Vec<String>,
    /// The stem of a `STEM*` token after the prefix: one word starting with it must follow.
    stem: Option<String>,
    /// The trailing argument glob; always contains `*` or `?`.
    arg_glob: String,
    /// What the argument glob matches.
    arg: ArgGlob,
}

impl PartialEq for VerbPattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for VerbPattern {}

impl PartialOrd for VerbPattern {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for VerbPattern {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl std::hash::Hash for VerbPattern {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

/// What the argument glob of a [`VerbPattern`] matches, in the policy glob dialect (see
/// `shellgate_policy::matching` for how it meets a command).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgGlob {
    /// `*`: any remaining words, including none.
    Any,
    /// A glob with a `/`, or starting with `~`: every operand must lie below it.
    Path(PathArg),
    /// Any other glob: every remaining word must match it.
    Word(WordGlob),
}

impl ArgGlob {
    /// Reads an argument glob.
    #[must_use]
    pub fn new(glob: &str) -> Self {
        if glob == "*" {
            Self::Any
        } else if glob.contains('/') || glob.starts_with('~') {
            Self::Path(PathArg::new(glob))
        } else {
            Self::Word(WordGlob::new(glob))
        }
    }
}

/// A path glob split at its first segment with a glob character: the literal directory before
/// it, as written, and the segment globs from there on.
///
/// ```
/// use shellgate_rules::pattern::PathArg;
///
/// let arg = PathArg::new("~/src/*/main.rs");
/// assert_eq!(arg.dir(), "~/src");
/// assert!(arg.below().unwrap().matches(&["app", "main.rs"]));
/// assert!(PathArg::new("/tmp/*/../etc").below().is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathArg {
    /// The literal directory (`""`: the working directory; `/`: the root).
    dir: String,
    /// The segments from the first glob segment on; `None` when one of them is `..`.
    below: Option<SegmentGlobs>,
}

impl PathArg {
    /// Splits a path glob.
    #[must_use]
    pub fn new(glob: &str) -> Self {
        let mut offset = 0_usize;
        for (index, segment) in glob.split('/').enumerate() {
            if segment.contains(GLOB_CHARS) {
                let dir = match index {
                    0 => "",
                    1 if glob.starts_with('/') => "/",
                    _ => glob.get(..offset.saturating_sub(1)).unwrap_or(""),
                };
                let rest = glob.get(offset..).unwrap_or("");
                let climbs = rest.split('/').any(|s| s == "..");
                return Self {
                    dir: dir.to_owned(),
                    below: (!climbs).then(|| SegmentGlobs::new(rest.split('/'))),
                };
            }
            offset += segment.len() + 1;
        }
        Self {
            dir: glob.to_owned(),
            below: Some(SegmentGlobs::new([])),
        }
    }

    /// The literal directory as written (`""`: the working directory).
    #[must_use]
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The globs of the segments below the directory; `None` when the glob climbs out of it
    /// (`..` after a glob segment), so that it matches nothing.
    #[must_use]
    pub const fn below(&self) -> Option<&SegmentGlobs> {
        self.below.as_ref()
    }
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
        let stem = if arg_glob == "*" && tokens.len() > 1 {
            tokens
                .last()
                .and_then(|last| last.strip_suffix('*'))
                .filter(|stem| !stem.is_empty() && !is_glob(stem))
                .map(str::to_owned)
        } else {
            None
        };
        let mut canonical = tokens.join(" ");
        canonical.push(' ');
        canonical.push_str(&arg_glob);
        if stem.is_some() {
            tokens.pop();
        }
        if let Some(token) = tokens.iter().find(|token| is_glob(token)) {
            return Err(PatternError::GlobInPrefix {
                text: text.trim().to_owned(),
                token: token.clone(),
            });
        }
        Ok(Self {
            text: canonical,
            prefix: tokens,
            stem,
            arg: ArgGlob::new(&arg_glob),
            arg_glob,
        })
    }

    /// The literal tokens before the argument glob (at least one), without the stem token.
    #[must_use]
    pub fn prefix(&self) -> &[String] {
        &self.prefix
    }

    /// The stem of a `STEM*` token after the prefix (`test` in `npm run test* *`): the word
    /// after the prefix must start with it.
    #[must_use]
    pub fn stem(&self) -> Option<&str> {
        self.stem.as_deref()
    }

    /// The trailing argument glob, such as `*` or `/tmp/build/*`.
    #[must_use]
    pub fn arg_glob(&self) -> &str {
        &self.arg_glob
    }

    /// What the argument glob matches.
    #[must_use]
    pub const fn arg(&self) -> &ArgGlob {
        &self.arg
    }

    /// The canonical text: the tokens joined by single spaces.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

text_grant!(VerbPattern);

impl<'de> Deserialize<'de> for VerbPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::new(&text).map_err(serde::de::Error::custom)
    }
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
    fn a_stem_token_before_a_final_star_covers_words_that_start_with_it() {
        let p = pattern("npm  run test* *");
        assert_eq!(p.prefix(), ["npm", "run"]);
        assert_eq!(p.stem(), Some("test"));
        assert_eq!(p.arg_glob(), "*");
        assert_eq!(p.as_str(), "npm run test* *");
        assert_eq!(pattern("npm run test *").stem(), None);
        assert_eq!(pattern("make test-*").stem(), None);
    }

    #[test]
    fn a_stem_is_a_literal_word_after_the_command_and_before_a_lone_star() {
        for (text, token) in [
            ("test* *", "test*"),
            ("npm run te?t* *", "te?t*"),
            ("npm run test* lint*", "test*"),
            ("npm * *", "*"),
            ("npm ru* test* *", "ru*"),
        ] {
            assert_eq!(
                VerbPattern::new(text),
                Err(PatternError::GlobInPrefix {
                    text: text.into(),
                    token: token.into(),
                }),
                "{text}"
            );
        }
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
}
