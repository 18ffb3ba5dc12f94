//! THE traversal: from a parsed command to every command that will run.
//!
//! [`expand`] turns a [`ParseOutput`] into a flat list of [`Invocation`]s: one for each
//! clause of the graph, then, recursively, one for each command found inside a wrapper
//! (`sudo`, `env`, `timeout`, `xargs`, `find -exec`, `git -C`…), inside shell code parsed again
//! (`bash -c`, `eval`, `su -c`, `ssh host CMD`, a heredoc fed to a shell…), and each
//! interpreter call is marked opaque. Everything a policy judges comes out of this one walk.
//!
//! # The invocation contract (for the evaluator)
//!
//! * **Every** invocation is checked against the deny rules (`Policy::deny`, or all at once
//!   with [`deny_hits`], which also runs `raw` rules over the command and every nested code
//!   string, and `pipeline` rules over [`Expansion::pipelines`]).
//! * [`InvocationKind::Plain`] and [`InvocationKind::Inner`] invocations are *leaves*: judge
//!   them by the safe catalog, argument roles, grants and zones.
//! * A [`InvocationKind::Wrapper`] is judged *through* the invocations it produced (those whose
//!   [`Invocation::parent`] is its index): its own words are not looked up in the safe catalog.
//!   `privileged: true` (sudo, doas, su) means the inner commands run with other privileges.
//!   A wrapper with no inner invocation never gets here: it stays `Plain`.
//! * `find … -exec CMD ;` stays `Plain` (find runs by itself too, and its catalog entry lists
//!   `-exec` as unsafe) and also produces an `Inner` invocation for `CMD`.
//! * A wrapper or shell named by a path outside the trusted bin dirs (`./sudo`, `/tmp/bash`)
//!   is *not* marked `Wrapper`: it is judged as the unknown binary it is, and its inner
//!   commands are still produced so deny rules see them.
//! * [`Invocation::opaque`] set: the invocation runs code shellgate cannot read (interpreter
//!   code, a script file, remote code, dynamic code, a depth limit, a nested parse error). It
//!   is never silently safe; whatever did parse inside is still produced and judged.
//! * [`Invocation::appended_args`]: the command receives arguments not visible here (`xargs`
//!   appends input lines; `find -exec` substitutes `{}`): its operands are unknown.
//! * [`Expansion::complete`] is false when the top-level parse or any nested parse was
//!   incomplete, or a depth limit was hit: the evaluator must not approve silently.
//!
//! The walk is the gate's: [`walk`] (parse, then expand) is what [`crate::GateEvaluator`]
//! judges and what a deny rule's `match`/`not_match` examples run through at load time
//! ([`crate::load_policy`]). It reads the policy's catalog (wrappers, shells, interpreters)
//! and is split by what it unwraps: `wrappers` (prefix, strip and exec-option modes: the
//! options that carry a command), `shells` (shell code, heredocs, `env -S`), `interpreters`
//! (code shellgate cannot read) and `words` (brace expansion, synthetic words, clause text).

mod code_values;
mod deny;
mod finder_pipes;
mod interpreters;
mod piped_code;
mod python;
mod shells;
mod words;
pub(crate) use words::{holds_placeholder, synthetic_word};
pub(crate) use wrappers::finder_own_words;
mod wrappers;

use std::ops::Range;
use std::path::{Path, PathBuf};

use shellgate_parser::{
    Assignment, ClauseGraph, Context, EdgeKind, ParseOptions, ParseOutput, Redirect, Word,
};
use shellgate_rules::{CommandView, Policy, folded_name};

pub use deny::{RuleHit, deny_hits};
use interpreters::{interpreter_opaque, program_code};
use shells::{Found, find_code};
use words::{brace_expanded, clause_text};

/// The most wrappers unwrapped inside one another (`nice nice nice …`) before giving up.
const MAX_WRAPPERS: usize = 32;

/// The most words an invocation may have, times its depth, to be unwrapped: each level copies
/// the words after the wrapper (`nice nice … ls` over megabytes would copy them at every level).
const MAX_UNWRAPPED_WORDS: usize = 100_000;

/// Options for [`expand`].
#[derive(Clone, Debug, Default)]
pub struct ExpandOptions {
    /// The command's base working directory: pass the `ParseOptions::cwd` the command was
    /// parsed with. Clauses already carry their own directory (the parser follows static
    /// `cd`s), and nested shell code starts in its shell's directory, so expansion reads the
    /// clauses' directories; this one is kept for the caller's records.
    pub cwd: Option<PathBuf>,
    /// The home directory (`~`, `$HOME`).
    pub home: Option<PathBuf>,
    /// How deep shell code is parsed again; `None`: the policy's `max_shell_depth`.
    pub max_depth: Option<usize>,
}

/// What an invocation is to the evaluator (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum InvocationKind {
    /// A command as written in the source, judged by itself.
    Plain,
    /// A wrapper or shell judged through the invocations it produced.
    Wrapper {
        /// It changes privilege (`sudo`, `doas`, `su`).
        privileged: bool,
    },
    /// A command found inside a wrapper or in re-parsed shell code, judged by itself.
    Inner,
}

/// Why an invocation runs code shellgate cannot read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "opaque")]
pub enum Opaque {
    /// An interpreter runs embedded or file code (`python -c`, `node x.js`, `awk` with
    /// `system`).
    Interpreter {
        /// Why (from the policy).
        why: String,
        /// The script file it runs, when the code is a script operand (`python3 x.py`), not
        /// inline code, a module, a program file flag or standard input.
        script: Option<String>,
        /// The code flag that selects the code (`-c`, `-m`), when that is what makes it opaque:
        /// a catalog entry whose verb prefix names that flag (`python3 -m pytest`) knows what
        /// runs.
        flag: Option<String>,
        /// The gate read the inline code (`[interpreter.inline]`): it only imports modules and
        /// computes, so it runs like the project's code — silently only in a run zone.
        inline_read: bool,
    },
    /// A shell runs a script file.
    ScriptFile {
        /// The script operand (or the file redirected into the shell's standard input).
        path: String,
    },
    /// The code runs where the gate cannot follow it: another machine (`ssh host …`), a
    /// container (`docker exec`), the program of a terminal pane (`tmux send-keys`).
    Remote {
        /// What the command does, from its `[[shell]]` entry.
        why: String,
    },
    /// The code is not known statically (`bash -c "$x"`, `eval "$(…)"`, a shell reading a
    /// pipe).
    DynamicCode {
        /// What made it dynamic.
        why: String,
    },
    /// Nested shell code deeper than `max_shell_depth`.
    DepthLimit,
    /// Nested shell code did not parse completely.
    NestedIncomplete,
    /// A wrapper got an option its policy entry does not list: what the wrapper does with it
    /// (which program it looks up, what it reads or writes) cannot be judged.
    UnknownOption {
        /// The wrapper's verb prefix, joined by spaces.
        wrapper: String,
        /// The option as written (cooked).
        option: String,
    },
}

/// How an invocation was reached from its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// A `[[wrapper]]` in `prefix` or `strip` mode.
    Wrapper,
    /// A `[[wrapper]]` in `exec-option` mode (`find -exec`).
    ExecOption,
    /// Shell code parsed again (`bash -c`, `eval`, a heredoc).
    Shell,
    /// Remote shell code (`ssh host CMD`).
    Remote,
    /// A command line in an option value or a variable (`rsync -e CMD`,
    /// `GIT_SSH_COMMAND=CMD git fetch`): run by the program, without its assignments.
    Value,
    /// A string split into words (`env -S`).
    Split,
    /// Literal brace expansion (`{rm,-rf,~/.ssh}` is `rm -rf ~/.ssh`).
    Braces,
    /// A command name the policy does not know, spelled with capitals or a Windows suffix, as
    /// the program it may name on a case-insensitive file system or Windows (`Bash.exe` is
    /// `bash`).
    FoldedName,
}

/// One step of an invocation's origin.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OriginStep {
    /// The index of the invocation this step went through.
    pub invocation: usize,
    /// That invocation's cooked verb prefix as matched by the policy (`["sudo"]`,
    /// `["bash"]`, `["git"]`).
    pub verb: Vec<String>,
    /// How.
    pub via: Via,
}

/// One command that will run (see the module docs for the contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The command words, verb first.
    pub words: Vec<Word>,
    /// Assignment prefixes (a wrapper's `NAME=value` words included).
    pub assignments: Vec<Assignment>,
    /// Redirections that apply to it (inner commands inherit their clause's).
    pub redirects: Vec<Redirect>,
    /// The working directory, when known.
    pub cwd: Option<PathBuf>,
    /// The home directory, when known (unknown for remote code).
    pub home: Option<PathBuf>,
    /// Where its clause sits (for nested code: where it sits in that code).
    pub context: Context,
    /// The index of the top-level clause it came from, in `ParseOutput::graph.clauses()`.
    pub clause_index: usize,
    /// The wrappers and shells it was found through, outermost first.
    pub origin: Vec<OriginStep>,
    /// The invocation that produced it, if any (the last origin step's).
    pub parent: Option<usize>,
    /// What it is to the evaluator.
    pub kind: InvocationKind,
    /// Set when it runs code shellgate cannot read.
    pub opaque: Option<Opaque>,
    /// It receives arguments not visible here (`xargs`, `find -exec`).
    pub appended_args: bool,
    /// For a command run on each file a finder found (`find DIR -exec cat {} ;`): the
    /// directories the files are found below (the finder's read operands; the working
    /// directory is always one too). Its `{}` and appended arguments are then reads below
    /// those directories, not paths unknown until it runs.
    pub found_below: Option<Vec<Word>>,
    /// The finder whose output a command piped from it receives as arguments
    /// (`find . -name '*.env' | xargs cat`): its words hold the name filters.
    pub found_by: Option<usize>,
    /// The command's text as written (raw words, assignments and redirections).
    pub text: String,
    /// How many shell re-parses deep it is (0: the command as given).
    pub shell_depth: usize,
    /// A wrapper given one of its `judged_flags` (`./gradlew -I init.gradle build`): it does
    /// something of its own, so it is judged by itself (its inner command is judged too).
    pub judged_wrapper: bool,
}

impl Invocation {
    /// A view for the matchers.
    #[must_use]
    pub fn view(&self) -> CommandView<'_> {
        CommandView {
            words: &self.words,
            assignments: &self.assignments,
            redirects: &self.redirects,
            cwd: self.cwd.as_deref(),
            home: self.home.as_deref(),
        }
    }

    /// The cooked words.
    pub fn cooked(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(|w| w.cooked.as_str())
    }
}

/// Shell code parsed during the expansion (for `raw` rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSource {
    /// The code text.
    pub text: String,
    /// The invocation (a shell) whose code it is.
    pub invocation: usize,
}

/// The stages of one pipeline, each the invocations its clause produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// For each stage in order, the invocation indices it produced.
    pub stages: Vec<Vec<usize>>,
}

/// Every command a parsed command line will run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Every invocation, parents before children.
    pub invocations: Vec<Invocation>,
    /// False when any parse was incomplete or a limit was hit.
    pub complete: bool,
    /// Human-readable notes on what could not be followed.
    pub notes: Vec<String>,
    /// Nested shell code (the top-level command text is the caller's).
    pub sources: Vec<CodeSource>,
    /// Pipelines, including the implied ones of `$(…)` and `<(…)` feeding their command.
    pub pipelines: Vec<Pipeline>,
    /// Whether a parse (the command's or nested code's) runs something in the background
    /// (`(sleep 1; cat x) & git merge y`, `bash -c '(…) &'`, a coprocess): see
    /// [`ParseOutput::background`](shellgate_parser::ParseOutput::background).
    pub background: bool,
}

/// The walk's state.
struct Walker<'p> {
    policy: &'p Policy,
    ex: Expansion,
    max_depth: usize,
    /// How deep nested shell code is parsed at all: beyond `max_depth` it asks, and it is still
    /// matched against the deny rules as deep as the embedded default's depth.
    parse_depth: usize,
    /// Set by a finder's `-exec` for the one inner invocation it creates next.
    found_below: Option<Vec<Word>>,
    /// Shells reading their code from a pipe, with their depth: a literal text piped into
    /// one is judged as its code (`Walker::piped_code`).
    stdin_shells: Vec<piped_code::StdinShell>,
}

/// Parses `command` (in `cwd`, with home `home`) and expands it: the one walk from a command
/// line to every command it runs, taken by the gate and by a policy's load-time examples.
#[must_use]
pub fn walk(
    policy: &Policy,
    command: &str,
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
) -> (ParseOutput, Expansion) {
    let parsed = shellgate_parser::parse(
        command,
        &ParseOptions {
            cwd: cwd.clone(),
            home: home.clone(),
        },
    );
    let expansion = expand(
        policy,
        &parsed,
        &ExpandOptions {
            cwd,
            home,
            max_depth: None,
        },
    );
    (parsed, expansion)
}

/// Expands a parsed command into every invocation it runs (see the module docs).
#[must_use]
pub fn expand(policy: &Policy, parsed: &ParseOutput, opts: &ExpandOptions) -> Expansion {
    let mut walker = Walker {
        policy,
        ex: Expansion {
            invocations: Vec::new(),
            complete: parsed.complete,
            notes: Vec::new(),
            sources: Vec::new(),
            pipelines: Vec::new(),
            background: parsed.background,
        },
        found_below: None,
        stdin_shells: Vec::new(),
        max_depth: opts.max_depth.unwrap_or(policy.settings().max_shell_depth),
        parse_depth: 0,
    };
    walker.parse_depth = walker.max_depth.max(policy.settings().deny_shell_depth);
    if !parsed.complete {
        walker
            .ex
            .notes
            .push("the command did not parse completely".to_owned());
    }
    walker.graph(&parsed.graph, None, opts.home.as_deref(), 0, None);
    walker.ex
}

impl Walker<'_> {
    /// Adds every clause of one parse; `parent` is the shell invocation whose code it is.
    fn graph(
        &mut self,
        graph: &ClauseGraph,
        parent: Option<(usize, Via)>,
        home: Option<&Path>,
        depth: usize,
        clause_base: Option<usize>,
    ) {
        let mut ranges: Vec<Range<usize>> = Vec::with_capacity(graph.len());
        for (i, clause) in graph.clauses().enumerate() {
            let start = self.ex.invocations.len();
            let origin = match parent {
                Some((p, via)) => {
                    let mut origin = self
                        .ex
                        .invocations
                        .get(p)
                        .map(|inv| inv.origin.clone())
                        .unwrap_or_default();
                    origin.push(OriginStep {
                        invocation: p,
                        verb: self.verb_of(p),
                        via,
                    });
                    origin
                }
                None => Vec::new(),
            };
            // Shell code runs in its shell's environment: `PATH=./bin bash -c 'ls'` runs `ls`
            // with that PATH (a remote shell does not get it).
            let mut assignments: Vec<Assignment> = match parent {
                Some((p, via)) if via != Via::Remote && via != Via::Value => self
                    .ex
                    .invocations
                    .get(p)
                    .map(|inv| inv.assignments.clone())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            assignments.extend(clause.assignments.iter().cloned());
            let invocation = Invocation {
                words: clause.argv.clone(),
                assignments,
                redirects: clause.redirects.clone(),
                cwd: clause.cwd.clone(),
                home: home.map(Path::to_path_buf),
                context: clause.context,
                clause_index: clause_base.unwrap_or(i),
                parent: parent.map(|(p, _)| p),
                kind: if parent.is_some() {
                    InvocationKind::Inner
                } else {
                    InvocationKind::Plain
                },
                opaque: None,
                appended_args: false,
                found_below: None,
                found_by: None,
                text: clause_text(clause),
                shell_depth: depth,
                judged_wrapper: false,
                origin,
            };
            let index = self.push(invocation);
            self.unwrap(index, depth);
            ranges.push(start..self.ex.invocations.len());
        }
        self.pipelines(graph, &ranges);
    }

    /// Records the pipelines of one parse. A `Pipe` edge joins the first clauses of two
    /// pipeline elements; since clauses are in source order, an element is every clause from
    /// its first one up to the next element's first clause (the last element ends at the next
    /// clause any earlier clause has an edge to). Each `$(…)`/`<(…)` also feeds the clause
    /// that contains it.
    fn pipelines(&mut self, graph: &ClauseGraph, ranges: &[Range<usize>]) {
        let edges: Vec<(usize, usize, EdgeKind)> = graph.edges().collect();
        let members = |from: usize, to: usize| -> Vec<usize> {
            (from..to)
                .filter_map(|c| ranges.get(c))
                .flat_map(Clone::clone)
                .collect()
        };
        let pipe_from = |a: usize| {
            edges
                .iter()
                .find(|(s, _, k)| *s == a && *k == EdgeKind::Pipe)
                .map(|(_, t, _)| *t)
        };
        let piped_into: Vec<usize> = edges
            .iter()
            .filter(|(_, _, k)| *k == EdgeKind::Pipe)
            .map(|(_, t, _)| *t)
            .collect();
        for (first, _, _) in edges.iter().filter(|(_, _, k)| *k == EdgeKind::Pipe) {
            if piped_into.contains(first) {
                continue; // not the first element of its pipeline
            }
            let mut stages = Vec::new();
            // The clause each stage starts with.
            let mut starts = vec![*first];
            let mut current = *first;
            while let Some(next) = pipe_from(current) {
                stages.push(members(current, next));
                starts.push(next);
                current = next;
            }
            let end = edges
                .iter()
                .filter(|(s, t, _)| *s < current && *t > current)
                .map(|(_, t, _)| *t)
                .min()
                .unwrap_or(graph.len());
            stages.push(members(current, end));
            for (pair, start) in stages.windows(2).zip(starts.iter().skip(1)) {
                if let [before, after] = pair
                    && let Some(&finder) = before.first()
                {
                    self.feed_found_files(graph, *start, finder, after);
                    if let [producer] = before.as_slice() {
                        self.piped_code(*producer, after);
                    }
                }
            }
            self.ex.pipelines.push(Pipeline { stages });
        }
        for (container, inner, kind) in &edges {
            let substitution = graph.get(*inner).is_some_and(|c| {
                matches!(
                    c.context,
                    Context::Substitution | Context::ProcessSubstitution
                )
            });
            if *kind == EdgeKind::Contains && substitution {
                self.ex.pipelines.push(Pipeline {
                    stages: vec![
                        members(*inner, *inner + 1),
                        members(*container, *container + 1),
                    ],
                });
            }
        }
    }

    fn push(&mut self, invocation: Invocation) -> usize {
        self.ex.invocations.push(invocation);
        self.ex.invocations.len() - 1
    }

    /// The verb prefix the policy matched for invocation `index` (its first word's command
    /// name when nothing matched).
    fn verb_of(&self, index: usize) -> Vec<String> {
        let Some(inv) = self.ex.invocations.get(index) else {
            return Vec::new();
        };
        let policy = self.policy;
        let words = &inv.words;
        let matched = policy
            .shell(words)
            .map(|e| e.verb.clone())
            .or_else(|| policy.wrapper(words).map(|e| e.verb.clone()));
        matched.unwrap_or_else(|| {
            words
                .first()
                .and_then(|w| policy.command_name(w))
                .map(|(n, _)| vec![n.to_owned()])
                .unwrap_or_default()
        })
    }

    /// Marks invocation `index` as a wrapper given one of its `judged_flags`.
    fn mark_judged_wrapper(&mut self, index: usize) {
        if let Some(inv) = self.ex.invocations.get_mut(index) {
            inv.judged_wrapper = true;
        }
    }

    fn set_opaque(&mut self, index: usize, opaque: Opaque) {
        if let Some(inv) = self.ex.invocations.get_mut(index) {
            if inv.opaque.is_none() {
                inv.opaque = Some(opaque);
            } else {
                self.ex
                    .notes
                    .push(format!("`{}`: also {opaque:?}", inv.text));
            }
        }
    }

    fn mark_wrapper(&mut self, index: usize, privileged: bool) {
        if let Some(inv) = self.ex.invocations.get_mut(index) {
            inv.kind = InvocationKind::Wrapper { privileged };
        }
    }

    /// Finds what invocation `index` runs inside itself.
    fn unwrap(&mut self, index: usize, depth: usize) {
        let policy = self.policy;
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        if inv.origin.len() >= MAX_WRAPPERS
            || inv.words.len().saturating_mul(inv.origin.len() + 1) > MAX_UNWRAPPED_WORDS
        {
            self.ex.complete = false;
            self.ex
                .notes
                .push(format!("`{}`: too many nested wrappers", inv.text));
            self.set_opaque(index, Opaque::DepthLimit);
            return;
        }
        let words = &inv.words;
        // Literal brace expansions are expanded first: `{rm,-rf,/}` runs `rm -rf /`.
        if words.iter().any(|w| w.features.brace)
            && let Some(expanded) = brace_expanded(words)
        {
            let cwd = inv.cwd.clone();
            // The clause is judged through its expansion, like a wrapper through its command.
            self.mark_wrapper(index, false);
            self.inner(index, expanded, Vec::new(), cwd, Via::Braces, false, depth);
            return;
        }
        self.code_values(index, depth);
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = &inv.words;
        let Some((name, trusted)) = words.first().and_then(|w| policy.command_name(w)) else {
            return;
        };
        // An unknown name with capitals or a Windows suffix may be a program the policy knows
        // (`Bash.exe -c …`, `Make -f …`): judged as that program too, it stays the unknown
        // program it is (its own invocation asks), so folding only ever judges more.
        if !policy.knows_name(name)
            && let Some(folded) = folded_name(name).filter(|f| policy.knows_name(f))
        {
            let mut words = words.clone();
            if let Some(first) = words.first_mut() {
                // Shown as the program it may be (`RM -rf .` is also judged as `rm -rf .`).
                first.cooked = match first.cooked.rsplit_once('/') {
                    Some((dir, _)) => format!("{dir}/{folded}"),
                    None => folded,
                };
                first.raw.clone_from(&first.cooked);
            }
            let cwd = inv.cwd.clone();
            self.inner(index, words, Vec::new(), cwd, Via::FoldedName, false, depth);
            return;
        }
        let shell = policy.shell(words);
        let wrapper = policy.wrapper(words);
        if let Some(interpreter) = policy.interpreter(words)
            // A longer wrapper prefix wins (`bun x PKG` runs a package; `bun x.js` is code).
            && wrapper.is_none_or(|w| w.verb.len() <= interpreter.verb.len())
        {
            let opaque = interpreter_opaque(interpreter, words, &inv.redirects);
            // What a sed program writes, reads and runs is judged as clauses of its own.
            let program_code = program_code(interpreter, words);
            if let Some(opaque) = opaque {
                self.set_opaque(index, opaque);
            }
            if !program_code.is_empty() {
                self.judge_code(index, depth, program_code);
            }
            // An interpreter entry only adds a need: a command that is also a shell or a
            // wrapper (a layer's entry for `find` or `bash`) is still unwrapped, so the deny
            // rules see what it runs.
            if shell.is_none() && wrapper.is_none() {
                return;
            }
        }
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = &inv.words;
        if let Some(shell) = shell {
            let found = find_code(shell, words);
            if wrapper.is_none() || matches!(found, Found::Code(..) | Found::Joined(_)) {
                // A runner that is both (`bundle exec`, `yarn exec`: one string is shell code,
                // several words a command and its arguments) is judged both ways.
                let both = shell.join_args && wrapper.is_some();
                self.shell(index, shell, found, trusted, depth);
                if !both {
                    return;
                }
            }
        }
        if let Some(wrapper) = wrapper {
            self.wrapper(index, wrapper, trusted, depth);
        }
    }

    /// Creates an inner invocation of `parent` and unwraps it.
    #[expect(
        clippy::too_many_arguments,
        reason = "one constructor for every inner invocation"
    )]
    fn inner(
        &mut self,
        parent: usize,
        words: Vec<Word>,
        extra_assignments: Vec<Assignment>,
        cwd: Option<PathBuf>,
        via: Via,
        appended: bool,
        depth: usize,
    ) {
        let found = self.found_below.take();
        let verb = self.verb_of(parent);
        let Some(p) = self.ex.invocations.get(parent) else {
            return;
        };
        let mut origin = p.origin.clone();
        origin.push(OriginStep {
            invocation: parent,
            verb,
            via,
        });
        let mut assignments = p.assignments.clone();
        assignments.extend(extra_assignments);
        let text = words
            .iter()
            .map(|w| w.raw.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let invocation = Invocation {
            words,
            assignments,
            redirects: p.redirects.clone(),
            cwd,
            home: p.home.clone(),
            context: p.context,
            clause_index: p.clause_index,
            origin,
            parent: Some(parent),
            kind: InvocationKind::Inner,
            opaque: None,
            appended_args: appended || p.appended_args,
            // A finder's `-exec` command, or a wrapper inside one (`-exec timeout 9 cat {} ;`):
            // its appended arguments are found files. Anything that appends arguments of its
            // own (`xargs`) does not inherit it.
            found_below: found.or_else(|| (!appended).then(|| p.found_below.clone()).flatten()),
            found_by: (!appended).then_some(p.found_by).flatten(),
            text,
            shell_depth: depth,
            judged_wrapper: false,
        };
        let index = self.push(invocation);
        self.unwrap(index, depth);
    }

    fn dynamic(&mut self, index: usize, why: &str) {
        self.set_opaque(
            index,
            Opaque::DynamicCode {
                why: why.to_owned(),
            },
        );
    }
}
