//! shellgate-parser: a bash grammar that turns any command line into a graph of every clause
//! bash would run.
//!
//! ```
//! use shellgate_parser::{parse, Context, ParseOptions};
//!
//! let out = parse("git status && (cd /tmp; rm -rf build) | tee log.txt", &ParseOptions::default());
//! assert!(out.complete);
//! let argv: Vec<Vec<&str>> = out.graph.clauses().map(|c| c.cooked_argv().collect()).collect();
//! assert_eq!(argv, [vec!["git", "status"], vec!["cd", "/tmp"], vec!["rm", "-rf", "build"], vec!["tee", "log.txt"]]);
//! assert_eq!(out.graph.get(2).map(|c| c.context), Some(Context::Subshell));
//! ```
//!
//! # What it guarantees
//!
//! * **Every clause bash would run is a [`Clause`]**: pipeline stages, `&` jobs, `!`/`time`
//!   pipelines, subshells, groups, `if`/`while`/`until`/`for`/`select`/`case` conditions,
//!   bodies and word lists, function bodies, `coproc`, `[[ … ]]` and `(( … ))` (as clauses
//!   with verb `[[` / `((` whose argv is the words inside), `$(…)`, backticks (nested too),
//!   `${ …; }`, `<(…)`, `>(…)`, and the substitutions in assignments, array elements,
//!   subscripts, `${…}` operands, arithmetic, redirection targets and unquoted heredoc bodies.
//!   A bare assignment or redirection is a clause with an empty argv.
//! * **Words are cooked**: [`Word::cooked`] has quotes removed, escapes and line continuations
//!   applied and `$'…'` decoded (`\rm`, `r''m`, `"rm"`, `$'\x72m'` all cook to `rm`);
//!   expansions keep their source text and make the word non-literal.
//! * **Fail closed, bounded**: [`parse`] never panics. Syntax errors, unterminated quotes or
//!   heredocs and the limits in [`limits`] (64 KiB input, depth 64, 4,096 clauses, pest call
//!   limit) give `complete: false` with a [`Diagnostic`]; the clauses that could still be
//!   recovered (the longest parsable prefix, then a conservative tokenizer) are returned so hard
//!   deny rules can still fire.
//!
//! # The verb hint is not a security contract
//!
//! [`Clause::verb`] (see [`verb_hint`]) walks consecutive verb-like tokens ("stop at the first
//! non-verb-like token"), skipping known flag-with-value pairs, so `git -C /repo worktree list
//! --porcelain` gives `git worktree list` and `git push origin main` over-extracts to all four
//! tokens. It is for display, audit grouping and proposals. **Security matching uses token
//! prefixes**: a pattern with an N-token verb prefix matches a command when the command's first
//! N cooked argv tokens equal that prefix.
//!
//! # Bash semantics without a policy
//!
//! [`evaluates`] finds expansions that evaluate data as code, [`misread`] constructs bash
//! reads differently from this grammar (a line continuation inside a token), [`braces`] expands literal brace
//! expressions and [`positional`] binds `bash -c CODE $0 $1 …` arguments: what bash does with
//! words, needing no policy, used by the gate's walk through wrappers and shell code.
//!
//! # Known limits
//!
//! * Aliases, `eval`, `source` and functions called later are not expanded (a function whose
//!   body changes the directory makes it unknown from its definition on); `CDPATH` is not
//!   consulted for `cd`.
//! * `\`+newline is joined when a word is cooked, after the grammar has read it: where a
//!   continuation inside a token would make bash read something else, [`misread`] says so.
//! * Up to four heredocs may be pending on one line, and a delimiter has at most three quoted
//!   or unquoted pieces; a newline inside `$( … )` while a heredoc of the enclosing line is
//!   still pending is refused (incomplete) rather than guessed.
//! * Extended globs are always recognised (as with `shopt -s extglob`).

mod ast;
pub mod braces;
mod build;
pub mod clause;
mod cook;
mod cwd;
mod diagnose;
mod error;
pub mod evaluates;
mod fast;
mod grammar;
mod graph;
pub mod limits;
mod loops;
mod lower;
mod mentions;
pub mod misread;
pub mod path;
pub mod positional;
mod recover;
mod render;
mod verb;

use std::num::NonZeroUsize;
use std::path::PathBuf;

use build::Engine;

pub use clause::*;
pub use error::{Diagnostic, DiagnosticKind};
pub use graph::{ClauseGraph, EdgeKind};
pub use render::render;
pub use verb::{is_verb_like, verb_hint};

/// Where a command runs: the base for `cd` tracking.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// The directory the command starts in. `None`: every clause's `cwd` is unknown until an
    /// absolute `cd`.
    pub cwd: Option<PathBuf>,
    /// The home directory, for `cd`, `cd ~` and `~/…` targets.
    pub home: Option<PathBuf>,
}

/// The result of [`parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOutput {
    /// The clauses and their relations.
    pub graph: ClauseGraph,
    /// True when the whole input was understood. When false, `graph` holds what could be
    /// recovered and `diagnostics` says why.
    pub complete: bool,
    /// Why the parse is incomplete (empty when complete).
    pub diagnostics: Vec<Diagnostic>,
    /// True when something runs in the background, at any depth: a list element ended by `&`
    /// (`{ (sleep 1; cat x) & }`), or a coprocess. Then clauses do not act in text order.
    /// (True for a parse that did not complete: not known.)
    pub background: bool,
}

impl ParseOutput {
    /// The first diagnostic's message, if any.
    #[must_use]
    pub fn reason(&self) -> Option<&str> {
        self.diagnostics.first().map(|d| d.message.as_str())
    }
}

/// Parses a bash command line into its clause graph. Never panics; see the crate docs.
#[must_use]
pub fn parse(input: &str, options: &ParseOptions) -> ParseOutput {
    parse_with(input, options, Engine::Fast)
}

/// Differential testing of the fast scanner against the grammar. Not part of the stable API:
/// for the crate's tests and fuzz targets.
#[doc(hidden)]
pub mod differential {
    use crate::build::Engine;
    use crate::{ParseOptions, ParseOutput};

    /// [`crate::parse`] with the grammar alone (the fast scanner never runs).
    #[must_use]
    pub fn parse_grammar(input: &str, options: &ParseOptions) -> ParseOutput {
        crate::parse_with(input, options, Engine::Grammar)
    }

    /// [`crate::render`] with the grammar alone.
    #[must_use]
    pub fn render_grammar(input: &str) -> Option<String> {
        crate::render::render_with(input, Engine::Grammar)
    }

    /// True when the fast scanner takes `input` (the grammar does not run for it).
    #[must_use]
    pub fn fast_accepts(input: &str) -> bool {
        crate::fast::script(input).is_some()
    }
}

fn parse_with(input: &str, options: &ParseOptions, engine: Engine) -> ParseOutput {
    let base = options.cwd.as_deref().map(normalized_base);
    let home = options.home.as_deref();
    if input.len() > limits::MAX_INPUT_BYTES {
        return fallback(
            input,
            Diagnostic {
                kind: DiagnosticKind::Limit,
                message: format!(
                    "the command is {} bytes long; the limit is {} bytes",
                    input.len(),
                    limits::MAX_INPUT_BYTES
                ),
                offset: limits::MAX_INPUT_BYTES,
            },
        );
    }
    if let Some(offset) = input.find('\0') {
        return fallback(
            input,
            Diagnostic {
                kind: DiagnosticKind::Unsupported,
                message: "the command contains a NUL byte".to_owned(),
                offset,
            },
        );
    }
    if let Some(offset) = limits::nesting_exceeds(input, limits::MAX_DEPTH) {
        return fallback(
            input,
            Diagnostic {
                kind: DiagnosticKind::Limit,
                message: format!("nesting is deeper than {} levels", limits::MAX_DEPTH),
                offset,
            },
        );
    }
    pest::set_call_limit(NonZeroUsize::new(limits::CALL_LIMIT));
    match build::build_script(input, limits::MAX_DEPTH, engine) {
        Ok(script) => {
            let lowered = lower::lower(
                script.list,
                script.heredocs,
                base,
                home,
                limits::MAX_CLAUSES,
                loops::may_unroll(input),
            );
            let mut diagnostics = Vec::new();
            if lowered.truncated {
                diagnostics.push(Diagnostic {
                    kind: DiagnosticKind::Limit,
                    message: format!("the command has more than {} clauses", limits::MAX_CLAUSES),
                    offset: 0,
                });
            }
            ParseOutput {
                graph: ClauseGraph::from_emitted(lowered.clauses, &lowered.edges),
                complete: diagnostics.is_empty(),
                diagnostics,
                background: lowered.background || lowered.truncated,
            }
        }
        Err(error) => {
            let mut diagnostic = error.into_diagnostic();
            if diagnostic.kind == DiagnosticKind::Limit {
                // Parsing prefixes again could hit the same limit: tokenize instead.
                return fallback(input, diagnostic);
            }
            if diagnostic.kind == DiagnosticKind::Syntax
                && let Some(open) = diagnose::unterminated(input)
            {
                diagnostic = open;
            }
            recover_prefix(input, diagnostic, base.as_deref(), home, engine)
        }
    }
}

thread_local! {
    /// The last base directory [`normalized_base`] normalised, and the result.
    static LAST_BASE: std::cell::RefCell<Option<(PathBuf, PathBuf)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`cwd::normalize`] of the base directory, remembered per thread: callers parse many
/// commands in the same directory.
fn normalized_base(dir: &std::path::Path) -> PathBuf {
    LAST_BASE.with(|cell| {
        let Ok(mut last) = cell.try_borrow_mut() else {
            return cwd::normalize(dir);
        };
        if let Some((from, to)) = last.as_ref()
            && from.as_os_str() == dir.as_os_str()
        {
            return to.clone();
        }
        let to = cwd::normalize(dir);
        *last = Some((dir.to_path_buf(), to.clone()));
        to
    })
}

/// How many earlier cut points [`recover_prefix`] tries.
const RECOVERY_ATTEMPTS: usize = 8;

/// After a failed parse: parse the longest prefix ending at a `;` or newline before the error
/// that parses cleanly, and tokenize the rest conservatively.
fn recover_prefix(
    input: &str,
    diagnostic: Diagnostic,
    base: Option<&std::path::Path>,
    home: Option<&std::path::Path>,
    engine: Engine,
) -> ParseOutput {
    let limit = diagnostic.offset.min(input.len());
    let cuts = input
        .char_indices()
        .filter(|&(i, c)| i < limit && (c == '\n' || c == ';'))
        .map(|(i, _)| i + 1)
        .collect::<Vec<_>>();
    for &cut in cuts.iter().rev().take(RECOVERY_ATTEMPTS) {
        let Some(prefix) = input.get(..cut) else {
            continue;
        };
        let Ok(script) = build::build_script(prefix, limits::MAX_DEPTH, engine) else {
            continue;
        };
        let lowered = lower::lower(
            script.list,
            script.heredocs,
            base.map(std::path::Path::to_path_buf),
            home,
            limits::MAX_CLAUSES,
            false,
        );
        let mut clauses = lowered.clauses;
        let rest = input.get(cut..).unwrap_or_default();
        let room = limits::MAX_CLAUSES.saturating_sub(clauses.len());
        clauses.extend(recover::fallback_clauses(rest, cut, 0, room));
        return ParseOutput {
            graph: ClauseGraph::from_emitted(clauses, &lowered.edges),
            complete: false,
            diagnostics: vec![diagnostic],
            background: true,
        };
    }
    fallback(input, diagnostic)
}

/// An incomplete result whose clauses come from the conservative tokenizer alone.
fn fallback(input: &str, diagnostic: Diagnostic) -> ParseOutput {
    let clauses = recover::fallback_clauses(input, 0, 0, limits::MAX_CLAUSES);
    ParseOutput {
        graph: ClauseGraph::from_emitted(clauses, &[]),
        complete: false,
        diagnostics: vec![diagnostic],
        background: true,
    }
}
