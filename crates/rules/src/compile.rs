//! Loading: TOML → raw model → validation → layering → compiled [`Policy`].
//!
//! Every file is checked whole; all of its errors are collected. Any error anywhere refuses the
//! whole load: no partial policy is ever returned.
//!
//! The embedded default policy has a fast path ([`Builder::embedded_fast_path`]): its raw
//! model comes from the binary form the build script made of `policies/default.toml` (no TOML
//! parse at run time), the checks that only compile its globs and regexes are skipped (the
//! test suite and `shellgate check` run them on the same text), and its matchers are compiled
//! on first use (see `lazy.rs`). Everything else — layering, ids, names, references — is
//! validated on every load exactly as for any file. User and project files always take the
//! full path: parsed, validated and compiled while loading.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use globset::GlobBuilder;
use regex::{Regex, RegexSet};

use crate::classify::TokenClass;
use crate::decision::Decision;
use crate::error::{ErrorKind, Location, PolicyError, SourceFile, did_you_mean};
use crate::flags::spelling_problem;
use crate::lazy::{LazyClassifier, LazyGlobSet, LazyRegexSet, RawMatcher, RawRegex};
use crate::model::{
    Audience, Category, DenyMatcher, DenyRule, DisabledRule, Interpreter, Layer, PLACEHOLDERS,
    PipelineMatcher, PolicySource, PolicyTest, Protected, ReadZones, Role, SafeEntry, Settings,
    Shell, UnlessArg, UnlessFlag, VerbRoles, ViewMatcher, Wrapper, WrapperMode, ZoneTemplate,
};
use crate::paths;
use crate::pattern::VerbPattern;
use crate::policy::{DEFAULT_POLICY, Policy, VerbIndex};
use crate::raw::{
    Embedded, FlagEntry, RawAudience, RawClassify, RawDeny, RawFile, RawInterpreter, RawProtected,
    RawSafe, RawSettings, RawShell, RawTest, RawVerb, RawWrapper, Spanned, Text, TextList, Words,
};

/// The embedded default policy's raw model in postcard form, written by `build.rs` from the
/// same text as [`DEFAULT_POLICY`] (empty when that text did not parse at build time).
const EMBEDDED_BINARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default_policy.bin"));

/// The embedded default policy's raw model, when the build script could make it.
pub(crate) fn embedded_raw() -> Option<Embedded> {
    if EMBEDDED_BINARY.is_empty() {
        return None;
    }
    postcard::from_bytes(EMBEDDED_BINARY).ok()
}

/// The largest `max_shell_depth` accepted.
const MAX_SHELL_DEPTH: i64 = 64;

/// Operating-system names accepted in `os` (as in `std::env::consts::OS`).
const OS_NAMES: [&str; 11] = [
    "linux",
    "macos",
    "freebsd",
    "openbsd",
    "netbsd",
    "dragonfly",
    "solaris",
    "illumos",
    "android",
    "ios",
    "windows",
];

/// The matcher keys of a deny rule, for help texts.
const DENY_MATCHERS: &str =
    "`verb`, `flags_any`, `flags_all`, `args_any`, `redirect_to`, `env`, `pipeline` or `raw`";

/// A `match`/`not_match` example waiting to be checked once the policy is compiled.
pub(crate) struct PendingExample {
    pub(crate) rule: String,
    pub(crate) command: String,
    pub(crate) must_match: bool,
    pub(crate) file: SourceFile,
    pub(crate) span: Range<usize>,
}

/// A `raw` regex, compiled once every layer is in.
struct RawPattern {
    rule: usize,
    pattern: String,
    /// From the embedded default on the fast path: compiled on first use.
    trusted: bool,
    file: SourceFile,
    span: Range<usize>,
}

/// A test whose `rule` and `audience` are checked once every layer is in.
struct PendingTest {
    test: PolicyTest,
    file: SourceFile,
    rule_span: Option<Range<usize>>,
    audience_span: Option<Range<usize>>,
}

/// Accumulates layers.
pub(crate) struct Builder {
    settings: Settings,
    files: usize,
    last_layer: Option<Layer>,
    deny: Vec<DenyRule>,
    raw_patterns: Vec<RawPattern>,
    declared: HashMap<String, Location>,
    disabled: Vec<DisabledRule>,
    safe: Vec<SafeEntry>,
    wrappers: Vec<Wrapper>,
    shells: Vec<Shell>,
    interpreters: Vec<Interpreter>,
    verbs: Vec<VerbRoles>,
    classify_order: Vec<TokenClass>,
    classify_patterns: BTreeMap<TokenClass, String>,
    audiences: BTreeMap<String, Audience>,
    protected: Vec<(Protected, Vec<String>)>,
    protected_ids: HashMap<String, Location>,
    tests: Vec<PendingTest>,
    pub(crate) examples: Vec<PendingExample>,
    errors: Vec<PolicyError>,
    /// Load the embedded default through its fast path (see the module docs).
    embedded_fast_path: bool,
    /// Leave out the `match`/`not_match` examples of a source whose text is the embedded
    /// default (the test suite checks them).
    skip_embedded_examples: bool,
    /// Required literals of the embedded default's `raw` regexes, by pattern.
    guards: BTreeMap<String, Vec<String>>,
    /// A file off the fast path set `[classify]` patterns or order: compile it while loading.
    classify_eager: bool,
    /// A file off the fast path added protected paths: compile them while loading.
    protected_eager: bool,
}

/// Errors of one file, with the file at hand.
struct FileCx<'a> {
    file: &'a SourceFile,
    layer: Layer,
    /// The embedded default on the fast path: globs and regexes are neither compiled to check
    /// them nor compiled now, but on first use.
    trusted: bool,
    /// Whether the file's `match`/`not_match` examples are to be checked.
    keep_examples: bool,
    errors: Vec<PolicyError>,
}

impl FileCx<'_> {
    fn invalid(&mut self, span: Range<usize>, message: String, label: &str, help: Option<String>) {
        self.errors.push(
            self.file
                .error(ErrorKind::Invalid, span, message, label, help),
        );
    }

    /// A non-empty string (moved out of `text`), or an error.
    fn nonempty(&mut self, text: &mut Text, key: &str) -> Option<String> {
        let value = text.get_ref().trim();
        if value.is_empty() {
            self.invalid(
                text.span(),
                format!("`{key}` is empty"),
                "empty",
                Some(format!("write a short sentence for `{key}`")),
            );
            None
        } else {
            Some(text.take())
        }
    }

    /// A command prefix (moved out of `words`): non-empty words without whitespace.
    fn words(&mut self, words: &mut Spanned<Words>, key: &str) -> Option<Vec<String>> {
        let list = &words.get_ref().0;
        if list.is_empty() {
            self.invalid(
                words.span(),
                format!("`{key}` is empty"),
                "no words",
                Some(format!(
                    "name the command, such as `{key} = [\"git\", \"log\"]`"
                )),
            );
            return None;
        }
        if let Some(bad) = list
            .iter()
            .find(|w| w.is_empty() || w.contains(char::is_whitespace))
        {
            self.invalid(
                words.span(),
                format!("`{bad}` in `{key}` is not one word"),
                "not one word",
                Some("give each word separately, such as `[\"git\", \"log\"]`".to_owned()),
            );
            return None;
        }
        Some(std::mem::take(&mut words.get_mut().0))
    }

    /// `verb` or `verbs` (exactly one of them) → the prefixes.
    fn verb_list(
        &mut self,
        verb: Option<&mut Spanned<Words>>,
        verbs: Option<&mut Spanned<Vec<Spanned<Words>>>>,
        header: Range<usize>,
        table: &str,
    ) -> Option<Vec<Vec<String>>> {
        match (verb, verbs) {
            (Some(v), None) => self.words(v, "verb").map(|w| vec![w]),
            (None, Some(vs)) => {
                if vs.get_ref().is_empty() {
                    self.invalid(
                        vs.span(),
                        "`verbs` is empty".to_owned(),
                        "no verbs",
                        Some("list the commands, such as `verbs = [[\"bash\"], [\"sh\"]]`".into()),
                    );
                    return None;
                }
                let mut out = Vec::new();
                for v in vs.get_mut() {
                    out.push(self.words(v, "verbs")?);
                }
                Some(out)
            }
            (Some(_), Some(vs)) => {
                self.invalid(
                    vs.span(),
                    "`verb` and `verbs` are both given".to_owned(),
                    "second list",
                    Some("keep one: `verb` for one command or `verbs` for several".into()),
                );
                None
            }
            (None, None) => {
                self.errors.push(self.file.error(
                    ErrorKind::Schema,
                    header,
                    "missing key `verb`",
                    format!("this `{table}` entry"),
                    Some("add `verb = [\"…\"]` (or `verbs = [[\"…\"], …]` for several)".into()),
                ));
                None
            }
        }
    }

    /// Flag spellings (`-x`, `--long`, `-single-dash-long`), moved out of `list`.
    fn spellings(&mut self, list: &mut [Text], key: &str) -> Option<Vec<String>> {
        let mut out = Vec::with_capacity(list.len());
        let mut ok = true;
        for flag in list {
            if let Some(problem) = spelling_problem(flag.get_ref()) {
                self.invalid(
                    flag.span(),
                    format!("`{}` in `{key}` is not a flag", flag.get_ref()),
                    "not a flag",
                    Some(problem.to_owned()),
                );
                ok = false;
            } else {
                out.push(flag.take());
            }
        }
        ok.then_some(out)
    }

    /// A glob (with `*` not crossing `/`; moved out of `text`), checked by compiling it
    /// unless the file is trusted.
    fn glob(&mut self, text: &mut Text, key: &str) -> Option<String> {
        if self.trusted {
            return Some(text.take());
        }
        match GlobBuilder::new(text.get_ref())
            .literal_separator(true)
            .build()
        {
            Ok(_) => Some(text.take()),
            Err(e) => {
                self.invalid(
                    text.span(),
                    format!("invalid glob `{}` in `{key}`: {}", text.get_ref(), e.kind()),
                    "invalid glob",
                    Some(
                        "globs use `*` (within one path segment), `**` (any depth), `?` and \
                         `[…]`; write `[*]` for a literal `*`"
                            .to_owned(),
                    ),
                );
                None
            }
        }
    }

    /// A non-empty list of globs (`None` on error).
    fn glob_list(&mut self, list: &mut TextList, key: &str) -> Option<Vec<String>> {
        if list.get_ref().is_empty() {
            self.invalid(
                list.span(),
                format!("`{key}` is empty"),
                "empty list",
                Some(format!("list at least one glob or remove `{key}`")),
            );
            return None;
        }
        let count = list.get_ref().len();
        let globs: Vec<String> = list
            .get_mut()
            .iter_mut()
            .filter_map(|t| self.glob(t, key))
            .collect();
        (globs.len() == count).then_some(globs)
    }

    /// Checked globs as one matcher: compiled on first use when the file is trusted,
    /// otherwise now (an error points at `span`).
    fn glob_matcher(
        &mut self,
        globs: Vec<String>,
        span: Range<usize>,
        key: &str,
    ) -> Option<LazyGlobSet> {
        if self.trusted {
            return Some(LazyGlobSet::new(globs));
        }
        match LazyGlobSet::compiled(globs) {
            Ok(set) => Some(set),
            Err(e) => {
                self.invalid(
                    span,
                    format!("the globs in `{key}` cannot be compiled together"),
                    "these globs",
                    Some(format!("{e}; split them over several entries")),
                );
                None
            }
        }
    }

    /// A set of regexes, compiled once; on failure each bad pattern is reported with the
    /// author's text (a separate compile per pattern happens only then).
    fn regex_set(&mut self, patterns: &[&Text], key: &str) -> Option<RegexSet> {
        match RegexSet::new(patterns.iter().map(|p| p.get_ref())) {
            Ok(set) => Some(set),
            Err(set_error) => {
                let mut found = false;
                for text in patterns {
                    if let Err(e) = Regex::new(text.get_ref()) {
                        found = true;
                        self.invalid(
                            text.span(),
                            format!("invalid regex `{}` in `{key}`", text.get_ref()),
                            "invalid regex",
                            Some(e.to_string()),
                        );
                    }
                }
                if !found && let Some(first) = patterns.first() {
                    self.invalid(
                        first.span(),
                        format!("the regexes in `{key}` are too large together"),
                        "first regex",
                        Some(set_error.to_string()),
                    );
                }
                None
            }
        }
    }

    /// A decision name.
    fn decision(&mut self, text: &Text, key: &str) -> Option<Decision> {
        if let Ok(d) = text.get_ref().parse::<Decision>() {
            return Some(d);
        }
        self.invalid(
            text.span(),
            format!("unknown decision `{}` in `{key}`", text.get_ref()),
            "unknown decision",
            Some(
                did_you_mean(text.get_ref(), Decision::ALL.iter().map(|d| d.as_str()))
                    .unwrap_or_else(|| {
                        "a decision is `Approved`, `NeedsPrompt` or `HardDenied`".into()
                    }),
            ),
        );
        None
    }

    /// A role name.
    fn role(&mut self, text: &Text, key: &str) -> Option<Role> {
        if let Some(r) = Role::from_name(text.get_ref()) {
            return Some(r);
        }
        self.invalid(
            text.span(),
            format!("unknown role `{}` in `{key}`", text.get_ref()),
            "unknown role",
            Some(
                did_you_mean(text.get_ref(), Role::ALL.iter().map(|r| r.as_str()))
                    .unwrap_or_else(|| "a role is `read`, `write`, `exec` or `value`".into()),
            ),
        );
        None
    }

    /// A zone template: known placeholders only, absolute after substitution.
    fn zone(&mut self, text: &Text) -> Option<ZoneTemplate> {
        let value = text.get_ref();
        let mut rest = value.as_str();
        while let Some(open) = rest.find('{') {
            let after = rest.get(open..).unwrap_or_default();
            let Some(close) = after.find('}') else {
                self.invalid(
                    text.span(),
                    format!("unclosed placeholder in zone `{value}`"),
                    "no closing `}`",
                    Some("placeholders are `{project}`, `{session}`, `{home}` and `{tmp}`".into()),
                );
                return None;
            };
            let placeholder = after.get(..=close).unwrap_or_default();
            if !PLACEHOLDERS.contains(&placeholder) {
                self.invalid(
                    text.span(),
                    format!("unknown placeholder `{placeholder}` in zone `{value}`"),
                    "unknown placeholder",
                    Some(did_you_mean(placeholder, PLACEHOLDERS).unwrap_or_else(|| {
                        "placeholders are `{project}`, `{session}`, `{home}` and `{tmp}`".into()
                    })),
                );
                return None;
            }
            rest = after.get(close + 1..).unwrap_or_default();
        }
        if !(value.starts_with('{') || value.starts_with('/') || value.starts_with('~')) {
            self.invalid(
                text.span(),
                format!("zone `{value}` is not absolute"),
                "relative zone",
                Some(
                    "start a zone with a placeholder such as `{project}`, with `/` or with `~`"
                        .into(),
                ),
            );
            return None;
        }
        Some(ZoneTemplate {
            text: value.clone(),
        })
    }

    /// An id: lowercase kebab-case.
    fn id(&mut self, text: &Text, what: &str) -> Option<String> {
        let id = text.get_ref();
        let kebab = !id.is_empty()
            && id.split('-').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if kebab {
            Some(id.clone())
        } else {
            self.invalid(
                text.span(),
                format!("{what} id `{id}` is not kebab-case"),
                "not kebab-case",
                Some(
                    "use lowercase letters, digits and single dashes, such as `rm-recursive-root`"
                        .into(),
                ),
            );
            None
        }
    }

    /// An absolute path from a test.
    fn abs_path(&mut self, text: Option<&Text>, key: &str) -> Option<PathBuf> {
        let text = text?;
        if text.get_ref().starts_with('/') {
            Some(PathBuf::from(paths::normalize(text.get_ref(), true)))
        } else {
            self.invalid(
                text.span(),
                format!("`{key}` `{}` is not an absolute path", text.get_ref()),
                "relative path",
                Some(format!(
                    "give `{key}` as an absolute path such as `/home/u/proj`"
                )),
            );
            None
        }
    }

    /// Refuses a table the layer may not use; returns true when refused.
    fn forbid<T>(&mut self, entries: &[Spanned<T>], table: &str) -> bool {
        if self.layer != Layer::Project {
            return false;
        }
        if let Some(first) = entries.first() {
            self.invalid(
                first.span(),
                format!("a project layer cannot add `{table}` entries"),
                "not allowed in a project layer",
                Some(
                    "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, \
                     `[[interpreter]]`, `[[test]]`); put this in your user policy"
                        .into(),
                ),
            );
            return true;
        }
        false
    }
}

/// Rewrites a TOML/serde error into a located policy error.
fn toml_error(file: &SourceFile, error: &toml::de::Error) -> PolicyError {
    let message = error.message().trim().to_owned();
    let span = error.span().unwrap_or(0..0);
    let names = backticked(&message);
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let unknown = names.first().cloned().unwrap_or_default();
        let expected: Vec<&str> = names.iter().skip(1).map(String::as_str).collect();
        let help = did_you_mean(&unknown, expected.iter().copied()).unwrap_or_else(|| {
            if rest.contains("there are no fields") || expected.is_empty() {
                "this table takes no keys".to_owned()
            } else {
                format!(
                    "expected one of {}",
                    expected
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        });
        return file.error(
            ErrorKind::Schema,
            span,
            format!("unknown key `{unknown}`"),
            "unknown key",
            Some(help),
        );
    }
    if message.starts_with("missing field ") {
        let key = names.first().cloned().unwrap_or_default();
        return file.error(
            ErrorKind::Schema,
            span,
            format!("missing key `{key}`"),
            "in this table",
            Some(format!("add `{key} = …` to this table")),
        );
    }
    if message.starts_with("unknown variant ") {
        let unknown = names.first().cloned().unwrap_or_default();
        let expected: Vec<&str> = names.iter().skip(1).map(String::as_str).collect();
        return file.error(
            ErrorKind::Schema,
            span,
            format!("unknown value `{unknown}`"),
            "unknown value",
            Some(
                did_you_mean(&unknown, expected.iter().copied()).unwrap_or_else(|| {
                    format!(
                        "expected one of {}",
                        expected
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            ),
        );
    }
    if message.starts_with("invalid type")
        || message.starts_with("invalid value")
        || message.starts_with("invalid length")
    {
        let help = message
            .rsplit_once(", expected ")
            .map(|(_, expected)| format!("write {expected} here"));
        return file.error(ErrorKind::Schema, span, message.clone(), "wrong type", help);
    }
    file.error(
        ErrorKind::Syntax,
        span,
        message,
        "here",
        Some("this is not valid TOML; see https://toml.io for the syntax".to_owned()),
    )
}

/// The texts between backticks, in order.
fn backticked(message: &str) -> Vec<String> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

impl Builder {
    pub(crate) fn new() -> Self {
        Self {
            settings: Settings::default(),
            files: 0,
            last_layer: None,
            deny: Vec::new(),
            raw_patterns: Vec::new(),
            declared: HashMap::new(),
            disabled: Vec::new(),
            safe: Vec::new(),
            wrappers: Vec::new(),
            shells: Vec::new(),
            interpreters: Vec::new(),
            verbs: Vec::new(),
            classify_order: TokenClass::ALL.to_vec(),
            classify_patterns: BTreeMap::new(),
            audiences: BTreeMap::new(),
            protected: Vec::new(),
            protected_ids: HashMap::new(),
            tests: Vec::new(),
            examples: Vec::new(),
            errors: Vec::new(),
            embedded_fast_path: false,
            skip_embedded_examples: false,
            guards: BTreeMap::new(),
            classify_eager: false,
            protected_eager: false,
        }
    }

    /// Loads a default-layer source whose text is the embedded default through the fast path
    /// (see the module docs) and leaves out its examples.
    pub(crate) fn embedded_fast_path(&mut self) {
        self.embedded_fast_path = true;
        self.skip_embedded_examples = true;
    }

    /// Adds one file. Errors are collected.
    pub(crate) fn add(&mut self, source: &PolicySource) {
        self.add_text(&source.name, &source.text, source.layer);
    }

    /// Adds one file from its name, text and layer. Errors are collected.
    pub(crate) fn add_text(&mut self, name: &str, text: &str, layer: Layer) {
        let embedded = std::ptr::eq(text, DEFAULT_POLICY) || text == DEFAULT_POLICY;
        let mut fast = if self.embedded_fast_path && embedded && layer == Layer::Default {
            embedded_raw()
        } else {
            None
        };
        let file = if embedded {
            // The same text: point at the copy in the binary instead of copying it.
            let known = fast.as_mut().map(|f| std::mem::take(&mut f.line_starts));
            SourceFile::new_static(name, DEFAULT_POLICY, known)
        } else {
            SourceFile::new(name, text)
        };
        let mut cx = FileCx {
            file: &file,
            layer,
            trusted: fast.is_some(),
            keep_examples: !(self.skip_embedded_examples && embedded),
            errors: Vec::new(),
        };
        if let Some(last) = self.last_layer
            && layer < last
        {
            cx.invalid(
                0..0,
                format!("a {layer} layer cannot follow a {last} layer"),
                "out of order",
                Some("load the default layer first, then user layers, then project layers".into()),
            );
        }
        self.last_layer = Some(layer.max(self.last_layer.unwrap_or(Layer::Default)));
        if let Some(fast) = fast {
            self.guards.extend(fast.guards);
            self.add_raw(&mut cx, fast.file);
        } else {
            match toml::from_str::<RawFile>(text) {
                Ok(raw) => self.add_raw(&mut cx, raw),
                Err(e) => cx.errors.push(toml_error(&file, &e)),
            }
        }
        self.files += 1;
        self.errors.append(&mut cx.errors);
    }

    fn add_raw(&mut self, cx: &mut FileCx<'_>, mut raw: RawFile) {
        match &raw.version {
            None => cx.errors.push(cx.file.error(
                ErrorKind::Schema,
                0..0,
                "missing key `version`",
                "in this file",
                Some("add `version = 1` at the top of the file".into()),
            )),
            Some(v) if *v.get_ref() != 1 => cx.invalid(
                v.span(),
                format!("unsupported policy version `{}`", v.get_ref()),
                "unsupported version",
                Some("this shellgate understands `version = 1`".into()),
            ),
            Some(_) => {}
        }
        if let Some(settings) = &raw.settings {
            self.add_settings(cx, settings);
        }
        for deny in &mut raw.deny {
            self.add_deny(cx, deny);
        }
        if !cx.forbid(&raw.safe, "[[safe]]") {
            let mut seen = HashMap::new();
            for safe in &mut raw.safe {
                self.add_safe(cx, safe, &mut seen);
            }
        }
        if !cx.forbid(&raw.wrapper, "[[wrapper]]") {
            for wrapper in &mut raw.wrapper {
                self.add_wrapper(cx, wrapper);
            }
        }
        if !cx.forbid(&raw.shell, "[[shell]]") {
            for shell in &mut raw.shell {
                self.add_shell(cx, shell);
            }
        }
        for interpreter in &mut raw.interpreter {
            self.add_interpreter(cx, interpreter);
        }
        if !cx.forbid(&raw.verb, "[[verb]]") {
            for verb in &mut raw.verb {
                self.add_verb(cx, verb);
            }
        }
        if let Some(classify) = &raw.classify {
            if cx.layer == Layer::Project {
                cx.invalid(
                    classify.span(),
                    "a project layer cannot change `[classify]`".into(),
                    "not allowed in a project layer",
                    Some(
                        "project policies may only add restrictions; put this in your user policy"
                            .into(),
                    ),
                );
            } else {
                self.add_classify(cx, classify);
            }
        }
        for (name, audience) in &raw.audience {
            self.add_audience(cx, name, audience);
        }
        for protected in &mut raw.protected {
            self.add_protected(cx, protected);
        }
        for test in &mut raw.test {
            self.add_test(cx, test);
        }
        self.add_disable(cx, &raw);
    }

    fn add_settings(&mut self, cx: &mut FileCx<'_>, settings: &Spanned<RawSettings>) {
        let first = self.files == 0;
        let raw = settings.get_ref();
        if let Some(depth) = &raw.max_shell_depth {
            let value = *depth.get_ref();
            if !(0..=MAX_SHELL_DEPTH).contains(&value) {
                cx.invalid(
                    depth.span(),
                    format!("`max_shell_depth` `{value}` is out of range"),
                    "out of range",
                    Some(format!("use a depth from 0 to {MAX_SHELL_DEPTH}")),
                );
            } else if let Ok(value) = usize::try_from(value) {
                if !first && value > self.settings.max_shell_depth {
                    cx.invalid(
                        depth.span(),
                        format!(
                            "a later layer cannot raise `max_shell_depth` above {}",
                            self.settings.max_shell_depth
                        ),
                        "raises the limit",
                        Some("later layers may only tighten settings; use a smaller depth".into()),
                    );
                } else {
                    self.settings.max_shell_depth = value;
                }
            }
        }
        if let Some(dirs) = &raw.trusted_bin_dirs {
            let mut out = Vec::new();
            for dir in dirs.get_ref() {
                if !dir.get_ref().starts_with('/') {
                    cx.invalid(
                        dir.span(),
                        format!("trusted bin dir `{}` is not absolute", dir.get_ref()),
                        "relative directory",
                        Some("give an absolute directory such as `/usr/bin`".into()),
                    );
                    continue;
                }
                let normal = PathBuf::from(paths::normalize(dir.get_ref(), true));
                if !first && !self.settings.trusted_bin_dirs.contains(&normal) {
                    cx.invalid(
                        dir.span(),
                        format!(
                            "a later layer cannot trust `{}`, which an earlier layer does not",
                            dir.get_ref()
                        ),
                        "widens trust",
                        Some("later layers may only remove trusted bin dirs".into()),
                    );
                    continue;
                }
                out.push(normal);
            }
            self.settings.trusted_bin_dirs = out;
        }
    }

    fn add_deny(&mut self, cx: &mut FileCx<'_>, deny: &mut Spanned<RawDeny>) {
        let header = deny.span();
        let raw = deny.get_mut();
        let errors_before = cx.errors.len();
        let id = cx.id(&raw.id, "deny rule");
        if let Some(id) = &id
            && let Some(previous) = self.declared.get(id)
        {
            cx.invalid(
                raw.id.span(),
                format!("duplicate deny rule id `{id}`"),
                "duplicate id",
                Some(format!(
                    "`{id}` is already declared at {previous}; choose another id"
                )),
            );
        }
        let category = Category::from_name(raw.category.get_ref());
        if category.is_none() {
            cx.invalid(
                raw.category.span(),
                format!("unknown category `{}`", raw.category.get_ref()),
                "unknown category",
                Some(
                    did_you_mean(
                        raw.category.get_ref(),
                        Category::ALL.iter().map(|c| c.as_str()),
                    )
                    .unwrap_or_else(|| {
                        "a category is one of `destructive`, `privilege`, `exfiltration`, \
                             `persistence`, `self-protection`, `custom`"
                            .into()
                    }),
                ),
            );
        }
        let reason = cx.nonempty(&mut raw.reason, "reason");

        let view_keys: Vec<(&str, Range<usize>)> = [
            raw.verb.as_ref().map(|v| ("verb", v.span())),
            raw.flags_any.as_ref().map(|v| ("flags_any", v.span())),
            raw.flags_all.as_ref().map(|v| ("flags_all", v.span())),
            raw.args_any.as_ref().map(|v| ("args_any", v.span())),
            raw.redirect_to.as_ref().map(|v| ("redirect_to", v.span())),
            raw.env.as_ref().map(|v| ("env", v.span())),
        ]
        .into_iter()
        .flatten()
        .collect();
        let id_text = raw.id.get_ref().clone();
        let mut view = false;
        let matcher = match (&raw.raw, &raw.pipeline, view_keys.first()) {
            (None, None, None) => {
                cx.invalid(
                    header.clone(),
                    format!("deny rule `{id_text}` has no matcher"),
                    "no matcher",
                    Some(format!("add at least one of {DENY_MATCHERS}")),
                );
                None
            }
            (Some(r), None, None) => {
                // Compiled (and checked) with every other raw rule in one set at the end.
                let index = self.raw_patterns.len();
                self.raw_patterns.push(RawPattern {
                    rule: self.deny.len(),
                    pattern: r.get_ref().clone(),
                    trusted: cx.trusted,
                    file: cx.file.clone(),
                    span: r.span(),
                });
                Some(DenyMatcher::Raw { index })
            }
            (None, Some(p), None) => {
                let mut from = Vec::new();
                let mut to = Vec::new();
                let pipe = p.get_ref();
                for (list, out, key) in [(&pipe.from, &mut from, "from"), (&pipe.to, &mut to, "to")]
                {
                    if list.is_empty() {
                        cx.invalid(
                            p.span(),
                            format!("`pipeline.{key}` is empty"),
                            "empty list",
                            Some(format!("list at least one command prefix in `{key}`, such as `[[\"curl\"]]`")),
                        );
                    }
                    for words in list {
                        if let Some(w) = cx.words(&mut words.clone(), key) {
                            out.push(w);
                        }
                    }
                }
                Some(DenyMatcher::Pipeline(PipelineMatcher { from, to }))
            }
            (Some(r), _, _) => {
                cx.invalid(
                    r.span(),
                    "`raw` cannot be combined with other matchers".into(),
                    "combined with other matchers",
                    Some(
                        "a `raw` rule matches the whole command text; move the other matchers to \
                         a separate rule"
                            .into(),
                    ),
                );
                None
            }
            (None, Some(p), Some(_)) => {
                cx.invalid(
                    p.span(),
                    "`pipeline` cannot be combined with command matchers".into(),
                    "combined with other matchers",
                    Some(
                        "a `pipeline` rule matches pipeline stages by verb; move the other \
                         matchers to a separate rule"
                            .into(),
                    ),
                );
                None
            }
            (None, None, Some(_)) => {
                view = true;
                None
            }
        };
        let matcher = if view {
            self.view_matcher(cx, raw).map(DenyMatcher::View)
        } else {
            matcher
        };
        for example in raw.match_.iter().filter(|_| cx.keep_examples) {
            self.examples.push(PendingExample {
                rule: id_text.clone(),
                command: example.get_ref().clone(),
                must_match: true,
                file: cx.file.clone(),
                span: example.span(),
            });
        }
        for example in raw.not_match.iter().filter(|_| cx.keep_examples) {
            self.examples.push(PendingExample {
                rule: id_text.clone(),
                command: example.get_ref().clone(),
                must_match: false,
                file: cx.file.clone(),
                span: example.span(),
            });
        }
        let location = cx.file.location(header.start);
        if let Some(id) = &id {
            self.declared
                .entry(id.clone())
                .or_insert_with(|| location.clone());
        }
        if cx.errors.len() > errors_before {
            return;
        }
        if let (Some(id), Some(category), Some(reason), Some(matcher)) =
            (id, category, reason, matcher)
        {
            self.deny.push(DenyRule {
                id,
                category,
                reason,
                layer: cx.layer,
                location,
                examples: raw.match_.iter_mut().map(Spanned::take).collect(),
                counter_examples: raw.not_match.iter_mut().map(Spanned::take).collect(),
                matcher,
            });
        }
    }

    fn view_matcher(&mut self, cx: &mut FileCx<'_>, raw: &mut RawDeny) -> Option<ViewMatcher> {
        let mut ok = true;
        let mut matcher = ViewMatcher::default();
        if let Some(verb) = &mut raw.verb {
            match cx.words(verb, "verb") {
                Some(v) => matcher.verb = v,
                None => ok = false,
            }
        }
        for (list, out, key) in [
            (&mut raw.flags_any, &mut matcher.flags_any, "flags_any"),
            (&mut raw.flags_all, &mut matcher.flags_all, "flags_all"),
        ] {
            let Some(list) = list else { continue };
            if list.get_ref().is_empty() {
                cx.invalid(
                    list.span(),
                    format!("`{key}` is empty"),
                    "empty list",
                    Some(format!("list at least one flag or remove `{key}`")),
                );
                ok = false;
            }
            for entry in list.get_mut() {
                let entry_span = entry.span();
                let spellings = match entry.get_mut() {
                    FlagEntry::One(flag) => {
                        let mut text = Spanned::new(entry_span, std::mem::take(flag));
                        cx.spellings(std::slice::from_mut(&mut text), key)
                    }
                    FlagEntry::Alternatives(all) if all.is_empty() => {
                        cx.invalid(
                            entry_span,
                            format!("an entry of `{key}` is empty"),
                            "empty list",
                            Some(
                                "list the spellings of one flag, such as `[\"-f\", \"--force\"]`"
                                    .into(),
                            ),
                        );
                        None
                    }
                    FlagEntry::Alternatives(all) => cx.spellings(all, key),
                };
                match spellings {
                    Some(s) => out.push(s),
                    None => ok = false,
                }
            }
        }
        for (list, out, key) in [
            (&mut raw.args_any, &mut matcher.args_any, "args_any"),
            (
                &mut raw.redirect_to,
                &mut matcher.redirect_to,
                "redirect_to",
            ),
            (&mut raw.env, &mut matcher.env, "env"),
        ] {
            let Some(list) = list else { continue };
            let span = list.span();
            match cx
                .glob_list(list, key)
                .and_then(|globs| cx.glob_matcher(globs, span, key))
            {
                Some(globs) => *out = Some(globs),
                None => ok = false,
            }
        }
        ok.then_some(matcher)
    }

    fn add_safe(
        &mut self,
        cx: &mut FileCx<'_>,
        safe: &mut Spanned<RawSafe>,
        seen: &mut HashMap<Vec<String>, Location>,
    ) {
        let span = safe.span();
        let raw = safe.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[safe]]",
        );
        let why = cx.nonempty(&mut raw.why, "why");
        let mut os = Vec::new();
        if let Some(list) = &raw.os {
            for name in list.get_ref() {
                if OS_NAMES.contains(&name.get_ref().as_str()) {
                    os.push(name.get_ref().clone());
                } else {
                    cx.invalid(
                        name.span(),
                        format!("unknown operating system `{}`", name.get_ref()),
                        "unknown os",
                        Some(
                            did_you_mean(name.get_ref(), OS_NAMES)
                                .unwrap_or_else(|| format!("known names: {}", OS_NAMES.join(", "))),
                        ),
                    );
                }
            }
        }
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let mut unless_flags = Vec::new();
        for entry in &mut raw.unless_flags {
            let entry_span = entry.span();
            let e = entry.get_mut();
            if e.flags.is_empty() {
                cx.invalid(
                    entry_span,
                    "an `unless_flags` entry has no flags".into(),
                    "no flags",
                    Some("list the spellings, such as `flags = [\"-o\", \"--output\"]`".into()),
                );
            }
            let flags = cx
                .spellings(&mut e.flags, "unless_flags")
                .unwrap_or_default();
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            unless_flags.push(UnlessFlag { flags, why });
        }
        let mut unless_args = Vec::new();
        let mut unless_globs = Vec::new();
        for entry in &mut raw.unless_args {
            let e = entry.get_mut();
            let glob = cx.glob(&mut e.pattern, "unless_args");
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            let pattern = match glob {
                Some(glob) => {
                    unless_globs.push(glob.clone());
                    glob
                }
                None => e.pattern.get_ref().clone(),
            };
            unless_args.push(UnlessArg { pattern, why });
        }
        let unless_globs = if cx.errors.len() > before {
            None
        } else {
            cx.glob_matcher(unless_globs, span.clone(), "unless_args")
        };
        let location = cx.file.location(span.clone().start);
        if let Some(verbs) = &verbs {
            for verb in verbs {
                if let Some(previous) = seen.get(verb) {
                    cx.invalid(
                        span.clone(),
                        format!("duplicate `[[safe]]` entry for `{}`", verb.join(" ")),
                        "duplicate entry",
                        Some(format!(
                            "`{}` is already catalogued at {previous}; merge the two entries",
                            verb.join(" ")
                        )),
                    );
                }
                seen.insert(verb.clone(), location.clone());
            }
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why), Some(unless_globs)) = (verbs, why, unless_globs) else {
            return;
        };
        let entry = SafeEntry {
            verb: Vec::new(),
            why,
            os,
            pure: raw.pure,
            value_flags,
            unless_flags,
            unless_args,
            unless_globs,
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.safe);
    }

    fn add_wrapper(&mut self, cx: &mut FileCx<'_>, wrapper: &mut Spanned<RawWrapper>) {
        let span = wrapper.span();
        let raw = wrapper.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[wrapper]]",
        );
        let mode = match &raw.mode {
            None => Some(if raw.exec_options.is_empty() {
                WrapperMode::Prefix
            } else {
                WrapperMode::ExecOption
            }),
            Some(m) => match m.get_ref().as_str() {
                "prefix" => Some(WrapperMode::Prefix),
                "exec-option" => Some(WrapperMode::ExecOption),
                "strip" => Some(WrapperMode::Strip),
                other => {
                    cx.invalid(
                        m.span(),
                        format!("unknown wrapper mode `{other}`"),
                        "unknown mode",
                        Some(
                            did_you_mean(other, ["prefix", "exec-option", "strip"]).unwrap_or_else(
                                || "a mode is `prefix`, `exec-option` or `strip`".into(),
                            ),
                        ),
                    );
                    None
                }
            },
        };
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let exec_options = cx
            .spellings(&mut raw.exec_options, "exec_options")
            .unwrap_or_default();
        let cwd_flags = cx
            .spellings(&mut raw.cwd_flags, "cwd_flags")
            .unwrap_or_default();
        let query_flags = cx
            .spellings(&mut raw.query_flags, "query_flags")
            .unwrap_or_default();
        let judged_flags = cx
            .spellings(&mut raw.judged_flags, "judged_flags")
            .unwrap_or_default();
        let positionals = count(cx, raw.positionals.as_ref(), "positionals");
        match mode {
            Some(WrapperMode::ExecOption)
                if exec_options.is_empty() || raw.terminators.is_empty() =>
            {
                cx.invalid(
                    span.clone(),
                    "an `exec-option` wrapper needs `exec_options` and `terminators`".into(),
                    "incomplete wrapper",
                    Some(
                        "such as `exec_options = [\"-exec\"]` and `terminators = [\";\", \"+\"]`"
                            .into(),
                    ),
                );
            }
            Some(WrapperMode::Strip) if value_flags.is_empty() => {
                cx.invalid(
                    span.clone(),
                    "a `strip` wrapper needs `value_flags`".into(),
                    "incomplete wrapper",
                    Some("list the options to strip, such as `value_flags = [\"-C\"]`".into()),
                );
            }
            _ => {}
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(mode)) = (verbs, mode) else {
            return;
        };
        let entry = Wrapper {
            verb: Vec::new(),
            privileged: raw.privileged,
            mode,
            value_flags,
            assignments: raw.assignments,
            positionals,
            stop_at: raw.stop_at.iter().map(|s| s.get_ref().clone()).collect(),
            exec_options,
            terminators: raw
                .terminators
                .iter()
                .map(|s| s.get_ref().clone())
                .collect(),
            appends_args: raw.appends_args,
            cwd_flags,
            query_flags,
            judged_flags,
            why: raw.why.as_ref().map(|w| w.get_ref().clone()),
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.wrappers);
    }

    fn add_shell(&mut self, cx: &mut FileCx<'_>, shell: &mut Spanned<RawShell>) {
        let span = shell.span();
        let raw = shell.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[shell]]",
        );
        let code_flags = cx
            .spellings(&mut raw.code_flags, "code_flags")
            .unwrap_or_default();
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let skip = count(cx, raw.skip_positionals.as_ref(), "skip_positionals");
        if code_flags.is_empty()
            && !raw.code_operand
            && !raw.stdin
            && !raw.script_operand
            && !raw.join_args
        {
            cx.invalid(
                span.clone(),
                "this `[[shell]]` entry never finds code".into(),
                "no code source",
                Some(
                    "set `code_flags`, `code_operand`, `stdin`, `script_operand` or `join_args`"
                        .into(),
                ),
            );
        }
        if cx.errors.len() > before {
            return;
        }
        let Some(verbs) = verbs else { return };
        let entry = Shell {
            verb: Vec::new(),
            code_flags,
            code_operand: raw.code_operand,
            stdin: raw.stdin,
            script_operand: raw.script_operand,
            join_args: raw.join_args,
            skip_positionals: skip,
            value_flags,
            remote: raw.remote,
            split_only: raw.split_only,
            privileged: raw.privileged,
            why: raw.why.as_ref().map(|w| w.get_ref().clone()),
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.shells);
    }

    fn add_interpreter(&mut self, cx: &mut FileCx<'_>, interpreter: &mut Spanned<RawInterpreter>) {
        let span = interpreter.span();
        let raw = interpreter.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[interpreter]]",
        );
        let code_flags = cx
            .spellings(&mut raw.code_flags, "code_flags")
            .unwrap_or_default();
        let script_flags = cx
            .spellings(&mut raw.script_flags, "script_flags")
            .unwrap_or_default();
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let query_flags = cx
            .spellings(&mut raw.query_flags, "query_flags")
            .unwrap_or_default();
        let why = cx.nonempty(&mut raw.why, "why");
        let patterns: Vec<String> = raw
            .unsafe_program
            .iter()
            .map(|p| p.get_ref().clone())
            .collect();
        let unsafe_set = if raw.unsafe_program.is_empty() {
            None
        } else if cx.trusted {
            Some(LazyRegexSet::new(patterns.clone()))
        } else {
            cx.regex_set(
                &raw.unsafe_program.iter().collect::<Vec<_>>(),
                "unsafe_program",
            )
            .map(|set| LazyRegexSet::compiled(patterns.clone(), set))
        };
        if raw.program_operand && raw.unsafe_program.is_empty() {
            cx.invalid(
                span.clone(),
                "`program_operand` needs `unsafe_program` patterns".into(),
                "no patterns",
                Some("list regexes that make a program unsafe, such as `unsafe_program = ['system\\s*\\(']`".into()),
            );
        }
        if code_flags.is_empty()
            && script_flags.is_empty()
            && !raw.stdin
            && !raw.script_operand
            && !raw.program_operand
        {
            cx.invalid(
                span.clone(),
                "this `[[interpreter]]` entry never finds code".into(),
                "no code source",
                Some("set `code_flags`, `script_flags`, `stdin`, `script_operand` or `program_operand`".into()),
            );
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why)) = (verbs, why) else {
            return;
        };
        let entry = Interpreter {
            verb: Vec::new(),
            code_flags,
            script_flags,
            value_flags,
            query_flags,
            stdin: raw.stdin,
            script_operand: raw.script_operand,
            program_operand: raw.program_operand,
            unsafe_program: patterns,
            why,
            unsafe_set,
        };
        per_verb(
            verbs,
            entry,
            |e, verb| e.verb = verb,
            &mut self.interpreters,
        );
    }

    fn add_verb(&mut self, cx: &mut FileCx<'_>, verb: &mut Spanned<RawVerb>) {
        let span = verb.span();
        let raw = verb.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[verb]]",
        );
        let operands = raw.operands.as_ref().and_then(|r| cx.role(r, "operands"));
        let last = raw.last.as_ref().and_then(|r| cx.role(r, "last"));
        let mut options = Vec::new();
        for (flag, role) in &raw.options {
            if let Some(problem) = spelling_problem(flag.get_ref()) {
                cx.invalid(
                    flag.span(),
                    format!("`{}` in `options` is not a flag", flag.get_ref()),
                    "not a flag",
                    Some(problem.into()),
                );
            }
            if let Some(role) = cx.role(role, "options") {
                options.push((flag.get_ref().clone(), role));
            }
        }
        let mut assign = Vec::new();
        for (key, role) in &raw.assign {
            if key.get_ref().is_empty() || key.get_ref().contains(['=', ' ']) {
                cx.invalid(
                    key.span(),
                    format!("`{}` in `assign` is not a key", key.get_ref()),
                    "not a key",
                    Some("write the key before `=`, such as `of = \"write\"`".into()),
                );
            }
            if let Some(role) = cx.role(role, "assign") {
                assign.push((key.get_ref().clone(), role));
            }
        }
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        if cx.errors.len() > before {
            return;
        }
        let Some(verbs) = verbs else { return };
        let entry = VerbRoles {
            verb: Vec::new(),
            operands,
            last,
            options,
            assign,
            value_flags,
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.verbs);
    }

    fn add_classify(&mut self, cx: &mut FileCx<'_>, classify: &Spanned<RawClassify>) {
        let raw: &RawClassify = classify.get_ref();
        let class = |cx: &mut FileCx<'_>, name: &Text| -> Option<TokenClass> {
            let found = TokenClass::from_name(name.get_ref());
            if found.is_none() {
                cx.invalid(
                    name.span(),
                    format!("unknown token class `{}`", name.get_ref()),
                    "unknown class",
                    Some(
                        did_you_mean(name.get_ref(), TokenClass::ALL.iter().map(|c| c.as_str()))
                            .unwrap_or_else(|| {
                                "classes are `flag`, `url`, `env-ref`, `path`, `glob`, `value`, `word`".into()
                            }),
                    ),
                );
            }
            found
        };
        if !cx.trusted {
            self.classify_eager = true;
        }
        if let Some(order) = &raw.order {
            let mut out = Vec::new();
            for name in order.get_ref() {
                if let Some(c) = class(cx, name) {
                    if out.contains(&c) {
                        cx.invalid(
                            name.span(),
                            format!("token class `{c}` appears twice in `order`"),
                            "repeated",
                            Some("list each class once".into()),
                        );
                    }
                    out.push(c);
                }
            }
            self.classify_order = out;
        }
        let patterns: Vec<&Text> = raw.patterns.values().collect();
        if !cx.trusted
            && !patterns.is_empty()
            && cx.regex_set(&patterns, "classify.patterns").is_none()
        {
            return;
        }
        for (name, pattern) in &raw.patterns {
            if let Some(c) = class(cx, name) {
                self.classify_patterns.insert(c, pattern.get_ref().clone());
            }
        }
    }

    fn add_audience(&mut self, cx: &mut FileCx<'_>, name: &Text, audience: &Spanned<RawAudience>) {
        let raw = audience.get_ref();
        if cx.layer == Layer::Project && self.audiences.contains_key(name.get_ref()) {
            cx.invalid(
                audience.span(),
                format!(
                    "a project layer cannot redefine audience `{}`",
                    name.get_ref()
                ),
                "redefines an audience",
                Some(
                    "project policies may only add restrictions; define a new audience name or \
                     change this one in your user policy"
                        .into(),
                ),
            );
            return;
        }
        let read = match raw.read.get_ref() {
            crate::raw::ReadZones::Word(word) if word == "all" => Some(ReadZones::All),
            crate::raw::ReadZones::Word(word) => {
                cx.invalid(
                    raw.read.span(),
                    format!("`read` is `\"{word}\"`"),
                    "not `all` or a list",
                    Some("`read` is `\"all\"` or a list of zones such as `[\"{project}\"]`".into()),
                );
                None
            }
            crate::raw::ReadZones::List(list) => {
                let zones: Vec<_> = list.iter().filter_map(|z| cx.zone(z)).collect();
                (zones.len() == list.len()).then_some(ReadZones::Templates(zones))
            }
        };
        let write: Vec<_> = raw.write.iter().filter_map(|z| cx.zone(z)).collect();
        if let Some(read) = read
            && write.len() == raw.write.len()
        {
            self.audiences.insert(
                name.get_ref().clone(),
                Audience {
                    name: name.get_ref().clone(),
                    read,
                    write,
                },
            );
        }
    }

    fn add_protected(&mut self, cx: &mut FileCx<'_>, protected: &mut Spanned<RawProtected>) {
        let span = protected.span();
        let raw = protected.get_mut();
        let before = cx.errors.len();
        let id = cx.id(&raw.id, "protected");
        if let Some(id) = &id
            && let Some(previous) = self.protected_ids.get(id)
        {
            cx.invalid(
                raw.id.span(),
                format!("duplicate protected id `{id}`"),
                "duplicate id",
                Some(format!(
                    "`{id}` is already declared at {previous}; choose another id"
                )),
            );
        }
        if raw.paths.get_ref().is_empty() {
            cx.invalid(
                raw.paths.span(),
                "`paths` is empty".into(),
                "empty list",
                Some("list at least one path glob, such as `[\"~/.ssh/**\"]`".into()),
            );
        }
        let globs: Vec<String> = raw
            .paths
            .get_mut()
            .iter_mut()
            .filter_map(|p| cx.glob(p, "paths"))
            .collect();
        let read = cx.decision(&raw.read, "read");
        let write = cx.decision(&raw.write, "write");
        let why = cx.nonempty(&mut raw.why, "why");
        if cx.errors.len() > before {
            return;
        }
        let (Some(id), Some(read), Some(write), Some(why)) = (id, read, write, why) else {
            return;
        };
        self.protected_ids
            .insert(id.clone(), cx.file.location(span.clone().start));
        if !cx.trusted {
            self.protected_eager = true;
        }
        self.protected.push((
            Protected {
                id,
                // Every path is a checked glob here (any error returned above).
                paths: globs.clone(),
                read,
                write,
                why,
                layer: cx.layer,
            },
            globs,
        ));
    }

    fn add_test(&mut self, cx: &mut FileCx<'_>, test: &mut Spanned<RawTest>) {
        let span = test.span();
        let raw = test.get_mut();
        let before = cx.errors.len();
        let name = cx.nonempty(&mut raw.name, "name");
        let command = cx.nonempty(&mut raw.command, "command");
        let expect = cx.decision(&raw.expect, "expect");
        let cwd = cx.abs_path(raw.cwd.as_ref(), "cwd");
        let project = cx.abs_path(raw.project.as_ref(), "project");
        let home = cx.abs_path(raw.home.as_ref(), "home");
        let mut grants = Vec::new();
        for grant in &raw.grants {
            match VerbPattern::new(grant.get_ref()) {
                Ok(p) => grants.push(p.as_str().to_owned()),
                Err(e) => {
                    use miette::Diagnostic as _;
                    let help = e.help().map(|h| h.to_string());
                    cx.invalid(
                        grant.span(),
                        format!("invalid grant: {e}"),
                        "invalid grant",
                        help,
                    );
                }
            }
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(name), Some(command), Some(expect)) = (name, command, expect) else {
            return;
        };
        self.tests.push(PendingTest {
            test: PolicyTest {
                name,
                command,
                cwd,
                project,
                home,
                audience: raw.audience.as_ref().map(|a| a.get_ref().clone()),
                zones: raw.zones.iter().map(|z| z.get_ref().clone()).collect(),
                grants,
                expect,
                rule: raw.rule.as_ref().map(|r| r.get_ref().clone()),
                layer: cx.layer,
                location: cx.file.location(span.clone().start),
            },
            file: cx.file.clone(),
            rule_span: raw.rule.as_ref().map(Spanned::span),
            audience_span: raw.audience.as_ref().map(Spanned::span),
        });
    }

    fn add_disable(&mut self, cx: &mut FileCx<'_>, raw: &RawFile) {
        let Some(disable) = &raw.disable else {
            if let Some(reason) = &raw.disable_reason {
                cx.invalid(
                    reason.span(),
                    "`disable_reason` without `disable`".into(),
                    "nothing disabled",
                    Some("add `disable = [\"rule-id\"]` or remove `disable_reason`".into()),
                );
            }
            return;
        };
        if cx.layer != Layer::User {
            cx.invalid(
                disable.span(),
                format!("`disable` is not allowed in a {} layer", cx.layer),
                "not allowed here",
                Some(match cx.layer {
                    Layer::Default => "the default policy removes a rule by deleting it".into(),
                    Layer::User | Layer::Project => {
                        "only a user policy may disable deny rules; a project policy may only add restrictions".into()
                    }
                }),
            );
            return;
        }
        let reason = match &raw.disable_reason {
            Some(r) if !r.get_ref().trim().is_empty() => r.get_ref().clone(),
            _ => {
                cx.invalid(
                    disable.span(),
                    "`disable` needs a `disable_reason`".into(),
                    "no reason given",
                    Some("say why, such as `disable_reason = \"I run my own backups\"`".into()),
                );
                return;
            }
        };
        for id in disable.get_ref() {
            let name = id.get_ref();
            let Some(position) = self.deny.iter().position(|r| &r.id == name) else {
                let help = if self.disabled.iter().any(|d| &d.id == name) {
                    "this rule is already disabled".to_owned()
                } else {
                    did_you_mean(name, self.deny.iter().map(|r| r.id.as_str())).unwrap_or_else(
                        || "`shellgate check` lists no such rule in earlier layers".into(),
                    )
                };
                cx.invalid(
                    id.span(),
                    format!("unknown deny rule id `{name}`"),
                    "unknown rule",
                    Some(help),
                );
                continue;
            };
            self.deny.remove(position);
            self.raw_patterns.retain(|p| p.rule != position);
            for pattern in &mut self.raw_patterns {
                if pattern.rule > position {
                    pattern.rule -= 1;
                }
            }
            self.disabled.push(DisabledRule {
                id: name.clone(),
                reason: reason.clone(),
                location: cx.file.location(id.span().start),
            });
        }
    }

    /// Checks references between layers (test rule ids and audiences).
    fn check_references(&mut self) {
        let rule_ids: HashSet<&str> = self.declared.keys().map(String::as_str).collect();
        for pending in &self.tests {
            if let (Some(rule), Some(span)) = (&pending.test.rule, &pending.rule_span)
                && !rule_ids.contains(rule.as_str())
            {
                self.errors.push(
                    pending.file.error(
                        ErrorKind::Invalid,
                        span.clone(),
                        format!(
                            "test `{}` names unknown deny rule `{rule}`",
                            pending.test.name
                        ),
                        "unknown rule",
                        Some(
                            did_you_mean(rule, rule_ids.iter().copied())
                                .unwrap_or_else(|| "name a deny rule id of this policy".into()),
                        ),
                    ),
                );
            }
            if let (Some(audience), Some(span)) = (&pending.test.audience, &pending.audience_span)
                && !self.audiences.contains_key(audience)
            {
                self.errors.push(
                    pending.file.error(
                        ErrorKind::Invalid,
                        span.clone(),
                        format!(
                            "test `{}` names unknown audience `{audience}`",
                            pending.test.name
                        ),
                        "unknown audience",
                        Some(
                            did_you_mean(audience, self.audiences.keys().map(String::as_str))
                                .unwrap_or_else(|| "define it under `[audience.NAME]`".into()),
                        ),
                    ),
                );
            }
        }
    }

    /// Compiles everything into a policy, or returns every error found.
    pub(crate) fn finish(mut self) -> Result<(Policy, Vec<PendingExample>), PolicyError> {
        self.check_references();
        if let Some(error) = PolicyError::combine(std::mem::take(&mut self.errors)) {
            return Err(error);
        }
        let internal = |what: &str, e: &dyn std::fmt::Display| {
            SourceFile::new("<policy>", "").error(
                ErrorKind::Invalid,
                0..0,
                format!("internal error compiling {what}: {e}"),
                "here",
                None,
            )
        };
        let pairs: Vec<(TokenClass, String)> = self
            .classify_order
            .iter()
            .map(|c| {
                (
                    *c,
                    self.classify_patterns
                        .get(c)
                        .cloned()
                        .unwrap_or_else(|| c.default_pattern().to_owned()),
                )
            })
            .collect();
        let classifier = if self.classify_eager {
            LazyClassifier::compiled(pairs).map_err(|e| internal("the token classifier", &e))?
        } else {
            LazyClassifier::new(pairs)
        };
        let raw = raw_matcher(&self.raw_patterns, &self.guards)?;
        let raw_rules: Vec<usize> = self.raw_patterns.iter().map(|p| p.rule).collect();
        // Renumber raw indices in set order (disabled rules left gaps).
        let mut deny = self.deny;
        for (index, rule) in raw_rules.iter().enumerate() {
            if let Some(DenyRule {
                matcher: DenyMatcher::Raw { index: slot },
                ..
            }) = deny.get_mut(*rule)
            {
                *slot = index;
            }
        }
        let mut protected_globs = Vec::new();
        let mut protected_owner = Vec::new();
        let mut protected = Vec::new();
        for (index, (entry, globs)) in self.protected.into_iter().enumerate() {
            for glob in globs {
                protected_globs.push(glob);
                protected_owner.push(index);
            }
            protected.push(entry);
        }
        let protected_set = if self.protected_eager {
            LazyGlobSet::compiled(protected_globs).map_err(|e| internal("protected paths", &e))?
        } else {
            LazyGlobSet::new(protected_globs)
        };
        let policy = Policy::assemble(crate::policy::Parts {
            settings: self.settings,
            deny,
            raw,
            raw_rules,
            safe: self.safe,
            wrappers: self.wrappers,
            shells: self.shells,
            interpreters: self.interpreters,
            verbs: self.verbs,
            classifier,
            audiences: self.audiences,
            protected,
            protected_set,
            protected_owner,
            tests: self.tests.into_iter().map(|t| t.test).collect(),
            disabled: self.disabled,
        });
        Ok((policy, self.examples))
    }
}

/// The `raw` regexes: those of the embedded default on the fast path are compiled on first
/// use behind their guards; all others are compiled now, and any that does not compile is
/// an error pointing at it.
fn raw_matcher(
    patterns: &[RawPattern],
    guards: &BTreeMap<String, Vec<String>>,
) -> Result<RawMatcher, PolicyError> {
    let mut regexes = Vec::with_capacity(patterns.len());
    let mut errors = Vec::new();
    for p in patterns {
        if p.trusted {
            regexes.push(RawRegex::new(
                p.pattern.clone(),
                guards.get(&p.pattern).cloned(),
            ));
            continue;
        }
        match Regex::new(&p.pattern) {
            Ok(regex) => regexes.push(RawRegex::compiled(p.pattern.clone(), regex)),
            Err(e) => errors.push(p.file.error(
                ErrorKind::Invalid,
                p.span.clone(),
                format!("invalid regex `{}` in `raw`", p.pattern),
                "invalid regex",
                Some(e.to_string()),
            )),
        }
    }
    match PolicyError::combine(errors) {
        Some(error) => Err(error),
        None => Ok(RawMatcher::new(regexes)),
    }
}

/// Pushes one copy of `entry` per verb prefix, in order, each with its verb set by
/// `set_verb`; the last one takes `entry` itself instead of a clone.
fn per_verb<T: Clone>(
    verbs: Vec<Vec<String>>,
    entry: T,
    set_verb: fn(&mut T, Vec<String>),
    out: &mut Vec<T>,
) {
    let count = verbs.len();
    let mut entry = Some(entry);
    for (i, verb) in verbs.into_iter().enumerate() {
        let copy = if i + 1 == count {
            entry.take()
        } else {
            entry.clone()
        };
        let Some(mut copy) = copy else { return };
        set_verb(&mut copy, verb);
        out.push(copy);
    }
}

/// A non-negative count from a spanned integer.
fn count(cx: &mut FileCx<'_>, value: Option<&Spanned<i64>>, key: &str) -> usize {
    let Some(value) = value else { return 0 };
    match usize::try_from(*value.get_ref()) {
        Ok(n) if n <= 16 => n,
        _ => {
            cx.invalid(
                value.span(),
                format!("`{key}` `{}` is out of range", value.get_ref()),
                "out of range",
                Some(format!("`{key}` is a count from 0 to 16")),
            );
            0
        }
    }
}

/// Builds the verb index of a table (helper for [`Policy::assemble`]).
pub(crate) fn index_of<'a>(verbs: impl Iterator<Item = &'a [String]>) -> VerbIndex {
    let mut index = VerbIndex::default();
    for (i, verb) in verbs.enumerate() {
        index.insert(verb, i);
    }
    index.sort();
    index
}
