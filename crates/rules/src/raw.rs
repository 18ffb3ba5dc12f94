//! The policy file as written: a model that keeps source spans for every value an error may
//! need to point at, read from the file's tree (`tree.rs`) by `read.rs`. Each table is
//! declared with its reader (`table!`): its fields are the keys it takes, and any other key is
//! reported as unknown. A `[[deny]]` table reads its conditions through the condition table
//! (`condition.rs`). Validation and compilation live in `compile.rs`; nothing here has meaning
//! yet.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::ops::Range;

use crate::condition::{ROWS, Row};
use crate::read::{Read, Reader, read_table, table};
use crate::tree::{At, Value};

/// A spanned string.
pub(crate) type Text = Spanned<String>;

/// A spanned list of spanned strings.
pub(crate) type TextList = Spanned<Vec<Text>>;

table! {
    /// One policy file.
    RawFile {
        version: Option<Spanned<i64>> = get,
        settings: Option<Spanned<RawSettings>> = get,
        deny: Vec<Spanned<RawDeny>> = or_default,
        ask: Vec<Spanned<RawDeny>> = or_default,
        safe: Vec<Spanned<RawSafe>> = or_default,
        writer: Vec<Spanned<RawSafe>> = or_default,
        repository: Vec<Spanned<RawSafe>> = or_default,
        network: Vec<Spanned<RawSafe>> = or_default,
        toolchain: Vec<Spanned<RawSafe>> = or_default,
        wrapper: Vec<Spanned<RawWrapper>> = or_default,
        shell: Vec<Spanned<RawShell>> = or_default,
        interpreter: Vec<Spanned<RawInterpreter>> = or_default,
        verb: Vec<Spanned<RawVerb>> = or_default,
        classify: Option<Spanned<RawClassify>> = get,
        audience: BTreeMap<Text, Spanned<RawAudience>> = or_default,
        protected: Vec<Spanned<RawProtected>> = or_default,
        test: Vec<Spanned<RawTest>> = or_default,
        disable: Option<TextList> = get,
        disable_reason: Option<Text> = get,
    }
}

table! {
    /// `[settings]`.
    RawSettings {
        trusted_bin_dirs: Option<TextList> = get,
        max_shell_depth: Option<Spanned<i64>> = get,
        disposable: Option<TextList> = get,
        release_names: Option<TextList> = get,
        console_names: Option<TextList> = get,
        toolchain_code: Option<TextList> = get,
        hook_files: Option<TextList> = get,
        repository_programs: Option<TextList> = get,
        repository_config: Option<TextList> = get,
        environment_programs: Option<TextList> = get,
        secret_names: Option<TextList> = get,
        code_loading_variables: Option<TextList> = get,
        module_path_variables: Option<TextList> = get,
        harmless_assignments: Option<TextList> = get,
        command_variables: Option<TextList> = get,
        narrow: Option<TextList> = get,
        alias_commands: Option<TextList> = get,
        concurrent_commands: Option<TextList> = get,
        system_dirs: Option<TextList> = get,
        shared_dirs: Option<TextList> = get,
        harmless_devices: Option<TextList> = get,
        package_runners: Option<TextList> = get,
    }
}

/// `[[deny]]`, and `[[ask]]`, which has the same keys.
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

table! {
    /// `pipeline = { from = […], to = […] }`.
    RawPipeline {
        from: Vec<Spanned<Words>> = required,
        to: Vec<Spanned<Words>> = required,
    }
}

table! {
    /// `[[safe]]`.
    RawSafe {
        verb: Option<Spanned<Words>> = get,
        verbs: Option<Spanned<Vec<Spanned<Words>>>> = get,
        why: Text = required,
        os: Option<TextList> = get,
        pure: bool = or_default,
        hooks: bool = or_default,
        imports_cwd: bool = or_default,
        writes_cwd: bool = or_default,
        updates_tree: bool = or_default,
        fetches: bool = or_default,
        tasks: bool = or_default,
        declares: bool = or_default,
        unless_bare: Option<Text> = get,
        input_names: Option<Text> = get,
        absent_operands: Option<Text> = get,
        absent_repository: Option<Text> = get,
        value_flags: Vec<Text> = or_default,
        known_flags: Vec<Text> = or_default,
        unless_flags: Vec<Spanned<RawUnlessFlag>> = or_default,
        unless_args: Vec<Spanned<RawUnlessArg>> = or_default,
        max_operands: Option<Spanned<RawOperandCount>> = get,
        min_operands: Option<Spanned<RawOperandCount>> = get,
    }
}

table! {
    /// `max_operands = { count = 1, why = "…" }` (and `min_operands`).
    RawOperandCount {
        count: Spanned<i64> = required,
        why: Text = required,
    }
}

table! {
    /// One `unless_flags` entry.
    RawUnlessFlag {
        flags: Vec<Text> = required,
        /// Globs over the flag's value: the flag makes the verb unsafe only with a value that
        /// matches one (absent: with any value).
        values: Vec<Text> = or_default,
        why: Text = required,
    }
}

table! {
    /// One `unless_args` entry.
    RawUnlessArg {
        pattern: Text = required,
        why: Text = required,
        first_operand: bool = or_default,
        operands_only: bool = or_default,
    }
}

table! {
    /// `[[wrapper]]`.
    RawWrapper {
        verb: Option<Spanned<Words>> = get,
        verbs: Option<Spanned<Vec<Spanned<Words>>>> = get,
        privileged: bool = or_default,
        mode: Option<Text> = get,
        why: Option<Text> = get,
        /// `prefix` and `strip`.
        value_flags: Option<Spanned<Vec<Text>>> = get,
        cwd_flags: Option<Spanned<Vec<Text>>> = get,
        judged_flags: Option<Spanned<Vec<Text>>> = get,
        /// `prefix` only.
        flags: Option<Spanned<Vec<Text>>> = get,
        runs: Option<Text> = get,
        local_flags: Option<Spanned<Vec<Text>>> = get,
        local_bins: Option<Spanned<Vec<Text>>> = get,
        assignments: Option<Spanned<bool>> = get,
        positionals: Option<Spanned<i64>> = get,
        stop_at: Option<Spanned<Vec<Text>>> = get,
        positionals_until: Option<Spanned<Vec<Text>>> = get,
        options_anywhere: Option<Spanned<bool>> = get,
        query_flags: Option<Spanned<Vec<Text>>> = get,
        appends_args: Option<Spanned<bool>> = get,
        /// `exec-option` only.
        exec_options: Option<Spanned<Vec<Text>>> = get,
        terminators: Option<Spanned<Vec<Text>>> = get,
        list_flags: Option<Spanned<Vec<Text>>> = get,
        null_flags: Option<Spanned<Vec<Text>>> = get,
        /// `strip` only.
        plain_settings: Option<Spanned<Vec<Text>>> = get,
    }
}

table! {
    /// `[[shell]]`.
    RawShell {
        verb: Option<Spanned<Words>> = get,
        verbs: Option<Spanned<Vec<Spanned<Words>>>> = get,
        code_flags: Vec<Text> = or_default,
        code_operand: bool = or_default,
        stdin: bool = or_default,
        script_operand: bool = or_default,
        join_args: bool = or_default,
        skip_positionals: Option<Spanned<i64>> = get,
        value_flags: Vec<Text> = or_default,
        remote: bool = or_default,
        split_only: bool = or_default,
        privileged: bool = or_default,
        query_flags: Vec<Text> = or_default,
        env_flags: Vec<Text> = or_default,
        cwd_flags: Vec<Text> = or_default,
        judged_flags: Vec<Text> = or_default,
        stdin_flags: Vec<Text> = or_default,
        posix_names: Vec<Text> = or_default,
        judged_values: Vec<Text> = or_default,
        later: bool = or_default,
        path_search: bool = or_default,
        why: Option<Text> = get,
    }
}

table! {
    /// `[[interpreter]]`.
    RawInterpreter {
        verb: Option<Spanned<Words>> = get,
        verbs: Option<Spanned<Vec<Spanned<Words>>>> = get,
        code_flags: Vec<Text> = or_default,
        script_flags: Vec<Text> = or_default,
        value_flags: Vec<Text> = or_default,
        flags: Vec<Text> = or_default,
        query_flags: Vec<Text> = or_default,
        stdin: bool = or_default,
        script_operand: bool = or_default,
        closed_options: bool = or_default,
        complete_options: bool = or_default,
        program_operand: bool = or_default,
        imports_cwd: bool = or_default,
        unsafe_program: Vec<Text> = or_default,
        why: Text = required,
        inline: Option<Spanned<RawInline>> = get,
        program: Option<Spanned<RawProgram>> = get,
    }
}

table! {
    /// `[interpreter.program]`: how the gate reads the interpreter's programs.
    RawProgram {
        language: Text = required,
        unsafe_commands: Vec<Text> = or_default,
    }
}

table! {
    /// `[interpreter.inline]`: how the gate reads the interpreter's inline code.
    RawInline {
        language: Text = required,
        code_flags: Vec<Text> = or_default,
        flags: Vec<Text> = or_default,
        calls: Vec<Text> = or_default,
        names: Vec<Text> = or_default,
        acting_modules: Vec<Text> = or_default,
    }
}

table! {
    /// `[[verb]]` argument roles.
    RawVerb {
        verb: Option<Spanned<Words>> = get,
        verbs: Option<Spanned<Vec<Spanned<Words>>>> = get,
        operands: Option<Text> = get,
        first: Option<Text> = get,
        first_unless: Vec<Text> = or_default,
        last: Option<Text> = get,
        options: BTreeMap<Text, Text> = or_default,
        assign: BTreeMap<Text, Text> = or_default,
        setting_flags: Vec<Text> = or_default,
        settings: BTreeMap<Text, Text> = or_default,
        value_flags: Vec<Text> = or_default,
        flags: Vec<Text> = or_default,
        recursive_flags: Vec<Text> = or_default,
        link_flags: Vec<Text> = or_default,
        backup_flags: Vec<Text> = or_default,
        recursive: bool = or_default,
        searches_cwd: bool = or_default,
        hidden_flags: Vec<Text> = or_default,
        names_flags: Vec<Text> = or_default,
        include_flags: Vec<Text> = or_default,
        keeps_content: bool = or_default,
        entries: bool = or_default,
        into_directory: bool = or_default,
    }
}

table! {
    /// `[classify]`.
    RawClassify {
        order: Option<TextList> = get,
        patterns: BTreeMap<Text, Text> = or_default,
    }
}

table! {
    /// `[audience.NAME]`.
    RawAudience {
        read: Spanned<ReadZones> = required,
        write: Vec<Text> = required,
        run: Vec<Text> = or_default,
    }
}

table! {
    /// `[[protected]]`.
    RawProtected {
        id: Text = required,
        paths: TextList = required,
        templates: Vec<Text> = or_default,
        read: Text = required,
        write: Text = required,
        why: Text = required,
    }
}

table! {
    /// `[[test]]`.
    RawTest {
        name: Text = required,
        command: Text = required,
        cwd: Option<Text> = get,
        project: Option<Text> = get,
        home: Option<Text> = get,
        audience: Option<Text> = get,
        zones: Vec<Text> = or_default,
        grants: Vec<Text> = or_default,
        expect: Text = required,
        rule: Option<Text> = get,
    }
}

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

/// The `verbs` list of a catalog table.
pub(crate) type VerbsField = Option<Spanned<Vec<Spanned<Words>>>>;

/// A catalog table that names its commands by `verb` or `verbs` (exactly one of them).
pub(crate) trait CatalogVerbs {
    /// The `verb` and `verbs` fields.
    fn verb_fields(&mut self) -> (&mut Option<Spanned<Words>>, &mut VerbsField);
}

/// [`CatalogVerbs`] for tables with `verb` and `verbs` fields.
macro_rules! catalog_verbs {
    ($($raw:ty),*) => {$(
        impl CatalogVerbs for $raw {
            fn verb_fields(&mut self) -> (&mut Option<Spanned<Words>>, &mut VerbsField) {
                (&mut self.verb, &mut self.verbs)
            }
        }
    )*};
}

catalog_verbs!(RawSafe, RawWrapper, RawShell, RawInterpreter, RawVerb);

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
        one_or_list(node, reader, Self::One, Self::Alternatives)
    }
}

/// A value written as one string (`one`) or a list of strings (`list`); anything else is
/// reported as not a `T`.
fn one_or_list<T: Read>(
    node: At<'_, '_>,
    reader: &mut Reader<'_>,
    one: fn(String) -> T,
    list: fn(Vec<Text>) -> T,
) -> Option<T> {
    match node.value() {
        Value::String => node.str().map(|text| one(text.to_owned())),
        Value::Array { .. } => Vec::<Text>::read(node, reader).map(list),
        _ => {
            reader.wrong_type::<T>(node);
            None
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
        one_or_list(node, reader, Self::Word, Self::List)
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
