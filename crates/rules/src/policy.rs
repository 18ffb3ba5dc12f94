//! The compiled [`Policy`] and its matching API.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use shellgate_parser::{Assignment, Redirect, Word};

use crate::classify::TokenClass;
use crate::compile::{Builder, index_of};
use crate::error::PolicyError;
use crate::flags::{self, Scan, flag_is};
use crate::lazy::{LazyClassifier, LazyGlobSet, RawMatcher};
use crate::model::ArgRole;
use crate::model::{
    Audience, DenyMatcher, DenyRule, DisabledRule, Interpreter, Layer, PolicySource, PolicyTest,
    Protected, Role, SafeEntry, Settings, Shell, VerbRoles, ViewMatcher, Wrapper,
};
use shellgate_parser::path as paths;

/// The embedded default policy text (`policies/default.toml`, copied by the build script so
/// that it is exactly the text the build script turned into the fast-loading binary form).
pub const DEFAULT_POLICY: &str = include_str!(concat!(env!("OUT_DIR"), "/default.toml"));

/// The name the embedded default policy has in diagnostics.
pub const DEFAULT_POLICY_NAME: &str = "policies/default.toml";

/// Why a dynamic argument makes an option-aware safe verb unsafe.
const DYNAMIC_WHY: &str = "a dynamic argument could expand to an unsafe option";

/// Builtins whose `NAME=value` operands set (exported) variables, for the `env` matcher.
const EXPORTERS: [&str; 5] = ["export", "declare", "typeset", "local", "readonly"];

/// Which deny-rule examples [`Policy::load_with`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Examples {
    /// Every example of every layer (what `shellgate check` does).
    All,
    /// Every example except those of a source whose text is exactly the embedded default:
    /// that text is fixed at build time and the test suite checks its examples, and checking
    /// its hundreds of examples would dominate load time.
    SkipEmbeddedDefault,
}

/// One command to judge: its words, assignment prefixes, redirections, and where it runs.
///
/// A view does not own anything; it is made from an [`crate::Invocation`] (see
/// [`crate::Invocation::view`]) or built by hand, so every matcher applies equally to a clause
/// as written and to a command unwrapped from `sudo`, `bash -c` or `find -exec`.
#[derive(Clone, Copy, Debug)]
pub struct CommandView<'a> {
    /// The command words, verb first (cooked text is what matchers compare).
    pub words: &'a [Word],
    /// Assignment prefixes (`A=1 cmd`, or `env A=1 cmd`).
    pub assignments: &'a [Assignment],
    /// Redirections.
    pub redirects: &'a [Redirect],
    /// The working directory, when known: relative path operands are resolved against it.
    pub cwd: Option<&'a Path>,
    /// The home directory, when known: `~` and `$HOME` are expanded from it.
    pub home: Option<&'a Path>,
}

/// What the safe catalog says about one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SafeVerdict<'p> {
    /// A catalogued read-only verb with no unsafe flag or argument.
    Safe {
        /// Why it is safe (from the catalog).
        why: &'p str,
    },
    /// A pure side-effect verb (`echo`, `true`): safe unless it writes through a redirect,
    /// which the caller checks.
    Pure,
    /// A catalogued verb made unsafe by a flag or argument.
    Unsafe {
        /// The cooked word that made it unsafe.
        token: String,
        /// Why (from the catalog).
        why: &'p str,
    },
    /// Not in the catalog (or its verb is dynamic, or a binary outside the trusted dirs).
    NotCatalogued,
}

/// Entries of one table keyed by the first word of their verb prefix, longest prefix first
/// (and later layers first among equal prefixes).
#[derive(Clone, Debug, Default)]
pub(crate) struct VerbIndex {
    by_first: HashMap<String, Vec<(usize, usize)>>,
}

impl VerbIndex {
    pub(crate) fn insert(&mut self, verb: &[String], index: usize) {
        if let Some(first) = verb.first() {
            self.by_first
                .entry(first.clone())
                .or_default()
                .push((verb.len(), index));
        }
    }

    pub(crate) fn sort(&mut self) {
        for list in self.by_first.values_mut() {
            list.sort_by(|a, b| b.cmp(a));
        }
    }

    /// Entry indices whose verb starts with `first`, best candidates first.
    pub(crate) fn candidates(&self, first: &str) -> impl Iterator<Item = usize> + '_ {
        self.by_first
            .get(first)
            .into_iter()
            .flatten()
            .map(|(_, i)| *i)
    }
}

/// Everything [`Policy::assemble`] needs.
pub(crate) struct Parts {
    pub(crate) settings: Settings,
    pub(crate) deny: Vec<DenyRule>,
    pub(crate) raw: RawMatcher,
    pub(crate) raw_rules: Vec<usize>,
    pub(crate) safe: Vec<SafeEntry>,
    pub(crate) wrappers: Vec<Wrapper>,
    pub(crate) shells: Vec<Shell>,
    pub(crate) interpreters: Vec<Interpreter>,
    pub(crate) verbs: Vec<VerbRoles>,
    pub(crate) classifier: LazyClassifier,
    pub(crate) audiences: BTreeMap<String, Audience>,
    pub(crate) protected: Vec<Protected>,
    pub(crate) protected_set: LazyGlobSet,
    pub(crate) protected_owner: Vec<usize>,
    pub(crate) tests: Vec<PolicyTest>,
    pub(crate) disabled: Vec<DisabledRule>,
}

/// A compiled, immutable policy: every glob, regex and keyword table is built once — when it
/// loads, or for the embedded default policy when first used (each behind a `OnceLock`, so
/// the policy stays immutable from the outside) — and never again. `Send + Sync`, cheap to
/// share behind an `Arc`.
#[derive(Clone, Debug)]
pub struct Policy {
    pub(crate) settings: Settings,
    pub(crate) trusted: Vec<String>,
    pub(crate) deny: Vec<DenyRule>,
    pub(crate) deny_index: VerbIndex,
    pub(crate) deny_any_verb: Vec<usize>,
    /// The `raw` regexes; regex `i` belongs to rule `raw_rules[i]`.
    pub(crate) raw: RawMatcher,
    pub(crate) raw_rules: Vec<usize>,
    pub(crate) pipeline_rules: Vec<usize>,
    pub(crate) safe: Vec<SafeEntry>,
    pub(crate) safe_index: VerbIndex,
    pub(crate) wrappers: Vec<Wrapper>,
    pub(crate) wrapper_index: VerbIndex,
    pub(crate) shells: Vec<Shell>,
    pub(crate) shell_index: VerbIndex,
    pub(crate) interpreters: Vec<Interpreter>,
    pub(crate) interpreter_index: VerbIndex,
    pub(crate) verbs: Vec<VerbRoles>,
    pub(crate) verb_index: VerbIndex,
    pub(crate) classifier: LazyClassifier,
    pub(crate) audiences: BTreeMap<String, Audience>,
    pub(crate) protected: Vec<Protected>,
    pub(crate) protected_set: LazyGlobSet,
    pub(crate) protected_owner: Vec<usize>,
    pub(crate) tests: Vec<PolicyTest>,
    pub(crate) disabled: Vec<DisabledRule>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Policy>();
};

impl Policy {
    /// The embedded default policy as a source.
    #[must_use]
    pub fn default_source() -> PolicySource {
        PolicySource::new(DEFAULT_POLICY_NAME, DEFAULT_POLICY, Layer::Default)
    }

    /// Loads the embedded default policy alone. Its own `match`/`not_match` examples are not
    /// re-checked: the text is fixed at build time and the test suite checks them (use
    /// [`Policy::load_with`] and [`Examples::All`] to check them anyway).
    ///
    /// # Errors
    /// Only if the embedded file is invalid, which the test suite rules out.
    pub fn embedded_default() -> Result<Self, PolicyError> {
        // As `load(&[default_source()])`, without copying the text.
        let mut builder = Builder::new();
        builder.embedded_fast_path();
        builder.add_text(DEFAULT_POLICY_NAME, DEFAULT_POLICY, Layer::Default);
        let (policy, pending) = builder.finish()?;
        policy.check_examples(&pending)?;
        Ok(policy)
    }

    /// Loads layers in order (the default layer first, then user files, then project files),
    /// validates every file whole, compiles the result and checks the deny rules' `match`
    /// and `not_match` examples against it — all of them except those of a source whose text
    /// is exactly the embedded default (checked by the test suite; see [`Examples`]).
    ///
    /// # Errors
    /// Every problem found, as one [`PolicyError`] (or [`PolicyError::Several`]); no partial
    /// policy is ever returned.
    pub fn load(sources: &[PolicySource]) -> Result<Self, PolicyError> {
        Self::load_with(sources, Examples::SkipEmbeddedDefault)
    }

    /// [`Policy::load`] with a choice of which examples to check.
    ///
    /// # Errors
    /// As [`Policy::load`].
    ///
    /// With [`Examples::SkipEmbeddedDefault`], a default-layer source whose text is exactly
    /// the embedded default also loads fast: from the binary form the build script made of
    /// it, without re-checking that its globs and regexes compile (the test suite and
    /// `shellgate check` do), and with its matchers compiled on first use. What matches is the
    /// same either way. [`Examples::All`] loads every source in full, as `shellgate check` does.
    pub fn load_with(sources: &[PolicySource], examples: Examples) -> Result<Self, PolicyError> {
        let mut builder = Builder::new();
        match examples {
            Examples::All => {}
            Examples::SkipEmbeddedDefault => builder.embedded_fast_path(),
        }
        for source in sources {
            builder.add(source);
        }
        let (policy, pending) = builder.finish()?;
        policy.check_examples(&pending)?;
        Ok(policy)
    }

    /// Builds the lookup tables.
    pub(crate) fn assemble(parts: Parts) -> Self {
        let mut deny_index = VerbIndex::default();
        let mut deny_any_verb = Vec::new();
        let mut pipeline_rules = Vec::new();
        for (i, rule) in parts.deny.iter().enumerate() {
            match &rule.matcher {
                DenyMatcher::View(v) if v.verb.is_empty() => deny_any_verb.push(i),
                DenyMatcher::View(v) => deny_index.insert(&v.verb, i),
                DenyMatcher::Raw { .. } => {}
                DenyMatcher::Pipeline(_) => pipeline_rules.push(i),
            }
        }
        // Deny rules are reported in declaration order, not by prefix length.
        for list in deny_index.by_first.values_mut() {
            list.sort_by_key(|(_, i)| *i);
        }
        let trusted = parts
            .settings
            .trusted_bin_dirs
            .iter()
            .filter_map(|d| d.to_str())
            .map(str::to_owned)
            .collect();
        Self {
            trusted,
            deny_index,
            deny_any_verb,
            pipeline_rules,
            safe_index: index_of(parts.safe.iter().map(|e| e.verb.as_slice())),
            wrapper_index: index_of(parts.wrappers.iter().map(|e| e.verb.as_slice())),
            shell_index: index_of(parts.shells.iter().map(|e| e.verb.as_slice())),
            interpreter_index: index_of(parts.interpreters.iter().map(|e| e.verb.as_slice())),
            verb_index: index_of(parts.verbs.iter().map(|e| e.verb.as_slice())),
            settings: parts.settings,
            deny: parts.deny,
            raw: parts.raw,
            raw_rules: parts.raw_rules,
            safe: parts.safe,
            wrappers: parts.wrappers,
            shells: parts.shells,
            interpreters: parts.interpreters,
            verbs: parts.verbs,
            classifier: parts.classifier,
            audiences: parts.audiences,
            protected: parts.protected,
            protected_set: parts.protected_set,
            protected_owner: parts.protected_owner,
            tests: parts.tests,
            disabled: parts.disabled,
        }
    }

    // ---- names ---------------------------------------------------------------------------

    /// The command name of a verb word and whether it is trusted: a bare name is trusted; a
    /// path counts as its file name, trusted only when its directory is a trusted bin dir.
    /// `None` for a word that is not literal.
    pub(crate) fn command_name<'w>(&self, word: &'w Word) -> Option<(&'w str, bool)> {
        if !word.literal {
            return None;
        }
        let text = word.cooked.as_str();
        match text.rsplit_once('/') {
            None => Some((text, true)),
            Some((dir, name)) => {
                let dir = paths::normalize(dir, dir.starts_with('/'));
                let dir = if dir.is_empty() { "/".to_owned() } else { dir };
                Some((name, self.trusted.contains(&dir)))
            }
        }
    }

    /// Whether `words` start with `verb` (the first word by command name, any directory when
    /// `any_dir`, otherwise trusted ones only; the others cooked and literal).
    pub(crate) fn starts_with(&self, words: &[Word], verb: &[String], any_dir: bool) -> bool {
        let Some((first, rest)) = verb.split_first() else {
            return false;
        };
        let Some(word) = words.first() else {
            return false;
        };
        let Some((name, trusted)) = self.command_name(word) else {
            return false;
        };
        if name != first || !(trusted || any_dir) || words.len() < verb.len() {
            return false;
        }
        rest.iter()
            .zip(words.iter().skip(1))
            .all(|(v, w)| w.literal && w.cooked == *v)
    }

    /// Where a deny rule's verb prefix ends in `words`: the index after its last word, or
    /// `None` when the words do not start with it. The strict reading of [`Policy::starts_with`]
    /// (any directory) that also lets option words stand *between* the prefix's words, so
    /// `git --no-pager push` and `git --bare push` meet a `["git", "push"]` rule (a top-level
    /// option never changes which subcommand runs). This only ever matches more, which is the
    /// safe direction for a deny rule; the safe catalog keeps the exact reading.
    pub(crate) fn deny_prefix_end(&self, words: &[Word], verb: &[String]) -> Option<usize> {
        let (first, rest) = verb.split_first()?;
        let (name, _) = self.command_name(words.first()?)?;
        if name != first {
            return None;
        }
        let mut i = 1;
        for v in rest {
            while words.get(i).is_some_and(|w| {
                w.literal && w.cooked.len() > 1 && w.cooked.starts_with('-') && w.cooked != *v
            }) {
                i += 1;
            }
            let word = words.get(i)?;
            if !(word.literal && word.cooked == *v) {
                return None;
            }
            i += 1;
        }
        Some(i)
    }

    /// The best entry of a table for `words`.
    pub(crate) fn lookup<'t, T>(
        &self,
        index: &VerbIndex,
        table: &'t [T],
        verb_of: fn(&T) -> &[String],
        words: &[Word],
        any_dir: bool,
        accept: &dyn Fn(&T) -> bool,
    ) -> Option<&'t T> {
        self.lookup_at(index, table, verb_of, words, any_dir, accept)
            .map(|(_, entry)| entry)
    }

    /// [`Policy::lookup`] with the entry's index.
    pub(crate) fn lookup_at<'t, T>(
        &self,
        index: &VerbIndex,
        table: &'t [T],
        verb_of: fn(&T) -> &[String],
        words: &[Word],
        any_dir: bool,
        accept: &dyn Fn(&T) -> bool,
    ) -> Option<(usize, &'t T)> {
        let (name, _) = self.command_name(words.first()?)?;
        index
            .candidates(name)
            .filter_map(|i| table.get(i).map(|entry| (i, entry)))
            .find(|(_, entry)| self.starts_with(words, verb_of(entry), any_dir) && accept(entry))
    }

    // ---- deny ----------------------------------------------------------------------------

    /// The command deny rules (`verb`, flags, `args_any`, `redirect_to`, `env`) that `view`
    /// hits, in declaration order. The verb is compared by command name in any directory
    /// (`/tmp/x/rm` is `rm`), which only ever matches more.
    #[must_use]
    pub fn deny(&self, view: &CommandView<'_>) -> Vec<&DenyRule> {
        let keyed = view
            .words
            .first()
            .and_then(|w| self.command_name(w))
            .map(|(name, _)| name);
        let mut candidates: Vec<usize> = keyed
            .map(|name| self.deny_index.candidates(name).collect())
            .unwrap_or_default();
        candidates.extend(self.deny_any_verb.iter().copied());
        if candidates.is_empty() {
            return Vec::new();
        }
        candidates.sort_unstable();
        candidates.dedup();
        let facts = Facts::default();
        candidates
            .into_iter()
            .filter(|i| match self.deny.get(*i).map(|r| &r.matcher) {
                Some(DenyMatcher::View(m)) => self.view_hits(m, view, &facts),
                Some(DenyMatcher::Raw { .. } | DenyMatcher::Pipeline(_)) | None => false,
            })
            .filter_map(|i| self.deny.get(i))
            .collect()
    }

    /// Whether the view matcher `m` holds.
    fn view_hits(&self, m: &ViewMatcher, view: &CommandView<'_>, facts: &Facts) -> bool {
        let start = if m.verb.is_empty() {
            1
        } else {
            match self.deny_prefix_end(view.words, &m.verb) {
                Some(end) => end,
                None => return false,
            }
        };
        let has = |spellings: &Vec<String>| {
            facts
                .scan(view)
                .flags
                .iter()
                .filter(|hit| hit.index >= start)
                .any(|hit| spellings.iter().any(|s| flag_is(&hit.name, s)))
        };
        if !m.flags_all.iter().all(has) {
            return false;
        }
        if !m.flags_any.is_empty() && !m.flags_any.iter().any(has) {
            return false;
        }
        if let Some(globs) = &m.args_any
            && !facts.operands(view).iter().any(|(index, forms)| {
                *index >= start
                    && (forms.iter().any(|form| globs.is_match(form))
                        || view
                            .words
                            .get(*index)
                            .is_some_and(|word| globs.is_match(&word.cooked)))
            })
        {
            return false;
        }
        if let Some(globs) = &m.redirect_to
            && !facts
                .redirects(view)
                .iter()
                .any(|target| globs.is_match(target))
        {
            return false;
        }
        if let Some(globs) = &m.env
            && !facts
                .env(self, view)
                .iter()
                .any(|name| globs.is_match(name))
        {
            return false;
        }
        true
    }

    /// The `raw` deny rules whose regex matches anywhere in `text`, in declaration order.
    #[must_use]
    pub fn deny_raw(&self, text: &str) -> Vec<&DenyRule> {
        if self.raw.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<usize> = self
            .raw
            .matches(text)
            .into_iter()
            .filter_map(|i| self.raw_rules.get(i).copied())
            .collect();
        hits.sort_unstable();
        hits.into_iter().filter_map(|i| self.deny.get(i)).collect()
    }

    /// The `pipeline` deny rules hit by a pipeline whose stages are `stages`, in order: a
    /// stage matching `from` followed (directly or later) by a stage matching `to`.
    #[must_use]
    pub fn deny_pipeline(&self, stages: &[CommandView<'_>]) -> Vec<&DenyRule> {
        self.pipeline_hits(stages.len(), &|stage, verb| {
            stages
                .get(stage)
                .is_some_and(|view| self.deny_prefix_end(view.words, verb).is_some())
        })
    }

    /// Pipeline rules hit, given a predicate "stage `i` runs a command starting with `verb`".
    pub(crate) fn pipeline_hits(
        &self,
        stages: usize,
        runs: &dyn Fn(usize, &[String]) -> bool,
    ) -> Vec<&DenyRule> {
        self.pipeline_rules
            .iter()
            .filter_map(|i| self.deny.get(*i))
            .filter(|rule| {
                let DenyMatcher::Pipeline(p) = &rule.matcher else {
                    return false;
                };
                (0..stages).any(|i| {
                    p.from.iter().any(|v| runs(i, v))
                        && (i + 1..stages).any(|j| p.to.iter().any(|v| runs(j, v)))
                })
            })
            .collect()
    }

    // ---- safe catalog -------------------------------------------------------------------

    /// What the safe catalog says about `view`'s words (redirections are the caller's: a
    /// [`SafeVerdict::Pure`] or [`SafeVerdict::Safe`] verb that writes through a redirect is
    /// not read-only). Option-aware: unsafe flags are found in every spelling (bundled,
    /// `--x=v`, unambiguous long prefixes), values of `value_flags` are skipped, and a dynamic
    /// word before `--` makes a verb with unsafe flags unsafe. Only bare names and binaries in
    /// trusted bin dirs are catalogued; entries with an `os` list apply on those systems only.
    #[must_use]
    pub fn safe(&self, view: &CommandView<'_>) -> SafeVerdict<'_> {
        let os = std::env::consts::OS;
        let Some((_, entry)) = self.lookup_at(
            &self.safe_index,
            &self.safe,
            |e| &e.verb,
            view.words,
            false,
            &|e: &SafeEntry| e.os.is_empty() || e.os.iter().any(|o| o == os),
        ) else {
            return SafeVerdict::NotCatalogued;
        };
        let start = entry.verb.len();
        let scan = flags::scan(view.words, start, &|name| {
            entry.value_flags.iter().any(|v| v == name)
        });
        for hit in &scan.flags {
            for unless in &entry.unless_flags {
                if unless.flags.iter().any(|s| flag_is(&hit.name, s)) {
                    return SafeVerdict::Unsafe {
                        token: cooked(view.words, hit.index),
                        why: &unless.why,
                    };
                }
            }
        }
        let option_aware = !entry.unless_flags.is_empty() || !entry.unless_args.is_empty();
        if option_aware && let Some(index) = scan.dynamic.first() {
            return SafeVerdict::Unsafe {
                token: cooked(view.words, *index),
                why: DYNAMIC_WHY,
            };
        }
        if !entry.unless_args.is_empty() {
            let mut found = Vec::new();
            for word in view.words.iter().skip(start) {
                entry.unless_globs.matches_into(&word.cooked, &mut found);
                let hit = found.iter().find_map(|arg| entry.unless_args.get(*arg));
                if let Some(unless) = hit {
                    return SafeVerdict::Unsafe {
                        token: word.cooked.clone(),
                        why: &unless.why,
                    };
                }
            }
        }
        if entry.pure {
            SafeVerdict::Pure
        } else {
            SafeVerdict::Safe { why: &entry.why }
        }
    }

    // ---- argument roles -----------------------------------------------------------------

    /// The roles of `view`'s arguments, by word index: option values and `key=value` operands
    /// included. For a verb without a `[[verb]]` entry, path-shaped operands (class `path`) are
    /// writes.
    #[must_use]
    pub fn roles(&self, view: &CommandView<'_>) -> Vec<ArgRole> {
        let words = view.words;
        let entry = self.lookup(
            &self.verb_index,
            &self.verbs,
            |e| &e.verb,
            words,
            true,
            &|_| true,
        );
        let Some(entry) = entry else {
            let scan = flags::scan(words, 1, &|_| false);
            return scan
                .operands
                .iter()
                .filter_map(|i| words.get(*i).map(|w| (*i, w)))
                .filter(|(_, w)| self.classify(&w.cooked) == TokenClass::Path)
                .map(|(index, w)| ArgRole {
                    index,
                    role: Role::WritePath,
                    text: w.cooked.clone(),
                })
                .collect();
        };
        let option_role = |name: &str| -> Option<Role> {
            entry
                .options
                .iter()
                .find(|(o, _)| flag_is(name, o))
                .map(|(_, r)| *r)
        };
        let scan = flags::scan(words, entry.verb.len(), &|name| {
            option_role(name).is_some() || entry.value_flags.iter().any(|v| v == name)
        });
        let mut out: Vec<ArgRole> = scan
            .values
            .iter()
            .map(|v| ArgRole {
                index: v.index,
                role: option_role(&v.flag).unwrap_or(Role::Value),
                text: v.text.clone(),
            })
            .collect();
        let count = scan.operands.len();
        for (n, index) in scan.operands.iter().enumerate() {
            let Some(word) = words.get(*index) else {
                continue;
            };
            let assigned = word.cooked.split_once('=').and_then(|(key, value)| {
                entry
                    .assign
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, role)| (*role, value))
            });
            if let Some((role, value)) = assigned {
                out.push(ArgRole {
                    index: *index,
                    role,
                    text: value.to_owned(),
                });
                continue;
            }
            let role = match entry.last {
                Some(last) if count >= 2 && n + 1 == count => Some(last),
                _ => entry.operands,
            };
            if let Some(role) = role {
                out.push(ArgRole {
                    index: *index,
                    role,
                    text: word.cooked.clone(),
                });
            }
        }
        out.sort_by_key(|r| r.index);
        out
    }

    // ---- classifier, audiences, protected paths, settings --------------------------------

    /// The class of an argument token (ordered classes from `[classify]`, first match wins).
    #[must_use]
    pub fn classify(&self, token: &str) -> TokenClass {
        self.classifier.classify(token)
    }

    /// The audience profile named `name`.
    #[must_use]
    pub fn audience(&self, name: &str) -> Option<&Audience> {
        self.audiences.get(name)
    }

    /// Every audience profile, by name.
    #[must_use]
    pub const fn audiences(&self) -> &BTreeMap<String, Audience> {
        &self.audiences
    }

    /// The strictest protected entry covering `path` (after `~`/`$HOME` expansion and lexical
    /// normalisation), if any. Strictest: highest write decision, then highest read decision.
    #[must_use]
    pub fn protected(&self, path: &Path, home: Option<&Path>) -> Option<&Protected> {
        self.protected_all(path, home)
            .into_iter()
            .max_by_key(|p| (p.write, p.read))
    }

    /// Every protected entry covering `path`, in declaration order.
    #[must_use]
    pub fn protected_all(&self, path: &Path, home: Option<&Path>) -> Vec<&Protected> {
        let text = path.to_string_lossy();
        let forms = paths::forms(&text, None, home);
        let mut found = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        for form in forms.iter() {
            self.protected_set.matches_into(form, &mut found);
            owners.extend(
                found
                    .iter()
                    .filter_map(|i| self.protected_owner.get(*i).copied()),
            );
        }
        owners.sort_unstable();
        owners.dedup();
        owners
            .into_iter()
            .filter_map(|i| self.protected.get(i))
            .collect()
    }

    /// Every protected entry.
    #[must_use]
    pub fn protected_entries(&self) -> &[Protected] {
        &self.protected
    }

    /// Directories whose binaries count as their bare command names.
    #[must_use]
    pub fn trusted_bin_dirs(&self) -> &[PathBuf] {
        &self.settings.trusted_bin_dirs
    }

    /// The settings in force.
    #[must_use]
    pub const fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The `[[test]]` cases of every layer, in load order.
    #[must_use]
    pub fn tests(&self) -> &[PolicyTest] {
        &self.tests
    }

    /// Every active deny rule, in declaration order.
    #[must_use]
    pub fn deny_rules(&self) -> &[DenyRule] {
        &self.deny
    }

    /// The active deny rule with id `id`.
    #[must_use]
    pub fn deny_rule(&self, id: &str) -> Option<&DenyRule> {
        self.deny.iter().find(|r| r.id == id)
    }

    /// Deny rules removed by a user layer, with the reason given.
    #[must_use]
    pub fn disabled(&self) -> &[DisabledRule] {
        &self.disabled
    }

    /// The safe catalog.
    #[must_use]
    pub fn safe_entries(&self) -> &[SafeEntry] {
        &self.safe
    }

    /// The wrappers.
    #[must_use]
    pub fn wrappers(&self) -> &[Wrapper] {
        &self.wrappers
    }

    /// The shells.
    #[must_use]
    pub fn shells(&self) -> &[Shell] {
        &self.shells
    }

    /// The interpreters.
    #[must_use]
    pub fn interpreters(&self) -> &[Interpreter] {
        &self.interpreters
    }

    /// The argument-role entries.
    #[must_use]
    pub fn verb_roles(&self) -> &[VerbRoles] {
        &self.verbs
    }

    /// The interpreter entry for `words`, if the command is one (by command name, any
    /// directory).
    #[must_use]
    pub fn interpreter(&self, words: &[Word]) -> Option<&Interpreter> {
        self.lookup(
            &self.interpreter_index,
            &self.interpreters,
            |e| &e.verb,
            words,
            true,
            &|_| true,
        )
    }
}

/// The cooked text of word `index`.
fn cooked(words: &[Word], index: usize) -> String {
    words
        .get(index)
        .map(|w| w.cooked.clone())
        .unwrap_or_default()
}

/// What the deny matchers need from a view, each part computed once and only when a
/// candidate rule asks for it (most commands meet only rules that never look at path forms).
#[derive(Default)]
struct Facts {
    /// Flags and operands after the command word (no value flags: the strict reading).
    scan: OnceCell<Scan>,
    /// Each operand's word index and path forms: `args_any` globs are matched against the
    /// forms and the cooked word.
    operands: OnceCell<Vec<(usize, paths::PathForms)>>,
    /// What `redirect_to` globs are matched against: each write target's path forms and
    /// cooked text.
    redirects: OnceCell<Vec<String>>,
    /// What `env` globs are matched against: assigned names, and the names an exporter
    /// builtin (`export A=1`) sets.
    env: OnceCell<Vec<String>>,
}

impl Facts {
    fn scan(&self, view: &CommandView<'_>) -> &Scan {
        self.scan
            .get_or_init(|| flags::scan(view.words, 1, &|_| false))
    }

    fn operands(&self, view: &CommandView<'_>) -> &[(usize, paths::PathForms)] {
        self.operands.get_or_init(|| {
            self.scan(view)
                .operands
                .iter()
                .filter_map(|index| {
                    let word = view.words.get(*index)?;
                    Some((*index, paths::forms(&word.cooked, view.cwd, view.home)))
                })
                .collect()
        })
    }

    fn redirects(&self, view: &CommandView<'_>) -> &[String] {
        self.redirects.get_or_init(|| {
            let mut redirects = Vec::new();
            for target in view.redirects.iter().filter_map(Redirect::write_target) {
                let forms = paths::forms(&target.cooked, view.cwd, view.home);
                redirects.extend(forms.iter().map(str::to_owned));
                redirects.push(target.cooked.clone());
            }
            redirects
        })
    }

    fn env(&self, policy: &Policy, view: &CommandView<'_>) -> &[String] {
        self.env.get_or_init(|| {
            let mut env: Vec<String> = view.assignments.iter().map(|a| a.name.clone()).collect();
            let exporter = view
                .words
                .first()
                .and_then(|w| policy.command_name(w))
                .is_some_and(|(name, _)| EXPORTERS.contains(&name));
            if exporter {
                for word in view.words.iter().skip(1) {
                    let name = word
                        .cooked
                        .split_once('=')
                        .map_or(word.cooked.as_str(), |(n, _)| n);
                    env.push(name.to_owned());
                }
            }
            env
        })
    }
}
