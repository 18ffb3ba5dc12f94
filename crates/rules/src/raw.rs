//! The policy file as written: a model that keeps source spans for every value an error may
//! need to point at, read from the file's tree (`tree.rs`) by `read.rs`. Each table's reader
//! sits beside its type: the keys it reads are the keys the table takes, and any other key is
//! reported as unknown. Validation and compilation live in `compile.rs`; nothing here has
//! meaning yet.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::ops::Range;

use crate::condition::{ROWS, Row};
use crate::read::{Read, Reader, read_table};
use crate::tree::{At, Value};

/// A spanned string.
pub(crate) type Text = Spanned<String>;

/// A spanned list of spanned strings.
pub(crate) type TextList = Spanned<Vec<Text>>;

/// One policy file.
#[derive(Debug, Default)]
pub(crate) struct RawFile {
    pub(crate) version: Option<Spanned<i64>>,
    pub(crate) settings: Option<Spanned<RawSettings>>,
    pub(crate) deny: Vec<Spanned<RawDeny>>,
    pub(crate) safe: Vec<Spanned<RawSafe>>,
    pub(crate) wrapper: Vec<Spanned<RawWrapper>>,
    pub(crate) shell: Vec<Spanned<RawShell>>,
    pub(crate) interpreter: Vec<Spanned<RawInterpreter>>,
    pub(crate) verb: Vec<Spanned<RawVerb>>,
    pub(crate) classify: Option<Spanned<RawClassify>>,
    pub(crate) audience: BTreeMap<Text, Spanned<RawAudience>>,
    pub(crate) protected: Vec<Spanned<RawProtected>>,
    pub(crate) test: Vec<Spanned<RawTest>>,
    pub(crate) disable: Option<TextList>,
    pub(crate) disable_reason: Option<Text>,
}

/// `[settings]`.
#[derive(Debug, Default)]
pub(crate) struct RawSettings {
    pub(crate) trusted_bin_dirs: Option<TextList>,
    pub(crate) max_shell_depth: Option<Spanned<i64>>,
}

/// `[[deny]]`.
#[derive(Debug, Default)]
pub(crate) struct RawDeny {
    pub(crate) id: Text,
    pub(crate) category: Text,
    pub(crate) reason: Text,
    /// The conditions written, in the order of the condition table (`condition.rs`).
    pub(crate) conditions: Vec<RawCondition>,
    pub(crate) match_: Vec<Text>,
    pub(crate) not_match: Vec<Text>,
}

/// One condition of a `[[deny]]` table as written.
#[derive(Debug)]
pub(crate) struct RawCondition {
    /// Its row of the condition table.
    pub(crate) row: &'static Row,
    /// Where its value is.
    pub(crate) span: Range<usize>,
    /// The value, read as its row's shape says.
    pub(crate) value: RawValue,
}

/// A condition's value as written, by shape.
#[derive(Debug)]
pub(crate) enum RawValue {
    /// A command prefix.
    Words(Spanned<Words>),
    /// Flag entries.
    Flags(Spanned<Vec<Spanned<FlagEntry>>>),
    /// Globs.
    Globs(TextList),
    /// `{ from = […], to = […] }`.
    Pipeline(Spanned<RawPipeline>),
    /// A string (a regex).
    Text(Text),
}

/// `pipeline = { from = […], to = […] }`.
#[derive(Debug, Default)]
pub(crate) struct RawPipeline {
    pub(crate) from: Vec<Spanned<Words>>,
    pub(crate) to: Vec<Spanned<Words>>,
}

/// `[[safe]]`.
#[derive(Debug, Default)]
pub(crate) struct RawSafe {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) why: Text,
    pub(crate) os: Option<TextList>,
    pub(crate) pure: bool,
    pub(crate) value_flags: Vec<Text>,
    pub(crate) unless_flags: Vec<Spanned<RawUnlessFlag>>,
    pub(crate) unless_args: Vec<Spanned<RawUnlessArg>>,
}

/// One `unless_flags` entry.
#[derive(Debug, Default)]
pub(crate) struct RawUnlessFlag {
    pub(crate) flags: Vec<Text>,
    pub(crate) why: Text,
}

/// One `unless_args` entry.
#[derive(Debug, Default)]
pub(crate) struct RawUnlessArg {
    pub(crate) pattern: Text,
    pub(crate) why: Text,
}

/// `[[wrapper]]`.
#[derive(Debug, Default)]
pub(crate) struct RawWrapper {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) privileged: bool,
    pub(crate) mode: Option<Text>,
    pub(crate) why: Option<Text>,
    /// `prefix` and `strip`.
    pub(crate) value_flags: Option<Spanned<Vec<Text>>>,
    pub(crate) cwd_flags: Option<Spanned<Vec<Text>>>,
    pub(crate) judged_flags: Option<Spanned<Vec<Text>>>,
    /// `prefix` only.
    pub(crate) assignments: Option<Spanned<bool>>,
    pub(crate) positionals: Option<Spanned<i64>>,
    pub(crate) stop_at: Option<Spanned<Vec<Text>>>,
    pub(crate) query_flags: Option<Spanned<Vec<Text>>>,
    pub(crate) appends_args: Option<Spanned<bool>>,
    /// `exec-option` only.
    pub(crate) exec_options: Option<Spanned<Vec<Text>>>,
    pub(crate) terminators: Option<Spanned<Vec<Text>>>,
}

/// `[[shell]]`.
#[derive(Debug, Default)]
pub(crate) struct RawShell {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) code_flags: Vec<Text>,
    pub(crate) code_operand: bool,
    pub(crate) stdin: bool,
    pub(crate) script_operand: bool,
    pub(crate) join_args: bool,
    pub(crate) skip_positionals: Option<Spanned<i64>>,
    pub(crate) value_flags: Vec<Text>,
    pub(crate) remote: bool,
    pub(crate) split_only: bool,
    pub(crate) privileged: bool,
    pub(crate) why: Option<Text>,
}

/// `[[interpreter]]`.
#[derive(Debug, Default)]
pub(crate) struct RawInterpreter {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) code_flags: Vec<Text>,
    pub(crate) script_flags: Vec<Text>,
    pub(crate) value_flags: Vec<Text>,
    pub(crate) query_flags: Vec<Text>,
    pub(crate) stdin: bool,
    pub(crate) script_operand: bool,
    pub(crate) program_operand: bool,
    pub(crate) unsafe_program: Vec<Text>,
    pub(crate) why: Text,
}

/// `[[verb]]` argument roles.
#[derive(Debug, Default)]
pub(crate) struct RawVerb {
    pub(crate) verb: Option<Spanned<Words>>,
    pub(crate) verbs: Option<Spanned<Vec<Spanned<Words>>>>,
    pub(crate) operands: Option<Text>,
    pub(crate) last: Option<Text>,
    pub(crate) options: BTreeMap<Text, Text>,
    pub(crate) assign: BTreeMap<Text, Text>,
    pub(crate) value_flags: Vec<Text>,
}

/// `[classify]`.
#[derive(Debug, Default)]
pub(crate) struct RawClassify {
    pub(crate) order: Option<TextList>,
    pub(crate) patterns: BTreeMap<Text, Text>,
}

/// `[audience.NAME]`.
#[derive(Debug, Default)]
pub(crate) struct RawAudience {
    pub(crate) read: Spanned<ReadZones>,
    pub(crate) write: Vec<Text>,
}

/// `[[protected]]`.
#[derive(Debug, Default)]
pub(crate) struct RawProtected {
    pub(crate) id: Text,
    pub(crate) paths: TextList,
    pub(crate) read: Text,
    pub(crate) write: Text,
    pub(crate) why: Text,
}

/// `[[test]]`.
#[derive(Debug, Default)]
pub(crate) struct RawTest {
    pub(crate) name: Text,
    pub(crate) command: Text,
    pub(crate) cwd: Option<Text>,
    pub(crate) project: Option<Text>,
    pub(crate) home: Option<Text>,
    pub(crate) audience: Option<Text>,
    pub(crate) zones: Vec<Text>,
    pub(crate) grants: Vec<Text>,
    pub(crate) expect: Text,
    pub(crate) rule: Option<Text>,
}

read_table!(RawFile, |t| RawFile {
    version: t.get("version"),
    settings: t.get("settings"),
    deny: t.or_default("deny"),
    safe: t.or_default("safe"),
    wrapper: t.or_default("wrapper"),
    shell: t.or_default("shell"),
    interpreter: t.or_default("interpreter"),
    verb: t.or_default("verb"),
    classify: t.get("classify"),
    audience: t.or_default("audience"),
    protected: t.or_default("protected"),
    test: t.or_default("test"),
    disable: t.get("disable"),
    disable_reason: t.get("disable_reason"),
});

read_table!(RawSettings, |t| RawSettings {
    trusted_bin_dirs: t.get("trusted_bin_dirs"),
    max_shell_depth: t.get("max_shell_depth"),
});

read_table!(RawDeny, |t| RawDeny {
    id: t.required("id"),
    category: t.required("category"),
    reason: t.required("reason"),
    conditions: ROWS
        .iter()
        .filter_map(|row| {
            t.with(row.key, |node, reader| {
                Some(RawCondition {
                    row,
                    span: node.span(),
                    value: row.shape.read(node, reader)?,
                })
            })
        })
        .collect(),
    match_: t.or_default("match"),
    not_match: t.or_default("not_match"),
});

read_table!(RawPipeline, |t| RawPipeline {
    from: t.required("from"),
    to: t.required("to"),
});

read_table!(RawSafe, |t| RawSafe {
    verb: t.get("verb"),
    verbs: t.get("verbs"),
    why: t.required("why"),
    os: t.get("os"),
    pure: t.or_default("pure"),
    value_flags: t.or_default("value_flags"),
    unless_flags: t.or_default("unless_flags"),
    unless_args: t.or_default("unless_args"),
});

read_table!(RawUnlessFlag, |t| RawUnlessFlag {
    flags: t.required("flags"),
    why: t.required("why"),
});

read_table!(RawUnlessArg, |t| RawUnlessArg {
    pattern: t.required("pattern"),
    why: t.required("why"),
});

read_table!(RawWrapper, |t| RawWrapper {
    verb: t.get("verb"),
    verbs: t.get("verbs"),
    privileged: t.or_default("privileged"),
    mode: t.get("mode"),
    why: t.get("why"),
    value_flags: t.get("value_flags"),
    cwd_flags: t.get("cwd_flags"),
    judged_flags: t.get("judged_flags"),
    assignments: t.get("assignments"),
    positionals: t.get("positionals"),
    stop_at: t.get("stop_at"),
    query_flags: t.get("query_flags"),
    appends_args: t.get("appends_args"),
    exec_options: t.get("exec_options"),
    terminators: t.get("terminators"),
});

read_table!(RawShell, |t| RawShell {
    verb: t.get("verb"),
    verbs: t.get("verbs"),
    code_flags: t.or_default("code_flags"),
    code_operand: t.or_default("code_operand"),
    stdin: t.or_default("stdin"),
    script_operand: t.or_default("script_operand"),
    join_args: t.or_default("join_args"),
    skip_positionals: t.get("skip_positionals"),
    value_flags: t.or_default("value_flags"),
    remote: t.or_default("remote"),
    split_only: t.or_default("split_only"),
    privileged: t.or_default("privileged"),
    why: t.get("why"),
});

read_table!(RawInterpreter, |t| RawInterpreter {
    verb: t.get("verb"),
    verbs: t.get("verbs"),
    code_flags: t.or_default("code_flags"),
    script_flags: t.or_default("script_flags"),
    value_flags: t.or_default("value_flags"),
    query_flags: t.or_default("query_flags"),
    stdin: t.or_default("stdin"),
    script_operand: t.or_default("script_operand"),
    program_operand: t.or_default("program_operand"),
    unsafe_program: t.or_default("unsafe_program"),
    why: t.required("why"),
});

read_table!(RawVerb, |t| RawVerb {
    verb: t.get("verb"),
    verbs: t.get("verbs"),
    operands: t.get("operands"),
    last: t.get("last"),
    options: t.or_default("options"),
    assign: t.or_default("assign"),
    value_flags: t.or_default("value_flags"),
});

read_table!(RawClassify, |t| RawClassify {
    order: t.get("order"),
    patterns: t.or_default("patterns"),
});

read_table!(RawAudience, |t| RawAudience {
    read: t.required("read"),
    write: t.required("write"),
});

read_table!(RawProtected, |t| RawProtected {
    id: t.required("id"),
    paths: t.required("paths"),
    read: t.required("read"),
    write: t.required("write"),
    why: t.required("why"),
});

read_table!(RawTest, |t| RawTest {
    name: t.required("name"),
    command: t.required("command"),
    cwd: t.get("cwd"),
    project: t.get("project"),
    home: t.get("home"),
    audience: t.get("audience"),
    zones: t.or_default("zones"),
    grants: t.or_default("grants"),
    expect: t.required("expect"),
    rule: t.get("rule"),
});

/// A command prefix: a list of words, or one string split on whitespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Words(pub(crate) Vec<String>);

impl Read for Words {
    const EXPECTED: &'static str = "a list of words such as [\"git\", \"log\"]";
    fn read(node: At<'_, '_>, _: &mut Reader<'_>) -> Option<Self> {
        match node.value() {
            Value::String => node
                .str()
                .map(|text| Self(text.split_whitespace().map(str::to_owned).collect())),
            Value::Array { .. } => node
                .children()
                .map(|item| item.str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Self),
            _ => None,
        }
    }
}

/// One flag entry: one spelling, or a list of alternative spellings of the same flag.
#[derive(Debug)]
pub(crate) enum FlagEntry {
    /// `"--no-preserve-root"`.
    One(String),
    /// `["-r", "-R", "--recursive"]`.
    Alternatives(Vec<Text>),
}

impl Read for FlagEntry {
    const EXPECTED: &'static str =
        "a flag such as \"-f\" or a list of spellings such as [\"-f\", \"--force\"]";
    const REPORTS_OWN_ERRORS: bool = true;
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self> {
        match node.value() {
            Value::String => node.str().map(|flag| Self::One(flag.to_owned())),
            Value::Array { .. } => Vec::<Text>::read(node, reader).map(Self::Alternatives),
            _ => {
                reader.wrong_type::<Self>(node);
                None
            }
        }
    }
}

/// `read = "all"` or a list of zone templates.
#[derive(Debug)]
pub(crate) enum ReadZones {
    /// `"all"` (or another string, rejected during validation).
    Word(String),
    /// A list of zone templates.
    List(Vec<Text>),
}

impl Default for ReadZones {
    fn default() -> Self {
        Self::List(Vec::new())
    }
}

impl Read for ReadZones {
    const EXPECTED: &'static str = "\"all\" or a list of zones such as [\"{project}\", \"{tmp}\"]";
    const REPORTS_OWN_ERRORS: bool = true;
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self> {
        match node.value() {
            Value::String => node.str().map(|word| Self::Word(word.to_owned())),
            Value::Array { .. } => Vec::<Text>::read(node, reader).map(Self::List),
            _ => {
                reader.wrong_type::<Self>(node);
                None
            }
        }
    }
}

/// A value with the byte range of the source text it came from. Equality, order and hashing
/// look at the value only (as with `toml::Spanned`).
#[derive(Clone, Debug, Default)]
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
