//! The compiled, immutable pieces of a [`crate::Policy`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::condition::{Condition, Row};
use crate::decision::Decision;
use crate::error::Location;
use crate::glob::WordGlob;
use crate::lazy::LazyGlobSet;
use crate::verb_table::Keyed;
use shellgate_parser::path as paths;

mod commands;
pub use commands::{
    ExecMode, InlineReader, Interpreter, PrefixMode, ProgramReader, Runs, Shell, Wrapper,
    WrapperMode, WrapperOptions,
};

crate::named_enum! {
    /// Which layer a policy file belongs to. Layers apply in this order (`ALL`); later layers
    /// add.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Layer {
        /// The embedded `policies/default.toml`.
        Default = "default",
        /// The person's own policy files. May `disable` deny rules (with a reason).
        User = "user",
        /// Files shipped with a project. May only add restrictions.
        Project = "project",
    }
    from_str = "layer";
}

/// One policy file to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicySource {
    /// The name shown in diagnostics (usually the path).
    pub name: String,
    /// The TOML text.
    pub text: String,
    /// The layer the file belongs to.
    pub layer: Layer,
}

impl PolicySource {
    /// A source from its parts.
    #[must_use]
    pub fn new(name: impl Into<String>, text: impl Into<String>, layer: Layer) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
            layer,
        }
    }
}

crate::named_enum! {
    /// What kind of harm a deny rule prevents.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Category {
        /// Deleting or overwriting data or devices.
        Destructive = "destructive",
        /// Changing privilege (`sudo`, `su`, `doas`).
        Privilege = "privilege",
        /// Sending data or secrets elsewhere.
        Exfiltration = "exfiltration",
        /// Making something run again later (rc files, crontabs, hooks).
        Persistence = "persistence",
        /// Changing shellgate's own configuration or the agent's guard rails.
        SelfProtection = "self-protection",
        /// Anything else.
        Custom = "custom",
    }
}

/// A hard-deny rule (`[[deny]]`) or an ask rule (`[[ask]]`): the same matching, and the
/// decision a hit forces.
#[derive(Clone, Debug)]
pub struct DenyRule {
    /// Unique kebab-case id (deny and ask rules share one namespace).
    pub id: String,
    /// What a hit forces: `HardDenied` for a `[[deny]]` rule, `NeedsPrompt` for an `[[ask]]`
    /// rule (a person decides, whatever a grant or the safe catalog says).
    pub decision: Decision,
    /// What harm it prevents.
    pub category: Category,
    /// Why, naming the safer alternative.
    pub reason: String,
    /// The layer that declared it.
    pub layer: Layer,
    /// Where it is declared (the `[[deny]]` header).
    pub location: Location,
    /// Commands that must hit it (checked when the policy loads).
    pub examples: Vec<String>,
    /// Commands that must not hit it (checked when the policy loads).
    pub counter_examples: Vec<String>,
    /// What it matches, each condition with its row of the condition table: every one must
    /// hold, `verb` first (see `condition.rs`).
    pub(crate) conditions: Vec<(&'static Row, Condition)>,
    /// How it is matched (all its conditions are of this family).
    pub(crate) kind: DenyKind,
}

impl DenyRule {
    /// The cooked verb prefix the rule is keyed on, empty when it has none.
    #[must_use]
    pub fn verb(&self) -> &[String] {
        self.conditions
            .iter()
            .find_map(|(_, c)| match c {
                Condition::Verb(verb) => Some(verb.as_slice()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Whether it names more than a command: a flag, an operand, a redirect or a variable
    /// besides its verb (`rm -rf /`, not `shutdown` or `terraform destroy`). Only such a rule
    /// refuses a command an unknown command may launch, whose words may be its own
    /// subcommands or operands (`vagrant halt`, `tldr terraform destroy`).
    #[must_use]
    pub fn names_more_than_a_verb(&self) -> bool {
        self.conditions
            .iter()
            .any(|(_, c)| !matches!(c, Condition::Verb(_)))
    }

    /// Whether it is an `[[ask]]` rule (a hit needs a person) rather than a `[[deny]]` rule.
    #[must_use]
    pub fn is_ask(&self) -> bool {
        self.decision == Decision::NeedsPrompt
    }

    /// The table it is declared in: `deny` or `ask`.
    #[must_use]
    pub fn table(&self) -> &'static str {
        if self.is_ask() { "ask" } else { "deny" }
    }

    /// Which kind of matcher the rule uses.
    #[must_use]
    pub const fn kind(&self) -> DenyKind {
        self.kind
    }

    /// The `from` and `to` prefixes of a `pipeline` rule.
    #[must_use]
    pub fn pipeline(&self) -> Option<(&[Prefix], &[Prefix])> {
        self.conditions.iter().find_map(|(_, c)| match c {
            Condition::Pipeline { from, to } => Some((from.as_slice(), to.as_slice())),
            _ => None,
        })
    }

    /// The regex of a `raw` rule.
    pub(crate) fn raw_regex(&self) -> Option<&str> {
        self.conditions.iter().find_map(|(_, c)| match c {
            Condition::Raw(regex) => Some(regex.as_str()),
            _ => None,
        })
    }
}

impl Keyed for DenyRule {
    fn verb(&self) -> &[String] {
        Self::verb(self)
    }
}

/// A cooked command prefix such as `["git", "push"]`.
pub type Prefix = Vec<String>;

/// How a deny rule is matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DenyKind {
    /// Against one command ([`crate::Policy::deny`]): `verb`, flags, `args_any`,
    /// `redirect_to`, `env`.
    Command,
    /// Against whole command text ([`crate::Policy::deny_raw`]): `raw`.
    Raw,
    /// Against the stages of a pipeline ([`crate::Policy::deny_pipeline`]): `pipeline`.
    Pipeline,
}

/// A deny rule removed by a user layer's `disable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisabledRule {
    /// The rule id.
    pub id: String,
    /// The `disable_reason` given.
    pub reason: String,
    /// Where it was disabled.
    pub location: Location,
}

/// What a catalogued command does besides the effects its argument roles and redirections
/// name — the table it is declared in (see `policies/README.md`, "Effect classes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffectClass {
    /// `[[safe]]` with `pure = true`: nothing at all (`echo`, `true`); not even the working
    /// directory is read.
    Pure,
    /// `[[safe]]`: reads its working directory and its read operands.
    ReadOnly,
    /// `[[writer]]`: reads its working directory; its only writes are the paths its roles and
    /// redirections name.
    Writer,
    /// `[[repository]]`: changes the version-control repository of its working directory, so
    /// that directory must be in a write zone (with `hooks = true` it also runs the
    /// repository's hooks: the project's code).
    Repository,
    /// `[[network]]`: reads from the URLs its roles name; a loopback host runs silently, any
    /// other host needs a person (or a host grant), and sending a file never runs silently.
    Network,
    /// `[[toolchain]]`: builds, tests, lints, formats or runs the project's own code, in and
    /// below its working directory, which must be in a run zone of the audience.
    Toolchain,
}

impl EffectClass {
    /// Every class, least demanding first.
    pub const ALL: [Self; 6] = [
        Self::Pure,
        Self::ReadOnly,
        Self::Writer,
        Self::Repository,
        Self::Network,
        Self::Toolchain,
    ];

    /// The policy table that declares it.
    #[must_use]
    pub const fn table(self) -> &'static str {
        match self {
            Self::Pure | Self::ReadOnly => "safe",
            Self::Writer => "writer",
            Self::Repository => "repository",
            Self::Network => "network",
            Self::Toolchain => "toolchain",
        }
    }

    /// The name shown in evidence.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pure => "pure",
            Self::ReadOnly => "read-only",
            Self::Writer => "confined writer",
            Self::Repository => "local version control",
            Self::Network => "network client",
            Self::Toolchain => "project toolchain",
        }
    }
}

/// An entry of the command catalog: a verb prefix and the effect class of the commands it
/// admits (those without an `unless_flags` flag or an `unless_args` argument).
#[derive(Clone, Debug)]
pub struct SafeEntry {
    /// The cooked verb prefix.
    pub verb: Vec<String>,
    /// What the admitted commands do besides their roles and redirections.
    pub class: EffectClass,
    /// The command runs the project's code: a `[[repository]]` entry's hooks, or the modules a
    /// `[[safe]]` entry with `imports_cwd` imports from its working directory.
    pub hooks: bool,
    /// The command also writes below its working directory (`tar -x`, `patch`, `wget`), so
    /// that directory must be in a write zone.
    pub writes_cwd: bool,
    /// The command rewrites the work tree from its input (`git merge`, `git checkout BRANCH`,
    /// `git stash pop`): any path below its working directory may become a link to anywhere,
    /// so a later clause's path below it is not known (`git merge x && echo y >> src/a`).
    pub updates_tree: bool,
    /// The command prints what it reads from another machine (`gh api`, `gh issue view`, `npm
    /// view`): what the same command writes from its output may be code from elsewhere.
    pub fetches: bool,
    /// Its operands name the project's scripts, targets, recipes or tasks (`npm run build`,
    /// `make test`): one that matches `settings.release_names` or `settings.console_names`
    /// keeps the command out of its class (see [`crate::Policy::safe`]).
    pub tasks: bool,
    /// A declaration builtin (`export`, `local`): its `NAME=value` operands are assignments,
    /// never split into words, so an expansion in one cannot become an option.
    pub declares: bool,
    /// Why the entry does not admit the command without any argument (`printenv` alone prints
    /// every variable).
    pub unless_bare: Option<String>,
    /// Why the files it writes below its working directory are named by its input, not its
    /// arguments (`tar -x`, `unzip`, `patch`): any of them may be a protected path, so it is
    /// not admitted (an operand does not bound a diff: git `rename to` headers name any file).
    pub input_names: Option<String>,
    /// Why an operand that names an existing file or directory keeps the command out of its
    /// class (`git checkout NAME` switches branches, but restores NAME from the index,
    /// discarding its uncommitted changes, when NAME is a path). The evaluator consults the
    /// file system (see [`crate::Policy::absent_operands`]).
    pub absent_operands: Option<String>,
    /// Why a first operand that names an existing file or directory below the working
    /// directory keeps the command out of its class (`git pull NAME` fetches from the
    /// repository at NAME, through a link too, when no remote has that name). Unlike
    /// [`SafeEntry::absent_operands`], a working directory that does not exist holds nothing.
    pub absent_repository: Option<String>,
    /// Why it is safe.
    pub why: String,
    /// Operating systems it applies to (empty: all). Names as in `std::env::consts::OS`, with
    /// `linux`, `macos`, `freebsd`, `windows`….
    pub os: Arc<[String]>,
    /// A pure side-effect verb (`echo`, `true`): safe unless it writes through a redirect.
    pub pure: bool,
    /// Flags that take a value.
    pub value_flags: Arc<[String]>,
    /// Flags without a value that the command knows: spelled exactly, each is that flag, never
    /// an abbreviation of a longer unsafe one (pytest's `--co` is `--collect-only`).
    pub known_flags: Arc<[String]>,
    /// Flags that make it unsafe.
    pub unless_flags: Arc<[UnlessFlag]>,
    /// Argument globs that make it unsafe.
    pub unless_args: Arc<[UnlessArg]>,
    /// The `unless_args` globs as one set; glob `i` is `unless_args[i]`.
    pub(crate) unless_globs: LazyGlobSet,
    /// More operands than this make it unsafe (`git config KEY` reads, `git config KEY VALUE`
    /// writes).
    pub max_operands: Option<OperandCount>,
    /// Fewer operands than this make it unsafe (`declare -x` with no name lists every exported
    /// variable; `declare -x NAME` declares one).
    pub min_operands: Option<OperandCount>,
}

/// A bound on the operands of a safe verb (`max_operands`, `min_operands`), and why crossing
/// it makes the verb unsafe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandCount {
    /// How many operands (words after the verb prefix that are not options or option values).
    pub count: usize,
    /// Why crossing the bound makes the verb unsafe.
    pub why: String,
}

/// Flags (in any spelling) that make a safe verb unsafe.
#[derive(Clone, Debug)]
pub struct UnlessFlag {
    /// The spellings.
    pub flags: Vec<String>,
    /// Globs over the flag's value, as written: when there are any, the flag makes the verb
    /// unsafe only with a value that matches one (or one the gate cannot read).
    pub values: Vec<String>,
    /// The `values` globs as one set, over whole words.
    pub(crate) value_globs: LazyGlobSet,
    /// Why they make it unsafe.
    pub why: String,
}

/// An argument glob that makes a safe verb unsafe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnlessArg {
    /// The glob, as written.
    pub pattern: String,
    /// Why it makes the verb unsafe.
    pub why: String,
    /// Of the operands, it applies only to the first (chmod's mode); the later ones are file
    /// names. Option words are still matched (`chmod -x+s f`).
    pub first_operand: bool,
    /// It applies to operands only, not to option words or option values (`ps eww`, a BSD
    /// option cluster, but not the value of `ps -o etime`).
    pub operands_only: bool,
}

/// The role of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A path that is read.
    ReadPath,
    /// A path that is written (created or changed).
    WritePath,
    /// A path that is removed: recursively when one of the entry's `recursive_flags` is given.
    DeletePath,
    /// A path the command gives another name (`ln TARGET LINK`, `cp -s SOURCE DEST`): it is
    /// read, and whatever writes through the new name — later in the same command, before
    /// anything can look at the link — writes it, so it is also a possible write.
    Link,
    /// Code or a program that is run.
    Exec,
    /// A program another program starts with no arguments from this command line — a pager or
    /// an editor (`git -c core.pager=less`): code that runs, like [`Role::Exec`], unless it
    /// names one program that the catalog admits by itself as pure or read-only (`cat`,
    /// `true`), as for an editor or pager variable.
    Program,
    /// A URL or host the command connects to (`curl URL`).
    Url,
    /// A file whose content is sent over the network (`curl -T FILE`).
    Upload,
    /// Data sent over the network; `@FILE`, `<FILE`, `NAME=@FILE` and `NAME=<FILE` name a file
    /// whose content is sent (`curl -d @body.json`).
    Send,
    /// A value sent along with a request (`curl -H`, `-u`, `-A`, `-e`, `-w`): `@FILE` names a
    /// file whose content is read and sent (`-H @FILE`), and an expansion sends what it
    /// expands to (`-u "me:$(cat key)"`); literal text is part of a plain read.
    Attach,
    /// The request method (`curl -X DELETE`).
    Method,
    /// The name of an environment variable whose value the command prints (`printenv NAME`).
    Variable,
    /// A revision, a name or a path (`git diff HEAD src/`): a read when the word is
    /// path-shaped (`[classify]` class `path`), else a value. [`crate::Policy::roles`] reports
    /// it as [`Role::ReadPath`] or [`Role::Value`].
    Pathspec,
    /// A plain value.
    Value,
}

impl Role {
    /// Every role.
    pub const ALL: [Self; 14] = [
        Self::ReadPath,
        Self::WritePath,
        Self::DeletePath,
        Self::Link,
        Self::Exec,
        Self::Program,
        Self::Url,
        Self::Upload,
        Self::Send,
        Self::Attach,
        Self::Method,
        Self::Variable,
        Self::Pathspec,
        Self::Value,
    ];

    /// The name used in policy files: `read`, `write`, `delete`, `link`, `exec`, `program`,
    /// `url`, `upload`, `send`, `attach`, `method`, `variable`, `pathspec`, `value`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ReadPath => "read",
            Self::WritePath => "write",
            Self::DeletePath => "delete",
            Self::Link => "link",
            Self::Exec => "exec",
            Self::Program => "program",
            Self::Url => "url",
            Self::Upload => "upload",
            Self::Send => "send",
            Self::Attach => "attach",
            Self::Method => "method",
            Self::Variable => "variable",
            Self::Pathspec => "pathspec",
            Self::Value => "value",
        }
    }

    /// Whether a recursive entry (or flag) reaches everything below a path with this role:
    /// a delete, a read, or a link (`cp -rs DIR`).
    #[must_use]
    pub const fn follows_below(self) -> bool {
        matches!(self, Self::DeletePath | Self::ReadPath | Self::Link)
    }

    /// The role named `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

/// Argument roles of one verb.
#[derive(Clone, Debug)]
pub struct VerbRoles {
    /// The cooked verb prefix.
    pub verb: Vec<String>,
    /// The role of operands; `None`: operands have no role.
    pub operands: Option<Role>,
    /// The role of the first operand (`chmod MODE FILE…`, `sed SCRIPT FILE…`), unless one of
    /// `first_unless` is given (`chmod --reference=F FILE…`, `sed -e SCRIPT FILE…`).
    pub first: Option<Role>,
    /// Flags with which there is no such first operand.
    pub first_unless: Arc<[String]>,
    /// The role of the last operand when there are two or more.
    pub last: Option<Role>,
    /// Option → role of its value.
    pub options: Arc<[(String, Role)]>,
    /// `key=value` operands (dd): key → role of the value.
    pub assign: Arc<[(String, Role)]>,
    /// Options whose value is `KEY=VALUE` or `KEY VALUE` (`git -c core.pager=less`,
    /// `ssh -o ProxyCommand=…`).
    pub setting_flags: Arc<[String]>,
    /// The roles of those values, by key (see [`Setting`]).
    pub settings: Arc<[Setting]>,
    /// Other flags that take a value (role [`Role::Value`]).
    pub value_flags: Arc<[String]>,
    /// Flags that take no value, for a command that accepts no abbreviations (node): spelled
    /// exactly, such a flag is not taken for an abbreviation of a longer option in `options`
    /// (`--cpu-prof` of `--cpu-prof-dir`).
    pub flags: Arc<[String]>,
    /// Flags that make its `delete` and `read` operands recursive (`rm -r`, `grep -r`).
    pub recursive_flags: Arc<[String]>,
    /// Flags that make its `read` operands the targets of new links ([`Role::Link`]:
    /// `cp -s`, `cp -l`).
    pub link_flags: Arc<[String]>,
    /// Flags whose attached value is a backup suffix (`sed -i.bak`, `-i'bak/*'`,
    /// `--in-place=SUFFIX`): each `write` operand is also written as its backup (see
    /// [`crate::Policy::roles`]).
    pub backup_flags: Arc<[String]>,
    /// Its `delete` and `read` operands are always recursive (`rg`, `find`, `du`).
    pub recursive: bool,
    /// Given no `read` operand, a recursive invocation searches its working directory
    /// (`rg KEY`, `grep -r KEY`; see [`crate::Policy::searches_cwd`]).
    pub searches_cwd: bool,
    /// It skips hidden files when it reads a directory, unless given one of these flags (`rg
    /// --hidden`); empty: it reads them (see [`crate::Policy::reads_hidden`]).
    pub hidden_flags: Arc<[String]>,
    /// With one of these flags it prints the names of the files below a directory, never their
    /// content (`rg --files`): its recursive reads reach no protected file's content (see
    /// [`crate::Policy::lists_names`]).
    pub names_flags: Arc<[String]>,
    /// Options whose values are globs of the file names its recursive reads read, and no
    /// others (`rg -g '*.ts'`, `grep --include='*.py'`; a value starting with `!` excludes;
    /// see [`crate::Policy::include_filter`]).
    pub include_flags: Arc<[String]>,
    /// Its writes change a file's mode, owner or times, or remove it, never put content in it
    /// (`chmod`, `touch`, `rm`): a script it names stays the project's code (see
    /// [`crate::Policy::keeps_content`]).
    pub keeps_content: bool,
    /// Its `delete` operands are directory entries it removes or renames (`rm`, `unlink`,
    /// `mv`'s sources): a symbolic link there is removed or renamed, not followed (see
    /// [`crate::Policy::removes_entries`]).
    pub entries: bool,
    /// Its destination may be a directory that the other operands are copied or moved into
    /// (`cp x.sh .git/hooks`, `mv settings.json .claude/`, `cp -t DIR FILE`): each source is
    /// also written as `DEST/NAME`.
    pub into_directory: bool,
}

/// The role of one key of a setting option's `KEY=VALUE` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The keys it covers: a word glob, matched against the key in ASCII lower case (git's and
    /// ssh's keys are case-insensitive).
    pub key: WordGlob,
    /// The role applies only when the value starts with this text (`!` for a git alias that
    /// runs a shell command), and the role's text is the value after it.
    pub prefix: String,
    /// The role of the value.
    pub role: Role,
}

/// One argument's role.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ArgRole {
    /// The index of the word in [`crate::CommandView::words`].
    pub index: usize,
    /// The role.
    pub role: Role,
    /// The argument text: the cooked word, or its value part for `--opt=value`, `-ovalue` and
    /// `key=value`.
    pub text: String,
    /// A [`Role::DeletePath`] removed, or a [`Role::ReadPath`] read, with everything below it
    /// (the entry is `recursive`, or one of its `recursive_flags` was given).
    pub recursive: bool,
    /// An operand, not an option's value.
    pub operand: bool,
    /// A path a copy, move or link may create inside its destination directory (`cp x.sh
    /// .git/hooks` → `.git/hooks/x.sh`; see the `[[verb]]` key `into_directory`): judged
    /// against the protected paths only, since its zone is its destination's.
    pub inside: bool,
}

/// A zone template such as `{project}` or `{home}/.cache`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneTemplate {
    /// The template as written.
    pub text: String,
}

/// The directories zone placeholders stand for.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZoneVars<'a> {
    /// `{project}`.
    pub project: Option<&'a Path>,
    /// `{session}`.
    pub session: Option<&'a Path>,
    /// `{home}`.
    pub home: Option<&'a Path>,
    /// `{tmp}`.
    pub tmp: Option<&'a Path>,
}

/// The placeholders a zone template may use.
pub const PLACEHOLDERS: [&str; 4] = ["{project}", "{session}", "{home}", "{tmp}"];

impl ZoneTemplate {
    /// The directory, with placeholders substituted and the result normalised; `None` when a
    /// placeholder it uses is unknown in `vars` or the result is not absolute.
    #[must_use]
    pub fn resolve(&self, vars: &ZoneVars<'_>) -> Option<PathBuf> {
        let mut text = self.text.clone();
        for (name, value) in [
            ("{project}", vars.project),
            ("{session}", vars.session),
            ("{home}", vars.home),
            ("{tmp}", vars.tmp),
        ] {
            if text.contains(name) {
                text = text.replace(name, value?.to_str()?);
            }
        }
        let resolved = paths::forms(&text, None, vars.home).resolved;
        resolved.starts_with('/').then(|| PathBuf::from(resolved))
    }
}

/// Where an audience may read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadZones {
    /// Everywhere.
    All,
    /// Only these zones.
    Templates(Vec<ZoneTemplate>),
}

/// An audience profile: who will see the agent's work, and so where it may read and write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audience {
    /// The name (`personal`, `team`, `public`…).
    pub name: String,
    /// Read zones.
    pub read: ReadZones,
    /// Write zones.
    pub write: Vec<ZoneTemplate>,
    /// Run zones: where the project's own code (toolchains, project scripts and programs,
    /// repository hooks) runs silently. Empty: never.
    pub run: Vec<ZoneTemplate>,
}

/// A protected path set and the decisions it forces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protected {
    /// Unique id.
    pub id: String,
    /// Path globs (`~/.ssh/**`, `**/.env`).
    pub paths: Vec<String>,
    /// Globs of committed templates among them (`**/.env.example`), which hold no secrets: a
    /// recursive read of the directory holding one does not reach a protected file (named,
    /// it is read as any of `paths`).
    pub templates: Vec<String>,
    /// The decision forced for reads (`Approved`: not forced).
    pub read: Decision,
    /// The decision forced for writes.
    pub write: Decision,
    /// Why.
    pub why: String,
    /// The layer that declared it.
    pub layer: Layer,
}

impl Protected {
    /// The decision it forces for `access`.
    #[must_use]
    pub const fn forced(&self, access: crate::Access) -> Decision {
        match access {
            crate::Access::Read => self.read,
            crate::Access::Write => self.write,
        }
    }
}

/// A `[[test]]` case. shellgate-rules only validates it; the policy evaluator runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyTest {
    /// The case name.
    pub name: String,
    /// The command.
    pub command: String,
    /// The working directory (default: the project directory).
    pub cwd: Option<PathBuf>,
    /// The project directory.
    pub project: Option<PathBuf>,
    /// The home directory.
    pub home: Option<PathBuf>,
    /// The audience profile.
    pub audience: Option<String>,
    /// Extra write zones.
    pub zones: Vec<String>,
    /// Approved patterns.
    pub grants: Vec<String>,
    /// The expected decision.
    pub expect: Decision,
    /// A deny rule id that must be among the deciding rules.
    pub rule: Option<String>,
    /// The layer that declared it.
    pub layer: Layer,
    /// Where it is declared.
    pub location: Location,
}

/// Global settings (later layers may only tighten them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Directories whose binaries count as the bare command (`/usr/bin/rm` is `rm`).
    pub trusted_bin_dirs: Vec<PathBuf>,
    /// How deep `bash -c`, `eval` and the like are parsed again before a person decides.
    pub max_shell_depth: usize,
    /// How deep nested shell code is parsed for the deny rules, whatever a later layer sets:
    /// the first (embedded default) layer's `max_shell_depth`. A layer that tightens the
    /// depth makes deeper code ask; it never hides a refused command from the deny rules.
    pub deny_shell_depth: usize,
    /// Names of directories that hold a project's disposable outputs (`target`,
    /// `node_modules`): a recursive delete of one, or of anything below one, inside a write
    /// zone runs silently. Default and user layers may add names; a project layer may not.
    pub disposable: Vec<String>,
    /// Globs over the file name of a project script or program (`deploy.sh`,
    /// `release-prod`) that deploys, publishes or releases: such code is not run silently
    /// even inside a run zone. Every layer may add globs.
    pub release_names: Vec<String>,
    /// Globs over the operands of a project script or program (`manage.py shell`, `bin/rails
    /// runner CODE`, `manage.py flush`) that open a console running the code it is given, or
    /// change data or accounts kept outside the project's files (a database): such a call is
    /// not run silently even inside a run zone. Every layer may add globs.
    pub console_names: Vec<String>,
    /// Globs over the file names a project toolchain runs or loads as code (`Makefile`,
    /// `package.json`, `conftest.py`, `build.rs`): one that the same command writes below a
    /// toolchain's working directory makes that toolchain run code the command brings. Every
    /// layer may add globs.
    pub toolchain_code: Vec<String>,
    /// Globs over the file names git's hooks are (`pre-commit`, `reference-transaction`,
    /// `post-index-change`) and the files hook managers run (`husky.sh`, `lefthook.yml`): one the
    /// same command writes below the directory a toolchain or a repository program (`git`)
    /// works in, wherever it is (a `core.hooksPath` of any name), is code it brings — git runs
    /// hooks on `status`, `add`, `tag` and `fetch` too. Every layer may add globs.
    pub hook_files: Vec<String>,
    /// Globs over command names of programs that run code, or send credentials, as the
    /// configuration of the directory they work in says (git: `core.fsmonitor`,
    /// `core.sshCommand`; npm: the registry and its token): one that works in a directory the
    /// same command wrote as a whole (copied, made), or below a `repository_config` file it
    /// wrote, runs code the command brings. Every layer may add globs.
    pub repository_programs: Vec<String>,
    /// Globs over the file names of a repository program's configuration in the directory it
    /// works in (`config`, `.npmrc`): one the same command writes there makes it run code, or
    /// send credentials, as the command says. Every layer may add globs.
    pub repository_config: Vec<String>,
    /// Globs over command names of programs that read every variable of their environment as
    /// a variable of their own language (make, MSBuild): a variable set for one
    /// (`GO=/tmp/x make test`) is an override of the kind `make GO=/tmp/x test` is, which may
    /// name the program a recipe runs, so it needs a person and is never saved. Every layer
    /// may add globs.
    pub environment_programs: Vec<String>,
    /// Globs over variable names whose values are secrets (`*TOKEN*`, `AWS_SECRET_*`):
    /// printing one (`echo $GITHUB_TOKEN`, `printenv AWS_SECRET_ACCESS_KEY`) puts it into the
    /// agent's transcript, so it needs a person. Every layer may add globs.
    pub secret_names: Vec<String>,
    /// Globs over variable names that change which program runs or what it loads (`PATH`,
    /// `LD_*`, `*_EDITOR`): setting one makes a command need a person, and such a command is
    /// never saved. Matched against the name as written (`/` is an ordinary character).
    /// Every layer may add globs.
    pub code_loading_variables: Vec<String>,
    /// Globs over the names of code-loading variables that list directories to load code
    /// from (`PYTHONPATH`, `NODE_PATH`, `PATH`): set literally to directories inside the run
    /// zones (`PYTHONPATH=. pytest`), they load only the project's code, so they do not make
    /// the command ask. Every layer may add globs.
    pub module_path_variables: Vec<String>,
    /// `NAME=VALUE` globs over assignments that set a code-loading variable, or a variable of
    /// an environment program, to data rather than a program or a path (`NODE_ENV=*`,
    /// `PYTHONUNBUFFERED=*`, `NODE_OPTIONS=--max-old-space-size=*`): a literal value whose
    /// blank-separated pieces each match (`NAME=PIECE`) and hold only letters, digits and
    /// `._:=+,-` does not make the command ask. Only a user layer adds entries.
    pub harmless_assignments: Vec<String>,
    /// Globs over variable names whose value is a command line that programs run through a
    /// shell (`GIT_SSH_COMMAND`, `*PAGER`, `EDITOR`): a literal value set for a command is
    /// parsed as shell code and each of its clauses is judged, deny rules included. Matched
    /// against the name as written. Every layer may add globs.
    pub command_variables: Vec<String>,
    /// Commands (verb chains such as `docker run`) that run arbitrary code or destroy and so
    /// are proposed narrowly, with their literal arguments, like the commands a deny rule
    /// names. Every layer may add commands.
    pub narrow: Vec<Vec<String>>,
    /// Commands whose users define their own subcommands (`git` aliases, `cargo` aliases,
    /// `gh alias set`): a subcommand no entry of the policy names may be an alias that runs
    /// any command, a deny-named one included (`git p` for `git push`), so it is proposed
    /// and granted only word for word. Every layer may add commands.
    pub alias_commands: Vec<Vec<String>>,
    /// Commands that start a command which keeps running after they return, or runs later or
    /// in parallel (`setsid CMD`, `tmux new -d CMD`, `at`, `xargs -P`, `trap`): with one in a
    /// command, its clauses' text order is not the order they act in. Every layer may add
    /// commands.
    pub concurrent_commands: Vec<Vec<String>>,
    /// Directories of the operating system (`/etc`, `/usr`): a zone grant may not cover one,
    /// and a write zone may not lie inside one. Every layer may add directories.
    pub system_dirs: Vec<PathBuf>,
    /// System directories whose content other processes and users put there (`/dev/shm`,
    /// `/proc`, `/run`): a read from one is content from elsewhere, like a read of `/tmp`,
    /// though a zone grant may not cover one either. Every layer may add directories.
    pub shared_dirs: Vec<PathBuf>,
    /// Device files with no one's content (`/dev/null`, `/dev/urandom`, `/dev/tty`): reading
    /// one is not a read from elsewhere. Every layer may add devices.
    pub harmless_devices: Vec<PathBuf>,
    /// Package runners (verb chains such as `npx`, `pipx run`): a runner alone downloads and
    /// runs whatever package it is named, so a grant must name the package. Every layer may
    /// add runners.
    pub package_runners: Vec<Vec<String>>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            trusted_bin_dirs: ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"]
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            max_shell_depth: 8,
            deny_shell_depth: 8,
            disposable: Vec::new(),
            release_names: Vec::new(),
            console_names: Vec::new(),
            toolchain_code: Vec::new(),
            hook_files: Vec::new(),
            repository_programs: Vec::new(),
            repository_config: Vec::new(),
            environment_programs: Vec::new(),
            secret_names: Vec::new(),
            code_loading_variables: Vec::new(),
            module_path_variables: Vec::new(),
            harmless_assignments: Vec::new(),
            command_variables: Vec::new(),
            narrow: Vec::new(),
            alias_commands: Vec::new(),
            concurrent_commands: Vec::new(),
            system_dirs: Vec::new(),
            shared_dirs: Vec::new(),
            harmless_devices: Vec::new(),
            package_runners: Vec::new(),
        }
    }
}

/// Implements [`Keyed`] for catalog entries with a `verb` field.
macro_rules! keyed_by_verb {
    ($($type:ty),*) => {
        $(impl Keyed for $type {
            fn verb(&self) -> &[String] {
                &self.verb
            }
        })*
    };
}

keyed_by_verb!(SafeEntry, Wrapper, Shell, Interpreter, VerbRoles);
