//! The fast scanner: a hand-written parser for the common subset of bash that builds the same
//! typed tree as the grammar (`build.rs`), or declines and leaves the input to the grammar.
//!
//! `bash.pest` stays the definition of the language. The scanner takes only inputs made of
//! * lists joined by `;`, `&`, newlines, `&&`, `||`, `|` and `|&`, with `time [-p]` and `!`
//!   prefixes, comments and line continuations;
//! * subshells, groups, `if`, `while`, `until` and `for name [in words]` (with `do … done`
//!   or `{ …; }`), and the redirections after them;
//! * simple commands: assignment prefixes (`a=b`, `a+=b`), words, and redirections with an
//!   optional descriptor number (`<`, `>`, `>>`, `>|`, `<>`, `>&`, `<&`, `&>`, `&>>`), in any
//!   order, and the arguments of declaration builtins (`export a=b`);
//! * words made of plain text, `'…'`, `$'…'`, `"…"`, `$"…"`, `\c`, `$name`, `$1`, `$@`…,
//!   `${…}` without nested quotes or expansions, and `$( … )`, `<( … )`, `>( … )` and
//!   backquotes (not nested in one another) holding such a list;
//!
//! and it declines everything else, at the first sign of it: `case`, `select`, `[[`, `((`,
//! functions and `coproc`, a `time` or `!` alone, `(` after a simple command, `$((`, `$[`,
//! `${ cmd; }`, backquotes inside backquotes, extended globs, heredocs and here-strings,
//! carriage returns, indexed and array assignments, `{var}>`
//! descriptors, a `\` at the end of the input, nesting deeper than [`MAX_FAST_DEPTH`] and inputs
//! longer than [`MAX_FAST_BYTES`]. It also declines every input that is not valid bash: errors
//! and their diagnostics are the grammar's.
//!
//! Where the scanner accepts, its tree must equal the grammar's in every field (spans and raw
//! text included): `tests/parser/fast_path.rs` checks this over every corpus input, and the
//! `fast_path` fuzz target over arbitrary input. Each decision below names the grammar rule it
//! follows.

mod compound;
mod word;

use crate::ast::{
    AAssignment, ARedirect, ATarget, AndOr, AndOrOp, Command, List, ListItem, PipeOp, Pipeline,
    Script, Sep, SimpleCommand,
};
use crate::clause::{Assignment, RedirectFd, RedirectOp, Span};

/// Longest input the scanner takes (bytes). The grammar's call limit
/// ([`crate::limits::CALL_LIMIT`]) is far above what the grammar needs for an input of the
/// subset this long, so the grammar never answers "limit" where the scanner accepts.
pub(crate) const MAX_FAST_BYTES: usize = 4096;

/// Deepest `$( … )` nesting the scanner takes (the tree builder's depth limit is far above it).
pub(crate) const MAX_FAST_DEPTH: usize = 16;

/// `None`: the scanner declines (the grammar decides).
type Fast<T> = Option<T>;

/// The typed tree of `input`, or `None` when the scanner declines.
pub(crate) fn script(input: &str) -> Fast<Script> {
    if input.len() > MAX_FAST_BYTES || input.contains('\r') {
        return None;
    }
    let list = Scanner::new(input, input, None, 0).body(None)?;
    Some(Script {
        list,
        heredocs: Vec::new(),
    })
}

/// Words that the grammar's `reserved` rule refuses as a command word.
const RESERVED: &[&[u8]] = &[
    b"if",
    b"then",
    b"elif",
    b"else",
    b"fi",
    b"done",
    b"do",
    b"case",
    b"esac",
    b"while",
    b"until",
    b"for",
    b"select",
    b"function",
    b"coproc",
    b"[[",
    b"]]",
    b"{",
    b"}",
    b"in",
];

/// The grammar's `decl_name`: builtins whose arguments may be assignments.
const DECLARATION: &[&[u8]] = &[b"declare", b"typeset", b"local", b"export", b"readonly"];

/// The grammar's `delim_end` at `b`, followed by `next` (a carriage return never reaches the
/// scanner; `<(` and `>(` go on with the word).
const fn is_delim_end(b: u8, next: Option<u8>) -> bool {
    match b {
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' => true,
        b'<' | b'>' => !matches!(next, Some(b'(')),
        _ => false,
    }
}

struct Scanner<'a> {
    /// The text being scanned: the input, or the unescaped body of a backquote substitution.
    src: &'a str,
    bytes: &'a [u8],
    /// The whole input: raw text is taken from it.
    original: &'a str,
    /// For a backquote body, where each byte of `src` comes from in `original` (one entry more
    /// than `src` has bytes); `None` when `src` is `original`.
    map: Option<&'a [usize]>,
    pos: usize,
    /// Nesting of substitutions, as the tree builder counts it.
    depth: usize,
    /// The text contains a `{` (words must then track their shape for brace expansion).
    braces: bool,
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str, original: &'a str, map: Option<&'a [usize]>, depth: usize) -> Self {
        Self {
            src,
            bytes: src.as_bytes(),
            original,
            map,
            pos: 0,
            depth,
            braces: src.contains('{'),
        }
    }

    /// Where offset `at` of `src` is in the input (the tree builder's `OffsetMap::at`).
    fn offset(&self, at: usize) -> usize {
        match self.map {
            None => at,
            Some(table) => table.get(at).or_else(|| table.last()).copied().unwrap_or(0),
        }
    }

    /// The span of `src[start..end]` in the input.
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.offset(start), self.offset(end))
    }

    /// The raw text of `src[start..end]`: as written in the input (the tree builder's `raw`).
    fn raw(&self, start: usize, end: usize) -> Fast<&'a str> {
        let span = self.span(start, end);
        self.original
            .get(span.start..span.end)
            .or_else(|| self.src.get(start..end))
    }
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos.checked_add(ahead)?).copied()
    }

    fn slice(&self, start: usize, end: usize) -> Fast<&'a str> {
        self.src.get(start..end)
    }

    /// The text from here to the next `delim_end` (or the end of the input).
    fn token(&self) -> &'a [u8] {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let len = (0..rest.len())
            .find(|&i| {
                rest.get(i)
                    .is_some_and(|&b| is_delim_end(b, rest.get(i + 1).copied()))
            })
            .unwrap_or(rest.len());
        rest.get(..len).unwrap_or_default()
    }

    /// `gap`: blanks, line continuations and a comment (up to the end of the line).
    fn gap(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => break,
            }
        }
        if self.peek() == Some(b'#') {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        }
    }

    /// `linebreak`: gaps and newlines.
    fn linebreak(&mut self) {
        loop {
            self.gap();
            if self.peek() != Some(b'\n') {
                return;
            }
            self.pos += 1;
        }
    }

    /// True where no further and-or list can start: the end of the input, `)`, or a reserved
    /// word that closes a compound command (where the grammar's `list` ends).
    fn at_list_end(&self) -> bool {
        match self.peek() {
            None | Some(b')') => true,
            Some(_) => matches!(
                self.token(),
                b"}" | b"fi" | b"then" | b"do" | b"done" | b"else" | b"elif" | b"esac"
            ),
        }
    }

    /// `program` (`closer` is `None`: the end of the input) or the `sub_list` of `$( … )`
    /// (`closer` is `)`, left for the caller): `linebreak ~ list? ~ linebreak`.
    fn body(&mut self, closer: Option<u8>) -> Fast<List> {
        self.linebreak();
        let list = if self.at_list_end() {
            List::default()
        } else {
            self.list()?
        };
        self.linebreak();
        (self.peek() == closer).then_some(list)
    }

    /// `list`: and-or lists joined by `list_sep`, with an optional final separator.
    fn list(&mut self) -> Fast<List> {
        let mut items = Vec::new();
        loop {
            let and_or = self.and_or()?;
            let before = self.pos;
            self.gap();
            // `op_semi` is `;` not before `;` or `&`; `op_amp` is `&` not before `&` or `>`.
            let sep = match (self.peek(), self.peek_at(1)) {
                (Some(b';'), next) if !matches!(next, Some(b';' | b'&')) => Sep::Seq,
                (Some(b'&'), next) if !matches!(next, Some(b'&' | b'>')) => Sep::Background,
                (Some(b'\n'), _) => Sep::Seq,
                _ => {
                    self.pos = before;
                    items.push(ListItem {
                        and_or,
                        sep: Sep::None,
                    });
                    return Some(List { items });
                }
            };
            self.pos += 1;
            self.linebreak();
            items.push(ListItem { and_or, sep });
            // After a separator, anything but the end starts the next and-or list (or is an
            // error, which the grammar reports).
            if self.at_list_end() {
                return Some(List { items });
            }
        }
    }

    /// `and_or`: pipelines joined by `&&` and `||`.
    fn and_or(&mut self) -> Fast<AndOr> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            let before = self.pos;
            self.gap();
            let op = match (self.peek(), self.peek_at(1)) {
                (Some(b'&'), Some(b'&')) => AndOrOp::And,
                (Some(b'|'), Some(b'|')) => AndOrOp::Or,
                _ => {
                    self.pos = before;
                    return Some(AndOr { first, rest });
                }
            };
            self.pos += 2;
            self.linebreak();
            rest.push((op, self.pipeline()?));
        }
    }

    /// `pipeline`: `time [-p]` and `!` prefixes, then commands joined by `|` and `|&`.
    fn pipeline(&mut self) -> Fast<Pipeline> {
        let (mut bang, mut time, mut time_posix) = (false, false, false);
        loop {
            let before = self.pos;
            self.gap();
            match self.token() {
                b"time" => {
                    self.pos += 4;
                    time = true;
                    let after = self.pos;
                    self.gap();
                    if self.token() == b"-p" {
                        self.pos += 2;
                        time_posix = true;
                    } else {
                        self.pos = after;
                    }
                }
                b"!" => {
                    self.pos += 1;
                    bang = !bang;
                }
                _ => {
                    self.pos = before;
                    break;
                }
            }
        }
        if bang || time {
            // A prefix before `pipeline_end` is a command word (`time;`): the grammar's.
            let before = self.pos;
            self.gap();
            let end = matches!(
                self.peek(),
                None | Some(b';' | b'&' | b'|' | b'\n' | b')' | b'`')
            );
            self.pos = before;
            if end {
                return None;
            }
        }
        let first = self.command()?;
        let mut rest = Vec::new();
        loop {
            let before = self.pos;
            self.gap();
            let (op, len) = match (self.peek(), self.peek_at(1)) {
                (Some(b'|'), Some(b'&')) => (PipeOp::PipeBoth, 2),
                (Some(b'|'), next) if next != Some(b'|') => (PipeOp::Pipe, 1),
                _ => {
                    self.pos = before;
                    return Some(Pipeline {
                        bang,
                        time,
                        time_posix,
                        first,
                        rest,
                    });
                }
            };
            self.pos += len;
            self.linebreak();
            rest.push((op, self.command()?));
        }
    }

    /// `command`: a simple command, or a subshell, group, `if`, `while`, `until` or `for`
    /// and its redirections.
    fn command(&mut self) -> Fast<Command> {
        let start = self.pos;
        self.gap();
        match (self.peek(), self.token()) {
            (Some(b'('), _) => self.compound(start, Self::subshell),
            (_, b"{") => self.compound(start, Self::group),
            (_, b"if") => self.compound(start, Self::if_command),
            (_, b"while" | b"until") => self.compound(start, Self::while_command),
            (_, b"for") => self.compound(start, Self::for_command),
            _ => Some(Command::Simple(self.simple_command()?)),
        }
    }

    /// True where a simple command ends (after blanks); declines on `(`, which makes it a
    /// function definition or an error.
    fn at_command_end(&self) -> Fast<bool> {
        match self.peek() {
            None | Some(b'\n' | b';' | b'|' | b')') => Some(true),
            Some(b'&') => Some(self.peek_at(1) != Some(b'>')),
            Some(b'(') => None,
            Some(_) => Some(false),
        }
    }

    /// `simple_command`: prefixes (alternative 1), then the command word (a declaration
    /// builtin's: alternatives 1 and 2; any other: alternatives 1 and 3), then its suffix.
    fn simple_command(&mut self) -> Fast<SimpleCommand> {
        let start = self.pos;
        let mut cmd = SimpleCommand::default();
        let mut end = start;
        // Prefix items: `&redirect_start ~ redirect | &assignment_start ~ assignment`.
        loop {
            if !cmd.assignments.is_empty() || !cmd.redirects.is_empty() {
                self.gap();
            }
            if self.at_command_end()? {
                break;
            }
            if let Some(redirect) = self.redirect()? {
                cmd.redirects.push(redirect);
            } else if self.assignment_start()? {
                cmd.assignments.push(self.assignment()?);
            } else {
                break;
            }
            end = self.pos;
        }
        if cmd.assignments.is_empty() && cmd.redirects.is_empty() && self.at_command_end()? {
            return None;
        }
        if !self.at_command_end()? {
            // The command word: not reserved (the grammar allows one after prefixes; the
            // scanner declines it everywhere), not starting with `}`.
            let token = self.token();
            if RESERVED.contains(&token) || self.peek() == Some(b'}') {
                return None;
            }
            let declaration = DECLARATION.contains(&token);
            cmd.words.push(self.word()?);
            end = self.pos;
            // Suffix: `(gap ~ (&redirect_start ~ redirect | word))*`, and for declaration
            // builtins `decl_suffix`, where an assignment is an argument.
            loop {
                let before = self.pos;
                self.gap();
                if self.at_command_end()? {
                    self.pos = before;
                    break;
                }
                if let Some(redirect) = self.redirect()? {
                    cmd.redirects.push(redirect);
                } else if declaration && self.assignment_start()? {
                    let assignment = self.assignment()?;
                    cmd.words.push(word::assignment_word(assignment));
                } else {
                    cmd.words.push(self.word()?);
                }
                end = self.pos;
            }
        }
        self.pos = end;
        cmd.span = self.span(start, end);
        Some(cmd)
    }

    /// `assignment_start`: a name, then `=` or `+=`. Declines on a subscript (`a[i]=`).
    fn assignment_start(&self) -> Fast<bool> {
        let name = self.name_len(self.pos);
        if name == 0 {
            return Some(false);
        }
        let at = self.pos + name;
        match (self.bytes.get(at), self.bytes.get(at + 1)) {
            (Some(b'='), _) | (Some(b'+'), Some(b'=')) => Some(true),
            (Some(b'['), _) => None,
            _ => Some(false),
        }
    }

    /// The length of the `assign_name` at `at` (0 when there is none).
    fn name_len(&self, at: usize) -> usize {
        let rest = self.bytes.get(at..).unwrap_or_default();
        match rest.first() {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => rest
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .unwrap_or(rest.len()),
            _ => 0,
        }
    }

    /// `assignment` after `assignment_start`: `name=word`, `name+=word` or `name=` (arrays
    /// decline).
    fn assignment(&mut self) -> Fast<AAssignment> {
        let start = self.pos;
        let name_end = start + self.name_len(start);
        let name = self.slice(start, name_end)?.to_owned();
        self.pos = name_end;
        let append = self.peek() == Some(b'+');
        self.pos += if append { 2 } else { 1 };
        let value = match self.peek() {
            Some(b'(') => return None,
            Some(_) if self.at_word() => Some(self.word()?),
            _ => None,
        };
        // `&word_end` (after a value the word already ended at one).
        match (self.peek(), self.peek_at(1)) {
            (Some(b'<' | b'>'), Some(b'(')) => return None,
            (
                None | Some(b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'(' | b')' | b'<' | b'>'),
                _,
            ) => {}
            _ => return None,
        }
        let span = self.span(start, self.pos);
        let raw = self.raw(start, self.pos)?.to_owned();
        let (value, subs) = match value {
            Some(word) => (Some(word.word), word.subs),
            None => (None, Vec::new()),
        };
        Some(AAssignment {
            assignment: Assignment {
                name,
                index: None,
                append,
                value,
                array: None,
                span,
            },
            raw,
            subs,
        })
    }

    /// `&redirect_start ~ redirect` for file redirections: `Some(None)` when no redirection
    /// starts here (the text is a word), `None` (decline) for heredocs, here-strings, `{var}`
    /// descriptors and a missing target.
    fn redirect(&mut self) -> Fast<Option<ARedirect>> {
        let start = self.pos;
        let mut at = start;
        let mut fd = None;
        match self.peek() {
            Some(b'0'..=b'9') => {
                let digits = self
                    .bytes
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                at = start + digits;
                if !matches!(self.bytes.get(at), Some(b'<' | b'>')) {
                    return Some(None);
                }
                fd = Some(RedirectFd::Number(
                    self.slice(start, at)?.parse().unwrap_or(u32::MAX),
                ));
            }
            Some(b'{') => {
                // `{name}>` is an `io_fd`; any other `{` starts a word.
                let name = self.name_len(start + 1);
                let close = start + 1 + name;
                let is_fd = name > 0
                    && self.bytes.get(close) == Some(&b'}')
                    && matches!(self.bytes.get(close + 1), Some(b'<' | b'>'));
                return if is_fd { None } else { Some(None) };
            }
            Some(b'<' | b'>') => {}
            Some(b'&') if self.peek_at(1) == Some(b'>') => {}
            _ => return Some(None),
        }
        let op_bytes = self.bytes.get(at..).unwrap_or_default();
        // `redir_op`, longest first; `<<…` is a heredoc or here-string.
        let (op, len) = match op_bytes {
            [b'&', b'>', b'>', ..] => (RedirectOp::AppendBoth, 3),
            [b'&', b'>', ..] => (RedirectOp::WriteBoth, 2),
            [b'>', b'>', ..] => (RedirectOp::Append, 2),
            [b'>', b'|', ..] => (RedirectOp::Clobber, 2),
            [b'>', b'&', ..] => (RedirectOp::DupOut, 2),
            // A process substitution: a word (after a descriptor number too: `2>(x)`).
            [b'>' | b'<', b'(', ..] => return Some(None),
            [b'<', b'<', ..] => return None,
            [b'>', ..] => (RedirectOp::Write, 1),
            [b'<', b'>', ..] => (RedirectOp::ReadWrite, 2),
            [b'<', b'&', ..] => (RedirectOp::DupIn, 2),
            [b'<', ..] => (RedirectOp::Read, 1),
            _ => return None,
        };
        self.pos = at + len;
        self.gap();
        if !self.at_word() {
            return None;
        }
        let target = self.word()?;
        Some(Some(ARedirect {
            op,
            fd,
            target: ATarget::Word(target),
            raw: self.raw(start, self.pos)?.to_owned(),
            span: self.span(start, self.pos),
        }))
    }
}

#[cfg(test)]
mod tests;
