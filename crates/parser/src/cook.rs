//! Word cooking: the accumulator a word's parts are appended to ([`WordAcc`]), ANSI-C decoding,
//! escapes and the glob / brace / tilde checks.
//!
//! A word is split into parts (by the grammar in `build.rs`, or by the fast scanner in
//! `fast.rs`); each part is appended to a [`WordAcc`], so quote removal, backslash escapes, line
//! continuations and `$'…'` decoding happen in one pass, and both parsers cook alike.

use crate::ast::{AAssignment, AWord, Sub};
use crate::clause::{Span, Word, WordFeatures};

/// The word being assembled from its parts, in source order.
#[derive(Default)]
pub(crate) struct WordAcc {
    pub cooked: String,
    pub features: WordFeatures,
    pub subs: Vec<Sub>,
    /// Unquoted shape for the brace-expansion check (quoted parts as `x`), only built when the
    /// word may contain a `{`.
    shape: String,
    track_shape: bool,
    saw_brace: bool,
    /// Inside double quotes (`"…"`, `$"…"`): expansions are not split.
    in_double: bool,
    /// An unquoted `[` not yet closed: a `]` in a later part, quoted or not, may close a
    /// bracket expression the shell matches (`.gi[t""]` globs to `.git`).
    bracket_open: bool,
}

impl WordAcc {
    /// An empty word. `track_shape` must be true when the word's text may contain a `{` (it
    /// may always be true: without a `{` in an unquoted part the shape is never looked at).
    pub fn new(track_shape: bool, capacity: usize) -> Self {
        Self {
            cooked: String::with_capacity(capacity),
            track_shape,
            ..Self::default()
        }
    }

    /// A part that is not unquoted text (`'…'`, `"…"`, an escape, an expansion): a `]` in it
    /// after an unquoted `[` makes the word a glob (conservatively, even a quoted one).
    fn quoted_part(&mut self, text: &str) {
        if self.bracket_open && text.contains(']') {
            self.features.glob = true;
        }
    }

    /// A placeholder in the shape for a part that is not unquoted text.
    pub fn placeholder(&mut self) {
        if self.track_shape {
            self.shape.push('x');
        }
    }

    /// Plain text: unquoted (`first` when it is the word's first part: a leading `~` is a
    /// tilde prefix), inside double quotes or in a heredoc body.
    pub fn text(&mut self, text: &str, unquoted: bool, first: bool) {
        self.cooked.push_str(text);
        if unquoted {
            if first && text.starts_with('~') {
                self.features.tilde = true;
            }
            if first && zsh_equals(text) {
                self.features.parameter = true;
            }
            if self.bracket_open && text.contains(']') {
                self.features.glob = true;
            }
            if has_glob(text) {
                self.features.glob = true;
            }
            if let Some(open) = text.rfind('[') {
                self.bracket_open |= !text.get(open..).is_some_and(|rest| rest.contains(']'));
            }
            if self.track_shape {
                self.saw_brace |= text.contains('{');
                self.shape.push_str(text);
            }
        } else {
            self.quoted_part(text);
        }
    }

    /// An unquoted `\c` (`raw` includes the backslash).
    pub fn unquoted_escape(&mut self, raw: &str) {
        self.quoted_part(raw);
        push_unquoted_escape(raw, &mut self.cooked);
        self.placeholder();
    }

    /// A `\c` inside double quotes.
    pub fn dq_escape(&mut self, raw: &str) {
        self.quoted_part(raw);
        push_dq_escape(raw, &mut self.cooked);
    }

    /// A `\c` inside an unquoted heredoc body.
    pub fn heredoc_escape(&mut self, raw: &str) {
        push_heredoc_escape(raw, &mut self.cooked);
    }

    /// `'…'`, given the text between the quotes.
    pub fn single_quoted(&mut self, inner: &str) {
        self.quoted_part(inner);
        self.cooked.push_str(inner);
        self.placeholder();
    }

    /// `$'…'`, given the text between `$'` and `'`.
    pub fn ansi_c(&mut self, inner: &str) {
        self.quoted_part(inner);
        push_ansi_c(inner, &mut self.cooked);
        // Escapes whose decoding depends on the shell's version (bash 5.2 reads `\x{HH…}`;
        // `\c\\` is one control character): the word the program gets is not known.
        if ansi_c_unsure(inner) {
            self.features.parameter = true;
        }
        self.placeholder();
    }

    /// A `$` that starts no expansion.
    pub fn lone_dollar(&mut self) {
        self.cooked.push('$');
        self.placeholder();
    }

    /// An expansion, kept as its source text (the caller records its features and lists).
    /// `splits`: its result is split into words when it is not inside double quotes (false
    /// for a process substitution and an extended glob).
    pub fn expansion(&mut self, raw: &str, splits: bool) {
        self.quoted_part(raw);
        self.cooked.push_str(raw);
        self.placeholder();
        if splits && !self.in_double {
            self.features.splits = true;
        }
    }

    /// Enters (`true`) or leaves (`false`) double quotes; returns the previous state, to be
    /// restored when they close (`$"…"` may nest inside `$(…)` inside `"…"`).
    pub fn double_quotes(&mut self, inside: bool) -> bool {
        std::mem::replace(&mut self.in_double, inside)
    }

    /// The finished word.
    pub fn finish(mut self, raw: String, span: Span) -> AWord {
        if self.saw_brace && has_brace_expansion(&self.shape) {
            self.features.brace = true;
        }
        AWord {
            word: Word {
                raw,
                cooked: self.cooked,
                literal: !self.features.is_dynamic(),
                features: self.features,
                span,
            },
            subs: self.subs,
        }
    }
}

/// A word made of one unquoted text part `text`, written `raw` in the input: exactly what
/// [`WordAcc::new`], one [`WordAcc::text`] (unquoted, first) and [`WordAcc::finish`] give,
/// without the accumulator.
pub(crate) fn plain_word(raw: &str, text: &str, span: Span) -> AWord {
    let features = WordFeatures {
        parameter: zsh_equals(text),
        tilde: text.starts_with('~'),
        glob: has_glob(text),
        brace: text.contains('{') && has_brace_expansion(text),
        ..WordFeatures::default()
    };
    AWord {
        word: Word {
            raw: raw.to_owned(),
            cooked: text.to_owned(),
            literal: !features.is_dynamic(),
            features,
            span,
        },
        subs: Vec::new(),
    }
}

/// An assignment used as an argument (`declare -a x=(a b)`, `export a=b`): one word whose
/// cooked text is `name=value` or `name=(elements)`, with the features of the value.
pub(crate) fn assignment_word(assignment: AAssignment) -> AWord {
    let a = &assignment.assignment;
    let mut features = WordFeatures::default();
    let cooked = a.text_with(|word| word.cooked.clone());
    for word in a.value.iter().chain(a.array.iter().flatten()) {
        merge_features(&mut features, word.features);
    }
    features.tilde = false;
    AWord {
        word: Word {
            raw: assignment.raw,
            cooked,
            literal: !features.is_dynamic(),
            features,
            span: a.span,
        },
        subs: assignment.subs,
    }
}

fn merge_features(into: &mut WordFeatures, from: WordFeatures) {
    into.parameter |= from.parameter;
    into.command_substitution |= from.command_substitution;
    into.process_substitution |= from.process_substitution;
    into.arithmetic |= from.arithmetic;
    into.glob |= from.glob;
    into.brace |= from.brace;
    into.splits |= from.splits;
}

/// Unescapes the body of a backquote substitution as bash does (`\$`, `` \` ``, `\\`, and `\"`
/// when `dquote`): the text, and for each of its bytes, plus one past its end, the input offset
/// that `source` gives for the body offset the byte came from.
pub(crate) fn unescape_backquoted(
    body: &str,
    dquote: bool,
    source: impl Fn(usize) -> usize,
) -> (String, Vec<usize>) {
    let mut text = String::with_capacity(body.len());
    let mut table = Vec::with_capacity(body.len().saturating_add(1));
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut ch = c;
        let mut from = i;
        if c == '\\'
            && let Some(&(j, next)) = chars.peek()
            && (matches!(next, '$' | '`' | '\\') || (dquote && next == '"'))
        {
            chars.next();
            ch = next;
            from = j;
        }
        table.extend(std::iter::repeat_n(source(from), ch.len_utf8()));
        text.push(ch);
    }
    table.push(source(body.len()));
    (text, table)
}

/// Appends the cooked form of an unquoted `\c` escape (`raw` includes the backslash).
pub(crate) fn push_unquoted_escape(raw: &str, out: &mut String) {
    let rest = raw.strip_prefix('\\').unwrap_or(raw);
    match rest {
        // A line continuation disappears; a lone backslash at the end of input stays.
        "\n" => {}
        "" => out.push('\\'),
        other => out.push_str(other),
    }
}

/// Appends the cooked form of a `\c` escape inside double quotes: the backslash is removed
/// only before `$`, `` ` ``, `"`, `\` and a newline.
pub(crate) fn push_dq_escape(raw: &str, out: &mut String) {
    let rest = raw.strip_prefix('\\').unwrap_or(raw);
    match rest {
        "\n" => {}
        "$" | "`" | "\"" | "\\" => out.push_str(rest),
        other => {
            out.push('\\');
            out.push_str(other);
        }
    }
}

/// Appends the cooked form of a `\c` escape inside an unquoted heredoc body: like double
/// quotes, but `"` keeps its backslash.
pub(crate) fn push_heredoc_escape(raw: &str, out: &mut String) {
    let rest = raw.strip_prefix('\\').unwrap_or(raw);
    match rest {
        "\n" => {}
        "$" | "`" | "\\" => out.push_str(rest),
        other => {
            out.push('\\');
            out.push_str(other);
        }
    }
}

/// Decodes the inside of `$'…'` (without the `$'` and `'`) and appends it.
///
/// Supports `\a \b \e \E \f \n \r \t \v \\ \' \" \?`, octal `\nnn`, `\xHH`, `\uHHHH`,
/// `\UHHHHHHHH` and `\cX`. Like bash, a decoded NUL ends the string. Unknown escapes keep their
/// backslash. Bytes that are not valid UTF-8 become U+FFFD.
/// Whether `$'…'` text holds an escape that shells decode differently (`\x{…}`, `\c` before
/// a backslash or at the end, a `\u`/`\U` value that is no character: bash drops it).
fn ansi_c_unsure(inner: &str) -> bool {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        match chars.next() {
            Some('x') if chars.peek() == Some(&'{') => return true,
            Some('c') if matches!(chars.peek(), Some('\\') | None) => return true,
            Some(e @ ('u' | 'U')) => {
                let max = if e == 'u' { 4 } else { 8 };
                if take_hex(&mut chars, max).is_some_and(|v| char::from_u32(v).is_none() || v == 0)
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

pub(crate) fn push_ansi_c(inner: &str, out: &mut String) {
    let mut bytes: Vec<u8> = Vec::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            push_char_bytes(&mut bytes, c);
            continue;
        }
        let Some(e) = chars.next() else {
            bytes.push(b'\\');
            break;
        };
        let simple = match e {
            'a' => Some(0x07),
            'b' => Some(0x08),
            'e' | 'E' => Some(0x1b),
            'f' => Some(0x0c),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(0x0b),
            '\\' => Some(b'\\'),
            '\'' => Some(b'\''),
            '"' => Some(b'"'),
            '?' => Some(b'?'),
            _ => None,
        };
        if let Some(b) = simple {
            bytes.push(b);
            continue;
        }
        match e {
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                bytes.push((value & 0xff) as u8);
            }
            'x' => match take_hex(&mut chars, 2) {
                Some(v) => bytes.push((v & 0xff) as u8),
                None => bytes.extend_from_slice(b"\\x"),
            },
            'u' | 'U' => {
                let max = if e == 'u' { 4 } else { 8 };
                match take_hex(&mut chars, max) {
                    Some(v) => match char::from_u32(v) {
                        Some(ch) => push_char_bytes(&mut bytes, ch),
                        None => push_char_bytes(&mut bytes, char::REPLACEMENT_CHARACTER),
                    },
                    None => {
                        bytes.push(b'\\');
                        push_char_bytes(&mut bytes, e);
                    }
                }
            }
            'c' => match chars.next() {
                Some('?') => bytes.push(0x7f),
                Some(x) if x.is_ascii() => bytes.push((x as u8) & 0x1f),
                Some(x) => {
                    bytes.extend_from_slice(b"\\c");
                    push_char_bytes(&mut bytes, x);
                }
                None => bytes.extend_from_slice(b"\\c"),
            },
            other => {
                bytes.push(b'\\');
                push_char_bytes(&mut bytes, other);
            }
        }
    }
    // bash ends the string at a decoded NUL.
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    out.push_str(&String::from_utf8_lossy(&bytes));
}

fn push_char_bytes(bytes: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

fn take_hex(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, max: usize) -> Option<u32> {
    let mut value: Option<u32> = None;
    for _ in 0..max {
        match chars.peek().and_then(|d| d.to_digit(16)) {
            Some(d) => {
                value = Some(value.unwrap_or(0).wrapping_mul(16).wrapping_add(d));
                chars.next();
            }
            None => break,
        }
    }
    value
}

/// True when a word's unquoted first part starts `=NAME`: zsh (the login shell on macOS)
/// expands it to the path of the command NAME (`cp x =git` overwrites the `git` on `PATH`), so
/// the word is not known (counted as an expansion). `=`, `==` and `=>` are left alone.
pub(crate) fn zsh_equals(text: &str) -> bool {
    text.strip_prefix('=')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True when unquoted text contains a glob character (`*`, `?`, or a `[` closed later).
pub(crate) fn has_glob(text: &str) -> bool {
    let mut open = false;
    for &b in text.as_bytes() {
        match b {
            b'*' | b'?' => return true,
            b'[' => open = true,
            b']' if open => return true,
            _ => {}
        }
    }
    false
}

/// True when a word's unquoted shape (quoted parts replaced by `x`) contains a brace
/// expansion: `{a,b}` or `{x..y}`.
pub(crate) fn has_brace_expansion(shape: &str) -> bool {
    let bytes = shape.as_bytes();
    let mut opens: Vec<usize> = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => opens.push(i),
            b'}' => {
                if let Some(open) = opens.pop() {
                    let inner = bytes.get(open + 1..i).unwrap_or_default();
                    if inner.contains(&b',') || inner.windows(2).any(|w| w == b"..") {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ansi(s: &str) -> String {
        let mut out = String::new();
        push_ansi_c(s, &mut out);
        out
    }

    #[test]
    fn ansi_c_decodes_every_escape_form() {
        assert_eq!(ansi(r"\x72m"), "rm");
        assert_eq!(ansi(r"\162m"), "rm");
        assert_eq!(ansi(r"\u0072\U0000006d"), "rm");
        assert_eq!(ansi(r"a\tb\nc"), "a\tb\nc");
        assert_eq!(ansi(r"\e[0m"), "\u{1b}[0m");
        assert_eq!(ansi(r"\cA\c?"), "\u{1}\u{7f}");
        assert_eq!(ansi(r"\'\\\q"), "'\\\\q");
        assert_eq!(ansi(r"ab\x00cd"), "ab");
        assert_eq!(ansi(r"\xc3\xa9"), "é");
        assert_eq!(ansi(r"\xZ"), "\\xZ");
    }

    #[test]
    fn glob_and_brace_checks() {
        assert!(has_glob("*.rs"));
        assert!(has_glob("a[0-9]"));
        assert!(!has_glob("["));
        assert!(!has_glob("plain"));
        assert!(!has_glob("]["));
        assert!(has_glob("][]"));
        assert!(has_brace_expansion("{a,b}"));
        assert!(has_brace_expansion("x{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("{abc}"));
    }

    #[test]
    fn ansi_c_escapes_shells_read_differently_are_unsure() {
        assert!(ansi_c_unsure(r"\x{27}"));
        assert!(ansi_c_unsure(r"a\c\\b"));
        assert!(ansi_c_unsure(r"\c"));
        assert!(!ansi_c_unsure(r"\x27\cA\n"));
        assert!(!ansi_c_unsure(r"\\x{27}"));
        assert!(ansi_c_unsure(r".\UFFFFFFFF."));
        assert!(ansi_c_unsure(r"\uD800"));
        assert!(!ansi_c_unsure(r"\u00e9\U0001F600"));
    }

    #[test]
    fn a_plain_word_is_what_the_accumulator_gives() {
        for text in [
            "a", "~", "~/x", "a~", "*.rs", "f[0-9]", "{a,b}", "x{1..3}", "{}", "{a}",
        ] {
            for track_shape in [true, false] {
                let span = Span::new(3, 3 + text.len());
                let mut acc = WordAcc::new(track_shape || text.contains('{'), 0);
                acc.text(text, true, true);
                let slow = acc.finish(text.to_owned(), span);
                let fast = plain_word(text, text, span);
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text}");
            }
        }
    }

    #[test]
    fn a_bracket_split_by_a_quoted_part_is_still_a_glob() {
        let glob = |parts: &[(&str, u8)]| {
            let mut acc = WordAcc::new(false, 0);
            for (i, (text, kind)) in parts.iter().enumerate() {
                match kind {
                    0 => acc.text(text, true, i == 0),
                    1 => acc.text(text, false, false),
                    2 => acc.single_quoted(text),
                    3 => acc.unquoted_escape(text),
                    4 => acc.ansi_c(text),
                    _ => acc.expansion(text, true),
                }
            }
            acc.features.glob
        };
        // `.gi[t""]`, `.gi["t"]`, `.gi['t']`, `.gi[\t]`, `.gi[$'t']`, `.gi[$x]`: bash globs
        // each (the quoted character is a member of the bracket).
        assert!(glob(&[(".gi[t", 0), ("", 1), ("]/hooks", 0)]));
        assert!(glob(&[(".gi[", 0), ("t", 1), ("]", 0)]));
        assert!(glob(&[(".gi[", 0), ("t", 2), ("]", 0)]));
        assert!(glob(&[(".gi[", 0), ("\\t", 3), ("]", 0)]));
        assert!(glob(&[(".gi[", 0), ("t", 4), ("]", 0)]));
        assert!(glob(&[(".gi[", 0), ("$x", 5), ("]", 0)]));
        // A quoted `]` after an unquoted `[` counts too (conservatively).
        assert!(glob(&[("a[", 0), ("]", 1)]));
        // A quoted `[` opens nothing; a bracket closed in its own part is a glob already.
        assert!(!glob(&[("[", 1), ("x]", 0)]));
        assert!(!glob(&[("a[b", 1), ("]", 0)]));
        assert!(glob(&[("a[b]", 0), ("c", 1)]));
        assert!(!glob(&[("a", 0), ("[b]", 2)]));
        assert!(!glob(&[("a]", 0), ("[", 1), ("b", 0)]));
    }

    #[test]
    fn escapes_in_each_quoting_context() {
        let mut s = String::new();
        push_unquoted_escape("\\r", &mut s);
        push_unquoted_escape("\\\n", &mut s);
        push_dq_escape("\\$", &mut s);
        push_dq_escape("\\n", &mut s);
        push_heredoc_escape("\\\"", &mut s);
        assert_eq!(s, "r$\\n\\\"");
    }
}
