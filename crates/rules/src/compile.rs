//! Loading: TOML → tree → raw model → validation → layering → compiled [`Policy`].
//!
//! Every file is checked whole; all of its errors are collected. Any error anywhere refuses the
//! whole load: no partial policy is ever returned.
//!
//! Every file takes the same path. Validation records the globs and regexes a file writes as
//! checks (`checks.rs`) and builds matchers that compile on first use (`lazy.rs`); the checks
//! and the `match`/`not_match` examples of a file run when it loads. The one difference for
//! the embedded default policy is where its work was done: its tree comes from the binary form
//! the build script made of `policies/default.toml` (no TOML parse at run time), and its checks
//! and examples ran when it was built, in the test suite, on the same text (loading with
//! [`crate::Examples::All`] runs them again, as `shellgate check` does).
//!
//! This module holds the builder, layering and the final compilation; each table's validation
//! lives in a child module: `fields` (the checks shared by every field), `deny`, `catalog`
//! (`[[safe]]`, wrappers, shells, interpreters, argument roles, classifiers) and `scope`
//! (audiences, protected paths, tests, `disable`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use crate::classify::TokenClass;
use crate::condition::{self, Condition, Row};
use crate::decision::Decision;
use crate::error::{Located, Location, PolicyError, SourceFile, did_you_mean};
use crate::example::RuleExample;
use crate::flags::spelling_problem;
use crate::lazy::{LazyClassifier, LazyGlobSet, LazyRegexSet};
use crate::model::{
    Audience, Category, DenyRule, DisabledRule, EffectClass, ExecMode, InlineReader, Interpreter,
    Layer, PLACEHOLDERS, PolicySource, PolicyTest, PrefixMode, ProgramReader, Protected, ReadZones,
    Role, Runs, SafeEntry, Settings, Shell, UnlessArg, UnlessFlag, VerbRoles, Wrapper, WrapperMode,
    WrapperOptions, ZoneTemplate,
};
use crate::pattern::VerbPattern;
use crate::policy::{DEFAULT_POLICY, Declared, Examples, Policy};
use crate::protected::ProtectedPaths;
use crate::raw::{
    CatalogVerbs, RawAudience, RawClassify, RawDeny, RawFile, RawInline, RawInterpreter,
    RawProgram, RawProtected, RawSafe, RawSettings, RawShell, RawTest, RawVerb, RawWrapper,
    Spanned, Text, TextList, Words,
};
use crate::read::Reader;
use crate::tree::{Embedded, Tree};
use crate::verb_table::VerbTable;
use shellgate_parser::path as paths;

mod catalog;
mod checks;
#[cfg(test)]
mod default_tests;
mod deny;
mod fields;
mod scope;

use checks::Check;
pub(crate) use fields::FileCx;
use fields::{ONLY_RESTRICTIONS, Pending};

/// The embedded default policy's tree in postcard form, written by `build.rs` from the same
/// text as [`DEFAULT_POLICY`] (empty when that text did not parse at build time).
const EMBEDDED_BINARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default_policy.bin"));

/// The embedded default policy's tree, when the build script could make it.
pub(crate) fn embedded_tree() -> Option<Embedded<'static>> {
    if EMBEDDED_BINARY.is_empty() {
        return None;
    }
    let embedded: Embedded<'static> = postcard::from_bytes(EMBEDDED_BINARY).ok()?;
    Some(Embedded {
        tree: embedded.tree.in_source(DEFAULT_POLICY),
        ..embedded
    })
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
    pub(crate) examples: Vec<RuleExample>,
    errors: Vec<PolicyError>,
    /// Which files' checks and examples run (see the module docs).
    checking: Examples,
    /// Required literals of the embedded default's `raw` regexes, by pattern.
    guards: BTreeMap<String, Vec<String>>,
}

impl Builder {
    /// A builder running the checks and examples `examples` asks for.
    pub(crate) fn new(checking: Examples) -> Self {
        Self {
            settings: Settings::default(),
            files: 0,
            last_layer: None,
            deny: Vec::new(),
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
            checking,
            guards: BTreeMap::new(),
        }
    }

    /// Adds one file. Errors are collected.
    pub(crate) fn add(&mut self, source: &PolicySource) {
        self.add_text(&source.name, &source.text, source.layer);
    }

    /// Adds one file from its name, text and layer. Errors are collected.
    pub(crate) fn add_text(&mut self, name: &str, text: &str, layer: Layer) {
        let embedded = std::ptr::eq(text, DEFAULT_POLICY) || text == DEFAULT_POLICY;
        let mut fast = if embedded { embedded_tree() } else { None };
        let file = if embedded {
            // The same text: point at the copy in the binary instead of copying it.
            let known = fast.as_mut().map(|f| std::mem::take(&mut f.line_starts));
            SourceFile::new_static(name, DEFAULT_POLICY, known)
        } else {
            SourceFile::new(name, text)
        };
        // The embedded default's checks and examples ran when it was built (module docs).
        let checked = !(embedded && self.checking == Examples::SkipEmbeddedDefault);
        let mut cx = FileCx {
            file: &file,
            layer,
            errors: Vec::new(),
            pending: checked.then(Pending::default),
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
        if let Some(mut pending) = cx.pending.take() {
            for check in &pending.checks {
                check.run(&file, &mut cx.errors);
            }
            cx.errors
                .sort_by_key(|e| e.located().map(|l| l.span().start));
            self.examples.append(&mut pending.examples);
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
            self.add_deny(cx, deny, Decision::HardDenied);
        }
        for ask in &mut raw.ask {
            self.add_deny(cx, ask, Decision::NeedsPrompt);
        }
        for (table, class) in [
            (&mut raw.safe, None),
            (&mut raw.writer, Some(EffectClass::Writer)),
            (&mut raw.repository, Some(EffectClass::Repository)),
            (&mut raw.network, Some(EffectClass::Network)),
            (&mut raw.toolchain, Some(EffectClass::Toolchain)),
        ] {
            let name = format!("[[{}]]", class.map_or("safe", EffectClass::table));
            if !cx.forbid(table, &name) {
                let first = self.safe.len();
                let mut tables = Vec::new();
                for safe in table.iter_mut() {
                    self.add_safe(cx, safe, class);
                    tables.resize(self.safe.len() - first, safe.span());
                }
                self.check_safe_duplicates(cx, first, &tables, &name);
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
        if let Some(classify) = &raw.classify
            && !cx.refused_in_project(classify.span(), "change `[classify]`", ONLY_RESTRICTIONS)
        {
            self.add_classify(cx, classify);
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
                    if first {
                        self.settings.deny_shell_depth = value;
                    }
                }
            }
        }
        if let Some(dirs) = &raw.trusted_bin_dirs {
            let mut out = Vec::new();
            for dir in dirs.get_ref() {
                let Some(normal) = absolute_dir(cx, dir, "trusted bin dir", "/usr/bin") else {
                    continue;
                };
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
        if let Some(names) = &raw.disposable
            && !cx.refused_in_project(
                names.span(),
                "add `disposable` directories",
                "a recursive delete of a disposable directory runs silently; list it in your user \
                 policy",
            )
        {
            for name in names.get_ref() {
                let text = name.get_ref();
                if text.is_empty() || text.contains('/') || text == "." || text == ".." {
                    cx.error(
                        PolicyError::BadValue,
                        name.span(),
                        format!("disposable directory `{text}` is not a directory name"),
                        "not a name",
                        Some("give a directory name such as `target` (no `/`)".into()),
                    );
                } else if !self.settings.disposable.contains(text) {
                    self.settings.disposable.push(text.clone());
                }
            }
        }
        // A module path variable set to project directories does not make a command ask: more
        // names exempt more, so only a user layer adds them.
        if let Some(names) = &raw.module_path_variables
            && !cx.refused_in_project(
                names.span(),
                "add `module_path_variables`",
                "a variable listed there, set to a project directory, no longer makes a command \
                 ask; list it in your user policy",
            )
        {
            for glob in names.get_ref() {
                let mut text = glob.clone();
                let glob = cx.glob(&mut text, "module_path_variables");
                if !self.settings.module_path_variables.contains(&glob) {
                    self.settings.module_path_variables.push(glob);
                }
            }
        }
        // Assignments of data to code-loading variables do not make a command ask: more
        // entries exempt more, so only a user layer adds them.
        if let Some(entries) = &raw.harmless_assignments
            && !cx.refused_in_project(
                entries.span(),
                "add `harmless_assignments`",
                "an assignment listed there no longer makes a command ask; list it in your user \
                 policy",
            )
        {
            for entry in entries.get_ref() {
                if !entry.get_ref().contains('=') {
                    cx.error(
                        PolicyError::BadValue,
                        entry.span(),
                        format!("harmless assignment `{}` has no `=`", entry.get_ref()),
                        "not NAME=VALUE",
                        Some(
                            "write the variable, `=` and its value, as globs: `NODE_ENV=*`".into(),
                        ),
                    );
                    continue;
                }
                let mut text = entry.clone();
                let glob = cx.glob(&mut text, "harmless_assignments");
                if !self.settings.harmless_assignments.contains(&glob) {
                    self.settings.harmless_assignments.push(glob);
                }
            }
        }
        verb_chains(cx, "narrow", &raw.narrow, &mut self.settings.narrow);
        verb_chains(
            cx,
            "alias_commands",
            &raw.alias_commands,
            &mut self.settings.alias_commands,
        );
        verb_chains(
            cx,
            "concurrent_commands",
            &raw.concurrent_commands,
            &mut self.settings.concurrent_commands,
        );
        verb_chains(
            cx,
            "package_runners",
            &raw.package_runners,
            &mut self.settings.package_runners,
        );
        // A system directory's content is the operating system's, and a harmless device has
        // none: more entries exempt more reads and variables from asking, so only a user layer
        // adds them (a shared directory only adds asking).
        let settings = &mut self.settings;
        for (key, list, what, example, out) in [
            (
                Some("system_dirs"),
                &raw.system_dirs,
                "system directory",
                "/etc",
                &mut settings.system_dirs,
            ),
            (
                None,
                &raw.shared_dirs,
                "shared directory",
                "/run",
                &mut settings.shared_dirs,
            ),
            (
                Some("harmless_devices"),
                &raw.harmless_devices,
                "harmless device",
                "/dev/null",
                &mut settings.harmless_devices,
            ),
        ] {
            if let (Some(key), Some(list)) = (key, list)
                && cx.refused_in_project(
                    list.span(),
                    &format!("add `{key}`"),
                    "content read from there, or a variable naming a path there, no longer makes \
                     a command ask; list it in your user policy",
                )
            {
                continue;
            }
            for dir in list.iter().flat_map(|l| l.get_ref()) {
                if let Some(normal) = absolute_dir(cx, dir, what, example)
                    && !out.contains(&normal)
                {
                    out.push(normal);
                }
            }
        }
        let settings = &mut self.settings;
        for (key, list, out) in [
            (
                "release_names",
                &raw.release_names,
                &mut settings.release_names,
            ),
            (
                "console_names",
                &raw.console_names,
                &mut settings.console_names,
            ),
            (
                "toolchain_code",
                &raw.toolchain_code,
                &mut settings.toolchain_code,
            ),
            ("hook_files", &raw.hook_files, &mut settings.hook_files),
            (
                "repository_programs",
                &raw.repository_programs,
                &mut settings.repository_programs,
            ),
            (
                "repository_config",
                &raw.repository_config,
                &mut settings.repository_config,
            ),
            (
                "environment_programs",
                &raw.environment_programs,
                &mut settings.environment_programs,
            ),
            (
                "secret_names",
                &raw.secret_names,
                &mut settings.secret_names,
            ),
            (
                "code_loading_variables",
                &raw.code_loading_variables,
                &mut settings.code_loading_variables,
            ),
            (
                "command_variables",
                &raw.command_variables,
                &mut settings.command_variables,
            ),
        ] {
            for glob in list.iter().flat_map(|l| l.get_ref()) {
                let mut text = glob.clone();
                let glob = cx.glob(&mut text, key);
                if !out.contains(&glob) {
                    out.push(glob);
                }
            }
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
    pub(crate) fn finish(mut self) -> Result<Policy, PolicyError> {
        self.check_references();
        if let Some(error) = PolicyError::combine(std::mem::take(&mut self.errors)) {
            return Err(error);
        }
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
        let classifier = LazyClassifier::new(pairs);
        let declared = Declared {
            settings: self.settings,
            deny: VerbTable::new(self.deny),
            safe: VerbTable::new(self.safe),
            wrappers: VerbTable::new(self.wrappers),
            shells: VerbTable::new(self.shells),
            interpreters: VerbTable::new(self.interpreters),
            verbs: VerbTable::new(self.verbs),
            classifier,
            audiences: self.audiences,
            protected: ProtectedPaths::new(self.protected),
            tests: self.tests.into_iter().map(|t| t.test).collect(),
            disabled: self.disabled,
            examples: self.examples,
        };
        let policy = Policy::assemble(declared, &self.guards);
        Ok(policy)
    }
}

/// `dir` normalised, or an error naming it `what` when it is not absolute (`example` shows one
/// that is).
fn absolute_dir(cx: &mut FileCx<'_>, dir: &Text, what: &str, example: &str) -> Option<PathBuf> {
    if dir.get_ref().starts_with('/') {
        return Some(PathBuf::from(paths::normalize(dir.get_ref(), true)));
    }
    cx.error(
        PolicyError::BadValue,
        dir.span(),
        format!("{what} `{}` is not absolute", dir.get_ref()),
        "relative directory",
        Some(format!("give an absolute directory such as `{example}`")),
    );
    None
}

/// Appends the verb chains of a `[settings]` list (`"docker run"`, `"pipx run"`) to `out`,
/// each once; an empty one is an error.
fn verb_chains(
    cx: &mut FileCx<'_>,
    key: &str,
    list: &Option<TextList>,
    out: &mut Vec<Vec<String>>,
) {
    for command in list.iter().flat_map(|l| l.get_ref()) {
        let words: Vec<String> = command
            .get_ref()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        if words.is_empty() {
            cx.error(
                PolicyError::BadValue,
                command.span(),
                format!("an empty command in `{key}`"),
                "empty",
                Some("give a command name such as `docker run`".into()),
            );
        } else if !out.contains(&words) {
            out.push(words);
        }
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
