//! The one rule for what a person may trust for good: [`GrantRule`].
//!
//! A saved grant widens every later decision, so some grants are refused whoever asks for them
//! — `shellgate approvals trust-verb` and `trust-zone`, the workflow's "Always"
//! ([`GateEvaluator::respond`](crate::GateEvaluator::respond)), `shellgate audit`'s grant
//! suggestions — and the gate never proposes them ([`crate::proposal`]). Each refusal says why
//! and what narrower grant to give instead ([`GrantRefusal`]).
//!
//! **Patterns** (`shellgate approvals trust-verb`):
//!
//! | refused | why | instead |
//! | --- | --- | --- |
//! | headed by a shell (`bash *`, `ssh host *`, `docker exec *`) | it runs whatever code it is given | one pattern per command the code runs |
//! | headed by a wrapper (`sudo *`, `env *`, `xargs *`, `timeout *`) | it runs whatever command follows | a pattern for the command it wraps |
//! | an interpreter alone (`python3 *`, `node *`) | it runs whatever code it is given | the exact command a prompt offers (it matches only that command) |
//! | a package runner alone (`npx *`, `pipx run *`, `pnpm dlx *`) | it downloads and runs any package | a pattern naming the package (`npx prettier *`) |
//! | a multi-purpose tool without its subcommand (`git *`, `docker *`, `kubectl *`, `npm *`, `git --no-pager *`) | it reads, writes, publishes and runs hooks alike | a pattern naming the subcommand (`git status *`) |
//!
//! The heads come from the policy: its `[[shell]]` and `[[interpreter]]` verbs, its `[[wrapper]]`
//! verbs that run the rest of the command line (mode `prefix`), and — for "multi-purpose" — the
//! first word of every multi-word entry of its tables whose second word is not an option (`git
//! status`, `docker ps`, `npm audit`). Package runners are [`PACKAGE_RUNNERS`] until the policy
//! declares them as wrappers (then the wrapper row refuses them, with or without a package).
//!
//! **Zones** (`shellgate approvals trust-zone`): refused when the zone is or contains `/`, the
//! home directory, a system directory ([`SYSTEM_DIRS`] and the policy's
//! `settings.trusted_bin_dirs`) or a protected path (an anchored `[[protected]]` glob whose
//! decision for that access is forced); a zone inside a protected path is refused too (it
//! would change nothing), and so is a *write* zone inside a system directory (it would let a
//! command plant programs every user runs).
//!
//! **Hosts** (`shellgate approvals trust-host`): a host grant names one host (`api.github.com`,
//! `10.0.0.5`) or the subdomains of one domain (`*.example.com`). Refused: anything with a
//! scheme, user, port or path (a URL is not a host); `*`; a wildcard over a top-level domain
//! (`*.com`), a public suffix (`*.co.uk`, `*.com.au`: one of
//! [`PUBLIC_SECOND_LEVEL`](shellgate_rules::PUBLIC_SECOND_LEVEL) before a two-letter country
//! code) or an IP range (`*.0.10`) — see [`HostGrant`].

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use shellgate_rules::{
    Access, Decision, HostGrant, PatternError, Policy, Protected, VerbPattern, WrapperMode,
    resolve_path,
};

use crate::display::code_list;
use crate::paths;

/// Package runners: a bare runner downloads and runs whatever package it is named. Refused
/// without a package until the policy declares them as wrappers.
pub const PACKAGE_RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["pnpx"],
    &["bunx"],
    &["uvx"],
    &["pipx", "run"],
    &["npm", "exec"],
    &["pnpm", "exec"],
    &["pnpm", "dlx"],
    &["yarn", "dlx"],
    &["yarn", "exec"],
    &["bun", "x"],
    &["uv", "run"],
    &["uv", "tool", "run"],
];

/// Names no protected glob is about, for [`GrantRule::protected_filter`].
const ORDINARY_NAMES: &[&str] = &["zz", "zz.txt", ".zz"];

/// Directories of the operating system itself (with the policy's trusted bin directories).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/root",
    "/sbin",
    "/sys",
    "/usr",
    "/Library",
    "/System",
    "/private/etc",
];

/// What a head that runs other code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeHead {
    /// A `[[shell]]`: its argument is shell code.
    Shell,
    /// An `[[interpreter]]`: its argument is code the gate cannot read.
    Interpreter,
    /// A `[[wrapper]]` that runs the rest of the command line.
    Wrapper,
    /// A privileged `[[wrapper]]` (`sudo`, `doas`).
    Privileged,
    /// A package runner ([`PACKAGE_RUNNERS`]) that the policy does not declare: admitted once
    /// the pattern names the package (`npx prettier *`).
    PackageRunner,
    /// A package runner that the policy declares as a wrapper: the package's command is
    /// unwrapped and judged by itself, so the runner heads no grant at all.
    RunnerWrapper,
}

impl CodeHead {
    /// What it is and does: `a shell, which runs whatever code it is given`…
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Shell => "a shell, which runs whatever code it is given",
            Self::Interpreter => "an interpreter, which runs whatever code it is given",
            Self::Wrapper => "a wrapper, which runs whatever command follows it",
            Self::Privileged => {
                "a privilege wrapper, which runs whatever command follows it as another user"
            }
            Self::PackageRunner | Self::RunnerWrapper => {
                "a package runner, which downloads and runs whatever package it is named"
            }
        }
    }
}

/// Why a grant is refused, and the narrower grant to give instead
/// ([`alternative`](Self::alternative), the diagnostic's help).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GrantRefusal {
    /// A pattern headed by a shell or a wrapper, or by an interpreter or a package runner
    /// alone.
    #[error("`{pattern}` would approve too much: `{head}` is {}", kind.describe())]
    RunsCode {
        /// The pattern.
        pattern: String,
        /// The head, such as `bash` or `pipx run`.
        head: String,
        /// What the head is.
        kind: CodeHead,
    },
    /// A multi-purpose tool without its subcommand.
    #[error("`{pattern}` would approve every `{head}` subcommand")]
    NeedsSubcommand {
        /// The pattern.
        pattern: String,
        /// The tool.
        head: String,
        /// Patterns naming a subcommand, from the policy.
        examples: Vec<String>,
    },
    /// A zone that is or contains the home directory.
    #[error("`{zone}` would trust the whole home directory `{home}`")]
    Home {
        /// The zone.
        zone: String,
        /// The home directory.
        home: String,
    },
    /// A zone that is or contains a system directory (or `/`).
    #[error("`{zone}` covers the system directory `{dir}`")]
    System {
        /// The zone.
        zone: String,
        /// The system directory it covers.
        dir: String,
    },
    /// A write zone inside a system directory.
    #[error(
        "`{zone}` is inside the system directory `{dir}`: writing there changes what other programs load and run"
    )]
    InsideSystem {
        /// The zone.
        zone: String,
        /// The system directory.
        dir: String,
    },
    /// A zone that contains a protected path.
    #[error("`{zone}` covers the protected path `{path}` ({id}: {why})")]
    CoversProtected {
        /// The zone.
        zone: String,
        /// The protected path (its literal directory).
        path: String,
        /// The protected entry's id.
        id: String,
        /// Why it is protected.
        why: String,
    },
    /// A host grant that is not a host, or covers too many hosts.
    #[error("{error}")]
    Host {
        /// Why the host is refused.
        error: PatternError,
    },
    /// A zone inside a protected path.
    #[error("`{zone}` is inside the protected path `{glob}` ({id}: {why})")]
    InsideProtected {
        /// The zone.
        zone: String,
        /// The protected glob.
        glob: String,
        /// The protected entry's id.
        id: String,
        /// Why it is protected.
        why: String,
    },
}

impl GrantRefusal {
    /// The narrower grant to give instead.
    #[must_use]
    pub fn alternative(&self) -> String {
        match self {
            Self::RunsCode { head, kind, .. } => match kind {
                CodeHead::Shell => "approve the commands the code runs, one pattern each (such as `cargo test *`); a script file can only be allowed once, when asked".to_owned(),
                CodeHead::Wrapper => format!(
                    "approve the command it wraps instead: for `{head} … cargo test` that is `cargo test *`"
                ),
                CodeHead::Privileged => format!(
                    "commands run through `{head}` always need a person; they cannot be approved for good"
                ),
                CodeHead::Interpreter => "save the exact command when a prompt offers it: such a pattern matches only that command".to_owned(),
                CodeHead::PackageRunner => {
                    format!("name the package it runs, such as `{head} prettier *`")
                }
                CodeHead::RunnerWrapper => format!(
                    "approve the package's own command instead: for `{head} prettier --write .` that is `prettier --write *`"
                ),
            },
            Self::NeedsSubcommand { examples, .. } => {
                format!("name the subcommand, such as {}", code_list(examples, " or "))
            }
            Self::Home { .. } => {
                "trust a project directory inside it instead, such as `~/src/project`".to_owned()
            }
            Self::System { .. } => {
                "trust a directory of your own instead: a project, build or data directory"
                    .to_owned()
            }
            Self::InsideSystem { .. } => {
                "trust it for reading only (`--read-only`), or a directory of your own for writing"
                    .to_owned()
            }
            Self::CoversProtected { .. } => {
                "trust a narrower directory that does not contain it".to_owned()
            }
            Self::InsideProtected { .. } => {
                "protected paths stay protected whatever the zones say; trust a directory outside it"
                    .to_owned()
            }
            Self::Host { error } => {
                miette::Diagnostic::help(error).map_or_else(String::new, |help| help.to_string())
            }
        }
    }

    /// The stable code, such as `shellgate::grant::runs_code`.
    #[must_use]
    pub const fn code_str(&self) -> &'static str {
        match self {
            Self::RunsCode { .. } => "shellgate::grant::runs_code",
            Self::NeedsSubcommand { .. } => "shellgate::grant::needs_subcommand",
            Self::Home { .. } => "shellgate::grant::home",
            Self::System { .. } => "shellgate::grant::system",
            Self::InsideSystem { .. } => "shellgate::grant::inside_system",
            Self::CoversProtected { .. } => "shellgate::grant::covers_protected",
            Self::InsideProtected { .. } => "shellgate::grant::inside_protected",
            Self::Host { .. } => "shellgate::grant::host",
        }
    }
}

impl miette::Diagnostic for GrantRefusal {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.code_str()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.alternative()))
    }
}

/// A head that needs a subcommand, with (at most two) of its subcommands from the policy.
#[derive(Clone, Debug)]
struct MultiPurpose {
    head: String,
    examples: Vec<String>,
}

/// The rule over one policy (see the module docs). Cheap to clone; built once per evaluator.
#[derive(Clone, Debug)]
pub struct GrantRule {
    policy: Arc<Policy>,
    /// Verb prefixes that run other code, longest first.
    code_heads: Vec<(Vec<String>, CodeHead)>,
    /// The positions in `code_heads` of each first word's prefixes, in order.
    code_heads_by_word: HashMap<String, Vec<usize>>,
    /// Tools that need a subcommand.
    multi_purpose: Vec<MultiPurpose>,
    /// The position in `multi_purpose` of each head.
    multi_purpose_by_head: HashMap<String, usize>,
    /// The verbs proposed narrowly (see [`GrantRule::keeps_narrow`]) by first word: the
    /// deny rules' verbs (`false`: a hint that is a prefix of one is narrow too) and
    /// `settings.narrow` (`true`: the hint must cover the whole verb).
    narrow_by_word: HashMap<String, Vec<(Vec<String>, bool)>>,
    /// System directories, normalised.
    system_dirs: Vec<PathBuf>,
    /// For each unanchored one-segment protected glob whose reads are forced (`**/.env`,
    /// `**/*.ppk`): its entry's position and a name it matches (`.env`, `x.ppk`).
    protected_names: Vec<(usize, String)>,
    /// The literal bases of the protected globs ([`literal_base`], per entry and glob) for the
    /// first home directory asked about: nearly every call gives the same one.
    bases: Arc<OnceLock<ProtectedBases>>,
}

/// The literal bases of every protected entry's globs for one home directory.
#[derive(Debug)]
struct ProtectedBases {
    home: Option<PathBuf>,
    bases: Vec<Vec<Option<PathBuf>>>,
}

impl ProtectedBases {
    fn new(policy: &Policy, home: Option<&Path>) -> Self {
        Self {
            home: home.map(Path::to_path_buf),
            bases: policy
                .protected_entries()
                .iter()
                .map(|entry| {
                    entry
                        .paths
                        .iter()
                        .map(|glob| literal_base(glob, home))
                        .collect()
                })
                .collect(),
        }
    }
}

impl GrantRule {
    /// The policy the rule reads (its `[classify]` also drives proposals).
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The rule over `policy`.
    #[must_use]
    pub fn new(policy: impl Into<Arc<Policy>>) -> Self {
        let policy = policy.into();
        let runner = |verb: &[String]| {
            PACKAGE_RUNNERS
                .iter()
                .any(|known| known.iter().copied().eq(verb.iter().map(String::as_str)))
        };
        let mut code_heads: Vec<(Vec<String>, CodeHead)> = Vec::new();
        let mut known: HashSet<&[String]> = HashSet::new();
        let mut add = |verb: &[String], kind: CodeHead| {
            if !verb.is_empty() {
                code_heads.push((verb.to_vec(), kind));
            }
        };
        // Wrappers first: `env` and `flock` are wrappers that also take shell code.
        for wrapper in policy.wrappers() {
            if matches!(wrapper.mode, WrapperMode::Prefix(_)) && known.insert(&wrapper.verb) {
                let kind = if wrapper.privileged {
                    CodeHead::Privileged
                } else if runner(&wrapper.verb) {
                    CodeHead::RunnerWrapper
                } else {
                    CodeHead::Wrapper
                };
                add(&wrapper.verb, kind);
            }
        }
        for shell in policy.shells() {
            if known.insert(&shell.verb) {
                add(&shell.verb, CodeHead::Shell);
            }
        }
        for interpreter in policy.interpreters() {
            if known.insert(&interpreter.verb) {
                add(&interpreter.verb, CodeHead::Interpreter);
            }
        }
        for runner in PACKAGE_RUNNERS {
            let verb: Vec<String> = runner.iter().map(|w| (*w).to_owned()).collect();
            if !known.contains(verb.as_slice()) {
                add(&verb, CodeHead::PackageRunner);
            }
        }
        // A longer prefix (`docker exec`) is more specific than a shorter one.
        code_heads.sort_by_key(|(verb, _)| std::cmp::Reverse(verb.len()));
        let verbs = policy
            .safe_entries()
            .iter()
            .map(|entry| entry.verb.as_slice())
            .chain(policy.deny_rules().iter().map(|rule| rule.verb()))
            .chain(
                policy
                    .verb_roles()
                    .iter()
                    .map(|roles| roles.verb.as_slice()),
            )
            .chain(policy.wrappers().iter().map(|w| w.verb.as_slice()))
            .chain(policy.shells().iter().map(|s| s.verb.as_slice()))
            .chain(policy.interpreters().iter().map(|i| i.verb.as_slice()));
        // Each head with (at most two of) its subcommands, in the policy's order.
        let mut heads: Vec<(&str, Vec<&str>)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for verb in verbs {
            let [head, sub, ..] = verb else { continue };
            if sub.starts_with('-') {
                continue;
            }
            match index.get(head.as_str()) {
                Some(&at) => {
                    if let Some((_, subs)) = heads.get_mut(at)
                        && subs.len() < 2
                        && !subs.contains(&sub.as_str())
                    {
                        subs.push(sub);
                    }
                }
                None => {
                    index.insert(head, heads.len());
                    heads.push((head, vec![sub]));
                }
            }
        }
        let multi_purpose: Vec<MultiPurpose> = heads
            .into_iter()
            .map(|(head, subs)| MultiPurpose {
                head: head.to_owned(),
                examples: subs.into_iter().map(str::to_owned).collect(),
            })
            .collect();
        let mut system_dirs: Vec<PathBuf> = SYSTEM_DIRS.iter().map(PathBuf::from).collect();
        for dir in policy.trusted_bin_dirs() {
            if let Some(dir) = paths::normalize(dir)
                && !system_dirs.contains(&dir)
            {
                system_dirs.push(dir);
            }
        }
        let mut code_heads_by_word: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (verb, _)) in code_heads.iter().enumerate() {
            if let Some(first) = verb.first() {
                code_heads_by_word
                    .entry(first.clone())
                    .or_default()
                    .push(at);
            }
        }
        let multi_purpose_by_head = multi_purpose
            .iter()
            .enumerate()
            .map(|(at, tool)| (tool.head.clone(), at))
            .collect();
        let mut narrow_by_word: HashMap<String, Vec<(Vec<String>, bool)>> = HashMap::new();
        let narrow = policy
            .deny_rules()
            .iter()
            .map(|rule| (rule.verb(), false))
            .chain(
                policy
                    .narrow_commands()
                    .iter()
                    .map(|v| (v.as_slice(), true)),
            );
        for (verb, whole) in narrow {
            if let Some(first) = verb.first() {
                let entry = narrow_by_word.entry(first.clone()).or_default();
                if !entry.iter().any(|(v, w)| v == verb && *w == whole) {
                    entry.push((verb.to_vec(), whole));
                }
            }
        }
        let protected_names = policy
            .protected_entries()
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.read != Decision::Approved)
            .flat_map(|(at, entry)| {
                entry.paths.iter().filter_map(move |glob| {
                    let name = glob.strip_prefix("**/")?;
                    (!name.contains(['/', '[', '{', '\\']))
                        .then(|| (at, name.replace(['*', '?'], "x")))
                })
            })
            .collect();
        Self {
            policy,
            code_heads,
            code_heads_by_word,
            protected_names,
            multi_purpose,
            multi_purpose_by_head,
            narrow_by_word,
            system_dirs,
            bases: Arc::new(OnceLock::new()),
        }
    }

    /// The protected entry a file-name filter selects, if any: `filter` (`*.env` of
    /// `grep -r --include='*.env'`, `rg -g`, `find -name`) is matched, as a glob, against a name
    /// each unanchored protected glob matches (`.env` for `**/.env`), so a recursive read
    /// filtered to secrets is known to read them. The name the filter matched comes with it. A
    /// filter that also selects ordinary names (`*`, `.*`, `*.*`) selects nothing in particular.
    #[must_use]
    pub fn protected_filter(&self, filter: &str) -> Option<(&Protected, &str)> {
        let glob = shellgate_rules::glob::WordGlob::new(filter);
        // A filter that selects ordinary names too (`*`, `.*`) shows no aim at secrets.
        if ORDINARY_NAMES.iter().any(|name| glob.is_match(name)) {
            return None;
        }
        self.protected_names.iter().find_map(|(at, name)| {
            let entry = self.policy.protected_entries().get(*at)?;
            glob.is_match(name).then_some((entry, name.as_str()))
        })
    }

    /// Whether a command named `hint` (its verb chain) is proposed narrowly, with its literal
    /// arguments: a command that a deny rule names (`rm`, `dd`, `git push`, `kubectl delete`,
    /// `curl`) or that `settings.narrow` lists (`docker run`) can destroy, leak or run any
    /// code, so a grant stays as close to what was asked as it can. Other commands are
    /// proposed by their name (`cargo test *`).
    #[must_use]
    pub fn keeps_narrow(&self, hint: &[&str]) -> bool {
        let Some(first) = hint.first() else {
            // No words: every verb "starts with" nothing.
            return self
                .narrow_by_word
                .values()
                .flatten()
                .any(|(_, whole)| !*whole);
        };
        self.narrow_by_word.get(*first).is_some_and(|verbs| {
            verbs.iter().any(|(verb, whole)| {
                (!*whole || verb.len() <= hint.len())
                    && verb
                        .iter()
                        .zip(hint)
                        .all(|(named, word)| named.as_str() == *word)
            })
        })
    }

    /// The kind of code-running head `tokens` start with, and its length, if any.
    #[must_use]
    pub fn code_head(&self, tokens: &[&str]) -> Option<(&[String], CodeHead)> {
        self.code_heads_by_word
            .get(*tokens.first()?)?
            .iter()
            .filter_map(|&at| self.code_heads.get(at))
            .find(|(verb, _)| {
                verb.len() <= tokens.len() && verb.iter().zip(tokens).all(|(a, b)| a == b)
            })
            .map(|(verb, kind)| (verb.as_slice(), *kind))
    }

    /// Checks a pattern for persisting (see the module docs).
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::RunsCode`] or [`GrantRefusal::NeedsSubcommand`].
    pub fn check_pattern(&self, pattern: &VerbPattern) -> Result<(), GrantRefusal> {
        let prefix: Vec<&str> = pattern.prefix().iter().map(String::as_str).collect();
        // A stem (`npm run test* *`) is judged as the wider pattern without it (`npm run *`),
        // and an interpreter's grant must be its exact command, which a stem never is.
        if pattern.stem().is_some()
            && let Some((verb, kind @ CodeHead::Interpreter)) = self.code_head(&prefix)
        {
            return Err(GrantRefusal::RunsCode {
                pattern: pattern.as_str().to_owned(),
                head: verb.join(" "),
                kind,
            });
        }
        let hint = shellgate_parser::verb_hint(&prefix);
        self.check_tokens(pattern.as_str(), &prefix, hint.len())
    }

    /// Checks a pattern's literal `prefix` (without its glob), of which the first `hint_len`
    /// words are the verb hint (the command and its subcommands). `text` is the pattern as
    /// shown in a refusal.
    ///
    /// # Errors
    ///
    /// As [`check_pattern`](Self::check_pattern).
    pub fn check_tokens(
        &self,
        text: &str,
        prefix: &[&str],
        hint_len: usize,
    ) -> Result<(), GrantRefusal> {
        if let Some((verb, kind)) = self.code_head(prefix) {
            let refused = match kind {
                // They run whatever follows them, whatever the pattern names.
                CodeHead::Shell
                | CodeHead::Wrapper
                | CodeHead::Privileged
                | CodeHead::RunnerWrapper => true,
                // Admitted once the pattern names more than the interpreter: a prompt's exact
                // command, which matching holds to that command exactly.
                CodeHead::Interpreter => prefix.len() <= verb.len(),
                // Admitted once the verb hint names the package (`npx prettier`, not
                // `npx -y cowsay`).
                CodeHead::PackageRunner => hint_len <= verb.len(),
            };
            if refused {
                return Err(GrantRefusal::RunsCode {
                    pattern: text.to_owned(),
                    head: verb.join(" "),
                    kind,
                });
            }
            return Ok(());
        }
        let Some(head) = prefix.first() else {
            return Ok(());
        };
        if let Some(tool) = self
            .multi_purpose_by_head
            .get(*head)
            .and_then(|&at| self.multi_purpose.get(at))
            && hint_len <= 1
        {
            return Err(GrantRefusal::NeedsSubcommand {
                pattern: text.to_owned(),
                head: tool.head.clone(),
                examples: tool
                    .examples
                    .iter()
                    .map(|sub| format!("{} {sub} *", tool.head))
                    .collect(),
            });
        }
        Ok(())
    }

    /// The first system directory `test` accepts, as text.
    fn system_dir(&self, test: impl Fn(&Path) -> bool) -> Option<String> {
        self.system_dirs
            .iter()
            .find(|dir| test(dir))
            .map(|dir| dir.display().to_string())
    }

    /// Checks a zone for persisting with `access` (see the module docs). `zone` is absolute
    /// and normalised; `home` is the home directory, if known.
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::Home`], [`GrantRefusal::System`], [`GrantRefusal::InsideSystem`],
    /// [`GrantRefusal::CoversProtected`] or [`GrantRefusal::InsideProtected`].
    pub fn check_zone(
        &self,
        zone: &Path,
        access: Access,
        home: Option<&Path>,
    ) -> Result<(), GrantRefusal> {
        let shown = zone.display().to_string();
        if zone.parent().is_none() {
            return Err(GrantRefusal::System {
                zone: shown,
                dir: "/".to_owned(),
            });
        }
        if let Some(home) = home
            && paths::is_within(home, zone)
        {
            return Err(GrantRefusal::Home {
                zone: shown,
                home: home.display().to_string(),
            });
        }
        if let Some(dir) = self.system_dir(|dir| paths::is_within(dir, zone)) {
            return Err(GrantRefusal::System { zone: shown, dir });
        }
        if access == Access::Write
            && let Some(dir) = self.system_dir(|dir| paths::is_within(zone, dir))
        {
            return Err(GrantRefusal::InsideSystem { zone: shown, dir });
        }
        let forced = |entry: &Protected| match access {
            Access::Read => entry.read != Decision::Approved,
            // A write zone lets its files be read too.
            Access::Write => entry.read != Decision::Approved || entry.write != Decision::Approved,
        };
        if let Some(entry) = self
            .policy
            .protected_all(zone, home)
            .into_iter()
            .find(|entry| forced(entry))
        {
            // The glob whose directory holds the zone (`~/.azure/**` for `~/.azure/x`), else
            // the first one (an unanchored glob such as `**/.git/hooks/**`).
            let glob = entry
                .paths
                .iter()
                .find(|glob| {
                    literal_base(glob, home).is_some_and(|base| paths::is_within(zone, &base))
                })
                .or_else(|| entry.paths.first())
                .cloned()
                .unwrap_or_default();
            return Err(GrantRefusal::InsideProtected {
                zone: shown,
                glob,
                id: entry.id.clone(),
                why: entry.why.clone(),
            });
        }
        if let Some((entry, base)) = self.protected_below(zone, home, forced) {
            return Err(GrantRefusal::CoversProtected {
                zone: shown,
                path: base.display().to_string(),
                id: entry.id.clone(),
                why: entry.why.clone(),
            });
        }
        Ok(())
    }

    /// Checks a host grant for persisting (see the module docs) and returns it normalised.
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::Host`] when it is not a host or covers too many hosts.
    pub fn check_host(&self, host: &str) -> Result<HostGrant, GrantRefusal> {
        HostGrant::new(host).map_err(|error| GrantRefusal::Host { error })
    }

    /// The first protected entry (one `applies` to) whose literal base directory is `dir` or
    /// lies below it, with that base: what a grant of `dir`, or a recursive read of it
    /// (`grep -r AKIA ~` reaches `~/.aws/credentials`), would reach.
    pub fn protected_below(
        &self,
        dir: &Path,
        home: Option<&Path>,
        applies: impl Fn(&Protected) -> bool,
    ) -> Option<(&Protected, PathBuf)> {
        let cached = self
            .bases
            .get_or_init(|| ProtectedBases::new(&self.policy, home));
        let computed;
        let bases = if cached.home.as_deref() == home {
            cached
        } else {
            computed = ProtectedBases::new(&self.policy, home);
            &computed
        };
        self.policy
            .protected_entries()
            .iter()
            .zip(&bases.bases)
            .filter(|(entry, _)| applies(entry))
            .find_map(|(entry, globs)| {
                globs
                    .iter()
                    .flatten()
                    .find(|base| paths::is_within(base, dir))
                    .map(|base| (entry, base.clone()))
            })
    }
}

/// The literal directory of an anchored protected glob (`~/.ssh/**` → `/home/u/.ssh`,
/// `/proc/*/environ` → `/proc`); `None` for an unanchored one (`**/.env`) or a `~` glob when the
/// home directory is unknown.
fn literal_base(glob: &str, home: Option<&Path>) -> Option<PathBuf> {
    let literal = match glob.find(['*', '?', '[', '{']) {
        Some(at) => glob.get(..at)?.rsplit_once('/').map_or("", |(dir, _)| dir),
        None => glob,
    };
    if literal.is_empty() || !(literal.starts_with('/') || literal.starts_with('~')) {
        return None;
    }
    if literal.starts_with('~') && home.is_none() {
        return None;
    }
    Some(resolve_path(literal, None, home))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> GrantRule {
        GrantRule::new(Policy::embedded_default().unwrap())
    }

    #[test]
    fn literal_bases_of_protected_globs() {
        let home = Some(Path::new("/home/u"));
        let cases = [
            ("~/.ssh/**", Some("/home/u/.ssh")),
            ("~/.ssh", Some("/home/u/.ssh")),
            ("/proc/*/environ", Some("/proc")),
            ("/etc/ssh/ssh_host_*_key", Some("/etc/ssh")),
            ("**/.env", None),
            ("/**", None),
        ];
        for (glob, expected) in cases {
            assert_eq!(
                literal_base(glob, home),
                expected.map(PathBuf::from),
                "{glob}"
            );
        }
        assert_eq!(literal_base("~/.ssh/**", None), None);
    }

    #[test]
    fn heads_come_from_the_policy() {
        let rule = rule();
        let kind = |text: &str| {
            let tokens: Vec<&str> = text.split(' ').collect();
            rule.code_head(&tokens)
                .map(|(verb, kind)| (verb.join(" "), kind))
        };
        let cases = [
            ("bash -c", Some(("bash", CodeHead::Shell))),
            ("docker exec c", Some(("docker exec", CodeHead::Shell))),
            ("sudo apt", Some(("sudo", CodeHead::Privileged))),
            ("timeout 5", Some(("timeout", CodeHead::Wrapper))),
            ("python3 -c", Some(("python3", CodeHead::Interpreter))),
            ("csh -c", Some(("csh", CodeHead::Interpreter))),
            ("git status", None),
            ("find .", None),
            ("docker ps", None),
        ];
        for (text, expected) in cases {
            let expected = expected.map(|(verb, head)| (verb.to_owned(), head));
            assert_eq!(kind(text), expected, "{text}");
        }
    }
}
