//! The one glob dialect of the policy language.
//!
//! Policy files (`args_any`, `redirect_to`, `env`, `[[protected]]` `paths`, `unless_args`) and
//! a person's grants (the argument glob of a [`crate::VerbPattern`]) write globs in one
//! dialect, globset's:
//!
//! * `*` matches any run of characters within one path segment, `?` one byte that is not `/`;
//! * `**` as a whole segment matches any number of segments (`a/**/b`, `**/x`, `x/**`);
//! * `[…]` is a class (`[!…]` or `[^…]` negated, `a-z` ranges, `]` first is literal), `{a,b}`
//!   alternatives, and `\` escapes the next character.
//!
//! Matched against a *word* rather than a path (`unless_args`, a grant's word glob such as
//! `v*`, or one segment of a grant's path glob), the word is one segment: `*` and `?` also
//! match `/`.
//!
//! A command's own globs (`rm src/*.rs`) are not in this dialect: bash expands them against
//! the file system with its own rules, which the gate emulates where it judges them.

use std::fmt;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// The dialect over paths: `*`, `?` and classes never match `/` between segments.
pub(crate) fn path_glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(true).build()
}

/// The dialect over one word or segment: `/` is an ordinary character.
pub(crate) fn word_glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(false).build()
}

/// One glob over a word, compiled on first use. A glob that cannot be compiled (such as an
/// unclosed `[`) matches nothing: what it would grant is left to a person.
#[derive(Clone)]
pub struct WordGlob {
    text: String,
    matcher: OnceLock<Option<GlobMatcher>>,
}

impl WordGlob {
    /// A glob as written.
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            matcher: OnceLock::new(),
        }
    }

    /// The glob as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the whole of `word` matches.
    #[must_use]
    pub fn is_match(&self, word: &str) -> bool {
        self.matcher
            .get_or_init(|| word_glob(&self.text).ok().map(|g| g.compile_matcher()))
            .as_ref()
            .is_some_and(|m| m.is_match(word))
    }
}

impl fmt::Debug for WordGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WordGlob").field(&self.text).finish()
    }
}

impl PartialEq for WordGlob {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for WordGlob {}

/// Globs over one word (`/` is an ordinary character) as one set, compiled on first use.
/// When the set cannot be built every word matches: the policy's globs are checked when it
/// loads, and a set that still fails can only make the gate ask more.
#[derive(Clone, Debug)]
pub(crate) struct WordGlobSet {
    patterns: Vec<String>,
    set: OnceLock<Option<GlobSet>>,
}

impl WordGlobSet {
    /// A set compiled when first matched.
    pub(crate) const fn new(patterns: Vec<String>) -> Self {
        Self {
            patterns,
            set: OnceLock::new(),
        }
    }

    /// The globs, as written.
    #[cfg(test)]
    pub(crate) fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether any glob matches the whole of `word`.
    pub(crate) fn is_match(&self, word: &str) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        self.set
            .get_or_init(|| {
                let mut builder = GlobSetBuilder::new();
                for pattern in &self.patterns {
                    builder.add(word_glob(pattern).ok()?);
                }
                builder.build().ok()
            })
            .as_ref()
            .is_none_or(|set| set.is_match(word))
    }
}

/// One segment of a [`SegmentGlobs`] pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of segments.
    AnyDepth,
    /// `*`: any one segment (at the end: anything below).
    Any,
    /// Any other glob over one segment.
    Glob(WordGlob),
}

/// Globs over the segments of a path below a directory, as a grant's path glob has them after
/// its literal directory (`*/main.rs` in `src/*/main.rs`). A final `*` or `**` matches anything
/// strictly below, at any depth; `**` elsewhere matches any number of segments; any other
/// segment is a glob over exactly one segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentGlobs {
    segments: Vec<Segment>,
}

impl SegmentGlobs {
    /// The globs of `segments` (empty ones and `.` are left out).
    #[must_use]
    pub fn new<'a>(segments: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            segments: segments
                .into_iter()
                .filter(|s| !s.is_empty() && *s != ".")
                .map(|s| match s {
                    "**" => Segment::AnyDepth,
                    "*" => Segment::Any,
                    glob => Segment::Glob(WordGlob::new(glob)),
                })
                .collect(),
        }
    }

    /// Whether the segment names of a path below the directory match.
    #[must_use]
    pub fn matches(&self, names: &[&str]) -> bool {
        match_segments(&self.segments, names)
    }
}

fn match_segments(globs: &[Segment], names: &[&str]) -> bool {
    match (globs.split_first(), names.split_first()) {
        (None, None) => true,
        (None, Some(_)) => false,
        (Some((glob, rest)), _)
            if *glob == Segment::AnyDepth || (*glob == Segment::Any && rest.is_empty()) =>
        {
            if rest.is_empty() {
                // A final `*` or `**`: anything strictly below.
                return !names.is_empty();
            }
            (0..=names.len())
                .any(|skip| match_segments(rest, names.get(skip..).unwrap_or_default()))
        }
        (Some(_), None) => false,
        (Some((glob, rest)), Some((name, names))) => {
            let one = match glob {
                Segment::Any | Segment::AnyDepth => true,
                Segment::Glob(glob) => glob.is_match(name),
            };
            one && match_segments(rest, names)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_globs_take_the_word_as_one_segment() {
        let corpus = include_str!("../tests/cases/glob.toml");
        shellgate_testkit::check_verdicts(corpus, "word_glob", |glob, word| {
            WordGlob::new(glob).is_match(word)
        });
    }

    #[test]
    fn segment_globs() {
        let cases: [(&[&str], &[&str], bool); 12] = [
            (&["*"], &["a"], true),
            (&["*"], &["a", "b"], true),
            (&["*"], &[], false),
            (&["**"], &["a", "b"], true),
            (&["**", "x"], &["x"], true),
            (&["**", "x"], &["a", "b", "x"], true),
            (&["**", "x"], &["a", "b", "y"], false),
            (&["*", "x"], &["a", "x"], true),
            (&["*", "x"], &["a", "b", "x"], false),
            (&["*.log"], &["a.log"], true),
            (&["*.log"], &["a", "b.log"], false),
            (&[], &[], true),
        ];
        for (globs, names, expected) in cases {
            assert_eq!(
                SegmentGlobs::new(globs.iter().copied()).matches(names),
                expected,
                "{globs:?} {names:?}"
            );
        }
    }
}
