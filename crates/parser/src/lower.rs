//! Typed tree → clauses: contexts, operators, parents, working directories and edges.
//!
//! Rules, in short:
//! * every simple command, `[[ … ]]` and `(( … ))` (also the header of `for (( … ))`) is a
//!   clause; compound commands contribute the clauses of their lists;
//! * a clause's context is the innermost construct around it; `if` bodies inherit the context
//!   around the `if`;
//! * `operator` is the operator before the list element whose first clause this is;
//!   `Sequence`/`And`/`Or`/`Pipe`/`Background` edges join the first clauses of consecutive
//!   elements; a `Contains` edge joins a clause to each clause of the substitutions in its
//!   words, redirections and heredoc bodies (those clauses have it as `parent`);
//! * redirections written after a compound command are copied onto the clauses it runs
//!   directly (not onto clauses inside substitutions), so every write is seen;
//! * the working directory follows `cwd.rs`; subshells, pipeline stages, background jobs,
//!   substitutions and coprocesses do not leak theirs; a loop or branch that changes it makes
//!   it unknown; function bodies run at call time, so their directory is unknown.

use std::path::{Path, PathBuf};

use crate::ast::{
    ARedirect, ATarget, AWord, AndOr, AndOrOp, Command, Compound, HeredocSlot, List, PipeOp,
    Pipeline, Sep, SimpleCommand, Sub, SubKind,
};
use crate::clause::{Clause, Context, Heredoc, Operator, Redirect, RedirectTarget, Span, Word};
use crate::cwd;
use crate::graph::EdgeKind;
use crate::loops;
use crate::verb::verb_hint;

type Cwd = Option<PathBuf>;

/// Clauses in emission order plus edges between their emission indices.
pub(crate) struct Lowered {
    pub clauses: Vec<Clause>,
    pub edges: Vec<(usize, usize, EdgeKind)>,
    /// True when the clause limit stopped the lowering.
    pub truncated: bool,
    /// True when a list element runs in the background (`&`) or a coprocess starts.
    pub background: bool,
}

/// Lowers a whole script.
pub(crate) fn lower(
    list: List,
    heredocs: Vec<HeredocSlot>,
    cwd: Option<PathBuf>,
    home: Option<&Path>,
    max_clauses: usize,
    unroll: bool,
) -> Lowered {
    let mut lowerer = Lowerer {
        heredocs,
        home,
        unroll,
        clauses: Vec::new(),
        edges: Vec::new(),
        max_clauses,
        truncated: false,
        background: false,
    };
    let mut state = cwd;
    let frame = Frame {
        ctx: Context::Top,
        depth: 0,
        parent: None,
    };
    lowerer.lower_list(list, frame, &mut state);
    Lowered {
        clauses: lowerer.clauses,
        edges: lowerer.edges,
        truncated: lowerer.truncated,
        background: lowerer.background,
    }
}

#[derive(Clone, Copy)]
struct Frame {
    ctx: Context,
    depth: usize,
    parent: Option<usize>,
}

impl Frame {
    fn with_ctx(self, ctx: Context) -> Self {
        Self { ctx, ..self }
    }

    fn nested(self, ctx: Context) -> Self {
        Self {
            ctx,
            depth: self.depth.saturating_add(1),
            parent: self.parent,
        }
    }
}

struct Lowerer<'a> {
    heredocs: Vec<HeredocSlot>,
    /// Loops over literal words are unrolled (see `loops::may_unroll`).
    unroll: bool,
    home: Option<&'a Path>,
    clauses: Vec<Clause>,
    edges: Vec<(usize, usize, EdgeKind)>,
    max_clauses: usize,
    truncated: bool,
    background: bool,
}

impl From<AndOrOp> for Operator {
    fn from(op: AndOrOp) -> Self {
        match op {
            AndOrOp::And => Self::And,
            AndOrOp::Or => Self::Or,
        }
    }
}

impl From<PipeOp> for Operator {
    fn from(op: PipeOp) -> Self {
        match op {
            PipeOp::Pipe => Self::Pipe,
            PipeOp::PipeBoth => Self::PipeBoth,
        }
    }
}

/// The kind of the edge an operator draws between two clauses.
const fn edge_kind(op: Operator) -> EdgeKind {
    match op {
        Operator::Sequence => EdgeKind::Sequence,
        Operator::Background => EdgeKind::Background,
        Operator::And => EdgeKind::And,
        Operator::Or => EdgeKind::Or,
        Operator::Pipe | Operator::PipeBoth => EdgeKind::Pipe,
    }
}

impl Lowerer<'_> {
    /// Joins `next`, when a clause came of it, after `prev` with `op`: it becomes `prev`, and
    /// `first` when there was none.
    fn append(
        &mut self,
        first: &mut Option<usize>,
        prev: &mut Option<usize>,
        next: Option<usize>,
        op: Operator,
    ) {
        if next.is_some() {
            self.join(*prev, next, op);
            *first = first.or(next);
            *prev = next;
        }
    }

    fn push_clause(&mut self, clause: Clause) -> Option<usize> {
        if self.clauses.len() >= self.max_clauses {
            self.truncated = true;
            return None;
        }
        let index = self.clauses.len();
        if let Some(parent) = clause.parent {
            self.edges.push((parent, index, EdgeKind::Contains));
        }
        self.clauses.push(clause);
        Some(index)
    }

    fn join(&mut self, prev: Option<usize>, next: Option<usize>, op: Operator) {
        if let Some(next) = next {
            if let Some(clause) = self.clauses.get_mut(next)
                && clause.operator.is_none()
            {
                clause.operator = Some(op);
            }
            if let Some(prev) = prev {
                self.edges.push((prev, next, edge_kind(op)));
            }
        }
    }

    // ----- lists --------------------------------------------------------------------------

    fn lower_list(&mut self, list: List, frame: Frame, cwd: &mut Cwd) -> Option<usize> {
        let mut first = None;
        let mut prev: Option<usize> = None;
        let mut prev_sep = Sep::None;
        let count = list.items.len();
        for (n, item) in list.items.into_iter().enumerate() {
            let head = if item.sep == Sep::Background {
                self.background = true;
                let mut job_cwd = cwd.clone();
                self.lower_and_or(
                    item.and_or,
                    frame.with_ctx(Context::Background),
                    &mut job_cwd,
                )
            } else {
                let before = cwd.clone();
                // (`cd DIR || exit 1`: what follows runs only after a successful `cd`.)
                let guarded =
                    item.and_or.rest.last().is_some_and(|(op, pipeline)| {
                        *op == AndOrOp::Or && pipeline_exits(pipeline)
                    });
                let head = self.lower_and_or(item.and_or, frame, cwd);
                // `cd DIR; X` runs X in DIR only when `cd` succeeded, and in the old directory
                // when it failed (a missing DIR): after `;` or a newline the directory is not
                // known (`&&` keeps it: X runs only after a successful `cd`).
                if n + 1 < count && *cwd != before && !guarded {
                    *cwd = None;
                }
                head
            };
            if head.is_some() {
                if prev.is_some() {
                    let op = if prev_sep == Sep::Background {
                        Operator::Background
                    } else {
                        Operator::Sequence
                    };
                    self.join(prev, head, op);
                }
                first = first.or(head);
                prev = head;
                prev_sep = item.sep;
            }
        }
        first
    }

    fn lower_and_or(&mut self, and_or: AndOr, frame: Frame, cwd: &mut Cwd) -> Option<usize> {
        let mut before = if and_or.rest.is_empty() {
            None
        } else {
            cwd.clone()
        };
        let head = self.lower_pipeline(and_or.first, frame, cwd);
        let mut prev = head;
        let mut first = head;
        for (op, pipeline) in and_or.rest {
            let changed = before != *cwd;
            let next = if op == AndOrOp::Or && changed {
                // Runs only when the directory change failed, so in the old directory. What
                // follows is in the new directory only if this branch cannot continue.
                let exits = pipeline_exits(&pipeline);
                let mut failed_cwd = before.clone();
                let next = self.lower_pipeline(pipeline, frame, &mut failed_cwd);
                if !exits {
                    *cwd = None;
                }
                before.clone_from(cwd);
                next
            } else {
                before.clone_from(cwd);
                self.lower_pipeline(pipeline, frame, cwd)
            };
            self.append(&mut first, &mut prev, next, op.into());
        }
        first
    }

    fn lower_pipeline(&mut self, pipeline: Pipeline, frame: Frame, cwd: &mut Cwd) -> Option<usize> {
        if pipeline.rest.is_empty() {
            return self.lower_command(pipeline.first, frame, cwd);
        }
        let stage = frame.with_ctx(Context::Pipeline);
        let mut stage_cwd = cwd.clone();
        let head = self.lower_command(pipeline.first, stage, &mut stage_cwd);
        let mut prev = head;
        let mut first = head;
        let mut last_cwd = None;
        for (op, command) in pipeline.rest {
            let mut stage_cwd = cwd.clone();
            let next = self.lower_command(command, stage, &mut stage_cwd);
            self.append(&mut first, &mut prev, next, op.into());
            last_cwd = Some(stage_cwd);
        }
        // With `shopt -s lastpipe` the last stage runs in this shell: a directory change
        // there (`true | cd ~`) may be this shell's.
        if last_cwd.is_some_and(|last| last != *cwd) {
            *cwd = None;
        }
        first
    }

    fn lower_command(&mut self, command: Command, frame: Frame, cwd: &mut Cwd) -> Option<usize> {
        match command {
            Command::Simple(simple) => self.lower_simple(simple, frame, cwd),
            Command::Compound(compound, redirects, span) => {
                self.lower_compound(*compound, redirects, span, frame, None, cwd)
            }
            Command::Function(function) => {
                // The body runs when the function is called: directory unknown. A body that
                // changes the directory may run at any later call, under any name (`ls() { cd
                // ~; }; ls; touch .bashrc`): from here on the directory is not known.
                if compound_changes_cwd(&function.body) {
                    *cwd = None;
                }
                let mut body_cwd = None;
                let span = function.span;
                self.lower_compound(
                    *function.body,
                    function.redirects,
                    span,
                    frame.with_ctx(Context::FunctionBody),
                    Some(Context::FunctionBody),
                    &mut body_cwd,
                )
            }
            Command::Coproc(coproc) => {
                self.background = true;
                let mut job_cwd = cwd.clone();
                self.lower_command(
                    *coproc.body,
                    frame.with_ctx(Context::Background),
                    &mut job_cwd,
                )
            }
        }
    }

    // ----- compound commands --------------------------------------------------------------

    fn lower_compound(
        &mut self,
        compound: Compound,
        redirects: Vec<ARedirect>,
        span: Span,
        frame: Frame,
        body_ctx: Option<Context>,
        cwd: &mut Cwd,
    ) -> Option<usize> {
        let start = self.clauses.len();
        let head = match compound {
            Compound::Subshell(list) => {
                let mut inner_cwd = cwd.clone();
                let ctx = body_ctx.unwrap_or(Context::Subshell);
                self.lower_list(list, frame.nested(ctx), &mut inner_cwd)
            }
            Compound::Group(list) => {
                let ctx = body_ctx.unwrap_or(Context::Group);
                self.lower_list(list, frame.nested(ctx), cwd)
            }
            Compound::If {
                branches,
                otherwise,
            } => {
                let mut head = None;
                let mut state = cwd.clone();
                let mut changed = false;
                for (index, (condition, body)) in branches.into_iter().enumerate() {
                    let before = state.clone();
                    let h =
                        self.lower_list(condition, frame.nested(Context::Condition), &mut state);
                    if index > 0 && before != state {
                        changed = true;
                    }
                    head = head.or(h);
                    let mut body_cwd = state.clone();
                    let h = self.lower_list(body, frame.nested(frame.ctx), &mut body_cwd);
                    head = head.or(h);
                    changed |= body_cwd != state;
                }
                if let Some(list) = otherwise {
                    let mut body_cwd = state.clone();
                    let h = self.lower_list(list, frame.nested(frame.ctx), &mut body_cwd);
                    head = head.or(h);
                    changed |= body_cwd != state;
                }
                *cwd = if changed { None } else { state };
                head
            }
            Compound::While {
                condition, body, ..
            } => {
                let loops = list_changes_cwd(&condition) || list_changes_cwd(&body.list);
                let mut state = if loops { None } else { cwd.clone() };
                let h1 = self.lower_list(condition, frame.nested(Context::Condition), &mut state);
                let h2 = self.lower_list(body.list, frame.nested(Context::LoopBody), &mut state);
                if loops {
                    *cwd = None;
                }
                h1.or(h2)
            }
            Compound::For {
                select: false,
                name,
                words: Some(words),
                body,
            } if self.unroll
                && loops::bindable_name(&name)
                && loops::binds_safely(&body.list, &name)
                && let Some(values) = loops::literal_values(&words) =>
            {
                // The body once per value, with `$name` bound to it (see `loops`).
                let changes = list_changes_cwd(&body.list);
                let mut state = if changes { None } else { cwd.clone() };
                let mut head = None;
                for value in &values {
                    let mut copy = body.list.clone();
                    loops::substitute(&mut copy, &name, value);
                    let h = self.lower_list(copy, frame.nested(Context::LoopBody), &mut state);
                    head = head.or(h);
                }
                if changes {
                    *cwd = None;
                }
                head
            }
            Compound::For { words, body, .. } => {
                let mut head = None;
                for word in words.into_iter().flatten() {
                    let h = self.lower_subs(word.subs, frame.parent, frame, cwd);
                    head = head.or(h);
                }
                let loops = list_changes_cwd(&body.list);
                let mut state = if loops { None } else { cwd.clone() };
                let h = self.lower_list(body.list, frame.nested(Context::LoopBody), &mut state);
                if loops {
                    *cwd = None;
                }
                head.or(h)
            }
            Compound::ArithFor { expr, body } => {
                let loops = list_changes_cwd(&body.list);
                let mut state = if loops { None } else { cwd.clone() };
                let expr_span = expr.word.span;
                let h1 = self.lower_special(
                    vec![expr],
                    "((",
                    expr_span,
                    frame.with_ctx(Context::Arithmetic),
                    &mut state,
                );
                let h2 = self.lower_list(body.list, frame.nested(Context::LoopBody), &mut state);
                if loops {
                    *cwd = None;
                }
                h1.or(h2)
            }
            Compound::Case { word, arms } => {
                let mut head = self.lower_subs(word.subs, frame.parent, frame, cwd);
                let mut changed = false;
                for arm in arms {
                    for pattern in arm.patterns {
                        let h = self.lower_subs(pattern.subs, frame.parent, frame, cwd);
                        head = head.or(h);
                    }
                    if let Some(body) = arm.body {
                        let mut arm_cwd = cwd.clone();
                        let h = self.lower_list(body, frame.nested(Context::CaseArm), &mut arm_cwd);
                        head = head.or(h);
                        changed |= arm_cwd != *cwd;
                    }
                }
                if changed {
                    *cwd = None;
                }
                head
            }
            Compound::Cond { items, span } => self.lower_special(items, "[[", span, frame, cwd),
            Compound::Arith { expr, span } => self.lower_special(
                vec![expr],
                "((",
                span,
                frame.with_ctx(Context::Arithmetic),
                cwd,
            ),
        };
        if redirects.is_empty() {
            return head;
        }
        self.attach_redirects(redirects, start, span, frame, cwd, head)
    }

    /// Copies a compound command's redirections onto the clauses it runs directly.
    fn attach_redirects(
        &mut self,
        redirects: Vec<ARedirect>,
        start: usize,
        span: Span,
        frame: Frame,
        cwd: &mut Cwd,
        head: Option<usize>,
    ) -> Option<usize> {
        let mut subs = Vec::new();
        let mut converted: Vec<Redirect> = redirects
            .into_iter()
            .map(|r| self.convert_redirect(r, &mut subs))
            .collect();
        // (`{ …; } >!~/.zshrc`: a compound command's redirections have no words after them.)
        zsh_clobber_targets(&mut converted, &[]);
        let head = match head {
            Some(head) => {
                let end = self.clauses.len();
                for clause in self.clauses.iter_mut().take(end).skip(start) {
                    if clause.parent == frame.parent {
                        clause.redirects.extend(converted.iter().cloned());
                    }
                }
                Some(head)
            }
            None => self.push_clause(Clause {
                argv: Vec::new(),
                assignments: Vec::new(),
                redirects: converted,
                context: frame.ctx,
                operator: None,
                cwd: cwd.clone(),
                verb: Vec::new(),
                literal_verb: true,
                depth: frame.depth,
                parent: frame.parent,
                span,
            }),
        };
        if let Some(owner) = head {
            for sub in subs {
                self.lower_sub(sub, owner, frame, cwd);
            }
        }
        head
    }

    // ----- clauses ------------------------------------------------------------------------

    fn lower_simple(
        &mut self,
        simple: SimpleCommand,
        frame: Frame,
        cwd: &mut Cwd,
    ) -> Option<usize> {
        let mut subs: Vec<Sub> = Vec::new();
        let mut argv: Vec<Word> = Vec::with_capacity(simple.words.len());
        for word in simple.words {
            subs.extend(word.subs);
            argv.push(word.word);
        }
        let mut assignments = Vec::with_capacity(simple.assignments.len());
        for assignment in simple.assignments {
            subs.extend(assignment.subs);
            assignments.push(assignment.assignment);
        }
        let mut redirects: Vec<Redirect> = simple
            .redirects
            .into_iter()
            .map(|r| self.convert_redirect(r, &mut subs))
            .collect();
        zsh_clobber_targets(&mut redirects, &argv);
        let literal_verb = argv.first().is_none_or(|w| w.literal);
        let verb = verb_hint(&argv);
        let index = self.push_clause(Clause {
            argv,
            assignments,
            redirects,
            context: frame.ctx,
            operator: None,
            cwd: cwd.clone(),
            verb,
            literal_verb,
            depth: frame.depth,
            parent: frame.parent,
            span: simple.span,
        })?;
        for sub in subs {
            self.lower_sub(sub, index, frame, cwd);
        }
        let change = self
            .clauses
            .get(index)
            .and_then(|c| cwd::apply(&c.argv, cwd.as_deref(), self.home));
        if let Some(next) = change {
            *cwd = next;
        }
        Some(index)
    }

    /// `[[ … ]]` and `(( … ))`: a clause whose argv is the words inside.
    fn lower_special(
        &mut self,
        items: Vec<AWord>,
        verb: &str,
        span: Span,
        frame: Frame,
        cwd: &mut Cwd,
    ) -> Option<usize> {
        let mut subs = Vec::new();
        let mut argv = Vec::with_capacity(items.len());
        for item in items {
            subs.extend(item.subs);
            argv.push(item.word);
        }
        let index = self.push_clause(Clause {
            argv,
            assignments: Vec::new(),
            redirects: Vec::new(),
            context: frame.ctx,
            operator: None,
            cwd: cwd.clone(),
            verb: vec![verb.to_owned()],
            literal_verb: true,
            depth: frame.depth,
            parent: frame.parent,
            span,
        })?;
        for sub in subs {
            self.lower_sub(sub, index, frame, cwd);
        }
        Some(index)
    }

    /// Substitutions not owned by a clause (loop word lists, `case` words): their clauses have
    /// the surrounding parent.
    fn lower_subs(
        &mut self,
        subs: Vec<Sub>,
        parent: Option<usize>,
        frame: Frame,
        cwd: &Cwd,
    ) -> Option<usize> {
        let mut head = None;
        for sub in subs {
            let ctx = sub_context(sub.kind);
            let mut sub_cwd = cwd.clone();
            let inner = Frame {
                ctx,
                depth: frame.depth.saturating_add(1),
                parent,
            };
            let h = self.lower_list(sub.list, inner, &mut sub_cwd);
            head = head.or(h);
        }
        head
    }

    fn lower_sub(&mut self, sub: Sub, owner: usize, frame: Frame, cwd: &Cwd) {
        let mut sub_cwd = cwd.clone();
        let inner = Frame {
            ctx: sub_context(sub.kind),
            depth: frame.depth.saturating_add(1),
            parent: Some(owner),
        };
        self.lower_list(sub.list, inner, &mut sub_cwd);
    }

    fn convert_redirect(&mut self, redirect: ARedirect, subs: &mut Vec<Sub>) -> Redirect {
        let target = match redirect.target {
            ATarget::Word(word) => {
                subs.extend(word.subs);
                RedirectTarget::Word(word.word)
            }
            ATarget::Heredoc(slot) => {
                let slot = self
                    .heredocs
                    .get_mut(slot)
                    .map(std::mem::take)
                    .unwrap_or_default();
                subs.extend(slot.subs);
                RedirectTarget::Heredoc(Heredoc {
                    delimiter: slot.delimiter,
                    quoted: slot.quoted,
                    strip_tabs: slot.strip_tabs,
                    body: slot.body,
                    body_span: slot.body_span,
                })
            }
        };
        Redirect {
            op: redirect.op,
            fd: redirect.fd,
            target,
            span: redirect.span,
        }
    }
}

/// zsh reads `>!` and `>>!` as `>|` and `>>|` (`echo x >! ~/.zshrc` writes `~/.zshrc`), where
/// bash reads a redirection to a file named `!` and an argument after it. Both readings are
/// kept: to each write whose target is written `!`, a write of the word after it is added; to
/// one whose target is written `!NAME` (`>!~/.zshrc`), a write of `NAME` (one that is not plain
/// text is not known).
fn zsh_clobber_targets(redirects: &mut Vec<Redirect>, argv: &[Word]) {
    let mut added = Vec::new();
    for redirect in redirects.iter() {
        let Some(target) = redirect.write_target() else {
            continue;
        };
        let Some(rest) = target.raw.strip_prefix('!') else {
            continue;
        };
        let word = if rest.is_empty() {
            argv.iter()
                .filter(|w| w.span.start >= redirect.span.end)
                .min_by_key(|w| w.span.start)
                .cloned()
        } else {
            let span = Span::new(target.span.start + 1, target.span.end);
            let mut word = crate::cook::plain_word(rest, rest, span).word;
            if rest.contains(['\'', '"', '$', '\\', '`']) {
                word.literal = false;
            }
            Some(word)
        };
        if let Some(word) = word {
            added.push(Redirect {
                op: redirect.op,
                fd: redirect.fd.clone(),
                target: RedirectTarget::Word(word),
                span: redirect.span,
            });
        }
    }
    redirects.extend(added);
}

const fn sub_context(kind: SubKind) -> Context {
    match kind {
        SubKind::Command => Context::Substitution,
        SubKind::Process => Context::ProcessSubstitution,
    }
}

/// True when the pipeline is a single `exit` or `return` (the shell does not continue).
fn pipeline_exits(pipeline: &Pipeline) -> bool {
    if !pipeline.rest.is_empty() {
        return false;
    }
    match &pipeline.first {
        Command::Simple(simple) => simple
            .words
            .first()
            .is_some_and(|w| w.word.literal && matches!(w.word.cooked.as_str(), "exit" | "return")),
        Command::Compound(..) | Command::Function(_) | Command::Coproc(_) => false,
    }
}

/// True when running the list can change the directory of the shell that runs it (a
/// pipeline's last stage too: `shopt -s lastpipe` runs it in this shell).
fn list_changes_cwd(list: &List) -> bool {
    list.items.iter().any(|item| {
        item.sep != Sep::Background
            && std::iter::once(&item.and_or.first)
                .chain(item.and_or.rest.iter().map(|(_, p)| p))
                .any(|p| command_changes_cwd(p.rest.last().map_or(&p.first, |(_, last)| last)))
    })
}

fn command_changes_cwd(command: &Command) -> bool {
    match command {
        Command::Simple(simple) => {
            let argv: Vec<Word> = simple
                .words
                .iter()
                .take(2)
                .map(|w| w.word.clone())
                .collect();
            cwd::changes_cwd(&argv)
        }
        Command::Compound(compound, _, _) => compound_changes_cwd(compound),
        // A definition whose body changes the directory: any later call may run it.
        Command::Function(function) => compound_changes_cwd(&function.body),
        Command::Coproc(_) => false,
    }
}

fn compound_changes_cwd(compound: &Compound) -> bool {
    match compound {
        Compound::Group(list) => list_changes_cwd(list),
        Compound::If {
            branches,
            otherwise,
        } => {
            branches
                .iter()
                .any(|(c, b)| list_changes_cwd(c) || list_changes_cwd(b))
                || otherwise.as_ref().is_some_and(list_changes_cwd)
        }
        Compound::While {
            condition, body, ..
        } => list_changes_cwd(condition) || list_changes_cwd(&body.list),
        Compound::For { body, .. } | Compound::ArithFor { body, .. } => {
            list_changes_cwd(&body.list)
        }
        Compound::Case { arms, .. } => arms
            .iter()
            .any(|a| a.body.as_ref().is_some_and(list_changes_cwd)),
        Compound::Subshell(_) | Compound::Cond { .. } | Compound::Arith { .. } => false,
    }
}
