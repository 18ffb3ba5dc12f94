//! Words for the fast scanner: the grammar's `word`, `word_part`, `text`, quotes, escapes and
//! the `$` forms of the subset, cooked with the same [`WordAcc`] as the grammar's words.

use super::{Fast, MAX_FAST_DEPTH, Scanner};
use crate::ast::{AAssignment, AWord, Sub, SubKind};
use crate::cook::{self, WordAcc};

/// True for the bytes of the grammar's `text` class (`!`, `*`, `?`, `@` and `+` are text
/// unless a `(` follows: see [`Scanner::text_end`]; a carriage return never gets here).
const fn is_text(b: u8) -> bool {
    matches!(
        b,
        b'a'..=b'{'
            | b','..=b':'
            | b'A'..=b'['
            | b']'..=b'_'
            | b'}'..=b'~'
            | b'#'
            | b'%'
            | b'='
            | b'!'
            | b'*'
            | b'?'
            | b'@'
            | b'+'
            | 0x80..=0xff
            | 0x00..=0x08
            | 0x0b
            | 0x0c
            | 0x0e..=0x1f
            | 0x7f
    )
}

/// `!`, `*`, `?`, `@`, `+`: an extended glob when a `(` follows.
const fn is_extglob_char(b: u8) -> bool {
    matches!(b, b'!' | b'*' | b'?' | b'@' | b'+')
}

/// What a byte is in a text run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Ends the run.
    Stop,
    /// Text.
    Text,
    /// Text unless a `(` follows ([`is_extglob_char`]).
    Glob,
}

/// [`Class`] of every byte, for [`Scanner::text_end`].
#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: an index out of bounds would not compile"
)]
const CLASSES: [Class; 256] = {
    let mut table = [Class::Stop; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if is_extglob_char(byte) {
            table[b] = Class::Glob;
        } else if is_text(byte) {
            table[b] = Class::Text;
        }
        b += 1;
    }
    table
};

/// True when a word part other than text can start with `b` (`<` and `>` only before `(`, and
/// `!*?@+` only before `(`: checked by the caller with the next byte, so this errs on "yes").
const fn continues_word(b: u8) -> bool {
    is_text(b) || matches!(b, b'$' | b'\'' | b'"' | b'`' | b'\\' | b'<' | b'>')
}

/// How a part is cooked (the grammar's `dollar` outside double quotes, `dollar_dq_ctx` inside).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Unquoted,
    Double,
}

/// An assignment used as an argument of a declaration builtin.
pub(super) fn assignment_word(assignment: AAssignment) -> AWord {
    cook::assignment_word(assignment)
}

impl Scanner<'_> {
    /// True when a word part can start here.
    pub(super) fn at_word(&self) -> bool {
        match self.peek() {
            Some(b'$' | b'\'' | b'"' | b'`' | b'\\') => true,
            Some(b'<' | b'>') => self.peek_at(1) == Some(b'('),
            Some(b) => is_text(b),
            None => false,
        }
    }

    /// `word = word_part ~ (!word_end ~ word_part)* ~ &word_end`.
    pub(super) fn word(&mut self) -> Fast<AWord> {
        let start = self.pos;
        // The common case: one text part, the whole word.
        if self.peek().is_some_and(is_text) {
            let end = self.text_end();
            if end > start && !self.bytes.get(end).is_some_and(|&b| continues_word(b)) {
                self.pos = end;
                return Some(cook::plain_word(
                    self.raw(start, end)?,
                    self.slice(start, end)?,
                    self.span(start, end),
                ));
            }
        }
        let mut acc = WordAcc::new(self.braces, 0);
        let mut first = true;
        while let Some(b) = self.peek() {
            match b {
                b'\'' => self.single_quoted(&mut acc)?,
                b'"' => {
                    self.pos += 1;
                    self.double_quoted(&mut acc)?;
                }
                b'$' => self.dollar(&mut acc, Quoting::Unquoted)?,
                b'\\' => {
                    let raw = self.escape()?;
                    acc.unquoted_escape(raw);
                }
                b'`' => self.backquoted(&mut acc, false)?,
                b'<' | b'>' if self.peek_at(1) == Some(b'(') => {
                    self.process_substitution(&mut acc)?;
                }
                _ if is_text(b) => {
                    let end = self.text_end();
                    if end == self.pos {
                        // An extended glob.
                        return None;
                    }
                    acc.text(self.slice(self.pos, end)?, true, first);
                    self.pos = end;
                }
                _ => break,
            }
            first = false;
        }
        if self.pos == start {
            return None;
        }
        let raw = self.raw(start, self.pos)?.to_owned();
        Some(acc.finish(raw, self.span(start, self.pos)))
    }

    /// Where the `text` run starting here ends.
    fn text_end(&self) -> usize {
        let mut at = self.pos;
        while let Some(&b) = self.bytes.get(at) {
            match CLASSES.get(usize::from(b)) {
                Some(Class::Text) => {}
                Some(Class::Glob) if self.bytes.get(at + 1) != Some(&b'(') => {}
                _ => break,
            }
            at += 1;
        }
        at
    }

    /// A `\c` escape (outside or inside double quotes; `c` may be a newline): its raw text.
    /// Declines on a `\` at the end of the input.
    fn escape(&mut self) -> Fast<&str> {
        let start = self.pos;
        let c = self.src.get(start + 1..)?.chars().next()?;
        self.pos = start + 1 + c.len_utf8();
        self.slice(start, self.pos)
    }

    /// `sq`: `'…'`.
    fn single_quoted(&mut self, acc: &mut WordAcc) -> Fast<()> {
        let open = self.pos + 1;
        let len = self.bytes.get(open..)?.iter().position(|&b| b == b'\'')?;
        acc.single_quoted(self.slice(open, open + len)?);
        self.pos = open + len + 1;
        Some(())
    }

    /// `dq_inner ~ "\""` after the opening quote of `"…"` or `$"…"`.
    fn double_quoted(&mut self, acc: &mut WordAcc) -> Fast<()> {
        let outer = acc.double_quotes(true);
        self.double_quoted_inner(acc)?;
        acc.double_quotes(outer);
        Some(())
    }

    fn double_quoted_inner(&mut self, acc: &mut WordAcc) -> Fast<()> {
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    acc.placeholder();
                    return Some(());
                }
                b'\\' => {
                    let raw = self.escape()?;
                    acc.dq_escape(raw);
                }
                b'$' => self.dollar(acc, Quoting::Double)?,
                b'`' => self.backquoted(acc, true)?,
                _ => {
                    let rest = self.bytes.get(self.pos..)?;
                    let len = rest
                        .iter()
                        .position(|&b| matches!(b, b'"' | b'\\' | b'$' | b'`'))
                        .unwrap_or(rest.len());
                    acc.text(self.slice(self.pos, self.pos + len)?, false, false);
                    self.pos += len;
                }
            }
        }
    }

    /// The `$` forms: `$'…'` and `$"…"` (quotes outside double quotes), `$( … )`, `${…}`,
    /// `$name` and the special parameters, and a lone `$`.
    fn dollar(&mut self, acc: &mut WordAcc, quoting: Quoting) -> Fast<()> {
        let start = self.pos;
        match (self.peek_at(1), quoting) {
            (Some(b'\''), Quoting::Unquoted) => {
                // `dollar_sq`: `$'` ~ ("\\" ~ ANY | !"'" ~ ANY)* ~ `'`.
                let mut at = start + 2;
                loop {
                    match self.bytes.get(at)? {
                        b'\'' => break,
                        b'\\' => at += 2,
                        _ => at += 1,
                    }
                }
                acc.ansi_c(self.slice(start + 2, at)?);
                self.pos = at + 1;
            }
            (Some(b'"'), Quoting::Unquoted) => {
                self.pos = start + 2;
                self.double_quoted(acc)?;
            }
            (Some(b'('), _) => {
                if self.peek_at(2) == Some(b'(') {
                    // `$((`: arithmetic or a subshell, as `arith_probe` decides.
                    return None;
                }
                self.command_substitution(acc)?;
            }
            (Some(b'{'), _) => self.braced_parameter(acc)?,
            (Some(b'['), _) => return None,
            (Some(b), _) if b.is_ascii_alphabetic() || b == b'_' => {
                let end = start + 1 + self.name_len(start + 1);
                self.parameter(acc, end)?;
            }
            (Some(b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!'), _) => {
                self.parameter(acc, start + 2)?;
            }
            _ => {
                acc.lone_dollar();
                self.pos = start + 1;
            }
        }
        Some(())
    }

    /// `param_simple`, ending at `end`.
    fn parameter(&mut self, acc: &mut WordAcc, end: usize) -> Fast<()> {
        acc.expansion(self.raw(self.pos, end)?, true);
        acc.features.parameter = true;
        self.pos = end;
        Some(())
    }

    /// `param_braced` whose `param_inner` is plain `param_text` (`${name}`, `${a:-b}`, `${#a}`).
    fn braced_parameter(&mut self, acc: &mut WordAcc) -> Fast<()> {
        let start = self.pos;
        let inner = start + 2;
        if matches!(self.bytes.get(inner), Some(b'|' | b' ' | b'\t' | b'\n')) {
            // `funsub`: `${ cmd; }`.
            return None;
        }
        let rest = self.bytes.get(inner..)?;
        let len = rest.iter().position(|&b| {
            matches!(
                b,
                b'{' | b'}' | b'\'' | b'"' | b'\\' | b'$' | b'`' | b'<' | b'>'
            )
        })?;
        // A `<` or `>` is text unless it opens a process substitution: declined alike.
        if rest.get(len) != Some(&b'}') {
            return None;
        }
        let end = inner + len + 1;
        acc.expansion(self.raw(start, end)?, true);
        acc.features.parameter = true;
        self.pos = end;
        Some(())
    }

    /// `comsub`: `$( sub_list )`.
    fn command_substitution(&mut self, acc: &mut WordAcc) -> Fast<()> {
        self.substitution(acc, SubKind::Command)
    }

    /// `procsub`: `<( sub_list )` or `>( sub_list )`.
    fn process_substitution(&mut self, acc: &mut WordAcc) -> Fast<()> {
        self.substitution(acc, SubKind::Process)
    }

    /// A two-byte opener (`$(`, `<(`, `>(`), a `sub_list` and `)`.
    fn substitution(&mut self, acc: &mut WordAcc, kind: SubKind) -> Fast<()> {
        let start = self.pos;
        self.enter()?;
        self.pos = start + 2;
        let list = self.body(Some(b')'))?;
        self.depth -= 1;
        self.pos += 1;
        acc.expansion(self.raw(start, self.pos)?, kind == SubKind::Command);
        match kind {
            SubKind::Command => acc.features.command_substitution = true,
            SubKind::Process => acc.features.process_substitution = true,
        }
        acc.subs.push(Sub { kind, list });
        Some(())
    }

    /// One more level of substitution nesting.
    pub(super) fn enter(&mut self) -> Fast<()> {
        if self.depth >= MAX_FAST_DEPTH {
            return None;
        }
        self.depth += 1;
        Some(())
    }

    /// `backtick`: `` `…` ``. The body is unescaped (`\$`, `` \` `` and `\\` lose their
    /// backslash) and scanned as a program whose spans map back to the input, as the tree
    /// builder's `build_backtick` does; inside double quotes (`dquote`), `\"` loses its
    /// backslash too. Backquotes inside backquotes decline.
    fn backquoted(&mut self, acc: &mut WordAcc, dquote: bool) -> Fast<()> {
        if self.map.is_some() {
            return None;
        }
        let start = self.pos;
        let body_start = start + 1;
        // `backtick_text`: anything but `\` and `` ` ``, or `\` and any character.
        let mut at = body_start;
        loop {
            match self.bytes.get(at)? {
                b'`' => break,
                b'\\' => at += 2,
                _ => at += 1,
            }
        }
        let body = self.slice(body_start, at)?;
        let (text, table) =
            cook::unescape_backquoted(body, dquote, |from| self.offset(body_start + from));
        self.enter()?;
        let list = Scanner::new(&text, self.original, Some(&table), self.depth).body(None)?;
        self.depth -= 1;
        self.pos = at + 1;
        acc.expansion(self.raw(start, self.pos)?, true);
        acc.features.command_substitution = true;
        acc.subs.push(Sub {
            kind: SubKind::Command,
            list,
        });
        Some(())
    }
}
