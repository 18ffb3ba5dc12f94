//! The typed tree built from the grammar's pairs (see `build.rs`). Private to the crate.
//!
//! Words are already cooked here (a [`Word`] plus the substitutions nested in it), so the
//! lowering into clauses only has to walk structure.

use crate::clause::{Assignment, RedirectFd, RedirectOp, Span, Word};

/// A list of and-or lists.
#[derive(Clone, Debug, Default)]
pub(crate) struct List {
    pub items: Vec<ListItem>,
}

/// One and-or list and the separator written after it.
#[derive(Clone, Debug)]
pub(crate) struct ListItem {
    pub and_or: AndOr,
    pub sep: Sep,
}

/// The separator after an and-or list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sep {
    /// Nothing written (the last item).
    None,
    /// `;` or a newline.
    Seq,
    /// `&`.
    Background,
}

/// `&&` or `||`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AndOrOp {
    And,
    Or,
}

/// Pipelines joined by `&&` / `||`.
#[derive(Clone, Debug)]
pub(crate) struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

/// `|` or `|&`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PipeOp {
    Pipe,
    PipeBoth,
}

/// Commands joined by pipes, with `!` / `time` prefixes.
#[derive(Clone, Debug)]
pub(crate) struct Pipeline {
    pub bang: bool,
    pub time: bool,
    pub time_posix: bool,
    pub first: Command,
    pub rest: Vec<(PipeOp, Command)>,
}

/// One command.
#[derive(Clone, Debug)]
pub(crate) enum Command {
    Simple(SimpleCommand),
    Compound(Box<Compound>, Vec<ARedirect>, Span),
    Function(FunctionDef),
    Coproc(Coproc),
}

/// `name() body` and its variants.
#[derive(Clone, Debug)]
pub(crate) struct FunctionDef {
    pub name: String,
    /// True when written with the `function` keyword.
    pub keyword: bool,
    /// True when written with `()`.
    pub parens: bool,
    pub body: Box<Compound>,
    pub redirects: Vec<ARedirect>,
    pub span: Span,
}

/// `coproc [NAME] command`.
#[derive(Clone, Debug)]
pub(crate) struct Coproc {
    pub name: Option<String>,
    pub body: Box<Command>,
}

/// A simple command: assignments, words and redirections in source order.
#[derive(Clone, Debug, Default)]
pub(crate) struct SimpleCommand {
    pub assignments: Vec<AAssignment>,
    pub words: Vec<AWord>,
    pub redirects: Vec<ARedirect>,
    pub span: Span,
}

/// A compound command.
#[derive(Clone, Debug)]
pub(crate) enum Compound {
    Subshell(List),
    Group(List),
    If {
        branches: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    While {
        until: bool,
        condition: List,
        body: DoGroup,
    },
    For {
        select: bool,
        name: String,
        words: Option<Vec<AWord>>,
        body: DoGroup,
    },
    ArithFor {
        expr: AWord,
        body: DoGroup,
    },
    Case {
        word: AWord,
        arms: Vec<CaseArm>,
    },
    /// `[[ … ]]`: the items between the brackets.
    Cond {
        items: Vec<AWord>,
        span: Span,
    },
    /// `(( … ))`: the expression.
    Arith {
        expr: AWord,
        span: Span,
    },
}

/// A loop body: `do … done` or `{ …; }`.
#[derive(Clone, Debug)]
pub(crate) struct DoGroup {
    pub list: List,
    pub braces: bool,
}

/// One `case` arm.
#[derive(Clone, Debug)]
pub(crate) struct CaseArm {
    pub patterns: Vec<AWord>,
    pub body: Option<List>,
    pub end: Option<&'static str>,
}

/// A cooked word plus the command lists nested in it.
#[derive(Clone, Debug)]
pub(crate) struct AWord {
    pub word: Word,
    pub subs: Vec<Sub>,
}

/// A command list nested in a word.
#[derive(Clone, Debug)]
pub(crate) struct Sub {
    pub kind: SubKind,
    pub list: List,
}

/// What kind of nesting a [`Sub`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SubKind {
    /// `$(…)`, backticks, `${ …; }`.
    Command,
    /// `<(…)`, `>(…)`.
    Process,
}

/// An assignment plus the substitutions in its subscript and value.
#[derive(Clone, Debug)]
pub(crate) struct AAssignment {
    pub assignment: Assignment,
    pub raw: String,
    pub subs: Vec<Sub>,
}

/// A redirection; heredoc bodies live in the heredoc table (see [`HeredocSlot`]).
#[derive(Clone, Debug)]
pub(crate) struct ARedirect {
    pub op: RedirectOp,
    pub fd: Option<RedirectFd>,
    pub target: ATarget,
    pub raw: String,
    pub span: Span,
}

/// The target of an [`ARedirect`].
#[derive(Clone, Debug)]
pub(crate) enum ATarget {
    Word(AWord),
    /// Index into the heredoc table.
    Heredoc(usize),
}

/// A heredoc: delimiter from its operator, body from the newline that read it.
#[derive(Clone, Debug, Default)]
pub(crate) struct HeredocSlot {
    pub delimiter: String,
    pub delimiter_raw: String,
    pub quoted: bool,
    pub strip_tabs: bool,
    pub body: String,
    /// The body text as written (before tab stripping), for rendering.
    pub body_raw: String,
    pub body_span: Span,
    /// The terminator line as written (without its newline).
    pub terminator_raw: String,
    pub filled: bool,
    pub subs: Vec<Sub>,
}

/// A whole parse: the top list plus the heredoc table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Script {
    pub list: List,
    pub heredocs: Vec<HeredocSlot>,
}
