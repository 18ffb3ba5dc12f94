//! Why a grant is refused ([`GrantRefusal`]) and what kind of code-running head refused it
//! ([`CodeHead`]).

use shellgate_rules::PatternError;

use crate::display::code_list;

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
    /// A package runner (the policy's `settings.package_runners`) that the policy does not
    /// declare as a wrapper: admitted once the pattern names the package (`npx prettier *`).
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
