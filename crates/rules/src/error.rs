//! The one error type of policy loading, with file, line and column on every diagnostic.
//!
//! Every error that comes from a policy file carries a [`Location`] (file name, 1-based line
//! and column) and a labelled span over the file's text, so `miette` can draw the offending
//! line. Messages are lowercase without a final period, user input is in backticks, and the fix
//! is in [`PolicyError::help_text`].

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};

/// Where in a policy file an error is: file name and 1-based line and column (in characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Location {
    /// The file name as given in [`crate::PolicySource::name`].
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The text of one policy file, shared by every error that points into it.
#[derive(Clone, Debug)]
pub(crate) struct SourceFile {
    /// The file name.
    pub(crate) name: Arc<str>,
    /// The whole text.
    text: SourceText,
    /// Byte offsets of the start of every line.
    line_starts: Arc<[usize]>,
}

/// A file's text: text compiled into the binary (the embedded default policy) is never
/// copied; other text is copied once and shared.
#[derive(Clone, Debug)]
enum SourceText {
    Static(&'static str),
    Shared(Arc<str>),
}

impl SourceText {
    fn as_str(&self) -> &str {
        match self {
            Self::Static(text) => text,
            Self::Shared(text) => text,
        }
    }
}

/// The byte offset of the start of every line of `text`.
fn line_starts(text: &str) -> Arc<[usize]> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

impl SourceFile {
    /// A source file from a name and its text.
    pub(crate) fn new(name: &str, text: &str) -> Self {
        Self {
            name: Arc::from(name),
            text: SourceText::Shared(Arc::from(text)),
            line_starts: line_starts(text),
        }
    }

    /// A source file whose text is compiled into the binary, with its line starts when they
    /// are known (they must be those of `text`).
    pub(crate) fn new_static(
        name: &str,
        text: &'static str,
        known_line_starts: Option<Vec<usize>>,
    ) -> Self {
        Self {
            name: Arc::from(name),
            text: SourceText::Static(text),
            line_starts: known_line_starts.map_or_else(|| line_starts(text), Arc::from),
        }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &str {
        self.text.as_str()
    }

    /// The location of byte offset `at` (clamped to the text, moved back to a char boundary).
    pub(crate) fn location(&self, at: usize) -> Location {
        let text = self.text();
        let mut at = at.min(text.len());
        while at > 0 && !text.is_char_boundary(at) {
            at -= 1;
        }
        // The number of line starts at or before `at` is the 1-based line.
        let line = self
            .line_starts
            .partition_point(|start| *start <= at)
            .max(1);
        let line_start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let column = text.get(line_start..at).map_or(0, |s| s.chars().count()) + 1;
        Location {
            file: self.name.to_string(),
            line,
            column,
        }
    }

    /// An error made by `kind` (a variant of [`PolicyError`] such as
    /// [`PolicyError::DuplicateId`]) at byte range `span`, with `message`, a `label` and an
    /// optional `help`.
    pub(crate) fn error(
        &self,
        kind: fn(Box<Located>) -> PolicyError,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) -> PolicyError {
        let start = span.start.min(self.text().len());
        let end = span.end.clamp(start, self.text().len());
        kind(Box::new(Located {
            message: message.into(),
            help,
            label: label.into(),
            location: self.location(start),
            source: NamedSource::new(
                self.name.as_ref(),
                match &self.text {
                    SourceText::Static(text) => Arc::from(*text),
                    SourceText::Shared(text) => Arc::clone(text),
                },
            ),
            span: SourceSpan::from(start..end),
        }))
    }
}

/// One diagnostic that points into a policy file.
#[derive(Debug)]
pub struct Located {
    message: String,
    help: Option<String>,
    label: String,
    location: Location,
    source: NamedSource<Arc<str>>,
    span: SourceSpan,
}

impl Located {
    /// The message (lowercase, no final period).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How to fix it, if known.
    #[must_use]
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The text of the label drawn under the offending source.
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// File, line and column of the start of the offending source.
    #[must_use]
    pub const fn location(&self) -> &Location {
        &self.location
    }

    /// The byte range of the offending source.
    #[must_use]
    pub fn span(&self) -> std::ops::Range<usize> {
        self.span.offset()..self.span.offset() + self.span.len()
    }
}

/// Everything that can go wrong when loading a policy: one variant per kind of problem. An
/// invalid file is refused whole: no partial policy is ever produced.
///
/// Every variant but [`PolicyError::UnknownName`] and [`PolicyError::Several`] points into a
/// file ([`PolicyError::located`]). [`PolicyError::code_str`] groups the variants into the
/// stable machine-readable codes `shellgate::policy::{syntax,schema,invalid,example}`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file is not valid TOML. Code `syntax`.
    #[error("{}", .0.message)]
    Syntax(Box<Located>),
    /// A key the table does not take. Code `schema`.
    #[error("{}", .0.message)]
    UnknownKey(Box<Located>),
    /// A key the table needs is missing. Code `schema`.
    #[error("{}", .0.message)]
    MissingKey(Box<Located>),
    /// A value of the wrong type (a number where a string belongs). Code `schema`.
    #[error("{}", .0.message)]
    WrongType(Box<Located>),
    /// An id (or a catalogued verb, or a token class in `order`) declared twice. Code `invalid`.
    #[error("{}", .0.message)]
    DuplicateId(Box<Located>),
    /// A name that is not one of the known ones: a category, decision, role, zone placeholder,
    /// wrapper mode, operating system or token class, or the id of a rule or the name of an
    /// audience that does not exist. Code `invalid`.
    #[error("{}", .0.message)]
    UnknownValue(Box<Located>),
    /// A glob that does not compile. Code `invalid`.
    #[error("{}", .0.message)]
    BadGlob(Box<Located>),
    /// A regex that does not compile. Code `invalid`.
    #[error("{}", .0.message)]
    BadRegex(Box<Located>),
    /// A layer doing what it may not: a project layer loosening the policy, `disable` outside
    /// a user layer, a later layer widening a setting, layers out of order. Code `invalid`.
    #[error("{}", .0.message)]
    LayerNotAllowed(Box<Located>),
    /// A value that must not be empty is. Code `invalid`.
    #[error("{}", .0.message)]
    EmptyValue(Box<Located>),
    /// A value of the right type that is not acceptable: not kebab-case, not a flag, not one
    /// word, out of range, not absolute, an unsupported version, a malformed grant. Code
    /// `invalid`.
    #[error("{}", .0.message)]
    BadValue(Box<Located>),
    /// An entry whose keys do not fit together: a deny rule without a matcher or with `raw`
    /// beside other matchers, a wrapper missing the keys of its mode, a shell that never finds
    /// code, `disable` without a reason. Code `invalid`.
    #[error("{}", .0.message)]
    Inconsistent(Box<Located>),
    /// A deny rule does not match one of its `match` examples, or matches a `not_match` one.
    /// Code `example`.
    #[error("{}", .0.message)]
    ExampleFailed(Box<Located>),
    /// A name given outside any policy file (such as a layer name on the command line) is not
    /// known. Code `unknown_name`.
    #[error("unknown {what} `{name}`")]
    UnknownName {
        /// What kind of name (`layer`).
        what: &'static str,
        /// The name as given.
        name: String,
        /// The fix.
        help: String,
    },
    /// Several errors, in file order. Never empty; never nested. Code `several`.
    #[error("{} errors in the policy", .0.len())]
    Several(Vec<PolicyError>),
}

impl PolicyError {
    /// The located diagnostic, for every variant that points into a file.
    #[must_use]
    pub fn located(&self) -> Option<&Located> {
        match self {
            Self::Syntax(l)
            | Self::UnknownKey(l)
            | Self::MissingKey(l)
            | Self::WrongType(l)
            | Self::DuplicateId(l)
            | Self::UnknownValue(l)
            | Self::BadGlob(l)
            | Self::BadRegex(l)
            | Self::LayerNotAllowed(l)
            | Self::EmptyValue(l)
            | Self::BadValue(l)
            | Self::Inconsistent(l)
            | Self::ExampleFailed(l) => Some(l),
            Self::UnknownName { .. } | Self::Several(_) => None,
        }
    }

    /// File, line and column, when the error points into a file.
    #[must_use]
    pub fn location(&self) -> Option<&Location> {
        self.located().map(Located::location)
    }

    /// How to fix it, if known.
    #[must_use]
    pub fn help_text(&self) -> Option<&str> {
        match self {
            Self::UnknownName { help, .. } => Some(help),
            other => other.located().and_then(Located::help),
        }
    }

    /// The individual errors: the errors of [`PolicyError::Several`], or this one alone.
    #[must_use]
    pub fn errors(&self) -> Vec<&Self> {
        match self {
            Self::Several(all) => all.iter().collect(),
            other => vec![other],
        }
    }

    /// A stable machine-readable code such as `shellgate::policy::schema`: the group of the
    /// variant (see each variant).
    #[must_use]
    pub const fn code_str(&self) -> &'static str {
        match self {
            Self::Syntax(_) => "shellgate::policy::syntax",
            Self::UnknownKey(_) | Self::MissingKey(_) | Self::WrongType(_) => {
                "shellgate::policy::schema"
            }
            Self::DuplicateId(_)
            | Self::UnknownValue(_)
            | Self::BadGlob(_)
            | Self::BadRegex(_)
            | Self::LayerNotAllowed(_)
            | Self::EmptyValue(_)
            | Self::BadValue(_)
            | Self::Inconsistent(_) => "shellgate::policy::invalid",
            Self::ExampleFailed(_) => "shellgate::policy::example",
            Self::UnknownName { .. } => "shellgate::policy::unknown_name",
            Self::Several(_) => "shellgate::policy::several",
        }
    }

    /// Combines errors: none → `None`, one → itself, more → [`PolicyError::Several`] (flattened).
    #[must_use]
    pub fn combine(errors: Vec<Self>) -> Option<Self> {
        let mut flat = Vec::with_capacity(errors.len());
        for error in errors {
            match error {
                Self::Several(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() > 1 {
            Some(Self::Several(flat))
        } else {
            flat.pop()
        }
    }
}

impl Diagnostic for PolicyError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code_str()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help_text()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.located().map(|l| &l.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.located().map(|l| {
            Box::new(std::iter::once(LabeledSpan::new_with_span(
                Some(l.label.clone()),
                l.span,
            ))) as Box<dyn Iterator<Item = LabeledSpan>>
        })
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        match self {
            Self::Several(all) => Some(Box::new(all.iter().map(|e| e as &dyn Diagnostic))),
            _ => None,
        }
    }
}

/// The candidate closest to `input` by edit distance, if it is close enough to be a likely
/// typo (at most a third of the longer length, and at most 3 edits).
#[must_use]
pub(crate) fn closest<'c, I>(input: &str, candidates: I) -> Option<&'c str>
where
    I: IntoIterator<Item = &'c str>,
{
    let mut best: Option<(usize, &'c str)> = None;
    for candidate in candidates {
        if candidate == input {
            continue;
        }
        let distance = edit_distance(input, candidate);
        let longest = input.chars().count().max(candidate.chars().count());
        let limit = (longest / 3).clamp(1, 3);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// "did you mean `x`?" for the closest candidate, if any.
impl PolicyError {
    /// `name` is not one of the `known` names of a `what` (`layer`): the help is the closest
    /// known name, or `fallback` when none is close.
    pub(crate) fn unknown_name<'k>(
        what: &'static str,
        name: &str,
        known: impl IntoIterator<Item = &'k str>,
        fallback: &str,
    ) -> Self {
        Self::UnknownName {
            what,
            name: name.to_owned(),
            help: did_you_mean(name, known).unwrap_or_else(|| fallback.to_owned()),
        }
    }
}

impl PolicyError {
    /// `name` is not one of `names`, every name of a `what` (`decision`): the help is the
    /// closest name, or else all of them (`a decision is `Approved`, `NeedsPrompt` or
    /// `HardDenied``).
    pub(crate) fn unknown_named(what: &'static str, name: &str, names: &[&str]) -> Self {
        let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        let listed = match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        Self::unknown_name(
            what,
            name,
            names.iter().copied(),
            &format!("a {what} is {listed}"),
        )
    }
}

pub(crate) fn did_you_mean<'c, I>(input: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'c str>,
{
    closest(input, candidates).map(|c| format!("did you mean `{c}`?"))
}

/// Levenshtein distance over chars (insertions, deletions, substitutions, and adjacent
/// transpositions counted as one edit).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows of the optimal-string-alignment distance table: two rows back, one back, current.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        if let Some(first) = cur.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let deletion = prev.get(j + 1).map_or(usize::MAX, |v| v + 1);
            let insertion = cur.get(j).map_or(usize::MAX, |v| v + 1);
            let substitution = prev.get(j).map_or(usize::MAX, |v| v + cost);
            let mut best = deletion.min(insertion).min(substitution);
            let transposed =
                i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca) && ca != cb;
            if transposed {
                best = best.min(two_back.get(j - 1).map_or(usize::MAX, |v| v + 1));
            }
            if let Some(slot) = cur.get_mut(j + 1) {
                *slot = best;
            }
        }
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("verb", "verbs"), 1);
        assert_eq!(edit_distance("verbs", "verb"), 1);
        assert_eq!(edit_distance("destrutive", "destructive"), 1);
        assert_eq!(edit_distance("flgas_any", "flags_any"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_candidate() {
        let keys = ["verb", "flags_any", "flags_all", "args_any"];
        assert_eq!(closest("verbs", keys), Some("verb"));
        assert_eq!(closest("flags_anny", keys), Some("flags_any"));
        assert_eq!(closest("zzzzzzz", keys), None);
        assert_eq!(
            did_you_mean("arg_any", keys).as_deref(),
            Some("did you mean `args_any`?")
        );
    }

    #[test]
    fn location_counts_lines_and_chars() {
        let file = SourceFile::new("p.toml", "a = 1\nbé = 2\nc = 3");
        assert_eq!(file.location(0).to_string(), "p.toml:1:1");
        assert_eq!(file.location(6).to_string(), "p.toml:2:1");
        // `=` after the two-char (three-byte) key `bé ` on line 2.
        assert_eq!(file.location(10).to_string(), "p.toml:2:4");
        assert_eq!(file.location(999).to_string(), "p.toml:3:6");
    }
}
