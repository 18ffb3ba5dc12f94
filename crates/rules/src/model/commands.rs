//! Commands that run other commands or code: wrappers (with their modes and options), shells
//! whose argument is shell code, and interpreters whose code shellgate cannot read.

use crate::glob::WordGlob;
use crate::lazy::{LazyGlobSet, LazyRegexSet};

/// How a wrapper finds its inner command, with what that way needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WrapperMode {
    /// After options and `positionals`, the remaining words are the inner command (`sudo`,
    /// `env`, `timeout`, `xargs`…).
    Prefix(PrefixMode),
    /// Each of `exec_options` starts an inner command that ends at one of `terminators`
    /// (`find -exec … ;`; `+` ends it only right after `{}`). The wrapper also runs by itself.
    /// The inner command of an option ending in `dir` (`-execdir`, `-okdir`) runs in each
    /// found file's directory, so its working directory is unknown.
    ExecOption(ExecMode),
    /// The wrapper's verb stays and the `value_flags` (with their values) and `flags` are
    /// removed, such as `git -C DIR log` → `git log` run in `DIR`, `mvn -q compile` →
    /// `mvn compile`. Other options stay in place. Applies only when one of them is present.
    /// Stripping one that is also in `judged_flags` (`git -c KEY=VALUE`) keeps the wrapper
    /// judged by itself, so the inner `git push --force` meets the deny rules while
    /// `git -c core.pager=… log` is not silently safe.
    Strip(WrapperOptions),
}

impl WrapperMode {
    /// The name used in policy files: `prefix`, `exec-option` or `strip`.
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            Self::Prefix(_) => "prefix",
            Self::ExecOption(_) => "exec-option",
            Self::Strip(_) => "strip",
        }
    }
}

/// What a `prefix` wrapper needs to find its inner command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefixMode {
    /// Options that take a value, that set the working directory, or that make the wrapper
    /// judged by itself.
    pub options: WrapperOptions,
    /// Skip `NAME=value` words (env); they become assignments of the inner command.
    pub assignments: bool,
    /// Positionals to skip before the inner command (`timeout DURATION`).
    pub positionals: usize,
    /// Words that end option parsing (`--`).
    pub stop_at: Vec<String>,
    /// Words that, when one is present after the options, end the wrapper's own positionals
    /// (`mise x node@20 -- CMD`: tool specs before `--`). Positionals name what the wrapper
    /// fetches or sets up: with any, it is not transparent.
    pub positionals_until: Vec<String>,
    /// The wrapper reads options anywhere before a `stop_at` word, among the inner command's
    /// words too (`npm exec tsc --package=x` is npm's `--package`): an option word after the
    /// inner command's name, with no `stop_at` word before it, makes the wrapper judged by
    /// itself.
    pub options_anywhere: bool,
    /// Options that make the wrapper run nothing (`command -v`): no inner command.
    pub query_flags: Vec<String>,
    /// The inner command receives unknown appended arguments (`xargs`).
    pub appends_args: bool,
    /// `appends_args`: options with which it splits its input on NUL bytes only (`xargs -0`).
    /// Without one, a blank or a quote inside a found file's name splits it into other words
    /// (`./x /etc/shadow` from a directory named `x `), so it receives found files only with one.
    pub null_flags: Vec<String>,
    /// A package runner: where the command it runs comes from.
    pub runs: Option<Runs>,
    /// `runs = "elsewhere"`: options with which only an installed (local) command runs
    /// (`npx --no-install`).
    pub local_flags: Vec<String>,
    /// `runs = "elsewhere"`: directories, relative to the working directory or one of its
    /// parents, where an installed command is found (`node_modules/.bin`): when the inner
    /// command is there, the runner runs the project's copy.
    pub local_bins: Vec<String>,
}

/// What an `exec-option` wrapper needs to find its inner commands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecMode {
    /// The options that start an inner command.
    pub exec_options: Vec<String>,
    /// The words that end it (`;`, `+` after `{}`).
    pub terminators: Vec<String>,
    /// Options with which the finder's standard output stays the list of files it found
    /// (`-name`, `-type`, `-print0`; not `-printf`, `-ls` or an exec option). When every option
    /// of a finder is one of these, a command it pipes into that appends its input to its
    /// arguments (`find . -name '*.rs' | xargs wc -l`) receives found files: reads below the
    /// finder's directories, as with `-exec`. Empty: never.
    pub list_flags: Vec<String>,
    /// Options with which it ends each name it prints with a NUL byte (`-print0`): only then
    /// can a command splitting its input on NUL bytes (`xargs -0`) receive whole names.
    pub null_flags: Vec<String>,
}

/// The options of a `prefix` or `strip` wrapper.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrapperOptions {
    /// Options that take a value (for `strip`: the options removed).
    pub value_flags: Vec<String>,
    /// Options whose value is the inner command's working directory (`git -C`, `env -C`).
    pub cwd_flags: Vec<String>,
    /// Options with which the wrapper does something of its own (`time -o FILE` writes a
    /// file, `xargs -I{}` rewrites the inner command's words): the wrapper stays
    /// `InvocationKind::Plain` (see `shellgate_policy::expand`) and is judged by itself, and
    /// its inner command is still unwrapped and judged. List such an option in `value_flags` too when it takes a value.
    pub judged_flags: Vec<String>,
    /// The options that take no value. For `prefix`, a wrapper's options are an exact
    /// allow-list: an option listed nowhere (`flags`, `value_flags`, `cwd_flags`,
    /// `query_flags`, `judged_flags`) makes the invocation `Opaque::UnknownOption` (see
    /// `shellgate_policy::expand`), so a person decides (unless the wrapper is privileged,
    /// which never passes anyway). For `strip`, they are removed like the `value_flags`.
    pub flags: Vec<String>,
    /// For `strip`: setting keys (word globs over the key in ASCII lower case) that change
    /// nothing that runs or is reached (`user.email`, `color.ui`). A `judged_flags` option whose
    /// literal value is `KEY=VALUE` (or `KEY`) with such a key is stripped without making the
    /// wrapper judged by itself (`git -c user.email=a@b commit` is `git commit`).
    pub plain_settings: Vec<WordGlob>,
}

/// Where a package runner's command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runs {
    /// The project's environment (`uv run`, `poetry run`, `bundle exec`): the project's code,
    /// so the working directory must be in a run zone.
    Project,
    /// A package registry, unless the command is installed locally (`npx`, `uvx`,
    /// `pnpm dlx`): code from elsewhere, which needs a person.
    Elsewhere,
}

/// A command that runs another command.
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// The cooked verb prefix.
    pub verb: Vec<String>,
    /// Changes privilege (`sudo`, `doas`).
    pub privileged: bool,
    /// How the inner command is found.
    pub mode: WrapperMode,
    /// What it does, for explanations.
    pub why: Option<String>,
}

/// A command whose argument is shell code, parsed again.
#[derive(Clone, Debug)]
pub struct Shell {
    /// The cooked verb prefix.
    pub verb: Vec<String>,
    /// Flags after which the first operand is code (`-c`; bundled `-lc` works).
    pub code_flags: Vec<String>,
    /// The first operand is code and the rest are not (`trap CODE SIGNAL…`).
    pub code_operand: bool,
    /// With no code or script operand, standard input is code.
    pub stdin: bool,
    /// A first operand (without a code flag) is a script file.
    pub script_operand: bool,
    /// All operands (after `skip_positionals`) joined by spaces are the code (`eval`, `ssh`).
    pub join_args: bool,
    /// Operands to skip before the code (`ssh HOST`).
    pub skip_positionals: usize,
    /// Options that take a value.
    pub value_flags: Vec<String>,
    /// The code runs on another machine.
    pub remote: bool,
    /// The code is split into words, not parsed as shell (`env -S`).
    pub split_only: bool,
    /// Changes privilege (`su -c`).
    pub privileged: bool,
    /// Options that make it print something and exit (`bash --version`): with one of them and
    /// no code flag or operand, standard input is not read as code.
    pub query_flags: Vec<String>,
    /// Options whose value (`NAME=VALUE`) is a variable of the environment the code runs in
    /// (`tmux new-session -e NAME=VALUE`): the code is judged as if it began by exporting it.
    pub env_flags: Vec<String>,
    /// Options whose value is the working directory the code runs in (`tmux new-session -c
    /// DIR`).
    pub cwd_flags: Vec<String>,
    /// Options that change how the code is read or what runs before it (`bash -k`, `-O
    /// dotglob`, `--rcfile FILE`, `watch -x`): the shell is judged by itself, and its code is
    /// still parsed and judged.
    pub judged_flags: Vec<String>,
    /// Options after which standard input is the code and the operands are its positional
    /// parameters (`bash -s a b`: `$1` is `a`).
    pub stdin_flags: Vec<String>,
    /// Globs over option values, as written: an option value that matches one, or that the
    /// gate cannot read, makes the shell judged by itself, and a working directory given by
    /// such a value unknown (tmux expands `#{…}` and `#(…)` in `-c`, `-F`, `-n`, `-s`).
    pub judged_values: Vec<String>,
    /// The `judged_values` globs as one set, over whole words.
    pub(crate) judged_value_globs: LazyGlobSet,
    /// The code runs later (`trap CODE EXIT`: on a signal or when the shell exits), after
    /// whatever the rest of the command did: in a working directory not known.
    pub later: bool,
    /// A script operand without a `/` is looked up in `PATH` before the working directory
    /// (`source env.sh`): which file runs is not known.
    pub path_search: bool,
    /// Program names among its verbs that may be a POSIX shell (`sh` is dash on Debian), or
    /// that hand their code to `sh -c` (`watch`, `flock -c`, `git submodule foreach`): dash
    /// reads `$'…'` and `$"…"` as a `$` and a quoted string, so code holding either is not
    /// known.
    pub posix_names: Vec<String>,
    /// What it does, for explanations.
    pub why: Option<String>,
}

impl Shell {
    /// Whether an option value makes the shell judged by itself (see `judged_values`).
    #[must_use]
    pub fn judged_value(&self, value: &str) -> bool {
        !self.judged_values.is_empty() && self.judged_value_globs.is_match(value)
    }
}

/// A command that runs embedded code shellgate cannot read.
#[derive(Clone, Debug)]
pub struct Interpreter {
    /// The cooked verb prefix.
    pub verb: Vec<String>,
    /// Flags whose value is code (`python -c`); for `program_operand` interpreters, a program.
    pub code_flags: Vec<String>,
    /// Flags whose value is a program file (`awk -f`).
    pub script_flags: Vec<String>,
    /// Other flags that take a value.
    pub value_flags: Vec<String>,
    /// Flags that take no value (`--no-warnings`). A long option before the script that is in
    /// none of the lists makes the call not known: it may take the next word, change what
    /// runs, write a file or load code.
    pub flags: Vec<String>,
    /// Every option is listed: any other one before the script (a V8 flag such as `node
    /// --logfile FILE`), short ones included, makes the call not known.
    pub complete_options: bool,
    /// Flags that make it run no code (`--version`).
    pub query_flags: Vec<String>,
    /// Code may come from standard input.
    pub stdin: bool,
    /// A first operand is a script file.
    pub script_operand: bool,
    /// Every option that takes a value is listed (`code_flags`, `script_flags`,
    /// `value_flags`), so its options end at the script or at the value of its first code flag:
    /// what follows is the program's (`python3 train.py -c config.yaml`). Without it, a code or
    /// script flag after the first operand makes the call opaque (the operand may have been an
    /// unlisted option's value).
    pub closed_options: bool,
    /// The first operand is a program (awk, sed) that is unsafe only when it matches one of
    /// `unsafe_program` or its `[interpreter.program]` reader finds it unsafe.
    pub program_operand: bool,
    /// Its inline code, modules and standard input import from the working directory first
    /// (Python's `sys.path[0]` for `-c`, `-m` and `-`): a module file this command writes there
    /// (`argparse.py`, `json/__init__.py`) is code it brings.
    pub imports_cwd: bool,
    /// Regexes over a program that make it unsafe.
    pub unsafe_program: Vec<String>,
    /// Why it is opaque.
    pub why: String,
    /// The reader of its inline code, when the gate may read it (`[interpreter.inline]`).
    pub inline: Option<InlineReader>,
    /// The reader of its programs (`[interpreter.program]`, sed only).
    pub program: Option<ProgramReader>,
    pub(crate) unsafe_set: Option<LazyRegexSet>,
}

/// How the gate reads an interpreter's programs (`[interpreter.program]`, sed only): a
/// program is unsafe when [`crate::sed::effects`] cannot read it, finds one of
/// `unsafe_commands` (a command letter, or a flag of `s`) or finds it runs text it computes;
/// the files it writes and reads and the commands it runs are judged as clauses of their own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramReader {
    /// Commands that make a program need a person whatever they name (none by default; a
    /// stricter layer may list `e`, `w`, `r`…).
    pub unsafe_commands: Vec<char>,
}

/// What inline code may use for the gate to read it as code that only imports and computes
/// (`[interpreter.inline]`, Python only): the builtins it may call, the dunder names it may
/// use and the modules whose import acts by itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineReader {
    /// The code flags whose value is read (`-c`; not `-m`, which names a module).
    pub code_flags: Vec<String>,
    /// Options that may come before the code (`-u`, `-B`); any other option is not read.
    pub flags: Vec<String>,
    /// Builtins it may call, each only as a bare call (`print(…)`).
    pub calls: Vec<String>,
    /// Dunder names it may use (`__version__`).
    pub names: Vec<String>,
    /// Modules whose import acts (`antigravity` opens a browser): never read.
    pub acting_modules: Vec<String>,
}
