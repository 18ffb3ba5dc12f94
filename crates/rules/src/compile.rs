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
//!
//! This module holds the builder, layering and the final compilation; each table's validation
//! lives in a child module: `fields` (the checks shared by every field), `deny`, `catalog`
//! (`[[safe]]`, wrappers, shells, interpreters, argument roles, classifiers) and `scope`
//! (audiences, protected paths, tests, `disable`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use regex::{Regex, RegexSet};

use crate::classify::TokenClass;
use crate::decision::Decision;
use crate::error::{Located, Location, PolicyError, SourceFile, did_you_mean};
use crate::flags::spelling_problem;
use crate::lazy::{LazyClassifier, LazyGlobSet, LazyRegexSet, RawMatcher, RawRegex};
use crate::model::{
    Audience, Category, DenyMatcher, DenyRule, DisabledRule, Interpreter, Layer, PLACEHOLDERS,
    PipelineMatcher, PolicySource, PolicyTest, Protected, ReadZones, Role, SafeEntry, Settings,
    Shell, UnlessArg, UnlessFlag, VerbRoles, ViewMatcher, Wrapper, WrapperMode, ZoneTemplate,
};
use crate::pattern::VerbPattern;
use crate::policy::{DEFAULT_POLICY, Policy, VerbIndex};
use crate::raw::{
    FlagEntry, RawAudience, RawClassify, RawDeny, RawFile, RawInterpreter, RawProtected, RawSafe,
    RawSettings, RawShell, RawTest, RawVerb, RawWrapper, Spanned, Text, TextList, Words,
};
use crate::read::Reader;
use crate::tree::{Embedded, Tree};
use shellgate_parser::path as paths;

mod catalog;
mod deny;
mod fields;
mod scope;

use fields::FileCx;

/// The embedded default policy's tree in postcard form, written by `build.rs` from the same
/// text as [`DEFAULT_POLICY`] (empty when that text did not parse at build time).
const EMBEDDED_BINARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default_policy.bin"));

/// The embedded default policy's tree, when the build script could make it.
pub(crate) fn embedded_tree() -> Option<Embedded<'static>> {
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
            embedded_tree()
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
            cx.error(
                PolicyError::LayerNotAllowed,
                0..0,
                format!("a {layer} layer cannot follow a {last} layer"),
                "out of order",
                Some("load the default layer first, then user layers, then project layers".into()),
            );
        }
        self.last_layer = Some(layer.max(self.last_layer.unwrap_or(Layer::Default)));
        let tree = match fast {
            Some(fast) => {
                self.guards.extend(fast.guards);
                Some(fast.tree)
            }
            None => match Tree::parse(text) {
                Ok(tree) => Some(tree),
                Err(e) => {
                    cx.errors.push(file.error(
                        PolicyError::Syntax,
                        e.span().unwrap_or(0..0),
                        e.message().trim(),
                        "here",
                        Some("this is not valid TOML; see https://toml.io for the syntax".into()),
                    ));
                    None
                }
            },
        };
        if let Some(root) = tree.as_ref().and_then(Tree::root) {
            let mut reader = Reader::new(&file);
            let raw = reader.read::<RawFile>(root);
            reader
                .errors
                .sort_by_key(|e| e.located().map(|l| l.span().start));
            cx.errors.append(&mut reader.errors);
            if let Some(raw) = raw {
                self.add_raw(&mut cx, raw);
            }
        }
        self.files += 1;
        self.errors.append(&mut cx.errors);
    }

    fn add_raw(&mut self, cx: &mut FileCx<'_>, mut raw: RawFile) {
        match &raw.version {
            None => cx.errors.push(cx.file.error(
                PolicyError::MissingKey,
                0..0,
                "missing key `version`",
                "in this file",
                Some("add `version = 1` at the top of the file".into()),
            )),
            Some(v) if *v.get_ref() != 1 => cx.error(
                PolicyError::BadValue,
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
                cx.error(
                    PolicyError::LayerNotAllowed,
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
                cx.error(
                    PolicyError::BadValue,
                    depth.span(),
                    format!("`max_shell_depth` `{value}` is out of range"),
                    "out of range",
                    Some(format!("use a depth from 0 to {MAX_SHELL_DEPTH}")),
                );
            } else if let Ok(value) = usize::try_from(value) {
                if !first && value > self.settings.max_shell_depth {
                    cx.error(
                        PolicyError::LayerNotAllowed,
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
                    cx.error(
                        PolicyError::BadValue,
                        dir.span(),
                        format!("trusted bin dir `{}` is not absolute", dir.get_ref()),
                        "relative directory",
                        Some("give an absolute directory such as `/usr/bin`".into()),
                    );
                    continue;
                }
                let normal = PathBuf::from(paths::normalize(dir.get_ref(), true));
                if !first && !self.settings.trusted_bin_dirs.contains(&normal) {
                    cx.error(
                        PolicyError::LayerNotAllowed,
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

    /// Checks references between layers (test rule ids and audiences).
    fn check_references(&mut self) {
        let rule_ids: HashSet<&str> = self.declared.keys().map(String::as_str).collect();
        for pending in &self.tests {
            if let (Some(rule), Some(span)) = (&pending.test.rule, &pending.rule_span)
                && !rule_ids.contains(rule.as_str())
            {
                self.errors.push(
                    pending.file.error(
                        PolicyError::UnknownValue,
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
                        PolicyError::UnknownValue,
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
                PolicyError::BadRegex,
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
                PolicyError::BadRegex,
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
            cx.error(
                PolicyError::BadValue,
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
