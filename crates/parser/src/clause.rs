//! The public output of the parser: words, redirects, assignments and clauses.
//!
//! A *clause* is one simple command that bash would run. Every consumer of the parser (rules,
//! policy, CLI) works on clauses; the grammar's own tree stays private to this crate.
//!
//! Spans are byte ranges into the parsed source. [`Span`] compares equal to every other span so
//! that `assert_eq!` on whole values compares structure, not positions; compare `start`/`end`
//! directly when a test is about positions.

use std::path::PathBuf;

/// A byte range `start..end` into the parsed source.
///
/// Equality ignores the range on purpose (see the module docs).
#[derive(Clone, Copy, Debug, Default, Eq, serde::Serialize)]
pub struct Span {
    /// First byte of the node.
    pub start: usize,
    /// One past the last byte of the node.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    #[must_use]
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The span as a `[start, end]` pair.
    #[must_use]
    pub const fn pair(self) -> [usize; 2] {
        [self.start, self.end]
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// What a word contains besides plain text. All `false` means the word is fully literal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WordFeatures {
    /// `$name`, `${…}` (any parameter expansion).
    pub parameter: bool,
    /// `$(…)`, backticks or bash 5.3 `${ cmd; }`.
    pub command_substitution: bool,
    /// `<(…)` or `>(…)`.
    pub process_substitution: bool,
    /// `$((…))` or `$[…]`.
    pub arithmetic: bool,
    /// Unquoted `*`, `?`, `[…]` or an extglob such as `@(…)`.
    pub glob: bool,
    /// Unquoted brace expansion such as `{a,b}` or `{1..3}`.
    pub brace: bool,
    /// A leading unquoted `~` form (`~`, `~/x`, `~user`, `~+`, `~-`).
    pub tilde: bool,
    /// A parameter expansion, command substitution or arithmetic expansion outside double
    /// quotes (`$x`, `${x}`, `$(…)`, `` `…` ``, `$((…))`): the shell splits its result into
    /// several words (`head -n $N` with `N='1 /etc/shadow'` gets two), each a possible option
    /// or operand. Not set by process substitution, which is one path.
    pub splits: bool,
}

impl WordFeatures {
    /// True when any expansion, glob, brace expansion or substitution remains.
    ///
    /// A tilde prefix alone does not make a word dynamic: it is resolved statically from the
    /// home directory.
    #[must_use]
    pub const fn is_dynamic(&self) -> bool {
        self.parameter
            || self.command_substitution
            || self.process_substitution
            || self.arithmetic
            || self.glob
            || self.brace
    }
}

/// One shell word.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Word {
    /// The word exactly as written in the source.
    pub raw: String,
    /// The word after quote removal, backslash escapes, line-continuation removal and ANSI-C
    /// (`$'…'`) decoding. Expansions that cannot be resolved statically (`$x`, `$(…)`, globs)
    /// are kept as their source text, so `"$HOME"/a` cooks to `$HOME/a`.
    pub cooked: String,
    /// False when any expansion, glob, brace expansion or substitution remains (see
    /// [`WordFeatures::is_dynamic`]).
    pub literal: bool,
    /// What the word contains.
    pub features: WordFeatures,
    /// Where the word is in the source.
    pub span: Span,
}

impl Word {
    /// Whether the word may become a word that starts with `-` (an option) when the shell
    /// expands it. A literal word may when its text does. A pathname glob and nothing else
    /// (`tests/*.py`, `test_x[1]`) that starts with a plain character never does: every name it
    /// expands to (or its own text, when nothing matches) starts with that character. Any other
    /// expansion may.
    #[must_use]
    pub fn may_expand_to_option(&self) -> bool {
        if self.literal {
            return self.cooked.starts_with('-');
        }
        if self.is_numeric_parameter() {
            return false;
        }
        let f = &self.features;
        let glob_only = f.glob
            && !f.parameter
            && !f.command_substitution
            && !f.process_substitution
            && !f.arithmetic
            && !f.brace
            && !f.tilde;
        !(glob_only
            && self.raw.chars().next().is_some_and(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | ',' | ':' | '%')
            }))
    }

    /// Whether the word is one special parameter that always expands to a number: `$?`, `$#`,
    /// `$$`, `$!` (also braced or double-quoted).
    #[must_use]
    pub fn is_numeric_parameter(&self) -> bool {
        let raw = self.raw.as_str();
        let raw = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        matches!(
            raw,
            "$?" | "$#" | "$$" | "$!" | "${?}" | "${#}" | "${$}" | "${!}"
        )
    }

    /// Whether the word is exactly one process substitution (`<(…)` or `>(…)`): it expands to
    /// a `/dev/fd/N` path, never to an option, and its command is a clause of its own.
    #[must_use]
    pub fn is_process_substitution(&self) -> bool {
        let f = &self.features;
        f.process_substitution
            && !f.parameter
            && !f.command_substitution
            && !f.arithmetic
            && !f.glob
            && !f.brace
            && (self.raw.starts_with("<(") || self.raw.starts_with(">("))
            && closes_at_end(&self.raw)
    }
}

/// Whether the parenthesis opened after the first character closes at the last one.
fn closes_at_end(raw: &str) -> bool {
    let mut depth = 0_usize;
    let last = raw.char_indices().last().map_or(0, |(i, _)| i);
    for (i, c) in raw.char_indices().skip(1) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == last;
                }
            }
            _ => {}
        }
    }
    false
}

impl AsRef<str> for Word {
    /// The cooked text (what matching compares).
    fn as_ref(&self) -> &str {
        &self.cooked
    }
}

/// The variable an operand of a declaration builtin (`export`, `declare`, `typeset`, `local`,
/// `readonly`) names, and the value it gives it, if any: `NAME=VALUE`, `NAME+=VALUE` (an
/// append sets `NAME` too) and `NAME[I]=VALUE` all set `NAME`; a bare `NAME` gives no value.
///
/// ```
/// use shellgate_parser::declared_variable;
///
/// assert_eq!(declared_variable("BASH_ENV+=/tmp/x"), ("BASH_ENV", Some("/tmp/x")));
/// assert_eq!(declared_variable("PS4[0]=x"), ("PS4", Some("x")));
/// assert_eq!(declared_variable("PATH"), ("PATH", None));
/// ```
#[must_use]
pub fn declared_variable(operand: &str) -> (&str, Option<&str>) {
    let (name, value) = match operand.split_once('=') {
        Some((name, value)) => (name.strip_suffix('+').unwrap_or(name), Some(value)),
        None => (operand, None),
    };
    let name = name.split_once('[').map_or(name, |(name, _)| name);
    (name, value)
}

/// An assignment such as `a=b`, `a+=b`, `a[i]=b` or `a=(x y)`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// The raw subscript of `a[i]=…`, if any.
    pub index: Option<String>,
    /// True for `+=`.
    pub append: bool,
    /// The assigned value; `None` for `a=` (empty) and for array assignments.
    pub value: Option<Word>,
    /// The elements of an array assignment `a=(x y)`.
    pub array: Option<Vec<Word>>,
    /// Where the assignment is in the source.
    pub span: Span,
}

impl Assignment {
    /// The assignment as text, each word as `word` shows it: `NAME[INDEX]=VALUE`, `+=` for an
    /// append, `(A B)` for an array.
    pub fn text_with(&self, word: impl Fn(&Word) -> String) -> String {
        let mut text = self.name.clone();
        if let Some(index) = &self.index {
            text.push('[');
            text.push_str(index);
            text.push(']');
        }
        text.push_str(if self.append { "+=" } else { "=" });
        if let Some(value) = &self.value {
            text.push_str(&word(value));
        }
        if let Some(items) = &self.array {
            let items: Vec<String> = items.iter().map(word).collect();
            text.push('(');
            text.push_str(&items.join(" "));
            text.push(')');
        }
        text
    }
}

/// A redirection operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RedirectOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `>&` (duplication, or a write when the target is not a number or `-`)
    DupOut,
    /// `<&`
    DupIn,
    /// `<<<`
    HereString,
    /// `<<`
    Heredoc,
    /// `<<-`
    HeredocStrip,
}

impl RedirectOp {
    /// The operator as written.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "<",
            Self::Write => ">",
            Self::Append => ">>",
            Self::Clobber => ">|",
            Self::ReadWrite => "<>",
            Self::WriteBoth => "&>",
            Self::AppendBoth => "&>>",
            Self::DupOut => ">&",
            Self::DupIn => "<&",
            Self::HereString => "<<<",
            Self::Heredoc => "<<",
            Self::HeredocStrip => "<<-",
        }
    }
}

/// The file descriptor written before a redirection operator.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum RedirectFd {
    /// `2>` and the like.
    Number(u32),
    /// `{var}>` (bash allocates the descriptor and stores it in `var`).
    Variable(String),
}

impl std::fmt::Display for RedirectFd {
    /// The descriptor as written: `2`, `{var}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::Variable(name) => write!(f, "{{{name}}}"),
        }
    }
}

/// A heredoc: its delimiter and captured body.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Heredoc {
    /// The delimiter after quote removal.
    pub delimiter: String,
    /// True when any part of the delimiter was quoted: the body is then not expanded.
    pub quoted: bool,
    /// True for `<<-` (leading tabs are stripped from body lines and the delimiter line).
    pub strip_tabs: bool,
    /// The body text, without the delimiter line (tabs already stripped for `<<-`).
    pub body: String,
    /// Where the body is in the source.
    pub body_span: Span,
}

/// What a redirection points at.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum RedirectTarget {
    /// A word: a path, an fd number for duplications, or the text of a here-string.
    Word(Word),
    /// A heredoc body.
    Heredoc(Heredoc),
}

/// One redirection.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Redirect {
    /// The operator.
    pub op: RedirectOp,
    /// The descriptor before the operator, if written.
    pub fd: Option<RedirectFd>,
    /// The target.
    pub target: RedirectTarget,
    /// Where the redirection is in the source.
    pub span: Span,
}

impl Redirect {
    /// True when this is a descriptor duplication or close (`2>&1`, `>&-`, `<&0`) rather than a
    /// file. `>&file` with a non-numeric target is a write to `file` and is not a duplication.
    #[must_use]
    pub fn is_fd_dup(&self) -> bool {
        match (&self.op, &self.target) {
            (RedirectOp::DupOut | RedirectOp::DupIn, RedirectTarget::Word(w)) => {
                w.literal
                    && (w.cooked == "-"
                        || (!w.cooked.is_empty()
                            && w.cooked
                                .trim_end_matches('-')
                                .bytes()
                                .all(|b| b.is_ascii_digit())))
            }
            _ => false,
        }
    }

    /// The target word when this redirection writes to a file (`>`, `>>`, `>|`, `<>`, `&>`,
    /// `&>>`, and `>&word` when `word` is not a descriptor).
    #[must_use]
    pub fn write_target(&self) -> Option<&Word> {
        match (&self.op, &self.target) {
            (
                RedirectOp::Write
                | RedirectOp::Append
                | RedirectOp::Clobber
                | RedirectOp::ReadWrite
                | RedirectOp::WriteBoth
                | RedirectOp::AppendBoth,
                RedirectTarget::Word(w),
            ) => Some(w),
            (RedirectOp::DupOut, RedirectTarget::Word(w)) if !self.is_fd_dup() => Some(w),
            _ => None,
        }
    }

    /// The target word when this redirection reads a file (`<`, `<>`, and `<&word` when `word`
    /// is not a descriptor).
    #[must_use]
    pub fn read_target(&self) -> Option<&Word> {
        match (&self.op, &self.target) {
            (RedirectOp::Read | RedirectOp::ReadWrite, RedirectTarget::Word(w)) => Some(w),
            (RedirectOp::DupIn, RedirectTarget::Word(w)) if !self.is_fd_dup() => Some(w),
            _ => None,
        }
    }

    /// True when this redirection gives the command's standard input (descriptor 0, written or
    /// implied): `< FILE`, `<> FILE`, `<&N`, a heredoc or a here-string.
    #[must_use]
    pub fn feeds_stdin(&self) -> bool {
        matches!(self.fd, None | Some(RedirectFd::Number(0)))
            && matches!(
                self.op,
                RedirectOp::Read
                    | RedirectOp::ReadWrite
                    | RedirectOp::DupIn
                    | RedirectOp::HereString
                    | RedirectOp::Heredoc
                    | RedirectOp::HeredocStrip
            )
    }

    /// Text fed to the command's standard input by a heredoc or here-string, if any.
    #[must_use]
    pub fn stdin_text(&self) -> Option<&str> {
        match (&self.op, &self.target) {
            (RedirectOp::HereString, RedirectTarget::Word(w)) => Some(&w.cooked),
            (_, RedirectTarget::Heredoc(h)) => Some(&h.body),
            _ => None,
        }
    }
}

/// Where a clause sits. When several apply, the innermost one is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Context {
    /// A plain command in the top-level list.
    Top,
    /// Inside `( … )`.
    Subshell,
    /// Inside `{ …; }`.
    Group,
    /// A stage of a pipeline of two or more commands.
    Pipeline,
    /// Run in the background with `&` (or as a `coproc`).
    Background,
    /// Inside `$(…)`, backticks or `${ cmd; }`.
    Substitution,
    /// Inside `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// The condition list of `if`, `elif`, `while` or `until`.
    Condition,
    /// The body of `for`, `while`, `until` or `select`.
    LoopBody,
    /// The body of a `case` arm.
    CaseArm,
    /// The body of a function definition.
    FunctionBody,
    /// An arithmetic command or expression: `(( … ))`, `for (( … ))`, `$(( … ))`.
    Arithmetic,
}

impl Context {
    /// The lowercase name used in JSON output.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Top => "top",
            Self::Subshell => "subshell",
            Self::Group => "group",
            Self::Pipeline => "pipeline",
            Self::Background => "background",
            Self::Substitution => "substitution",
            Self::ProcessSubstitution => "process_substitution",
            Self::Condition => "condition",
            Self::LoopBody => "loop_body",
            Self::CaseArm => "case_arm",
            Self::FunctionBody => "function_body",
            Self::Arithmetic => "arithmetic",
        }
    }
}

/// The operator that joins a clause to the clause before it in the same list or pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Operator {
    /// `;` or a newline.
    Sequence,
    /// `&` after the previous command.
    Background,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|`
    Pipe,
    /// `|&`
    PipeBoth,
}

impl Operator {
    /// The operator as written (`;` for a newline too).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sequence => ";",
            Self::Background => "&",
            Self::And => "&&",
            Self::Or => "||",
            Self::Pipe => "|",
            Self::PipeBoth => "|&",
        }
    }
}

/// One simple command that bash would run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Clause {
    /// The command words, verb first. Empty for an assignment-only or redirect-only statement.
    pub argv: Vec<Word>,
    /// Assignment prefixes (`A=1 cmd`) or a bare assignment statement.
    pub assignments: Vec<Assignment>,
    /// Redirections, in source order.
    pub redirects: Vec<Redirect>,
    /// The innermost context.
    pub context: Context,
    /// The operator joining this clause to the previous one in its list, `None` when first.
    pub operator: Option<Operator>,
    /// The effective working directory: the base directory, or the static target of a
    /// preceding `cd`/`pushd` in the same list. `None` when it cannot be known statically.
    pub cwd: Option<PathBuf>,
    /// The verb hint (display only; see the crate docs).
    pub verb: Vec<String>,
    /// True when the first word is literal.
    pub literal_verb: bool,
    /// Nesting depth: 0 for top-level clauses.
    pub depth: usize,
    /// The index (in [`crate::ClauseGraph::clauses`]) of the clause whose words contain this
    /// one (substitutions and process substitutions), if any.
    pub parent: Option<usize>,
    /// Where the clause is in the source.
    pub span: Span,
}

impl Clause {
    /// The cooked argv as string slices.
    pub fn cooked_argv(&self) -> impl Iterator<Item = &str> {
        self.argv.iter().map(|w| w.cooked.as_str())
    }
}
