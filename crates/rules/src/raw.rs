//! The policy file as written: a serde model that keeps source spans for every value an error
//! may need to point at. Every table denies unknown keys. Validation and compilation live in
//! `compile.rs`; nothing here has meaning yet.
//!
//! The model reads TOML, and it also round-trips through a compact binary serde format
//! (postcard): the build script (`build.rs`, which includes this file) parses the embedded
//! `policies/default.toml` once at build time, so loading the embedded default does not parse
//! TOML at run time. Values keep their spans in both forms. A binary format is not
//! human-readable ([`serde::Deserializer::is_human_readable`]), which is how the types below
//! with a TOML-specific reading (spans, `deserialize_any`) pick their binary reading.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// A spanned string.
pub(crate) type Text = Spanned<String>;

/// A spanned list of spanned strings.
pub(crate) type TextList = Spanned<Vec<Text>>;

/// One policy file.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFile {
    pub(crate) version: Option<Spanned<i64>>,
    pub(crate) settings: Option<Spanned<RawSettings>>,
    #[serde(default)]
    pub(crate) deny: Vec<Spanned<RawDeny>>,
    #[serde(default)]
    pub(crate) safe: Vec<Spanned<RawSafe>>,
    #[serde(default)]
    pub(crate) writer: Vec<Spanned<RawSafe>>,
    #[serde(default)]
    pub(crate) repository: Vec<Spanned<RawSafe>>,
    #[serde(default)]
    pub(crate) toolchain: Vec<Spanned<RawSafe>>,
    #[serde(default)]
    pub(crate) network: Vec<Spanned<RawSafe>>,
    #[serde(default)]
    pub(crate) wrapper: Vec<Spanned<RawWrapper>>,
    #[serde(default)]
    pub(crate) shell: Vec<Spanned<RawShell>>,
    #[serde(default)]
    pub(crate) interpreter: Vec<Spanned<RawInterpreter>>,
    #[serde(default)]
    pub(crate) verb: Vec<Spanned<RawVerb>>,
    pub(crate) classify: Option<Spanned<RawClassify>>,
    #[serde(default)]
    pub(crate) audience: BTreeMap<Text, Spanned<RawAudience>>,
    #[serde(default)]
    pub(crate) protected: Vec<Spanned<RawProtected>>,
    #[serde(default)]
    pub(crate) test: Vec<Spanned<RawTest>>,
    pub(crate) disable: Option<TextList>,
    pub(crate) disable_reason: Option<Text>,
}

/// `[settings]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSettings {
    pub(crate) trusted_bin_dirs: Option<TextList>,
    pub(crate) max_shell_depth: Option<Spanned<i64>>,
    pub(crate) disposable: Option<TextList>,
    pub(crate) release_names: Option<TextList>,
    pub(crate) secret_names: Option<TextList>,
}

/// `[[deny]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDeny {
    pub(crate) id: Text,
    pub(crate) category: Text,
    pub(crate) reason: Text,
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) flags_any: Option<Spanned<Vec<Spanned<FlagEntry>>>>,
    pub(crate) flags_all: Option<Spanned<Vec<Spanned<FlagEntry>>>>,
    pub(crate) args_any: Option<TextList>,
    pub(crate) redirect_to: Option<TextList>,
    pub(crate) env: Option<TextList>,
    pub(crate) pipeline: Option<Spanned<RawPipeline>>,
    pub(crate) raw: Option<Text>,
    #[serde(rename = "match", default)]
    pub(crate) match_: Vec<Text>,
    #[serde(default)]
    pub(crate) not_match: Vec<Text>,
}

/// `pipeline = { from = […], to = […] }`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPipeline {
    pub(crate) from: Vec<Spanned<Words>>,
    pub(crate) to: Vec<Spanned<Words>>,
}

/// `[[safe]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSafe {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) why: Text,
    pub(crate) os: Option<TextList>,
    #[serde(default)]
    pub(crate) pure: bool,
    #[serde(default)]
    pub(crate) hooks: bool,
    #[serde(default)]
    pub(crate) writes_cwd: bool,
    pub(crate) unless_bare: Option<Text>,
    #[serde(default)]
    pub(crate) declares: bool,
    #[serde(default)]
    pub(crate) value_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) unless_flags: Vec<Spanned<RawUnlessFlag>>,
    #[serde(default)]
    pub(crate) unless_args: Vec<Spanned<RawUnlessArg>>,
}

/// One `unless_flags` entry.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawUnlessFlag {
    pub(crate) flags: Vec<Text>,
    pub(crate) why: Text,
}

/// One `unless_args` entry.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawUnlessArg {
    pub(crate) pattern: Text,
    pub(crate) why: Text,
}

/// `[[wrapper]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWrapper {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    #[serde(default)]
    pub(crate) privileged: bool,
    #[serde(default)]
    pub(crate) value_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) assignments: bool,
    #[serde(default)]
    pub(crate) positionals: Option<Spanned<i64>>,
    #[serde(default)]
    pub(crate) stop_at: Vec<Text>,
    #[serde(default)]
    pub(crate) exec_options: Vec<Text>,
    #[serde(default)]
    pub(crate) terminators: Vec<Text>,
    #[serde(default)]
    pub(crate) appends_args: bool,
    pub(crate) mode: Option<Text>,
    #[serde(default)]
    pub(crate) cwd_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) query_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) judged_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) flags: Vec<Text>,
    pub(crate) runs: Option<Text>,
    #[serde(default)]
    pub(crate) local_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) local_bins: Vec<Text>,
    pub(crate) why: Option<Text>,
}

/// `[[shell]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawShell {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    #[serde(default)]
    pub(crate) code_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) code_operand: bool,
    #[serde(default)]
    pub(crate) stdin: bool,
    #[serde(default)]
    pub(crate) script_operand: bool,
    #[serde(default)]
    pub(crate) join_args: bool,
    #[serde(default)]
    pub(crate) skip_positionals: Option<Spanned<i64>>,
    #[serde(default)]
    pub(crate) value_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) remote: bool,
    #[serde(default)]
    pub(crate) split_only: bool,
    #[serde(default)]
    pub(crate) privileged: bool,
    pub(crate) why: Option<Text>,
}

/// `[[interpreter]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawInterpreter {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    #[serde(default)]
    pub(crate) code_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) script_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) value_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) query_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) stdin: bool,
    #[serde(default)]
    pub(crate) script_operand: bool,
    #[serde(default)]
    pub(crate) program_operand: bool,
    #[serde(default)]
    pub(crate) unsafe_program: Vec<Text>,
    pub(crate) why: Text,
}

/// `[[verb]]` argument roles.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawVerb {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) operands: Option<Text>,
    pub(crate) first: Option<Text>,
    #[serde(default)]
    pub(crate) first_unless: Vec<Text>,
    pub(crate) last: Option<Text>,
    #[serde(default)]
    pub(crate) options: BTreeMap<Text, Text>,
    #[serde(default)]
    pub(crate) assign: BTreeMap<Text, Text>,
    #[serde(default)]
    pub(crate) value_flags: Vec<Text>,
    #[serde(default)]
    pub(crate) recursive_flags: Vec<Text>,
}

/// `[classify]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawClassify {
    pub(crate) order: Option<TextList>,
    #[serde(default)]
    pub(crate) patterns: BTreeMap<Text, Text>,
}

/// `[audience.NAME]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAudience {
    pub(crate) read: Spanned<ReadZones>,
    pub(crate) write: Vec<Text>,
    #[serde(default)]
    pub(crate) run: Vec<Text>,
}

/// `[[protected]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawProtected {
    pub(crate) id: Text,
    pub(crate) paths: TextList,
    pub(crate) read: Text,
    pub(crate) write: Text,
    pub(crate) why: Text,
}

/// `[[test]]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTest {
    pub(crate) name: Text,
    pub(crate) command: Text,
    pub(crate) cwd: Option<Text>,
    pub(crate) project: Option<Text>,
    pub(crate) home: Option<Text>,
    pub(crate) audience: Option<Text>,
    #[serde(default)]
    pub(crate) zones: Vec<Text>,
    #[serde(default)]
    pub(crate) grants: Vec<Text>,
    pub(crate) expect: Text,
    pub(crate) rule: Option<Text>,
}

/// A command prefix: a list of words, or one string split on whitespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Words(pub(crate) Vec<String>);

impl<'de> Deserialize<'de> for Words {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if !deserializer.is_human_readable() {
            return Vec::deserialize(deserializer).map(Words);
        }
        struct WordsVisitor;
        impl<'de> Visitor<'de> for WordsVisitor {
            type Value = Words;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of words such as [\"git\", \"log\"]")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Words, E> {
                Ok(Words(v.split_whitespace().map(str::to_owned).collect()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Words, A::Error> {
                let mut words = Vec::new();
                while let Some(word) = seq.next_element::<String>()? {
                    words.push(word);
                }
                Ok(Words(words))
            }
        }
        deserializer.deserialize_any(WordsVisitor)
    }
}

/// One flag entry: one spelling, or a list of alternative spellings of the same flag.
#[derive(Debug, Serialize)]
pub(crate) enum FlagEntry {
    /// `"--no-preserve-root"`.
    One(String),
    /// `["-r", "-R", "--recursive"]`.
    Alternatives(Vec<Text>),
}

/// The binary form of [`FlagEntry`] (what `#[derive(Serialize)]` on it writes).
#[derive(Deserialize)]
enum FlagEntryBinary {
    One(String),
    Alternatives(Vec<Text>),
}

impl<'de> Deserialize<'de> for FlagEntry {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if !deserializer.is_human_readable() {
            return Ok(match FlagEntryBinary::deserialize(deserializer)? {
                FlagEntryBinary::One(flag) => Self::One(flag),
                FlagEntryBinary::Alternatives(all) => Self::Alternatives(all),
            });
        }
        struct FlagVisitor;
        impl<'de> Visitor<'de> for FlagVisitor {
            type Value = FlagEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a flag such as \"-f\" or a list of spellings such as [\"-f\", \"--force\"]",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FlagEntry, E> {
                Ok(FlagEntry::One(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FlagEntry, A::Error> {
                let mut all = Vec::new();
                while let Some(flag) = seq.next_element::<Text>()? {
                    all.push(flag);
                }
                Ok(FlagEntry::Alternatives(all))
            }
        }
        deserializer.deserialize_any(FlagVisitor)
    }
}

/// `read = "all"` or a list of zone templates.
#[derive(Debug, Serialize)]
pub(crate) enum ReadZones {
    /// `"all"` (or another string, rejected during validation).
    Word(String),
    /// A list of zone templates.
    List(Vec<Text>),
}

/// The binary form of [`ReadZones`] (what `#[derive(Serialize)]` on it writes).
#[derive(Deserialize)]
enum ReadZonesBinary {
    Word(String),
    List(Vec<Text>),
}

impl<'de> Deserialize<'de> for ReadZones {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if !deserializer.is_human_readable() {
            return Ok(match ReadZonesBinary::deserialize(deserializer)? {
                ReadZonesBinary::Word(word) => Self::Word(word),
                ReadZonesBinary::List(all) => Self::List(all),
            });
        }
        struct ZonesVisitor;
        impl<'de> Visitor<'de> for ZonesVisitor {
            type Value = ReadZones;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"all\" or a list of zones such as [\"{project}\", \"{tmp}\"]")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ReadZones, E> {
                Ok(ReadZones::Word(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ReadZones, A::Error> {
                let mut all = Vec::new();
                while let Some(zone) = seq.next_element::<Text>()? {
                    all.push(zone);
                }
                Ok(ReadZones::List(all))
            }
        }
        deserializer.deserialize_any(ZonesVisitor)
    }
}

/// A value with the byte range of the source text it came from. Equality, order and hashing
/// look at the value only (as with `toml::Spanned`).
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    span: Range<usize>,
    value: T,
}

impl<T> Spanned<T> {
    /// A value with its span.
    pub(crate) const fn new(span: Range<usize>, value: T) -> Self {
        Self { span, value }
    }

    /// The byte range in the source.
    pub(crate) fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The value.
    pub(crate) const fn get_ref(&self) -> &T {
        &self.value
    }

    /// The value, to change.
    pub(crate) const fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Moves the value out (the model is read once: what validation keeps is moved into
    /// the compiled policy rather than copied), leaving the default behind.
    pub(crate) fn take(&mut self) -> T
    where
        T: Default,
    {
        std::mem::take(&mut self.value)
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Spanned<T> {}

impl<T: PartialOrd> PartialOrd for Spanned<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<T: Ord> Ord for Spanned<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}

impl<T: std::hash::Hash> std::hash::Hash for Spanned<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl Borrow<str> for Spanned<String> {
    fn borrow(&self) -> &str {
        &self.value
    }
}

/// TOML: spans from the TOML deserializer. Binary: `(start, end, value)`.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            let spanned = toml::Spanned::<T>::deserialize(deserializer)?;
            let span = spanned.span();
            Ok(Self::new(span, spanned.into_inner()))
        } else {
            let (start, end, value) = <(usize, usize, T)>::deserialize(deserializer)?;
            Ok(Self::new(start..end, value))
        }
    }
}

/// Always `(start, end, value)`: only the binary form is ever written.
impl<T: Serialize> Serialize for Spanned<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.span.start, self.span.end, &self.value).serialize(serializer)
    }
}

/// What the build script writes for the embedded default policy: its raw model, the
/// required literals of its `raw` regexes (see `guard.rs`) by pattern, and where its lines
/// start.
#[derive(Debug, Deserialize, Serialize)]
pub(crate) struct Embedded {
    /// The parsed file.
    pub(crate) file: RawFile,
    /// `raw` pattern → strings one of which occurs in every match.
    pub(crate) guards: BTreeMap<String, Vec<String>>,
    /// The byte offset of the start of every line of the text.
    pub(crate) line_starts: Vec<usize>,
}
