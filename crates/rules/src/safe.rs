//! What the command catalog says about a command, and the roles of its arguments.

use shellgate_parser::Word;

use crate::classify::TokenClass;
use crate::flags::{self, FlagHit, Scan, flag_is};
use crate::model::{ArgRole, EffectClass, Role, SafeEntry, Setting, UnlessFlag, VerbRoles};
use crate::policy::{CommandView, NamedTask, Policy};

/// Why a dynamic argument makes an option-aware safe verb unsafe.
const DYNAMIC_WHY: &str = "a dynamic argument could expand to an unsafe option";

/// A file a toolchain runs or loads, named by an operand or inside an option's value.
#[derive(Clone, Copy, Debug)]
pub struct TaskFile<'w> {
    /// The word that names it.
    pub word: &'w Word,
    /// The file as the word names it (its cooked text, or the value after `=`).
    pub text: &'w str,
}

/// The file names a recursive read is limited to (see [`Policy::include_filter`]).
#[derive(Clone, Debug)]
pub struct IncludeFilter(globset::GlobSet);

impl IncludeFilter {
    /// Whether a file of this name is read (matched in any letter case).
    #[must_use]
    pub fn admits(&self, name: &str) -> bool {
        self.0.is_match(name)
    }
}

/// What the command catalog says about one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SafeVerdict<'p> {
    /// Admitted by a catalog entry: its effects are those of `class` plus the ones its argument
    /// roles and redirections name, which the caller judges. When entries of several classes
    /// admit it, the least demanding class is reported.
    Admitted {
        /// The verb prefix of the entry.
        verb: &'p [String],
        /// The effect class of the entry.
        class: EffectClass,
        /// Why the entry admits it (from the catalog).
        why: &'p str,
        /// A `[[repository]]` entry whose command runs the repository's hooks.
        hooks: bool,
        /// The command also writes below its working directory.
        writes_cwd: bool,
        /// The command rewrites the work tree below its working directory from its input.
        updates_tree: bool,
    },
    /// A catalogued verb made unsafe by a flag or argument (no entry admits it).
    Unsafe {
        /// The cooked word that made it unsafe.
        token: String,
        /// Why (from the catalog).
        why: &'p str,
        /// A grant may stand for it. Not for a console task (`just shell`): a grant would also
        /// approve whatever code it is handed next time.
        saveable: bool,
        /// The verdict is on a word of the command (an `unless_flags` or `unless_args` hit, an
        /// operand), so only a grant that spells every word stands for it (`make -f *` must
        /// not approve `make -f /tmp/evil.mk`); not on the command as a whole (`unzip` writes
        /// the names its archive holds), where a grant by its name does.
        exact: bool,
    },
    /// Not in the catalog (or its verb is dynamic, or a binary outside the trusted dirs).
    NotCatalogued,
}

impl Policy {
    /// What the command catalog (`[[safe]]`, `[[writer]]`, `[[repository]]`, `[[network]]`,
    /// `[[toolchain]]`) says about `view`'s words; redirections and argument roles are the
    /// caller's to judge. Every entry whose verb prefix the words start with is tried: the
    /// least demanding class among the entries that admit the command wins, else the first
    /// reason an entry gave for not admitting it (longest prefix first). Option-aware: unsafe
    /// flags are found in every spelling (bundled, `--x=v`, unambiguous long prefixes), values
    /// of the entry's `value_flags` and of its argument roles' options are skipped, and a
    /// dynamic word before `--` makes a verb with unsafe flags unsafe. Only bare names and
    /// binaries in trusted bin dirs are catalogued; entries with an `os` list apply on those
    /// systems only.
    #[must_use]
    pub fn safe(&self, view: &CommandView<'_>) -> SafeVerdict<'_> {
        self.safe_in(view, false)
    }

    /// What the catalog says about `view` when its program is a file in any directory
    /// (`./gradlew build -p /tmp/x`, `node_modules/.bin/jest -c /tmp/x.js`), judged by its
    /// name as [`Policy::safe`] judges a trusted one. The project's own programs run silently
    /// as the project's code, but not when an entry for their name refuses the call.
    #[must_use]
    pub fn safe_anywhere(&self, view: &CommandView<'_>) -> SafeVerdict<'_> {
        self.safe_in(view, true)
    }

    /// The files a toolchain runs or loads as its code when its operands are paths
    /// (`[classify]` class `path`): every operand of a toolchain entry (`pytest /tmp/t`,
    /// `coverage run /tmp/e.py`: tests, sources and the configuration beside them) or of a
    /// `tasks` entry (`bun run /tmp/x.js`, and the arguments a script is handed: `npm test --
    /// --config /tmp/x.js`; not those of a file it runs), the `PATH` of a `NAME=PATH` operand,
    /// and path values of options. The evaluator judges each as a script it runs.
    #[must_use]
    pub fn task_files<'w>(&self, view: &CommandView<'w>) -> Vec<TaskFile<'w>> {
        self.task_files_in(view, false)
    }

    /// [`Policy::task_files`] for the entries of the program's name, run from any directory:
    /// the project's copy of a toolchain (`./mvnw -Dmaven.ext.class.path=/tmp/x.jar`,
    /// `.venv/bin/pytest --cov-report xml:/tmp/x`) loads and writes what the tool does.
    #[must_use]
    pub fn task_files_anywhere<'w>(&self, view: &CommandView<'w>) -> Vec<TaskFile<'w>> {
        self.task_files_in(view, true)
    }

    fn task_files_in<'w>(&self, view: &CommandView<'w>, any_dir: bool) -> Vec<TaskFile<'w>> {
        let entries = self.lookup_all(
            &self.declared.safe,
            view.words,
            any_dir,
            &|e: &SafeEntry| e.tasks || e.class == EffectClass::Toolchain,
        );
        let roles = self.lookup(&self.declared.verbs, view.words, true, &|_| true);
        // A compiler's operands are sources it reads (its own `[[verb]]` entry says `operands =
        // "read"`): what it builds from sources outside the run zones is judged when it runs.
        // (Not a toolchain run through an interpreter whose entry reads files: `python3 -m
        // pytest /tmp/x` runs `/tmp/x`.)
        let compiler = |entry: &SafeEntry| {
            roles.is_some_and(|r| r.operands == Some(Role::ReadPath) && r.verb == entry.verb)
        };
        // An option whose role is a write names an output, judged as a write (its zone, a
        // protected path), not as code the toolchain runs.
        let writes = |name: &str| {
            roles.is_some_and(|r| {
                r.options
                    .iter()
                    .any(|(flag, role)| flag == name && *role == Role::WritePath)
            })
        };
        let mut out: Vec<TaskFile<'w>> = Vec::new();
        // `operand`: an operand, which names a file when one of that name exists (`pytest lib`
        // with `lib` a link to another directory); a name of nothing on disk stays a name
        // inside the working directory.
        let mut add = |word: &'w Word, text: &'w str, operand: bool| {
            let known = out
                .iter()
                .any(|f| std::ptr::eq(f.word, word) && f.text == text);
            // (A value the tool expands itself, `$HOME/x` or `~/x`, and one that starts with
            // `-`, `-/../x`, are paths too.)
            // (`-` is standard input.)
            let path = (operand && text != "-")
                || self.classify(text) == TokenClass::Path
                || text.contains('/')
                || text.starts_with(['~', '$']);
            if !known && path {
                out.push(TaskFile { word, text });
            }
        };
        for entry in entries.into_iter().filter(|e| !compiler(e)) {
            let takes = |name: &str| {
                entry.value_flags.iter().any(|v| v == name)
                    || roles.is_some_and(|r| r.takes_value(name))
            };
            let scan = flags::scan(view.words, entry.verb.len(), &takes);
            // A `tasks` entry's first operand is its task. A script's further words are handed
            // to the tools it runs (`npm test -- --config /tmp/x.js`): they are judged as a
            // toolchain's own are. A file's are that program's own arguments (`bun run
            // src/cli.ts --repo /x`).
            let runs_file = entry.tasks
                && scan
                    .operands
                    .first()
                    .and_then(|&i| view.words.get(i))
                    .is_some_and(|w| self.classify(&w.cooked) == TokenClass::Path);
            let operands = scan
                .operands
                .iter()
                .take(if runs_file { 1 } else { usize::MAX });
            for word in operands.filter_map(|&i| view.words.get(i)) {
                // (An option word handed on, `--testPathPattern=src/a`, is not a path itself;
                // its value is, below.)
                let option = word.cooked.starts_with("--")
                    || word
                        .cooked
                        .strip_prefix('-')
                        .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_alphanumeric()));
                if !option {
                    add(word, &word.cooked, true);
                }
                // `-cPATH`: a short option of the tool the script runs, with its value attached.
                if entry.tasks
                    && let Some(value) = word.cooked.strip_prefix('-').and_then(|w| w.get(1..))
                    && !word.cooked.starts_with("--")
                {
                    add(word, value, false);
                }
                // `NAME=PATH` (`make test DESTDIR=/tmp/x`, `dotnet test --
                // RunConfiguration.TestAdaptersPaths=/tmp/x`).
                if !word.cooked.starts_with('-')
                    && let Some((_, value)) = word.cooked.split_once('=')
                {
                    add(word, value, false);
                }
                // `@FILE`: options read from a file (pytest, mypy, javac, dotnet).
                if let Some(file) = word.cooked.strip_prefix('@') {
                    add(word, file, false);
                }
            }
            if runs_file {
                continue;
            }
            // An option's path value (`--log-file=~/.bashrc`, Go's `-o=PATH`,
            // `-test.coverprofile=PATH`, `--env=/tmp/x.js`) names a file the tool writes or
            // loads: the tool's own options are not all known, so every `NAME=PATH` of an
            // option word counts, as does the value of a known value flag.
            for word in view.words.iter().skip(entry.verb.len()) {
                if word.cooked.starts_with('-')
                    && let Some((name, value)) = word.cooked.split_once('=')
                    && !writes(name)
                {
                    for path in value_paths(value) {
                        add(word, path, false);
                    }
                }
            }
            for value in scan.values.iter().filter(|v| !writes(&v.flag)) {
                if let Some(word) = view.words.get(value.index)
                    && let Some(text) = (word.cooked.len())
                        .checked_sub(value.text.len())
                        .and_then(|at| word.cooked.get(at..))
                {
                    for path in value_paths(text) {
                        add(word, path, false);
                    }
                }
            }
        }
        out
    }

    /// The operands that must name no existing file or directory for `verdict` to stand, and
    /// why, when the entry that admitted `view` declares `absent_operands` (`git checkout
    /// NAME`). The evaluator looks each up below the working directory: one that exists, or
    /// one it cannot look up, makes the command unsafe with that reason.
    /// With `absent_repository` instead, only the first operand, and `lenient` is true: a
    /// working directory that does not exist holds nothing.
    #[must_use]
    pub fn absent_operands<'w>(
        &self,
        view: &CommandView<'w>,
        verdict: &SafeVerdict<'_>,
    ) -> Option<(Vec<&'w Word>, &str, bool)> {
        let entry = self.admitting_entry(view, verdict)?;
        let (why, lenient) = match (&entry.absent_operands, &entry.absent_repository) {
            (Some(why), _) => (why.as_str(), false),
            (None, Some(why)) => (why.as_str(), true),
            (None, None) => return None,
        };
        let roles = self.lookup(&self.declared.verbs, view.words, true, &|_| true);
        let takes = |name: &str| {
            entry.value_flags.iter().any(|v| v == name)
                || roles.is_some_and(|r| r.takes_value(name))
        };
        let scan = flags::scan(view.words, entry.verb.len(), &takes);
        let operands = scan.operands.iter().filter_map(|&i| view.words.get(i));
        let operands = if lenient {
            operands.take(1).collect()
        } else {
            operands.collect()
        };
        Some((operands, why, lenient))
    }

    /// The most operands the entry that admitted `view` takes, and why more make it unsafe
    /// (`max_operands`): the evaluator applies it to arguments appended at run time (`xargs
    /// gunzip`), which the catalog does not see.
    #[must_use]
    pub fn operand_limit(
        &self,
        view: &CommandView<'_>,
        verdict: &SafeVerdict<'_>,
    ) -> Option<(usize, &str)> {
        let max = self.admitting_entry(view, verdict)?.max_operands.as_ref()?;
        Some((max.count, max.why.as_str()))
    }

    /// The catalog entry whose verdict `verdict` is: the last entry for its verb and class (a
    /// later layer's replaces an earlier one).
    fn admitting_entry(
        &self,
        view: &CommandView<'_>,
        verdict: &SafeVerdict<'_>,
    ) -> Option<&SafeEntry> {
        let SafeVerdict::Admitted { verb, class, .. } = verdict else {
            return None;
        };
        let entries = self.lookup_all(&self.declared.safe, view.words, true, &|e: &SafeEntry| {
            e.verb.as_slice() == *verb && e.class == *class
        });
        entries.last().copied()
    }

    fn safe_in(&self, view: &CommandView<'_>, any_dir: bool) -> SafeVerdict<'_> {
        let os = std::env::consts::OS;
        // Flags that take a value: the entry's own, and those its argument roles know of.
        let roles = self.lookup(&self.declared.verbs, view.words, true, &|_| true);
        let role_takes = |name: &str| roles.is_some_and(|r| r.takes_value(name));
        let mut best: Option<SafeVerdict<'_>> = None;
        let mut best_len = 0;
        let mut refusal: Option<SafeVerdict<'_>> = None;
        let mut refusal_len = 0;
        let entries = self.lookup_all(
            &self.declared.safe,
            view.words,
            any_dir,
            &|e: &SafeEntry| e.os.is_empty() || e.os.iter().any(|o| o == os),
        );
        for (i, entry) in entries.iter().enumerate() {
            // A later layer's entry for the same verb in the same table replaces this one
            // (a user layer tightens `cat` with `unless_flags`); entries of other tables for
            // the same verb are all tried (`git tag` is read-only and a repository command).
            let replaced = entries
                .get(i + 1..)
                .unwrap_or_default()
                .iter()
                .any(|later| later.verb == entry.verb && later.class == entry.class);
            if replaced {
                continue;
            }
            match entry_verdict(entry, view, &role_takes, &|task| self.task_refusal(task)) {
                admitted @ SafeVerdict::Admitted { class, .. } => {
                    let better = match &best {
                        Some(SafeVerdict::Admitted { class: known, .. }) => class < *known,
                        _ => true,
                    };
                    if better {
                        best = Some(admitted);
                        best_len = entry.verb.len();
                    }
                }
                other => {
                    if refusal.is_none() {
                        refusal = Some(other);
                        refusal_len = entry.verb.len();
                    }
                }
            }
        }
        // What `tar -x`, `unzip` or `patch` writes is named by its input, whatever its operands
        // say: a diff's git headers copy or rename to any name (`patch src/app.c < fix.diff`
        // may write `.git/hooks/pre-commit`).
        let input_names = best.as_ref().and_then(|verdict| match verdict {
            SafeVerdict::Admitted { verb, class, .. } => entries
                .iter()
                .find(|e| e.verb.as_slice() == *verb && e.class == *class)
                .and_then(|e| e.input_names.as_deref())
                .map(|why| (verb.join(" "), why)),
            SafeVerdict::Unsafe { .. } | SafeVerdict::NotCatalogued => None,
        });
        // (Never saved: a grant cannot pin the input, which changes from one run to the next
        // (`patch -p1 < fix.diff`, then `< evil.diff`).)
        if let Some((token, why)) = input_names {
            return SafeVerdict::Unsafe {
                token,
                why,
                saveable: false,
                exact: false,
            };
        }
        // A refusal by an entry for a longer verb knows the command better than an admission
        // by a shorter one: `git stash show -u` prints stashed untracked files, which the
        // `git stash` entry (for `git stash -u`) admits.
        if refusal.is_some() && refusal_len > best_len {
            return refusal.unwrap_or(SafeVerdict::NotCatalogued);
        }
        best.or(refusal).unwrap_or(SafeVerdict::NotCatalogued)
    }

    /// Why a task, script or target name keeps a `tasks` entry's command out of its class,
    /// and whether a grant may stand for it: the name or one of its `/`-separated parts
    /// (`deploy/prod`) is a named task (see [`Policy::named_task`]); a release name wins over
    /// a console name, which is never saved.
    fn task_refusal(&self, task: &str) -> Option<(&'static str, bool)> {
        let named: Vec<NamedTask<'_>> = std::iter::once(task)
            .chain(task.split('/'))
            .filter_map(|name| self.named_task(name))
            .collect();
        if named.iter().any(|n| matches!(n, NamedTask::Release(_))) {
            Some((RELEASE_WHY, true))
        } else if named.is_empty() {
            None
        } else {
            Some((CONSOLE_WHY, false))
        }
    }

    /// Whether `value` is one program name, looked up on `PATH`, that the catalog admits with
    /// no arguments as pure or read-only (`true`, `cat`): a pager or an editor set to it runs
    /// nothing else (`GIT_PAGER=cat`, `git -c core.editor=true`).
    #[must_use]
    pub fn harmless_program(&self, value: &str) -> bool {
        if value.is_empty()
            || !value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        {
            return false;
        }
        let word = Word {
            raw: value.to_owned(),
            cooked: value.to_owned(),
            literal: true,
            features: shellgate_parser::WordFeatures::default(),
            span: shellgate_parser::Span { start: 0, end: 0 },
        };
        let view = CommandView {
            words: std::slice::from_ref(&word),
            assignments: &[],
            redirects: &[],
            cwd: None,
            home: None,
        };
        matches!(
            self.safe(&view),
            SafeVerdict::Admitted {
                class: EffectClass::Pure | EffectClass::ReadOnly,
                ..
            }
        )
    }

    /// Whether `setting` (`KEY=VALUE`), the value of one of the setting options of `view`'s
    /// `[[verb]]` entry, sets a pager or an editor (`program` role) to a
    /// [harmless program](Policy::harmless_program): `git -c core.pager=cat`.
    #[must_use]
    pub fn sets_harmless_program(&self, view: &CommandView<'_>, setting: &str) -> bool {
        self.lookup(&self.declared.verbs, view.words, true, &|_| true)
            .and_then(|entry| setting_role(&entry.settings, setting))
            .is_some_and(|(role, program)| role == Role::Program && self.harmless_program(program))
    }

    /// Whether a catalog entry for `view`'s program says it rewrites the work tree from its
    /// input (`updates_tree`: `git merge`, `patch`, `tar -x`), whether or not the entry admits
    /// this call (an extraction asks, but a grant may run it).
    #[must_use]
    pub fn rewrites_tree(&self, view: &CommandView<'_>) -> bool {
        self.most_specific_entry(view)
            .is_some_and(|e| e.updates_tree)
    }

    /// Whether the most specific catalog entry for `view`'s program says it prints what it
    /// reads from another machine (`fetches`: `gh api`, `npm view`).
    #[must_use]
    pub fn fetches(&self, view: &CommandView<'_>) -> bool {
        self.most_specific_entry(view).is_some_and(|e| e.fetches)
    }

    /// The catalog entry with the longest verb prefix of `view`'s words, in any directory,
    /// whether or not it admits the call (`unzip -l` lists, `unzip` extracts).
    fn most_specific_entry(&self, view: &CommandView<'_>) -> Option<&SafeEntry> {
        self.lookup(&self.declared.safe, view.words, true, &|_| true)
    }

    /// Whether a `[[verb]]` entry gives `view`'s arguments their roles (else [`Policy::roles`]
    /// guesses: path-shaped operands are possible writes).
    #[must_use]
    pub fn knows_roles(&self, view: &CommandView<'_>) -> bool {
        self.lookup(&self.declared.verbs, view.words, true, &|_| true)
            .is_some()
    }

    /// Whether `view`'s argument-role entry copies, moves or links its sources into its
    /// destination (`into_directory`: `cp`, `mv`, `ln`), as opposed to writing one file of
    /// them (an archive: `tar -cf`, `zip -r`).
    #[must_use]
    pub fn copies_into(&self, view: &CommandView<'_>) -> bool {
        self.lookup(&self.declared.verbs, view.words, true, &|_| true)
            .is_some_and(|entry| entry.into_directory)
    }

    /// The roles of `view`'s arguments, by word index: option values and `key=value` operands
    /// included. For a verb without a `[[verb]]` entry, path-shaped operands (class `path`) are
    /// writes. A `pathspec` is reported as a read when it is path-shaped, else as a value.
    #[must_use]
    pub fn roles(&self, view: &CommandView<'_>) -> Vec<ArgRole> {
        let words = view.words;
        let entry = self.lookup(&self.declared.verbs, words, true, &|_| true);
        let Some(entry) = entry else {
            // The value of `--opt=VALUE` and of a `KEY=VALUE` operand (`pytest
            // --basetemp=DIR`, `pytest -o cache_dir=DIR`) is a path like an operand.
            let scan = flags::scan(words, 1, &|_| false);
            let operands = scan.operands.iter().filter_map(|i| {
                let w = words.get(*i)?;
                let text = w
                    .cooked
                    .split_once('=')
                    .map_or(w.cooked.as_str(), |(_, v)| v);
                Some((*i, text, true))
            });
            // So is a value attached to an option: with `=` or `:` (`-out=PATH`, as terraform
            // and Go tools spell long options; `--out:PATH`, `-o:PATH`, as nim, odin and MSVC
            // do; `$HOME` in it is known), or to a one-letter option (`-oPATH`, `-o.envrc`;
            // not the directories compilers read, `-I/usr/include`, `-L../lib`), or to dmd's
            // `-of`.
            // (A dynamic word that may be an option, `-o$HOME/x`, is counted among the
            // operands, where its text is no path.)
            let read_dirs = ["I", "L", "i", "l", "D", "U", "W", "B", "F", "R"];
            let attached = words.iter().enumerate().skip(1).filter_map(|(i, w)| {
                if !w.cooked.starts_with('-') {
                    return None;
                }
                let letter = w.cooked.get(1..2)?;
                if !w.cooked.starts_with("--") && read_dirs.contains(&letter) {
                    return None;
                }
                let option_name = |name: &str| {
                    let name = name.trim_start_matches('-');
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
                };
                if let Some((name, value)) = w.cooked.split_once(['=', ':'])
                    && option_name(name)
                {
                    return Some((i, value, false));
                }
                if w.cooked.starts_with("--") {
                    return None;
                }
                // A two-letter option's path (`-MF.envrc`, `-Fo/x`, dmd's `-of`) starts after
                // it; else a one-letter option's value starts at once (`-o.envrc`).
                let second_letter = w
                    .cooked
                    .get(2..3)
                    .is_some_and(|c| c.chars().all(|c| c.is_ascii_alphabetic()));
                let two = w
                    .cooked
                    .get(3..)
                    .filter(|v| second_letter && v.starts_with(['/', '~', '.', '$']));
                let value = match two {
                    Some(value) => value,
                    None => w.cooked.get(2..)?,
                };
                Some((i, value, false))
            });
            return operands
                .chain(attached)
                .filter(|(_, text, _)| match self.classify(text) {
                    TokenClass::Path => true,
                    // `$HOME/.bashrc`: a path below a variable's directory.
                    TokenClass::EnvRef => text.contains('/'),
                    _ => false,
                })
                .map(|(index, text, operand)| ArgRole {
                    index,
                    role: Role::WritePath,
                    text: text.to_owned(),
                    recursive: false,
                    operand,
                    inside: false,
                })
                .collect();
        };
        let scan = flags::scan(words, entry.verb.len(), &|name| entry.takes_value(name));
        let given = |list: &[String]| {
            scan.flags
                .iter()
                .any(|hit| list.iter().any(|spelling| flag_is(&hit.name, spelling)))
        };
        let first_applies = entry.first.is_some() && !given(&entry.first_unless);
        let recursive = entry.recursive || given(&entry.recursive_flags);
        // `cp -s`, `cp -l`: the sources become the targets of new links.
        let links = given(&entry.link_flags);
        let mut out: Vec<ArgRole> = scan.values.iter().map(|v| entry.value_role(v)).collect();
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
                    recursive: recursive && role.follows_below(),
                    operand: true,
                    inside: false,
                });
                continue;
            }
            // A first operand with expansions may split into several words (`grep $X file`
            // with `X='-r KEY /'`): it keeps the role of the operands after it.
            let role = match (entry.first, entry.last) {
                (Some(first), _) if n == 0 && first_applies && word.literal => Some(first),
                (_, Some(last)) if count >= 2 && n + 1 == count => Some(last),
                _ if links && entry.operands == Some(Role::ReadPath) => Some(Role::Link),
                _ => entry.operands,
            };
            if let Some(role) = role {
                out.push(ArgRole {
                    index: *index,
                    role,
                    text: word.cooked.clone(),
                    recursive: recursive && role.follows_below(),
                    operand: true,
                    inside: false,
                });
            }
        }
        if entry.into_directory {
            into_directory(&mut out, &scan.operands);
        }
        if !entry.backup_flags.is_empty() {
            backups(&mut out, words, &entry.backup_flags, &|name| {
                entry.takes_value(name)
            });
        }
        shifted_destination(&mut out, entry, words, &scan.operands, first_applies);
        // A pathspec is a read when it looks like a path, else a value. An object name that
        // names a file in a revision or in the index (`HEAD:.env`, `origin/main:src/x.rs`,
        // `:0:.env`) reads that file's committed content: the path after the revision is the
        // read.
        for role in &mut out {
            if role.role == Role::Pathspec {
                if let Some(path) =
                    object_path(&role.text).filter(|path| self.classify(path) == TokenClass::Path)
                {
                    role.text = path.to_owned();
                    role.role = Role::ReadPath;
                } else {
                    role.role = if self.classify(&role.text) == TokenClass::Path {
                        Role::ReadPath
                    } else {
                        Role::Value
                    };
                }
            }
        }
        // A value the shell splits into several words (`head -n $N` with `N='1 ~/.ssh/id_rsa'`)
        // may hand the command more operands or options: it takes the strongest role the entry
        // gives an operand or option value, and is judged as a path not known until it runs
        // (or as code that runs).
        if let Some(path_role) = entry.strongest_role() {
            for role in &mut out {
                let splits = words.get(role.index).is_some_and(|w| w.features.splits);
                if splits && role.role == Role::Value {
                    role.role = path_role;
                    role.recursive = recursive && path_role.follows_below();
                }
            }
        }
        out.sort_by_key(|r| r.index);
        out
    }

    /// Whether `view`'s writes leave every file's content as it was: its `[[verb]]` entry has
    /// `keeps_content` (`chmod +x run.sh`, `touch run.sh`).
    #[must_use]
    pub fn keeps_content(&self, view: &CommandView<'_>) -> bool {
        self.lookup(&self.declared.verbs, view.words, true, &|_| true)
            .is_some_and(|entry| entry.keeps_content)
    }

    /// Whether `view`'s `delete` operands (but a move's destination) are directory entries it
    /// removes or renames, not the files links there point to: its `[[verb]]` entry has
    /// `entries` (`rm LINK`, `unlink LINK`, `mv LINK NEW`).
    #[must_use]
    pub fn removes_entries(&self, view: &CommandView<'_>) -> bool {
        self.lookup(&self.declared.verbs, view.words, true, &|_| true)
            .is_some_and(|entry| entry.entries)
    }

    /// Whether `view` reads its working directory recursively because it names no directory
    /// to search: its `[[verb]]` entry has `searches_cwd`, its reads are recursive (always, or
    /// by one of its `recursive_flags`) and no operand is a `read` (`rg KEY`, `grep -r KEY`;
    /// not `grep KEY`, which reads standard input, nor `rg KEY src`). `roles` are
    /// [`Policy::roles`] of `view`.
    #[must_use]
    pub fn searches_cwd(&self, view: &CommandView<'_>, roles: &[ArgRole]) -> bool {
        let Some(entry) = self.lookup(&self.declared.verbs, view.words, true, &|_| true) else {
            return false;
        };
        if !entry.searches_cwd {
            return false;
        }
        let recursive = entry.recursive
            || flags::scan(view.words, entry.verb.len(), &|name| {
                entry.takes_value(name)
            })
            .flags
            .iter()
            .any(|hit| {
                entry
                    .recursive_flags
                    .iter()
                    .any(|spelling| flag_is(&hit.name, spelling))
            });
        recursive
            && !roles
                .iter()
                .any(|role| role.role == Role::ReadPath && role.recursive)
    }

    /// Whether a recursive read by `words` reads hidden files (`grep -r`, `rg --hidden`, `rg -u`)
    /// or skips them (`rg KEY`): its `[[verb]]` entry lists `hidden_flags` and none is given.
    /// Unknown entries read them.
    #[must_use]
    pub fn reads_hidden(&self, words: &[Word]) -> bool {
        self.entry_flag_given(words, |entry| &entry.hidden_flags)
            .is_none_or(|(listed, given)| !listed || given)
    }

    /// For `words`' `[[verb]]` entry, if any: whether the list `pick` takes from it is not
    /// empty, and whether one of its flags is given.
    fn entry_flag_given(
        &self,
        words: &[Word],
        pick: impl Fn(&VerbRoles) -> &[String],
    ) -> Option<(bool, bool)> {
        let entry = self.lookup(&self.declared.verbs, words, true, &|_| true)?;
        let list = pick(entry);
        let given = !list.is_empty()
            && flags::scan(words, entry.verb.len(), &|name| entry.takes_value(name))
                .flags
                .iter()
                .any(|hit| list.iter().any(|spelling| flag_is(&hit.name, spelling)));
        Some((!list.is_empty(), given))
    }

    /// Whether `words` print the names of the files below the directories they read, never
    /// their content: its `[[verb]]` entry lists `names_flags` and one is given (`rg --files`).
    #[must_use]
    pub fn lists_names(&self, words: &[Word]) -> bool {
        self.entry_flag_given(words, |entry| &entry.names_flags)
            .is_some_and(|(_, given)| given)
    }

    /// The file names the recursive reads of `words` are limited to: the globs its `[[verb]]`
    /// entry's `include_flags` are given (`rg -g '*.ts' -g '*.tsx'` reads only files whose
    /// name matches one; `!` globs exclude and limit nothing). `None` when there is no such
    /// glob, or one the filter cannot follow — not literal, or naming a directory (`src/*.ts`):
    /// then every file may be read.
    #[must_use]
    pub fn include_filter(&self, words: &[Word]) -> Option<IncludeFilter> {
        let entry = self.lookup(&self.declared.verbs, words, true, &|_| true)?;
        if entry.include_flags.is_empty() {
            return None;
        }
        let scan = flags::scan(words, entry.verb.len(), &|name| entry.takes_value(name));
        // GNU grep reads a file no `--include` or `--exclude` matches unless the first of them
        // is an `--include`: an exclusion first limits nothing.
        let first_include = scan.values.iter().find(|v| {
            entry
                .include_flags
                .iter()
                .any(|spelling| flag_is(&v.flag, spelling))
        })?;
        let excludes_first = scan.flags.iter().any(|f| {
            f.index < first_include.index
                && f.name.contains("exclude")
                && !f.name.contains("exclude-dir")
        });
        if excludes_first {
            return None;
        }
        let mut set = globset::GlobSetBuilder::new();
        let mut any = false;
        for value in scan.values.iter().filter(|v| {
            entry
                .include_flags
                .iter()
                .any(|spelling| flag_is(&v.flag, spelling))
        }) {
            if value.text.starts_with('!') {
                continue;
            }
            let literal = words.get(value.index).is_some_and(|w| w.literal);
            // (Only `*` and plain characters: bracket expressions, `?`, braces and escapes are
            // read differently by grep's fnmatch and this matcher — `[[:punct:]]env`, `?` one
            // character or one byte, `{k,z}` literal or alternatives — and limit nothing.)
            if !literal
                || value.text.contains(['/', '[', ']', '\\', '?', '{', '}'])
                || value.text.is_empty()
            {
                return None;
            }
            let glob = globset::GlobBuilder::new(&value.text)
                .case_insensitive(true)
                .build()
                .ok()?;
            set.add(glob);
            any = true;
        }
        let set = set.build().ok()?;
        any.then_some(IncludeFilter(set))
    }

    /// The roles of the values of `view`'s setting options alone (`git -c KEY=VALUE`), by the
    /// `settings` of its `[[verb]]` entry: a wrapper's own options, whose other words belong
    /// to the command it runs.
    #[must_use]
    pub fn setting_roles(&self, view: &CommandView<'_>) -> Vec<ArgRole> {
        let Some(entry) = self.lookup(&self.declared.verbs, view.words, true, &|_| true) else {
            return Vec::new();
        };
        if entry.setting_flags.is_empty() {
            return Vec::new();
        }
        flags::scan(view.words, entry.verb.len(), &|name| {
            entry.takes_value(name)
        })
        .values
        .iter()
        .filter(|v| entry.setting_flags.contains(&v.flag))
        .map(|v| entry.value_role(v))
        .collect()
    }
}

impl VerbRoles {
    /// Whether option `name` takes a value.
    fn takes_value(&self, name: &str) -> bool {
        if self.flags.iter().any(|f| f == name) {
            return false;
        }
        self.value_flags.iter().any(|v| v == name)
            || self.setting_flags.iter().any(|v| v == name)
            || self.options.iter().any(|(o, _)| flag_is(name, o))
    }

    /// The strongest role an operand or option value of this entry can have, if any is more
    /// than a plain value: what a word the shell splits may become, as another operand or an
    /// option with its value (`curl -H $H` with `H='x -o ~/.bashrc'`). Running code comes
    /// first (`exec`, `program`), then `delete`, `write`, `link`, `upload` and `read`.
    fn strongest_role(&self) -> Option<Role> {
        let roles = || {
            [self.operands, self.first, self.last]
                .into_iter()
                .flatten()
                .chain(self.options.iter().map(|(_, role)| *role))
                .chain(self.settings.iter().map(|setting| setting.role))
        };
        [
            Role::Exec,
            Role::Program,
            Role::DeletePath,
            Role::WritePath,
            Role::Link,
            Role::Upload,
            Role::ReadPath,
        ]
        .into_iter()
        .find(|strong| {
            roles().any(|r| r == *strong || (r == Role::Pathspec && *strong == Role::ReadPath))
        })
    }

    /// The role of an option's value: by `options`, or for a setting option by the key of its
    /// `KEY=VALUE` (or `KEY VALUE`) text, whose role then covers the value alone; otherwise a
    /// plain value.
    fn value_role(&self, hit: &flags::ValueHit) -> ArgRole {
        let plain = |role: Role, text: &str| ArgRole {
            index: hit.index,
            role,
            text: text.to_owned(),
            recursive: false,
            operand: false,
            inside: false,
        };
        if self.setting_flags.contains(&hit.flag) {
            return setting_role(&self.settings, &hit.text).map_or_else(
                || plain(Role::Value, &hit.text),
                |(role, text)| plain(role, text),
            );
        }
        // An option spelled exactly wins; a value flag spelled exactly (tar's `--checkpoint`)
        // is no abbreviation of a longer option (`--checkpoint-action`); any other long flag
        // may abbreviate one.
        let exact = self.options.iter().find(|(o, _)| *o == hit.flag);
        let role = match exact {
            Some((_, role)) => *role,
            None if self.value_flags.contains(&hit.flag) => Role::Value,
            None => self
                .options
                .iter()
                .find(|(o, _)| flag_is(&hit.flag, o))
                .map_or(Role::Value, |(_, r)| *r),
        };
        plain(role, &hit.text)
    }
}

/// GNU tools permute their arguments, and an option the entry does not list may take the word
/// after it as its value (`cp a ~/.bashrc --sparse always`, `zip -t 01012020 ../x.zip a`,
/// `install a .git/hooks/pre-commit --suf .b`): when the entry's destination is an operand's
/// position (`first`/`last` = `write`), the operand that holds that position once every
/// unlisted option takes a value is written too.
fn shifted_destination(
    out: &mut Vec<ArgRole>,
    entry: &VerbRoles,
    words: &[Word],
    operands: &[usize],
    first_applies: bool,
) {
    let listed = |name: &str| {
        entry.takes_value(name)
            || [
                &entry.flags,
                &entry.recursive_flags,
                &entry.link_flags,
                &entry.backup_flags,
                &entry.first_unless,
                &entry.hidden_flags,
                &entry.names_flags,
            ]
            .iter()
            .any(|list| list.iter().any(|f| flag_is(name, f)))
    };
    // (An abbreviation of a listed option that takes a value takes one too: `--suf .b`.)
    let abbreviates = |name: &str| {
        entry
            .value_flags
            .iter()
            .chain(entry.backup_flags.iter())
            .any(|v| v != name && flag_is(name, v))
    };
    let shifted = flags::scan(words, entry.verb.len(), &|name| {
        entry.takes_value(name) || !listed(name) || abbreviates(name)
    })
    .operands;
    // (The last position needs two operands: `cp SRC DEST`.)
    let positions = [
        (
            entry.first.filter(|_| first_applies),
            shifted.first(),
            operands.first(),
            1,
        ),
        (entry.last, shifted.last(), operands.last(), 2),
    ];
    for (role, at, was, least) in positions {
        let (Some(role @ Role::WritePath), Some(&at)) = (role, at) else {
            continue;
        };
        if Some(&at) == was
            || shifted.len() < least
            || out
                .iter()
                .any(|r| r.index == at && r.role == Role::WritePath)
        {
            continue;
        }
        if let Some(word) = words.get(at) {
            out.push(ArgRole {
                index: at,
                role,
                text: word.cooked.clone(),
                recursive: false,
                operand: true,
                inside: false,
            });
        }
    }
}

/// `cp SRC… DEST`, `mv SRC… DEST/`, `cp -t DEST SRC…`: DEST may be a directory, so each source
/// is also written as `DEST/NAME` (its last path component), with DEST's role. The destination
/// is a written option value (`-t`), else the last of two or more operands.
fn into_directory(out: &mut Vec<ArgRole>, operands: &[usize]) {
    let option = out
        .iter()
        .find(|r| r.role == Role::WritePath && !r.operand)
        .cloned();
    let destination = option.or_else(|| {
        let last = operands.last().filter(|_| operands.len() >= 2)?;
        out.iter().find(|r| r.index == *last).cloned()
    });
    let Some(destination) = destination else {
        return;
    };
    let dir = destination.text.trim_end_matches('/');
    let named: Vec<ArgRole> = out
        .iter()
        .filter(|r| r.operand && r.index != destination.index)
        .filter_map(|source| {
            let name = source.text.trim_end_matches('/').rsplit('/').next()?;
            (!matches!(name, "" | "." | "..")).then(|| ArgRole {
                text: format!("{dir}/{name}"),
                inside: true,
                ..destination.clone()
            })
        })
        .collect();
    out.extend(named);
}

/// `sed -i SUFFIX`, `cp -S SUFFIX`: each written or replaced operand F is also written as its
/// backup, named by every backup suffix given (the tools use the last; each is judged): F +
/// SUFFIX, or SUFFIX with `*` replaced by F's name, in F's directory unless it holds a `/`
/// (`-i'/home/u/*'`, `-i'.*'`). A flag that `takes` a value takes the next word when none is
/// attached (`-S .json`, `--suffix .json`).
fn backups(
    out: &mut Vec<ArgRole>,
    words: &[Word],
    spellings: &[String],
    takes: &dyn Fn(&str) -> bool,
) {
    let mut suffixes = Vec::new();
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        let text = word.cooked.as_str();
        if text == "--" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let name = format!("--{name}");
            let Some(spelling) = spellings.iter().find(|s| flag_is(&name, s)) else {
                continue;
            };
            match value {
                Some(value) => suffixes.push(value),
                None if takes(spelling) => suffixes.extend(rest.next().map(|w| w.cooked.as_str())),
                None => {}
            }
        } else if let Some(body) = text.strip_prefix('-') {
            let found = body.char_indices().find_map(|(at, c)| {
                let name = format!("-{c}");
                spellings.contains(&name).then(|| (at + c.len_utf8(), name))
            });
            if let Some((end, name)) = found {
                match body.get(end..).unwrap_or_default() {
                    "" if takes(&name) => suffixes.extend(rest.next().map(|w| w.cooked.as_str())),
                    suffix => suffixes.push(suffix),
                }
            }
        }
    }
    let written: Vec<ArgRole> = out
        .iter()
        .filter(|r| r.operand && matches!(r.role, Role::WritePath | Role::DeletePath))
        .cloned()
        .collect();
    for suffix in suffixes.into_iter().filter(|s| !s.is_empty()) {
        for file in &written {
            let (dir, name) = match file.text.rsplit_once('/') {
                Some((dir, name)) => (format!("{dir}/"), name),
                None => (String::new(), file.text.as_str()),
            };
            let backup = match suffix.contains('*') {
                false => format!("{}{suffix}", file.text),
                true if suffix.contains('/') => suffix.replace('*', name),
                true => format!("{dir}{}", suffix.replace('*', name)),
            };
            out.push(ArgRole {
                text: backup,
                role: Role::WritePath,
                recursive: false,
                operand: false,
                ..file.clone()
            });
        }
    }
}

/// The file an object name reads (`HEAD:.env` → `.env`, `:0:.env` → `.env`), if `text` is
/// one: a revision and a path joined by `:`, or `:PATH` (optionally `:STAGE:PATH`) for the
/// index. Not a URL, not pathspec magic (`:(exclude)x`, `:!x`) and not a message search
/// (`:/fix`).
fn object_path(text: &str) -> Option<&str> {
    if text.contains("://") {
        return None;
    }
    let (revision, path) = text.split_once(':')?;
    let path = if revision.is_empty() {
        let path = match path.split_once(':') {
            Some(("0" | "1" | "2" | "3", rest)) => rest,
            _ => path,
        };
        if path.starts_with(['/', '(', '!', '^']) {
            return None;
        }
        path
    } else {
        path
    };
    (!path.is_empty()).then_some(path)
}

/// The role `settings` give the value of `KEY=VALUE`, `KEY VALUE` or `KEY = VALUE` (ssh takes
/// all three), and the text it covers: the value after the setting's prefix.
fn setting_role<'t>(settings: &[Setting], text: &'t str) -> Option<(Role, &'t str)> {
    let split = text.find(|c: char| c == '=' || c.is_whitespace())?;
    let (key, value) = text.split_at(split);
    let value = value.trim_start();
    let value = value.strip_prefix('=').unwrap_or(value).trim_start();
    let key = key.to_ascii_lowercase();
    settings.iter().find_map(|s| {
        let rest = value.strip_prefix(s.prefix.as_str())?;
        s.key.is_match(&key).then_some((s.role, rest))
    })
}

/// Why a `tasks` entry's command given a task that deploys, publishes or releases is not part
/// of its class.
const RELEASE_WHY: &str =
    "a task, script or target that deploys, publishes or releases (`settings.release_names`)";
/// Why a `tasks` entry's command given a console or data task is not part of its class.
const CONSOLE_WHY: &str = "a task, script or target that opens a console or changes data kept outside the project's files (`settings.console_names`)";

/// Whether a word written `raw` (with expansions) may expand to a text `pattern` matches, as
/// far as their first characters tell: a pattern starting with a plain character (`@*`) is
/// never met by a word that starts with another plain one (`tests/test_*.py`).
fn may_start_alike(pattern: &str, raw: &str) -> bool {
    let plain = |c: &char| {
        c.is_ascii_alphanumeric() || matches!(c, '@' | '/' | '.' | '_' | ':' | '+' | ',' | '%')
    };
    match (pattern.chars().next(), raw.chars().next()) {
        (Some(p), Some(r)) if plain(&p) && plain(&r) => p == r,
        _ => true,
    }
}

/// What one catalog entry (whose verb prefix the words start with) says; `role_takes` tells
/// which flags the command's argument roles give a value, `task_refusal` why a task name
/// keeps a `tasks` entry's command out of its class (and whether a grant may stand for it).
fn entry_verdict<'p>(
    entry: &'p SafeEntry,
    view: &CommandView<'_>,
    role_takes: &dyn Fn(&str) -> bool,
    task_refusal: &dyn Fn(&str) -> Option<(&'static str, bool)>,
) -> SafeVerdict<'p> {
    let start = entry.verb.len();
    let takes = |name: &str| entry.value_flags.iter().any(|v| v == name) || role_takes(name);
    let scan = flags::scan(view.words, start, &takes);
    // A flag spelled exactly as one the entry knows is that flag, never an abbreviation of a
    // longer one (getopt_long takes an exact match first: `--project` is not `--projects`).
    let known = |name: &str| {
        entry.value_flags.iter().any(|v| v == name)
            || entry.known_flags.iter().any(|v| v == name)
            || entry
                .unless_flags
                .iter()
                .any(|u| u.flags.iter().any(|f| f == name))
    };
    // A single-dash word the entry knows whole (xmllint's `-noout`) is not a bundle of letters.
    let known_whole = |index: usize| {
        view.words.get(index).is_some_and(|w| {
            !w.cooked.starts_with("--") && w.cooked.chars().count() > 2 && known(&w.cooked)
        })
    };
    // A toolchain entry's value flags serve several tools (`-l` is black's line length but
    // pytest's `--showlocals`; make's `-j` takes only an optional number): a value word shaped
    // like an option is checked as one too (`make -j -E CODE`, `pytest -l --pdb`).
    let hidden: Vec<flags::FlagHit> = if entry.class == EffectClass::Toolchain {
        scan.values
            .iter()
            .filter_map(|value| view.words.get(value.index).map(|w| (value, w)))
            .filter(|(value, w)| {
                // (A separate word, not a value attached to its flag: `-DskipTests`.)
                w.cooked == value.text
                    && w.literal
                    && w.cooked.len() > 1
                    && w.cooked.starts_with('-')
                    && w.cooked != "--"
                    && w.cooked.get(1..).is_none_or(|n| n.parse::<f64>().is_err())
            })
            .flat_map(|(value, w)| {
                let index = value.index;
                flags::scan(std::slice::from_ref(w), 0, &|_| false)
                    .flags
                    .into_iter()
                    .map(move |hit| flags::FlagHit {
                        name: hit.name,
                        index,
                    })
            })
            .collect()
    } else {
        Vec::new()
    };
    for hit in scan.flags.iter().chain(hidden.iter()) {
        if hit.name.chars().count() == 2 && known_whole(hit.index) {
            continue;
        }
        let exact = known(&hit.name);
        for unless in entry.unless_flags.iter() {
            let named = |s: &String| match exact {
                true => *s == hit.name,
                false => flag_is(&hit.name, s),
            };
            if !unless.flags.iter().any(named) {
                continue;
            }
            let token = match unless.values.is_empty() {
                true => Some(cooked(view.words, hit.index)),
                false => refused_value(view.words, &scan, hit, unless),
            };
            if let Some(token) = token {
                return SafeVerdict::Unsafe {
                    token,
                    why: &unless.why,
                    saveable: true,
                    exact: true,
                };
            }
        }
    }
    let option_aware = !entry.unless_flags.is_empty()
        || !entry.unless_args.is_empty()
        || entry.tasks
        || entry.max_operands.is_some()
        || entry.min_operands.is_some()
        || entry.absent_operands.is_some()
        || entry.absent_repository.is_some();
    let can_be_option = |index: &&usize| {
        let Some(word) = view.words.get(**index) else {
            return true;
        };
        if entry.declares && assignment_shaped(&word.raw) || word.is_numeric_parameter() {
            return false;
        }
        // A glob's names could still match a task name (`make d*` → `deploy`) or an
        // `unless_args` pattern that need not start with `-` (`*:*`); patterns of options only
        // a word that may start with `-` can meet.
        let later = scan.operands.first().is_some_and(|first| first != *index);
        word.may_expand_to_option()
            || entry.tasks
            || entry.unless_args.iter().any(|u| {
                !(u.pattern.starts_with('-') || later && u.first_operand)
                    && may_start_alike(&u.pattern, &word.raw)
            })
    };
    if option_aware && let Some(index) = scan.dynamic.iter().find(can_be_option) {
        return SafeVerdict::Unsafe {
            token: cooked(view.words, *index),
            why: DYNAMIC_WHY,
            saveable: true,
            exact: true,
        };
    }
    // After `--` an expansion is no option, but it may still meet a pattern of the words
    // themselves (`declare -- *` with a file named `a[$(cmd)]`, `git fetch -- *` with `host:x`).
    let content_patterns = entry
        .unless_args
        .iter()
        .any(|u| !u.pattern.starts_with('-'));
    let after_dashes = scan
        .double_dash
        .map_or(&[][..], |_| scan.operands.as_slice());
    let expansion_after = after_dashes.iter().find(|&&i| {
        view.words
            .get(i)
            .is_some_and(|w| !w.literal && !w.is_numeric_parameter() && !scan.dynamic.contains(&i))
    });
    if content_patterns && let Some(index) = expansion_after {
        return SafeVerdict::Unsafe {
            token: cooked(view.words, *index),
            why: DYNAMIC_WHY,
            saveable: true,
            exact: true,
        };
    }
    if !entry.unless_args.is_empty() {
        let mut found = Vec::new();
        // Operands after the first (file names, for a `first_operand` pattern).
        let later = scan.operands.get(1..).unwrap_or_default();
        for (index, word) in view.words.iter().enumerate().skip(start) {
            entry.unless_globs.matches_into(&word.cooked, &mut found);
            let hit = found
                .iter()
                .filter_map(|arg| entry.unless_args.get(*arg))
                .find(|u| {
                    (!u.first_operand || !later.contains(&index))
                        && (!u.operands_only || scan.operands.contains(&index))
                });
            if let Some(unless) = hit {
                return SafeVerdict::Unsafe {
                    token: word.cooked.clone(),
                    why: &unless.why,
                    saveable: true,
                    exact: true,
                };
            }
        }
    }
    if entry.tasks {
        for &index in &scan.operands {
            let Some(word) = view.words.get(index) else {
                continue;
            };
            if let Some((why, saveable)) = task_refusal(&word.cooked) {
                return SafeVerdict::Unsafe {
                    token: word.cooked.clone(),
                    why,
                    saveable,
                    exact: true,
                };
            }
        }
    }
    // Only a literal, non-empty word or an assignment (`NAME=$(…)`) is surely an operand: an
    // expansion may be empty, and so may a brace list (`printenv {,}` is `printenv`).
    let sure_operands = || {
        scan.operands
            .iter()
            .filter_map(|&i| view.words.get(i))
            .filter(|w| {
                (w.literal && !w.features.brace && !w.cooked.is_empty())
                    || assignment_shaped(&w.raw)
            })
            .count()
    };
    if let Some(min) = &entry.min_operands
        && sure_operands() < min.count
    {
        return SafeVerdict::Unsafe {
            token: entry.verb.join(" "),
            why: &min.why,
            saveable: true,
            exact: false,
        };
    }
    if let Some(max) = &entry.max_operands
        && let Some(&extra) = scan.operands.get(max.count)
    {
        return SafeVerdict::Unsafe {
            token: cooked(view.words, extra),
            why: &max.why,
            saveable: true,
            exact: true,
        };
    }
    if let Some(why) = &entry.unless_bare
        && view.words.len() <= start
    {
        return SafeVerdict::Unsafe {
            token: entry.verb.join(" "),
            why,
            saveable: true,
            exact: false,
        };
    }
    SafeVerdict::Admitted {
        verb: &entry.verb,
        class: entry.class,
        why: &entry.why,
        hooks: entry.hooks,
        writes_cwd: entry.writes_cwd,
        updates_tree: entry.updates_tree,
    }
}

/// Whether a word as written starts with `NAME=` (a shell variable name and `=`).
fn assignment_shaped(raw: &str) -> bool {
    raw.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
    })
}

/// The value of flag `hit` when `unless` refuses it: a value matching one of its `values`
/// globs, one the gate cannot read (an expansion), or a missing one (an abbreviation that is not
/// a value flag, or the flag last on the line).
fn refused_value(
    words: &[Word],
    scan: &Scan,
    hit: &FlagHit,
    unless: &UnlessFlag,
) -> Option<String> {
    let value = scan
        .values
        .iter()
        .find(|v| v.flag == hit.name && (v.index == hit.index || v.index == hit.index + 1));
    let Some(value) = value else {
        return Some(cooked(words, hit.index));
    };
    let word = words.get(value.index);
    let refused = match word {
        Some(w) if w.literal => unless.value_globs.is_match(&value.text),
        Some(w) => dynamic_may_match(w, &value.text, &unless.values),
        None => true,
    };
    refused.then(|| cooked(words, value.index))
}

/// Whether a value the gate cannot read (`"Request $i: %{http_code}"`) may expand to one that
/// matches one of `globs`: unless its literal start (before the first expansion) and each
/// glob's literal start disagree (`Request ` never starts `@*`). A brace, glob, tilde or
/// process substitution may change the start: it may match.
fn dynamic_may_match(word: &Word, text: &str, globs: &[String]) -> bool {
    let f = &word.features;
    if f.brace || f.glob || f.tilde || f.process_substitution {
        return true;
    }
    let prefix = text.split(['$', '`']).next().unwrap_or_default();
    prefix.is_empty()
        || globs.iter().any(|glob| {
            let literal = glob
                .split(['*', '?', '[', '{', '\\'])
                .next()
                .unwrap_or_default();
            literal.starts_with(prefix) || prefix.starts_with(literal)
        })
}

/// The cooked text of word `index`.
fn cooked(words: &[Word], index: usize) -> String {
    words
        .get(index)
        .map(|w| w.cooked.clone())
        .unwrap_or_default()
}

/// The parts of an option value that may name a path: the value, the value of a property it
/// sets (`-D maven.repo.local=/tmp/r`, `--define=NAME=PATH`), and each element of a list in
/// either (`TYPE:PATH` as in `--cov-report=xml:~/.bashrc`, class paths `a.jar,/tmp/x.jar`,
/// `a:b:/tmp/x`).
fn value_paths(value: &str) -> Vec<&str> {
    let mut out = vec![value];
    if let Some((_, assigned)) = value.split_once('=') {
        out.push(assigned);
    }
    let lists: Vec<&str> = out
        .iter()
        .flat_map(|v| v.split([':', ',', ';']).skip(1))
        .collect();
    out.extend(lists);
    out
}
