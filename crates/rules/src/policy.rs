//! The compiled [`Policy`]: loading, lookups by command name, and its tables. Matching lives
//! beside it: deny rules in `deny.rs`, the safe catalog and argument roles in `safe.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shellgate_parser::path;
use shellgate_parser::{Assignment, Redirect, Word};

use crate::Access;
use crate::classify::TokenClass;
use crate::compile::Builder;
use crate::error::PolicyError;
use crate::example::RuleExample;
use crate::glob::{WordGlob, WordGlobSet};
use crate::lazy::{LazyClassifier, LazyGlobSet, RawMatcher, RawRegex};
use crate::model::{
    Audience, DenyKind, DenyRule, DisabledRule, Interpreter, Layer, PolicySource, PolicyTest,
    Protected, SafeEntry, Settings, Shell, VerbRoles, Wrapper,
};
use crate::protected::ProtectedPaths;
use crate::verb_table::{Keyed, VerbTable};

/// The embedded default policy text (`policies/default.toml`, copied by the build script so
/// that it is exactly the text the build script turned into the fast-loading binary form).
pub const DEFAULT_POLICY: &str = include_str!(concat!(env!("OUT_DIR"), "/default.toml"));

/// The name the embedded default policy has in diagnostics.
pub const DEFAULT_POLICY_NAME: &str = "policies/default.toml";

/// Which load-time checks [`Policy::compile_with`] runs: the `match`/`not_match` examples of
/// the deny rules, and that every glob and regex compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Examples {
    /// The checks of every layer (what `shellgate check` does).
    All,
    /// The checks of every source except one whose text is exactly the embedded default: that
    /// text is fixed at build time and the test suite runs its checks, and running its hundreds
    /// of examples would dominate load time.
    SkipEmbeddedDefault,
}

/// What a task or operand name says it does (see [`Policy::named_task`]), with the glob it
/// matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedTask<'p> {
    /// It deploys, publishes or releases (`settings.release_names`).
    Release(&'p str),
    /// It opens a console or changes data kept outside the project's files
    /// (`settings.console_names`).
    Console(&'p str),
}

/// The first glob of `list` (compiled as `set`) that `text` matches.
fn first_glob<'p>(set: &LazyGlobSet, list: &'p [String], text: &str) -> Option<&'p str> {
    let mut found = Vec::new();
    set.matches_into(text, &mut found);
    found.first().and_then(|i| list.get(*i)).map(String::as_str)
}

/// One command to judge: its words, assignment prefixes, redirections, and where it runs.
///
/// A view does not own anything; it is made from an invocation the gate's walk found
/// (`shellgate_policy::expand::Invocation::view`) or built by hand, so every matcher applies equally to a clause
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

/// A compiled, immutable policy: every glob, regex and keyword table is built once, when
/// first used (each behind a `OnceLock`, so the policy stays immutable from the outside), and
/// never again. `Send + Sync`, cheap to share behind an `Arc`.
#[derive(Clone, Debug)]
pub struct Policy {
    /// What the policy files declare.
    pub(crate) declared: Declared,
    /// The trusted bin dirs as text.
    pub(crate) trusted: Vec<String>,
    /// The `command` rules without a `verb`: candidates for every command.
    pub(crate) deny_any_verb: Vec<usize>,
    /// The `raw` regexes; regex `i` belongs to rule `raw_rules[i]`.
    pub(crate) raw: RawMatcher,
    pub(crate) raw_rules: Vec<usize>,
    /// The `pipeline` rules.
    pub(crate) pipeline_rules: Vec<usize>,
    /// `settings.release_names` as one set.
    pub(crate) release_set: LazyGlobSet,
    /// `settings.console_names` as one set.
    pub(crate) console_set: LazyGlobSet,
    /// `settings.toolchain_code` as one set, in lower case (matched against names in lower
    /// case: on a case-insensitive file system `MAKEFILE` is the `Makefile` make reads).
    pub(crate) toolchain_code_set: LazyGlobSet,
    /// `settings.repository_programs` as one set.
    pub(crate) repository_program_set: LazyGlobSet,
    /// `settings.hook_files` in lower case, as one set.
    pub(crate) hook_file_set: LazyGlobSet,
    /// `settings.repository_config` as one set.
    pub(crate) repository_config_set: LazyGlobSet,
    /// `settings.environment_programs` as one set.
    pub(crate) environment_program_set: LazyGlobSet,
    /// `settings.secret_names` as one set.
    pub(crate) secret_set: LazyGlobSet,
    /// `settings.code_loading_variables` as one set.
    pub(crate) code_loading_set: WordGlobSet,
    /// `settings.command_variables` as one set.
    pub(crate) command_variable_set: WordGlobSet,
    /// `settings.module_path_variables` as one set.
    pub(crate) module_path_set: WordGlobSet,
    /// `settings.harmless_assignments`, each split into its name and value glob.
    pub(crate) harmless_assignments: Vec<(WordGlob, WordGlob)>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Policy>();
};

/// What the policy files declare, layered and compiled: what [`Policy::assemble`] indexes.
#[derive(Clone, Debug)]
pub(crate) struct Declared {
    pub(crate) settings: Settings,
    /// Every active deny rule, in declaration order.
    pub(crate) deny: VerbTable<DenyRule>,
    pub(crate) safe: VerbTable<SafeEntry>,
    pub(crate) wrappers: VerbTable<Wrapper>,
    pub(crate) shells: VerbTable<Shell>,
    pub(crate) interpreters: VerbTable<Interpreter>,
    pub(crate) verbs: VerbTable<VerbRoles>,
    pub(crate) classifier: LazyClassifier,
    pub(crate) audiences: BTreeMap<String, Audience>,
    pub(crate) protected: ProtectedPaths,
    pub(crate) tests: Vec<PolicyTest>,
    pub(crate) disabled: Vec<DisabledRule>,
    /// The `match`/`not_match` examples recorded at compile time (see [`Policy::examples`]).
    pub(crate) examples: Vec<RuleExample>,
}

impl Policy {
    /// The embedded default policy as a source.
    #[must_use]
    pub fn default_source() -> PolicySource {
        PolicySource::new(DEFAULT_POLICY_NAME, DEFAULT_POLICY, Layer::Default)
    }

    /// The embedded default policy alone. Its own `match`/`not_match` examples are not
    /// recorded: the text is fixed at build time and the test suite checks them (compile with
    /// [`Policy::compile_with`] and [`Examples::All`] to record them anyway).
    ///
    /// # Errors
    /// Only if the embedded file is invalid, which the test suite rules out.
    pub fn embedded_default() -> Result<Self, PolicyError> {
        // As `compile(&[default_source()])`, without copying the text.
        let mut builder = Builder::new(Examples::SkipEmbeddedDefault);
        builder.add_text(DEFAULT_POLICY_NAME, DEFAULT_POLICY, Layer::Default);
        builder.finish()
    }

    /// Compiles layers in order (the default layer first, then user files, then project
    /// files): validates every file whole and compiles the result. The deny rules' `match` and
    /// `not_match` examples are recorded ([`Policy::examples`]), all of them except those of a
    /// source whose text is exactly the embedded default (checked by the test suite; see
    /// [`Examples`]); they are not run here. Running one walks the command through wrappers
    /// and shell code as the gate does: `shellgate_policy::load_policy` compiles and then runs
    /// them, and is what loads a policy for the gate.
    ///
    /// # Errors
    /// Every problem found, as one [`PolicyError`] (or [`PolicyError::Several`]); no partial
    /// policy is ever returned.
    pub fn compile(sources: &[PolicySource]) -> Result<Self, PolicyError> {
        Self::compile_with(sources, Examples::SkipEmbeddedDefault)
    }

    /// [`Policy::compile`] with a choice of which files' checks run and examples are recorded.
    ///
    /// # Errors
    /// As [`Policy::compile`].
    ///
    /// Every source takes the same path; a source whose text is exactly the embedded default
    /// is read from the binary form the build script made of it (no TOML parse), and with
    /// [`Examples::SkipEmbeddedDefault`] its checks are left to the test suite. What compiles
    /// is the same either way.
    pub fn compile_with(sources: &[PolicySource], examples: Examples) -> Result<Self, PolicyError> {
        let mut builder = Builder::new(examples);
        for source in sources {
            builder.add(source);
        }
        builder.finish()
    }

    /// The deny rules' `match`/`not_match` examples still to run, in load order (those of
    /// rules a later layer disabled included: the runner skips them).
    #[must_use]
    pub fn examples(&self) -> &[RuleExample] {
        &self.declared.examples
    }

    /// Builds the lookup tables.
    pub(crate) fn assemble(declared: Declared, guards: &BTreeMap<String, Vec<String>>) -> Self {
        let mut deny_any_verb = Vec::new();
        let mut raw = Vec::new();
        let mut raw_rules = Vec::new();
        let mut pipeline_rules = Vec::new();
        for (i, rule) in declared.deny.entries().iter().enumerate() {
            match rule.kind {
                DenyKind::Command if rule.verb().is_empty() => deny_any_verb.push(i),
                DenyKind::Command => {}
                DenyKind::Raw => {
                    if let Some(regex) = rule.raw_regex() {
                        let guard = guards.get(regex).cloned();
                        raw.push(RawRegex::new(regex.to_owned(), guard));
                        raw_rules.push(i);
                    }
                }
                DenyKind::Pipeline => pipeline_rules.push(i),
            }
        }
        let settings = &declared.settings;
        let trusted = settings
            .trusted_bin_dirs
            .iter()
            .filter_map(|d| d.to_str())
            .map(str::to_owned)
            .collect();
        let release_set = LazyGlobSet::new(settings.release_names.clone());
        let console_set = LazyGlobSet::new(settings.console_names.clone());
        // (File names matched in any letter case.)
        let lower_set = |globs: &[String]| {
            LazyGlobSet::new(globs.iter().map(|g| g.to_ascii_lowercase()).collect())
        };
        let toolchain_code_set = lower_set(&settings.toolchain_code);
        let hook_file_set = lower_set(&settings.hook_files);
        let repository_program_set = LazyGlobSet::new(settings.repository_programs.clone());
        let repository_config_set = LazyGlobSet::new(settings.repository_config.clone());
        let environment_program_set = LazyGlobSet::new(settings.environment_programs.clone());
        let secret_set = LazyGlobSet::new(settings.secret_names.clone());
        let code_loading_set = WordGlobSet::new(settings.code_loading_variables.clone());
        let command_variable_set = WordGlobSet::new(settings.command_variables.clone());
        let module_path_set = WordGlobSet::new(settings.module_path_variables.clone());
        let harmless_assignments = settings
            .harmless_assignments
            .iter()
            .filter_map(|entry| entry.split_once('='))
            .map(|(name, value)| (WordGlob::new(name), WordGlob::new(value)))
            .collect();
        Self {
            release_set,
            console_set,
            toolchain_code_set,
            hook_file_set,
            repository_program_set,
            repository_config_set,
            environment_program_set,
            secret_set,
            code_loading_set,
            command_variable_set,
            module_path_set,
            harmless_assignments,
            trusted,
            deny_any_verb,
            raw: RawMatcher::new(raw),
            raw_rules,
            pipeline_rules,
            declared,
        }
    }

    /// The command name of a verb word and whether it is trusted: a bare name is trusted; a
    /// path counts as its file name, trusted only when its directory is a trusted bin dir.
    /// `None` for a word that is not literal.
    #[must_use]
    pub fn command_name<'w>(&self, word: &'w Word) -> Option<(&'w str, bool)> {
        if !word.literal {
            return None;
        }
        let text = word.cooked.as_str();
        match text.rsplit_once('/') {
            None => Some((text, true)),
            Some((dir, name)) => {
                let dir = path::normalize(dir, dir.starts_with('/'));
                let dir = if dir.is_empty() { "/".to_owned() } else { dir };
                Some((name, self.trusted.contains(&dir)))
            }
        }
    }

    /// Whether some entry of the policy (a deny rule, the safe catalog, a wrapper, shell,
    /// interpreter or argument-role entry) names the program `name`.
    #[must_use]
    pub fn knows_name(&self, name: &str) -> bool {
        let d = &self.declared;
        d.deny.candidates(name).next().is_some()
            || d.safe.candidates(name).next().is_some()
            || d.wrappers.candidates(name).next().is_some()
            || d.shells.candidates(name).next().is_some()
            || d.interpreters.candidates(name).next().is_some()
            || d.verbs.candidates(name).next().is_some()
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

    /// The best entry of `table` for `words`: the first candidate (see [`VerbTable`]) whose
    /// prefix the words start with (by command name, in any directory when `any_dir`,
    /// otherwise in trusted ones only) and that `accept` takes.
    pub(crate) fn lookup<'t, T: Keyed>(
        &self,
        table: &'t VerbTable<T>,
        words: &[Word],
        any_dir: bool,
        accept: &dyn Fn(&T) -> bool,
    ) -> Option<&'t T> {
        let (name, _) = self.command_name(words.first()?)?;
        table
            .candidates(name)
            .map(|(_, entry)| entry)
            .find(|entry| self.starts_with(words, entry.verb(), any_dir) && accept(entry))
    }

    /// Every entry of `table` whose verb prefix `words` start with and that `accept`s, best
    /// candidates (longest prefixes) first, entries of one prefix in declaration order.
    pub(crate) fn lookup_all<'t, T: Keyed>(
        &self,
        table: &'t VerbTable<T>,
        words: &[Word],
        any_dir: bool,
        accept: &dyn Fn(&T) -> bool,
    ) -> Vec<&'t T> {
        let Some((name, _)) = words.first().and_then(|w| self.command_name(w)) else {
            return Vec::new();
        };
        let mut found: Vec<(usize, &'t T)> = table
            .candidates(name)
            .filter(|(_, entry)| self.starts_with(words, entry.verb(), any_dir) && accept(entry))
            .collect();
        // Longest prefixes first; for one prefix in declaration order, so that a later
        // layer's entry comes after the ones it overrides.
        found
            .sort_unstable_by_key(|(index, entry)| (std::cmp::Reverse(entry.verb().len()), *index));
        found.into_iter().map(|(_, entry)| entry).collect()
    }

    /// `settings.system_dirs`, normalised: directories of the operating system.
    #[must_use]
    pub fn system_dirs(&self) -> &[PathBuf] {
        &self.declared.settings.system_dirs
    }

    /// `settings.shared_dirs`, normalised: system directories whose content other processes
    /// put there.
    #[must_use]
    pub fn shared_dirs(&self) -> &[PathBuf] {
        &self.declared.settings.shared_dirs
    }

    /// `settings.harmless_devices`, normalised: device files with no one's content.
    #[must_use]
    pub fn harmless_devices(&self) -> &[PathBuf] {
        &self.declared.settings.harmless_devices
    }

    /// `settings.package_runners` (verb chains): commands that download and run a package.
    #[must_use]
    pub fn package_runners(&self) -> &[Vec<String>] {
        &self.declared.settings.package_runners
    }

    /// Whether `words` run one of `settings.concurrent_commands` (in any directory), which
    /// start commands that run alongside the clauses after them.
    #[must_use]
    pub fn is_concurrent_command(&self, words: &[Word]) -> bool {
        self.declared
            .settings
            .concurrent_commands
            .iter()
            .any(|verb| self.starts_with(words, verb, true))
    }

    /// The commands of `settings.alias_commands`, whose unknown subcommands may be aliases.
    #[must_use]
    pub fn alias_commands(&self) -> &[Vec<String>] {
        &self.declared.settings.alias_commands
    }

    /// The commands of `settings.narrow` (verb chains), proposed narrowly.
    #[must_use]
    pub fn narrow_commands(&self) -> &[Vec<String>] {
        &self.declared.settings.narrow
    }

    /// The `settings.release_names` glob a program or script file name matches, if any.
    #[must_use]
    pub fn release_name(&self, file_name: &str) -> Option<&str> {
        first_glob(
            &self.release_set,
            &self.declared.settings.release_names,
            file_name,
        )
    }

    /// Whether a file name is one a project toolchain runs or loads as code
    /// (`settings.toolchain_code`: `Makefile`, `conftest.py`), in any letter case.
    #[must_use]
    pub fn is_toolchain_code(&self, file_name: &str) -> bool {
        self.toolchain_code_set
            .is_match(&file_name.to_ascii_lowercase())
    }

    /// Whether a file name is one of git's hooks or a hook manager's files
    /// (`settings.hook_files`), in any letter case.
    #[must_use]
    pub fn is_hook_file(&self, file_name: &str) -> bool {
        self.hook_file_set.is_match(&file_name.to_ascii_lowercase())
    }

    /// Whether `words` run a program that runs code, or sends credentials, as the
    /// configuration of the directory it works in says (`settings.repository_programs`: `git`,
    /// `npm`), in any directory.
    #[must_use]
    pub fn is_repository_program(&self, words: &[Word]) -> bool {
        self.program_in(words, &self.repository_program_set)
    }

    /// Whether `words` run a program that reads every variable of its environment as one of
    /// its own (`settings.environment_programs`: `make`, `dotnet`).
    #[must_use]
    pub fn is_environment_program(&self, words: &[Word]) -> bool {
        self.program_in(words, &self.environment_program_set)
    }

    /// Whether the command name of `words` (in any directory) matches `set`.
    fn program_in(&self, words: &[Word], set: &LazyGlobSet) -> bool {
        words
            .first()
            .and_then(|w| self.command_name(w))
            .is_some_and(|(name, _)| set.is_match(name))
    }

    /// Whether a file name is one of a repository program's configuration files
    /// (`settings.repository_config`: `config`, `.npmrc`).
    #[must_use]
    pub fn is_repository_config(&self, file_name: &str) -> bool {
        self.repository_config_set.is_match(file_name)
    }

    /// What a task, script or target name, or an operand of a project script or program, says
    /// it does: it matches `settings.release_names` (checked first) or
    /// `settings.console_names`.
    #[must_use]
    pub fn named_task(&self, name: &str) -> Option<NamedTask<'_>> {
        let settings = &self.declared.settings;
        first_glob(&self.release_set, &settings.release_names, name)
            .map(NamedTask::Release)
            .or_else(|| {
                first_glob(&self.console_set, &settings.console_names, name).map(NamedTask::Console)
            })
    }

    /// Whether a variable name looks like it holds a secret (`settings.secret_names`). Names
    /// are compared in upper case (`github_token` is `GITHUB_TOKEN`).
    #[must_use]
    pub fn is_secret_name(&self, name: &str) -> bool {
        self.secret_set.is_match(&name.to_ascii_uppercase())
    }

    /// Whether setting the variable `name` changes which program runs or what it loads
    /// (`settings.code_loading_variables`; the name as written, case and all).
    #[must_use]
    pub fn is_code_loading_variable(&self, name: &str) -> bool {
        self.code_loading_set.is_match(name)
    }

    /// Whether the variable `name` lists directories to load code from
    /// (`settings.module_path_variables`: `PYTHONPATH`, `PATH`).
    #[must_use]
    pub fn is_module_path_variable(&self, name: &str) -> bool {
        self.module_path_set.is_match(name)
    }

    /// Whether setting `name` to the literal `value` sets data, not a program or a path
    /// (`settings.harmless_assignments`): the value has at least one blank-separated piece,
    /// every piece holds only ASCII letters, digits and `._:=+,-`, and one entry's name glob
    /// matches `name` and its value glob the piece, for each piece.
    #[must_use]
    pub fn is_harmless_assignment(&self, name: &str, value: &str) -> bool {
        let plain = |piece: &str| {
            piece
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._:=+,-".contains(&b))
        };
        let mut pieces = value.split_ascii_whitespace().peekable();
        pieces.peek().is_some()
            && pieces.all(|piece| {
                plain(piece)
                    && self
                        .harmless_assignments
                        .iter()
                        .any(|(n, v)| n.is_match(name) && v.is_match(piece))
            })
    }

    /// Whether the variable `name` holds a command line that programs run through a shell
    /// (`settings.command_variables`; the name as written).
    #[must_use]
    pub fn is_command_variable(&self, name: &str) -> bool {
        self.command_variable_set.is_match(name)
    }

    /// Names of directories holding disposable outputs (`settings.disposable`).
    #[must_use]
    pub fn disposable(&self) -> &[String] {
        &self.declared.settings.disposable
    }

    /// The class of an argument token (ordered classes from `[classify]`, first match wins).
    #[must_use]
    pub fn classify(&self, token: &str) -> TokenClass {
        self.declared.classifier.classify(token)
    }

    /// The audience profile named `name`.
    #[must_use]
    pub fn audience(&self, name: &str) -> Option<&Audience> {
        self.declared.audiences.get(name)
    }

    /// Every audience profile, by name.
    #[must_use]
    pub const fn audiences(&self) -> &BTreeMap<String, Audience> {
        &self.declared.audiences
    }

    /// The protected entry covering `path` (after `~`/`$HOME` expansion and lexical
    /// normalisation) that is strictest for `access`, if any: the highest decision for it, then
    /// for the other access. (An entry strict for writes does not decide reads: a layer's
    /// `write = "HardDenied"`, `read = "Approved"` over `**/.env` leaves reading `.env` to the
    /// entry that asks.)
    #[must_use]
    pub fn protected(
        &self,
        path: &Path,
        home: Option<&Path>,
        access: Access,
    ) -> Option<&Protected> {
        let other = match access {
            Access::Read => Access::Write,
            Access::Write => Access::Read,
        };
        self.protected_all(path, home)
            .into_iter()
            .max_by_key(|p| (p.forced(access), p.forced(other)))
    }

    /// The first protected entry guarding writes below `path` by the name `path` gives them
    /// (`.vscode` for `**/.vscode/tasks.json`): a link made at `path` writes them.
    #[must_use]
    pub fn protected_below_name(&self, path: &Path, home: Option<&Path>) -> Option<&Protected> {
        self.declared.protected.guarded_below(path, home)
    }

    /// Whether `path` is a committed template a protected entry lists (`**/.env.example`): a
    /// recursive read of its directory does not reach a secret through it.
    #[must_use]
    pub fn protected_template(&self, path: &Path, home: Option<&Path>) -> bool {
        self.declared.protected.is_template(path, home)
    }

    /// Every protected entry covering `path`, in declaration order.
    #[must_use]
    pub fn protected_all(&self, path: &Path, home: Option<&Path>) -> Vec<&Protected> {
        self.declared.protected.covering(path, home)
    }

    /// Directories whose binaries count as their bare command names.
    #[must_use]
    pub fn trusted_bin_dirs(&self) -> &[PathBuf] {
        &self.declared.settings.trusted_bin_dirs
    }

    /// The settings in force.
    #[must_use]
    pub const fn settings(&self) -> &Settings {
        &self.declared.settings
    }

    /// The `[[test]]` cases of every layer, in load order.
    #[must_use]
    pub fn tests(&self) -> &[PolicyTest] {
        &self.declared.tests
    }

    /// The active deny rule with id `id`.
    #[must_use]
    pub fn deny_rule(&self, id: &str) -> Option<&DenyRule> {
        self.deny_rules().iter().find(|r| r.id == id)
    }

    /// Deny rules removed by a user layer, with the reason given.
    #[must_use]
    pub fn disabled(&self) -> &[DisabledRule] {
        &self.declared.disabled
    }

    /// The interpreter entry for `words`, if the command is one (by command name, any
    /// directory).
    #[must_use]
    pub fn interpreter(&self, words: &[Word]) -> Option<&Interpreter> {
        self.lookup(&self.declared.interpreters, words, true, &|_| true)
    }

    /// The shell entry for `words`, if the command is one (by command name, any directory).
    #[must_use]
    pub fn shell(&self, words: &[Word]) -> Option<&Shell> {
        self.lookup(&self.declared.shells, words, true, &|_| true)
    }

    /// The wrapper entry for `words`, if the command is one (by command name, any directory).
    #[must_use]
    pub fn wrapper(&self, words: &[Word]) -> Option<&Wrapper> {
        self.lookup(&self.declared.wrappers, words, true, &|_| true)
    }
}

/// `impl Policy` accessors of declared tables: each `NAME: FIELD => ENTRY` is
/// `pub fn NAME(&self) -> &[ENTRY]`, the entries of `declared.FIELD` in declaration order.
macro_rules! declared_entries {
    ($($(#[$doc:meta])* $name:ident: $field:ident => $entry:ty,)+) => {
        impl Policy {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(&self) -> &[$entry] {
                    self.declared.$field.entries()
                }
            )+
        }
    };
}

declared_entries! {
    /// Every protected entry.
    protected_entries: protected => Protected,
    /// Every active deny rule, in declaration order.
    deny_rules: deny => DenyRule,
    /// The safe catalog.
    safe_entries: safe => SafeEntry,
    /// The wrappers.
    wrappers: wrappers => Wrapper,
    /// The shells.
    shells: shells => Shell,
    /// The interpreters.
    interpreters: interpreters => Interpreter,
    /// The argument-role entries.
    verb_roles: verbs => VerbRoles,
}

impl Interpreter {
    /// Whether `program` (an awk or sed program) matches one of the entry's `unsafe_program`
    /// regexes (true when they cannot be compiled: fail closed), or its program reader cannot
    /// read it, finds one of its `unsafe_commands` or finds it runs text it computes (`s///e`).
    /// (The files a read program writes and reads and the commands it runs are judged as
    /// clauses of their own.)
    #[must_use]
    pub fn unsafe_program(&self, program: &str) -> bool {
        self.unsafe_set
            .as_ref()
            .is_some_and(|set| set.is_match(program))
            || self.program.as_ref().is_some_and(|reader| {
                crate::sed::effects(program).is_none_or(|found| {
                    found.runs_input
                        || found
                            .commands
                            .iter()
                            .any(|c| reader.unsafe_commands.contains(c))
                })
            })
    }
}
