//! THE traversal: from a parsed command to every command that will run.
//!
//! [`Policy::expand`] turns a [`ParseOutput`] into a flat list of [`Invocation`]s: one for each
//! clause of the graph, then, recursively, one for each command found inside a wrapper
//! (`sudo`, `env`, `timeout`, `xargs`, `find -exec`, `git -C`…), inside shell code parsed again
//! (`bash -c`, `eval`, `su -c`, `ssh host CMD`, a heredoc fed to a shell…), and each
//! interpreter call is marked opaque. Everything a policy judges comes out of this one walk.
//!
//! # The invocation contract (for the evaluator)
//!
//! * **Every** invocation is checked against the deny rules ([`Policy::deny`], or all at once
//!   with [`Policy::deny_expansion`], which also runs `raw` rules over the command and every
//!   nested code string, and `pipeline` rules over [`Expansion::pipelines`]).
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

use std::ops::Range;
use std::path::{Path, PathBuf};

use shellgate_parser::{
    Assignment, Clause, ClauseGraph, Context, EdgeKind, ParseOptions, ParseOutput, Redirect,
    RedirectOp, RedirectTarget, Word, WordFeatures,
};

use crate::flags::flag_is;
use crate::model::{
    DenyRule, ExecMode, Interpreter, PrefixMode, Shell, Wrapper, WrapperMode, WrapperOptions,
};
use crate::policy::{CommandView, Policy};
use shellgate_parser::path as paths;

/// The most wrappers unwrapped inside one another (`nice nice nice …`) before giving up.
const MAX_WRAPPERS: usize = 32;

/// Options for [`Policy::expand`].
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
    },
    /// A shell runs a script file.
    ScriptFile {
        /// The script operand (or the file redirected into the shell's standard input).
        path: String,
    },
    /// The code runs on another machine (`ssh host …`).
    Remote,
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
    /// A string split into words (`env -S`).
    Split,
    /// Literal brace expansion (`{rm,-rf,~/.ssh}` is `rm -rf ~/.ssh`).
    Braces,
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
    /// The command's text as written (raw words, assignments and redirections).
    pub text: String,
    /// How many shell re-parses deep it is (0: the command as given).
    pub shell_depth: usize,
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
}

/// A deny rule hit found by [`Policy::deny_expansion`].
#[derive(Clone, Copy, Debug)]
pub struct DenyHit<'p> {
    /// The rule.
    pub rule: &'p DenyRule,
    /// The invocation it hit (for `raw` rules over nested code, the shell whose code it was;
    /// `None` for the top-level text; for `pipeline` rules, the first invocation of the
    /// receiving stage).
    pub invocation: Option<usize>,
}

/// Where the code of a shell invocation is.
enum Found {
    /// Word `index` (or, with `Some(range)`, the value part of it) is the code.
    Code(usize, Option<Range<usize>>),
    /// Words from `index` on, joined by spaces, are the code.
    Joined(usize),
    /// Word `index` is a script file.
    Script(usize),
    /// Standard input is the code.
    Stdin,
    /// No code (an interactive shell, or a usage error).
    Nothing,
}

/// The walk's state.
struct Walker<'p> {
    policy: &'p Policy,
    ex: Expansion,
    max_depth: usize,
}

impl Policy {
    /// Expands a parsed command into every invocation it runs (see the module docs).
    #[must_use]
    pub fn expand(&self, parsed: &ParseOutput, opts: &ExpandOptions) -> Expansion {
        let mut walker = Walker {
            policy: self,
            ex: Expansion {
                invocations: Vec::new(),
                complete: parsed.complete,
                notes: Vec::new(),
                sources: Vec::new(),
                pipelines: Vec::new(),
            },
            max_depth: opts.max_depth.unwrap_or(self.settings.max_shell_depth),
        };
        if !parsed.complete {
            walker
                .ex
                .notes
                .push("the command did not parse completely".to_owned());
        }
        walker.graph(&parsed.graph, None, opts.home.as_deref(), 0, None);
        walker.ex
    }

    /// Every deny rule hit by an expansion: command rules on every invocation, `raw` rules on
    /// `command` (the top-level text) and on every nested code string, `pipeline` rules on
    /// every pipeline. Each rule is reported once per invocation, in invocation order.
    #[must_use]
    pub fn deny_expansion(&self, command: &str, ex: &Expansion) -> Vec<DenyHit<'_>> {
        let mut hits: Vec<DenyHit<'_>> = Vec::new();
        fn push<'p>(hits: &mut Vec<DenyHit<'p>>, rule: &'p DenyRule, invocation: Option<usize>) {
            let seen = hits
                .iter()
                .any(|h| std::ptr::eq(h.rule, rule) && h.invocation == invocation);
            if !seen {
                hits.push(DenyHit { rule, invocation });
            }
        }
        for rule in self.deny_raw(command) {
            push(&mut hits, rule, None);
        }
        for (i, inv) in ex.invocations.iter().enumerate() {
            for rule in self.deny(&inv.view()) {
                push(&mut hits, rule, Some(i));
            }
        }
        for source in &ex.sources {
            for rule in self.deny_raw(&source.text) {
                push(&mut hits, rule, Some(source.invocation));
            }
        }
        for pipeline in &ex.pipelines {
            let runs = |stage: usize, verb: &[String]| {
                pipeline.stages.get(stage).is_some_and(|members| {
                    members.iter().any(|i| {
                        ex.invocations
                            .get(*i)
                            .is_some_and(|inv| self.deny_prefix_end(&inv.words, verb).is_some())
                    })
                })
            };
            for rule in self.pipeline_hits(pipeline.stages.len(), &runs) {
                let Some((_, to)) = rule.pipeline() else {
                    continue;
                };
                let receiving = (1..pipeline.stages.len())
                    .find(|j| to.iter().any(|v| runs(*j, v)))
                    .and_then(|j| pipeline.stages.get(j))
                    .and_then(|members| members.first().copied());
                push(&mut hits, rule, receiving);
            }
        }
        hits
    }
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
                Some((p, via)) if via != Via::Remote => self
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
                text: clause_text(clause),
                shell_depth: depth,
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
            let mut current = *first;
            while let Some(next) = pipe_from(current) {
                stages.push(members(current, next));
                current = next;
            }
            let end = edges
                .iter()
                .filter(|(s, t, _)| *s < current && *t > current)
                .map(|(_, t, _)| *t)
                .min()
                .unwrap_or(graph.len());
            stages.push(members(current, end));
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
        if inv.origin.len() >= MAX_WRAPPERS {
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
        let Some((_, trusted)) = words.first().and_then(|w| policy.command_name(w)) else {
            return;
        };
        let shell = policy.shell(words);
        let wrapper = policy.wrapper(words);
        if let Some(interpreter) = policy.interpreter(words)
            // A longer wrapper prefix wins (`bun x PKG` runs a package; `bun x.js` is code).
            && wrapper.is_none_or(|w| w.verb.len() <= interpreter.verb.len())
        {
            if let Some(opaque) = interpreter_opaque(interpreter, words) {
                self.set_opaque(index, opaque);
            }
            return;
        }
        if let Some(shell) = shell {
            let found = find_code(shell, words);
            if wrapper.is_none() || matches!(found, Found::Code(..) | Found::Joined(_)) {
                self.shell(index, shell, found, trusted, depth);
                return;
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
            text,
            shell_depth: depth,
        };
        let index = self.push(invocation);
        self.unwrap(index, depth);
    }

    fn wrapper(&mut self, index: usize, wrapper: &Wrapper, trusted: bool, depth: usize) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = inv.words.clone();
        let cwd = inv.cwd.clone();
        let home = inv.home.clone();
        let start = wrapper.verb.len();
        match &wrapper.mode {
            WrapperMode::Prefix(prefix) => {
                let strict = !wrapper.privileged;
                let Some(found) = prefix_inner(prefix, strict, &words, start, cwd, home.as_deref())
                else {
                    return;
                };
                if trusted && found.transparent {
                    self.mark_wrapper(index, wrapper.privileged);
                }
                if let Some(option) = found.unknown {
                    self.set_opaque(
                        index,
                        Opaque::UnknownOption {
                            wrapper: wrapper.verb.join(" "),
                            option,
                        },
                    );
                }
                let inner_words = words
                    .get(found.start..)
                    .map(<[Word]>::to_vec)
                    .unwrap_or_default();
                self.inner(
                    index,
                    inner_words,
                    found.assignments,
                    found.cwd,
                    Via::Wrapper,
                    prefix.appends_args,
                    depth,
                );
            }
            WrapperMode::Strip(options) => {
                let Some((inner_words, inner_cwd, transparent)) =
                    strip_inner(options, &words, start, cwd, home.as_deref())
                else {
                    return;
                };
                if trusted && transparent {
                    self.mark_wrapper(index, wrapper.privileged);
                }
                self.inner(
                    index,
                    inner_words,
                    Vec::new(),
                    inner_cwd,
                    Via::Wrapper,
                    false,
                    depth,
                );
            }
            WrapperMode::ExecOption(exec) => {
                for range in exec_option_inners(exec, &words, start) {
                    // `-execdir`/`-okdir` style options run in each found file's directory.
                    let in_found_dir = range
                        .start
                        .checked_sub(1)
                        .and_then(|i| words.get(i))
                        .is_some_and(|option| option.cooked.ends_with("dir"));
                    let inner_words = words.get(range).map(<[Word]>::to_vec).unwrap_or_default();
                    if inner_words.is_empty() {
                        continue;
                    }
                    let inner_cwd = if in_found_dir { None } else { cwd.clone() };
                    self.inner(
                        index,
                        inner_words,
                        Vec::new(),
                        inner_cwd,
                        Via::ExecOption,
                        true,
                        depth,
                    );
                }
            }
        }
    }

    fn shell(&mut self, index: usize, shell: &Shell, found: Found, trusted: bool, depth: usize) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = inv.words.clone();
        let redirects = inv.redirects.clone();
        let cwd = inv.cwd.clone();
        let home = inv.home.clone();
        let text = inv.text.clone();
        if shell.remote {
            self.set_opaque(index, Opaque::Remote);
        }
        let (code, after) = match found {
            Found::Nothing => return,
            Found::Script(i) => {
                let path = words.get(i).map(|w| w.cooked.clone()).unwrap_or_default();
                self.set_opaque(index, Opaque::ScriptFile { path });
                return;
            }
            Found::Code(i, part) => {
                let Some(word) = words.get(i) else { return };
                if !word.literal {
                    self.dynamic(
                        index,
                        &format!("the code `{}` is not known statically", word.raw),
                    );
                    return;
                }
                let code = match part {
                    Some(range) => word.cooked.get(range).unwrap_or_default().to_owned(),
                    None => word.cooked.clone(),
                };
                (code, i + 1)
            }
            Found::Joined(i) => {
                let tail = words.get(i..).unwrap_or_default();
                if let Some(word) = tail.iter().find(|w| !w.literal) {
                    self.dynamic(
                        index,
                        &format!("the code word `{}` is not known statically", word.raw),
                    );
                    return;
                }
                let code = tail
                    .iter()
                    .map(|w| w.cooked.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                (code, words.len())
            }
            Found::Stdin => match stdin_code(&redirects) {
                StdinCode::Text(code) => (code, words.len()),
                StdinCode::File(path) => {
                    self.set_opaque(index, Opaque::ScriptFile { path });
                    return;
                }
                StdinCode::Dynamic(why) => {
                    self.dynamic(index, &why);
                    return;
                }
            },
        };
        if shell.split_only {
            let Some(split) = split_words(&code) else {
                self.dynamic(index, "the split string uses expansions");
                return;
            };
            if trusted {
                self.mark_wrapper(index, shell.privileged);
            }
            let span = words
                .get(after.saturating_sub(1))
                .map(|w| w.span)
                .unwrap_or_default();
            // The split words are arguments of the same command again (`env -S 'A=1 cmd'` is
            // `env A=1 cmd`: assignments, options and the command are read as env reads them).
            let mut inner: Vec<Word> = words.get(..shell.verb.len()).unwrap_or_default().to_vec();
            inner.extend(split.into_iter().map(|s| synthetic_word(s, span)));
            inner.extend(words.get(after..).unwrap_or_default().iter().cloned());
            self.inner(index, inner, Vec::new(), cwd, Via::Split, false, depth);
            return;
        }
        if depth + 1 > self.max_depth {
            self.ex.complete = false;
            self.ex.notes.push(format!(
                "`{text}`: shell code nested more than {} levels deep",
                self.max_depth
            ));
            self.set_opaque(index, Opaque::DepthLimit);
            return;
        }
        let (code_cwd, code_home) = if shell.remote {
            (None, None)
        } else {
            (cwd, home)
        };
        // `bash -c 'rm -rf "$1"' _ /`: the arguments after the code are `$0 $1 …`; when they are
        // literal they are bound before the code is judged, so `rm -rf "/"` meets the deny rules.
        let code = if !shell.code_flags.is_empty() && !shell.code_operand {
            let args = words.get(after..).unwrap_or_default();
            crate::positional::bind(&code, args).unwrap_or(code)
        } else {
            code
        };
        let options = ParseOptions {
            cwd: code_cwd,
            home: code_home.clone(),
        };
        let parsed = shellgate_parser::parse(&code, &options);
        // Words of the code that belong to no clause (`for`/`case` words) are judged here.
        if let Some(why) = crate::evaluates::unjudged_evaluation(&code, &parsed.graph) {
            self.dynamic(index, &why);
        }
        self.ex.sources.push(CodeSource {
            text: code,
            invocation: index,
        });
        if !parsed.complete {
            self.ex.complete = false;
            self.ex.notes.push(format!(
                "`{text}`: the nested shell code did not parse completely"
            ));
            self.set_opaque(index, Opaque::NestedIncomplete);
        }
        if trusted && !parsed.graph.is_empty() {
            self.mark_wrapper(index, shell.privileged);
        }
        let clause_index = self.ex.invocations.get(index).map_or(0, |i| i.clause_index);
        let via = if shell.remote {
            Via::Remote
        } else {
            Via::Shell
        };
        self.graph(
            &parsed.graph,
            Some((index, via)),
            code_home.as_deref(),
            depth + 1,
            Some(clause_index),
        );
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

/// The inner command of a prefix-mode wrapper.
struct PrefixInner {
    start: usize,
    assignments: Vec<Assignment>,
    cwd: Option<PathBuf>,
    /// False when a `judged_flags` option was given: the wrapper is judged by itself.
    transparent: bool,
    /// The first option the wrapper's entry does not list (non-privileged wrappers only).
    unknown: Option<String>,
}

/// Whether `token` is one of `flags` (long options also by unambiguous prefix).
fn listed(token: &str, flags: &[String]) -> bool {
    flags.iter().any(|f| flag_is(token, f))
}

/// Whether `token` is exactly one of `flags`.
fn exactly(token: &str, flags: &[String]) -> bool {
    flags.iter().any(|f| f == token)
}

/// A directory option's value resolved against `cwd` (`None` when it cannot be known).
fn moved(value: Option<&Word>, cwd: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let value = value?;
    if !value.literal {
        return None;
    }
    let resolved = paths::forms(&value.cooked, cwd, home).resolved;
    resolved.starts_with('/').then(|| PathBuf::from(resolved))
}

/// Options, assignments and positionals of a prefix-mode wrapper; `None` when it runs no
/// command (no words left, or a query flag such as `command -v`). With `strict`, the first
/// option the entry lists nowhere is reported.
fn prefix_inner(
    prefix: &PrefixMode,
    strict: bool,
    words: &[Word],
    start: usize,
    mut cwd: Option<PathBuf>,
    home: Option<&Path>,
) -> Option<PrefixInner> {
    let mut i = start;
    let mut transparent = true;
    let mut unknown: Option<String> = None;
    let options = &prefix.options;
    let known = |name: &str| {
        exactly(name, &options.value_flags)
            || exactly(name, &options.cwd_flags)
            || listed(name, &prefix.query_flags)
            || listed(name, &options.judged_flags)
            || listed(name, &prefix.flags)
            || (!name.starts_with("--")
                && [&prefix.query_flags, &options.judged_flags, &prefix.flags]
                    .iter()
                    .any(|list| exactly(name, list)))
    };
    // Options: up to the first non-option (wrappers stop option parsing there).
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        if !word.literal {
            break;
        }
        if exactly(text, &prefix.stop_at) {
            i += 1;
            break;
        }
        if !(text.len() > 1 && text.starts_with('-')) {
            break;
        }
        if let Some(long) = text.strip_prefix("--").map(|_| text) {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if listed(name, &prefix.query_flags) {
                return None;
            }
            if listed(name, &prefix.options.judged_flags) {
                transparent = false;
            }
            if strict && unknown.is_none() && !known(name) {
                unknown = Some(text.to_owned());
            }
            let takes = exactly(name, &prefix.options.value_flags)
                || exactly(name, &prefix.options.cwd_flags);
            if takes && inline.is_none() {
                i += 1;
            }
            if exactly(name, &prefix.options.cwd_flags) {
                cwd = match inline {
                    Some(v) => moved(
                        Some(&synthetic_word(v.to_owned(), word.span)),
                        cwd.as_deref(),
                        home,
                    ),
                    None => moved(words.get(i), cwd.as_deref(), home),
                };
            }
            i += 1;
            continue;
        }
        if exactly(text, &prefix.query_flags) {
            return None;
        }
        if exactly(text, &prefix.options.judged_flags) {
            transparent = false;
        }
        if exactly(text, &prefix.options.value_flags) || exactly(text, &prefix.options.cwd_flags) {
            if exactly(text, &prefix.options.cwd_flags) {
                cwd = moved(words.get(i + 1), cwd.as_deref(), home);
            }
            i += 2;
            continue;
        }
        let body = text.get(1..).unwrap_or_default();
        for (pos, c) in body.char_indices() {
            let name = format!("-{c}");
            if exactly(&name, &prefix.query_flags) {
                return None;
            }
            if exactly(&name, &prefix.options.judged_flags) {
                transparent = false;
            }
            if strict && unknown.is_none() && !known(&name) {
                unknown = Some(text.to_owned());
            }
            let is_cwd = exactly(&name, &prefix.options.cwd_flags);
            if is_cwd || exactly(&name, &prefix.options.value_flags) {
                let rest = body.get(pos + c.len_utf8()..).unwrap_or_default();
                if rest.is_empty() {
                    if is_cwd {
                        cwd = moved(words.get(i + 1), cwd.as_deref(), home);
                    }
                    i += 1;
                } else if is_cwd {
                    cwd = moved(
                        Some(&synthetic_word(rest.to_owned(), word.span)),
                        cwd.as_deref(),
                        home,
                    );
                }
                break;
            }
        }
        i += 1;
    }
    let mut assignments = Vec::new();
    if prefix.assignments {
        while let Some(word) = words.get(i) {
            let Some((name, value)) = word.cooked.split_once('=') else {
                break;
            };
            if !is_name(name) || word.raw.starts_with(['"', '\'']) {
                break;
            }
            assignments.push(Assignment {
                name: name.to_owned(),
                index: None,
                append: false,
                value: Some(Word {
                    raw: value.to_owned(),
                    cooked: value.to_owned(),
                    literal: word.literal,
                    features: word.features,
                    span: word.span,
                }),
                array: None,
                span: word.span,
            });
            i += 1;
        }
    }
    let mut skip = prefix.positionals;
    while skip > 0 && words.get(i).is_some() {
        skip -= 1;
        i += 1;
    }
    (i < words.len()).then_some(PrefixInner {
        start: i,
        assignments,
        cwd,
        transparent,
        unknown,
    })
}

/// `git -C DIR log` → (`git log`, DIR, transparent); `None` when none of the value flags is
/// present. Stripping a `judged_flags` option makes the wrapper non-transparent.
fn strip_inner(
    options: &WrapperOptions,
    words: &[Word],
    start: usize,
    mut cwd: Option<PathBuf>,
    home: Option<&Path>,
) -> Option<(Vec<Word>, Option<PathBuf>, bool)> {
    let mut kept: Vec<Word> = words.get(..start)?.to_vec();
    let mut stripped = false;
    let mut transparent = true;
    let mut i = start;
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        let option = word.literal && text.len() > 1 && text.starts_with('-');
        if !option || text == "--" {
            break;
        }
        let (name, inline): (&str, Option<String>) = if text.starts_with("--") {
            match text.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (text, None),
            }
        } else if text.chars().count() > 2
            && options
                .value_flags
                .iter()
                .any(|f| f.len() == 2 && text.starts_with(f.as_str()))
        {
            let name = text.get(..2).unwrap_or_default();
            (name, text.get(2..).map(str::to_owned))
        } else {
            (text, None)
        };
        if exactly(name, &options.value_flags) {
            stripped = true;
            if exactly(name, &options.judged_flags) {
                transparent = false;
            }
            let value = match inline {
                Some(v) => Some(synthetic_word(v, word.span)),
                None => {
                    i += 1;
                    words.get(i).cloned()
                }
            };
            if exactly(name, &options.cwd_flags) {
                cwd = moved(value.as_ref(), cwd.as_deref(), home);
            }
        } else {
            kept.push(word.clone());
        }
        i += 1;
    }
    if !stripped {
        return None;
    }
    kept.extend(words.get(i..).unwrap_or_default().iter().cloned());
    Some((kept, cwd, transparent))
}

/// The word ranges of every `-exec … ;` style inner command.
fn exec_option_inners(exec: &ExecMode, words: &[Word], start: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = start;
    while let Some(word) = words.get(i) {
        if word.literal && exactly(&word.cooked, &exec.exec_options) {
            let begin = i + 1;
            let mut end = begin;
            while let Some(w) = words.get(end) {
                let terminator = w.literal
                    && exactly(&w.cooked, &exec.terminators)
                    && (w.cooked != "+"
                        || end > begin && words.get(end - 1).is_some_and(|p| p.cooked == "{}"));
                if terminator {
                    break;
                }
                end += 1;
            }
            out.push(begin..end);
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Where a shell's code is.
fn find_code(shell: &Shell, words: &[Word]) -> Found {
    let mut i = shell.verb.len();
    let mut options_done = false;
    let mut code_flag = false;
    let mut skipped = 0;
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        let option = !options_done && word.literal && text.len() > 1 && text.starts_with('-');
        if !options_done && word.literal && text == "--" {
            options_done = true;
        } else if option && text.starts_with("--") {
            let (name, inline) = match text.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (text, None),
            };
            if exactly(name, &shell.code_flags) {
                if let Some(v) = inline {
                    let from = text.len() - v.len();
                    return Found::Code(i, Some(from..text.len()));
                }
                code_flag = true;
            } else if inline.is_none() && exactly(name, &shell.value_flags) {
                i += 1;
            }
        } else if option && exactly(text, &shell.value_flags) {
            i += 1;
        } else if option {
            let body = text.get(1..).unwrap_or_default();
            for (pos, c) in body.char_indices() {
                let name = format!("-{c}");
                let rest_at = 1 + pos + c.len_utf8();
                if exactly(&name, &shell.code_flags) {
                    if shell.split_only && rest_at < text.len() {
                        return Found::Code(i, Some(rest_at..text.len()));
                    }
                    code_flag = true;
                } else if exactly(&name, &shell.value_flags) {
                    if rest_at >= text.len() {
                        i += 1;
                    }
                    break;
                }
            }
        } else if code_flag || shell.code_operand {
            return Found::Code(i, None);
        } else if skipped < shell.skip_positionals {
            skipped += 1;
        } else if shell.join_args {
            return Found::Joined(i);
        } else if shell.script_operand {
            return Found::Script(i);
        }
        i += 1;
    }
    if !code_flag && shell.stdin {
        Found::Stdin
    } else {
        Found::Nothing
    }
}

/// What a shell reading standard input reads.
enum StdinCode {
    Text(String),
    File(String),
    Dynamic(String),
}

fn stdin_code(redirects: &[Redirect]) -> StdinCode {
    // The last redirection of descriptor 0 decides; `3<<EOF` feeds another descriptor.
    for redirect in redirects.iter().rev() {
        let on_stdin = matches!(
            redirect.fd,
            None | Some(shellgate_parser::RedirectFd::Number(0))
        );
        let input = matches!(
            redirect.op,
            RedirectOp::Read
                | RedirectOp::ReadWrite
                | RedirectOp::DupIn
                | RedirectOp::HereString
                | RedirectOp::Heredoc
                | RedirectOp::HeredocStrip
        );
        if !(on_stdin && input) {
            continue;
        }
        if let RedirectTarget::Heredoc(heredoc) = &redirect.target
            && !heredoc.quoted
        {
            return match heredoc_code(&heredoc.body) {
                Ok(code) => StdinCode::Text(code),
                Err(why) => StdinCode::Dynamic(why),
            };
        }
        if let RedirectTarget::Word(word) = &redirect.target
            && redirect.stdin_text().is_some()
            && !word.literal
        {
            return StdinCode::Dynamic(format!(
                "the here-string `{}` is not known statically",
                word.raw
            ));
        }
        if let Some(text) = redirect.stdin_text() {
            return StdinCode::Text(text.to_owned());
        }
        if let Some(target) = redirect.read_target() {
            return StdinCode::File(target.cooked.clone());
        }
        // `<&3`, `<&-`: standard input comes from elsewhere.
        return StdinCode::Dynamic(
            "its standard input is taken from another descriptor".to_owned(),
        );
    }
    StdinCode::Dynamic("it reads code from standard input".to_owned())
}

/// The code a shell reads from an unquoted heredoc: bash expands the body before the shell
/// sees it, so `\$`, `` \` `` and `\\` lose their backslash and `\`-newline joins lines
/// (`bash <<EOF` + ``echo \`id\` `` runs `id`). An expansion left in the body (`$x`, `$(…)`,
/// a backquote) puts data into the code: the code is then not known statically.
fn heredoc_code(body: &str) -> Result<String, String> {
    let mut code = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&next @ ('$' | '`' | '\\')) => {
                    code.push(next);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                _ => code.push(c),
            },
            '$' if chars.peek().is_some_and(|n| {
                n.is_ascii_alphanumeric()
                    || matches!(
                        n,
                        '_' | '{' | '(' | '[' | '@' | '*' | '#' | '?' | '-' | '$' | '!'
                    )
            }) =>
            {
                return Err(
                    "the heredoc is expanded before the shell reads it, and an expansion in it puts data into the code"
                        .to_owned(),
                );
            }
            '`' => {
                return Err(
                    "the heredoc is expanded before the shell reads it, and a substitution in it puts its output into the code"
                        .to_owned(),
                );
            }
            other => code.push(other),
        }
    }
    Ok(code)
}

/// Whether an interpreter call runs code shellgate cannot read.
fn interpreter_opaque(interpreter: &Interpreter, words: &[Word]) -> Option<Opaque> {
    let start = interpreter.verb.len();
    let opaque = || Opaque::Interpreter {
        why: interpreter.why.clone(),
        script: None,
        flag: None,
    };
    let takes = |name: &str| {
        exactly(name, &interpreter.code_flags)
            || exactly(name, &interpreter.script_flags)
            || exactly(name, &interpreter.value_flags)
    };
    let scan = crate::flags::scan(words, start, &takes);
    // A query flag (`--version`) counts only among the options before any code, script or
    // program: `python3 -c CODE --version` runs CODE.
    let cutoff = scan.operands.first().copied().unwrap_or(usize::MAX);
    for flag in scan.flags.iter().take_while(|f| f.index < cutoff) {
        if exactly(&flag.name, &interpreter.code_flags)
            || exactly(&flag.name, &interpreter.script_flags)
        {
            break;
        }
        if listed(&flag.name, &interpreter.query_flags) {
            return None;
        }
    }
    if scan
        .flags
        .iter()
        .any(|f| exactly(&f.name, &interpreter.script_flags))
    {
        return Some(opaque());
    }
    let code_flag = scan
        .flags
        .iter()
        .find(|f| exactly(&f.name, &interpreter.code_flags))
        .map(|f| f.name.clone());
    let code_given = code_flag.is_some();
    if !interpreter.program_operand {
        if let Some(flag) = code_flag {
            return Some(Opaque::Interpreter {
                why: interpreter.why.clone(),
                script: None,
                flag: Some(flag),
            });
        }
        if let Some(first) = scan.operands.first() {
            let script = words
                .get(*first)
                .filter(|w| w.literal)
                .map(|w| w.cooked.clone());
            return interpreter.script_operand.then(|| Opaque::Interpreter {
                why: interpreter.why.clone(),
                script,
                flag: None,
            });
        }
        return interpreter.stdin.then(opaque);
    }
    // awk / sed: programs are checked against `unsafe_program`.
    let mut programs: Vec<(&str, bool)> = scan
        .values
        .iter()
        .filter(|v| exactly(&v.flag, &interpreter.code_flags))
        .map(|v| {
            (
                v.text.as_str(),
                words.get(v.index).is_some_and(|w| w.literal),
            )
        })
        .collect();
    if programs.is_empty() && !code_given {
        match scan.operands.first().and_then(|i| words.get(*i)) {
            Some(word) => programs.push((word.cooked.as_str(), word.literal)),
            None => return interpreter.stdin.then(opaque),
        }
    }
    let unsafe_program = programs.iter().any(|(text, literal)| {
        !literal
            || interpreter
                .unsafe_set
                .as_ref()
                .is_some_and(|set| set.is_match(text))
    });
    (unsafe_program || programs.is_empty()).then(opaque)
}

/// Whether `name` is a shell variable name.
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// A literal word made by shellgate (from `env -S` splitting or an inline option value).
fn synthetic_word(text: String, span: shellgate_parser::Span) -> Word {
    Word {
        raw: text.clone(),
        cooked: text,
        literal: true,
        features: WordFeatures::default(),
        span,
    }
}

/// The words with every literal brace expansion expanded (`None` when one cannot be expanded
/// statically, or a word has other expansions too).
fn brace_expanded(words: &[Word]) -> Option<Vec<Word>> {
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        if !word.features.brace {
            out.push(word.clone());
            continue;
        }
        let f = &word.features;
        if f.parameter || f.command_substitution || f.process_substitution || f.arithmetic {
            return None;
        }
        for text in crate::braces::expand(&word.raw)? {
            let tilde = text.starts_with('~');
            let glob = text.contains(['*', '?', '[']);
            out.push(Word {
                raw: text.clone(),
                cooked: text,
                literal: !glob,
                features: WordFeatures {
                    tilde,
                    glob,
                    ..WordFeatures::default()
                },
                span: word.span,
            });
        }
    }
    Some(out)
}

/// Splits an `env -S` string into words (quotes and backslashes as env does); `None` when it
/// uses `$` expansions, which env would perform.
fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    current.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '$' => return None,
                        '\\' => current.extend(chars.next()),
                        other => current.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                current.extend(chars.next());
            }
            '$' | '`' => return None,
            '#' if !in_word => break,
            other => {
                in_word = true;
                current.push(other);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

/// The clause's text rebuilt from its raw parts: assignments, words and redirections.
fn clause_text(clause: &Clause) -> String {
    let mut parts: Vec<String> = Vec::new();
    for a in &clause.assignments {
        let op = if a.append { "+=" } else { "=" };
        let index = a
            .index
            .as_deref()
            .map(|i| format!("[{i}]"))
            .unwrap_or_default();
        let value = match (&a.value, &a.array) {
            (Some(v), _) => v.raw.clone(),
            (None, Some(items)) => format!(
                "({})",
                items
                    .iter()
                    .map(|w| w.raw.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            (None, None) => String::new(),
        };
        parts.push(format!("{}{index}{op}{value}", a.name));
    }
    parts.extend(clause.argv.iter().map(|w| w.raw.clone()));
    for r in &clause.redirects {
        let fd = match &r.fd {
            Some(shellgate_parser::RedirectFd::Number(n)) => n.to_string(),
            Some(shellgate_parser::RedirectFd::Variable(v)) => format!("{{{v}}}"),
            None => String::new(),
        };
        let target = match &r.target {
            RedirectTarget::Word(w) => w.raw.clone(),
            RedirectTarget::Heredoc(h) => h.delimiter.clone(),
        };
        parts.push(format!("{fd}{}{target}", r.op.as_str()));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_split_string() {
        assert_eq!(
            split_words("rm -rf '/tmp/a b' \"x\\\"y\" # c"),
            Some(vec![
                "rm".into(),
                "-rf".into(),
                "/tmp/a b".into(),
                "x\"y".into()
            ])
        );
        assert_eq!(split_words("echo $HOME"), None);
        assert_eq!(
            split_words("echo '$HOME'"),
            Some(vec!["echo".into(), "$HOME".into()])
        );
    }

    #[test]
    fn unquoted_heredoc_code_is_expanded_first() {
        assert_eq!(
            heredoc_code("echo \\`id\\`\n"),
            Ok("echo `id`\n".to_owned())
        );
        assert_eq!(heredoc_code("echo \\$((x))"), Ok("echo $((x))".to_owned()));
        assert_eq!(
            heredoc_code("to\\\nuch x \\\\ y"),
            Ok("touch x \\ y".to_owned())
        );
        assert_eq!(
            heredoc_code("echo \\a $ 5$"),
            Ok("echo \\a $ 5$".to_owned())
        );
        assert!(heredoc_code("echo $HOME").is_err());
        assert!(heredoc_code("$(cat x)").is_err());
        assert!(heredoc_code("echo `id`").is_err());
        assert!(heredoc_code("echo ${x}").is_err());
    }

    #[test]
    fn names() {
        assert!(is_name("LD_PRELOAD"));
        assert!(is_name("_x1"));
        assert!(!is_name("1x"));
        assert!(!is_name(""));
        assert!(!is_name("a-b"));
    }
}
