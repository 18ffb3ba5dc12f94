//! One-line display text for prompts.
//!
//! A person approves what they see, so the prompt must show exactly what will run, on one line,
//! with nothing hidden:
//!
//! - an argument that spans several lines (a message body, an inline script) is summarised as
//!   `(N lines, M chars)` when it is fully literal; an argument with a substitution inside is
//!   never summarised, so a payload cannot hide in a summary;
//! - every other line break, carriage return, tab, escape character (ANSI sequences), C0/C1
//!   control, bidirectional control (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C),
//!   zero-width or other invisible format character is shown escaped: `\n`, `\r`, `\t`,
//!   `\x1b`, `\u{202e}`.
//!
//! Backslashes are shown as they are (not doubled), so the display reads like the command.
//! Bytes that are not UTF-8 are shown as `\xHH` ([`escape_bytes`]). Whatever is shown is at most
//! [`MAX_SHOWN_BYTES`] long ([`cap`]): a 1 MiB command is not a 1 MiB prompt.

use std::fmt::Write as _;

/// Each item in backquotes, joined by `separator`: `` `a`, `b` ``.
pub(crate) fn code_list<T: std::fmt::Display>(
    items: impl IntoIterator<Item = T>,
    separator: &str,
) -> String {
    items
        .into_iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(separator)
}

/// The most bytes of display text a prompt or a hook reason shows; the rest is counted
/// (`… (N more bytes)`).
pub const MAX_SHOWN_BYTES: usize = 4096;

/// `text` cut to at most [`MAX_SHOWN_BYTES`] bytes (suffix included) at a character boundary,
/// ending with `… (N more bytes)` when anything was cut.
///
/// ```
/// use shellgate_policy::display::{MAX_SHOWN_BYTES, cap};
///
/// assert_eq!(cap("git status".to_owned()), "git status");
/// let long = cap("x".repeat(10_000));
/// assert!(long.starts_with(&"x".repeat(4074)));
/// assert!(long.ends_with("x… (5926 more bytes)"), "{long}");
/// assert!(long.len() <= MAX_SHOWN_BYTES);
/// ```
#[must_use]
pub fn cap(text: String) -> String {
    cap_to(text, MAX_SHOWN_BYTES)
}

/// [`cap`] to at most `limit` bytes (for text that something else is appended to); a `limit`
/// shorter than the `… (N more bytes)` count keeps only the count.
#[must_use]
pub fn cap_to(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    // The longest suffix this text can need (`N` has at most as many digits as its length).
    let room = limit.saturating_sub(format!("… ({} more bytes)", text.len()).len());
    let mut keep = room;
    while keep > 0 && !text.is_char_boundary(keep) {
        keep -= 1;
    }
    let omitted = text.len() - keep;
    let mut out = text.get(..keep).unwrap_or_default().to_owned();
    let _ = write!(out, "… ({omitted} more bytes)");
    out
}

/// Escapes `bytes` as [`escape`] does, with every byte that is not part of valid UTF-8 shown as
/// `\xHH`.
///
/// ```
/// use shellgate_policy::display::escape_bytes;
///
/// assert_eq!(escape_bytes(b"ls \xff\xfe\tok"), "ls \\xff\\xfe\\tok");
/// assert_eq!(escape_bytes("caf\u{e9}".as_bytes()), "caf\u{e9}");
/// ```
#[must_use]
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        push_escaped(&mut out, chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// Whether a text contains a line break: a line feed or a carriage return (seed 004: a
/// pattern never includes such an argument).
#[must_use]
pub fn is_multiline(text: &str) -> bool {
    text.contains(['\n', '\r'])
}

/// Whether a text is shown as a `(N lines, M chars)` summary: it spans two lines or more. A
/// value whose only line break is at its end is shown escaped instead (`ok\r`), so that a
/// lone trailing carriage return stays visible.
#[must_use]
pub fn is_summarized(text: &str) -> bool {
    is_multiline(text) && line_count(text) >= 2
}

/// The summary of a multi-line argument: `(N lines, M chars)`.
///
/// Lines are separated by `\n`, `\r\n` or a lone `\r`; a trailing line break does not start a
/// new line. Characters are Unicode scalar values of the whole text, line breaks included.
///
/// ```
/// use shellgate_policy::display::summarize;
///
/// assert_eq!(summarize("Hi,\nWe've rolled out a fix. Please verify."), "(2 lines, 42 chars)");
/// assert_eq!(summarize("a\r\nb\rc\n"), "(3 lines, 7 chars)");
/// ```
#[must_use]
pub fn summarize(text: &str) -> String {
    format!(
        "({} lines, {} chars)",
        line_count(text),
        text.chars().count()
    )
}

/// The number of lines in `text` (see [`summarize`]).
fn line_count(text: &str) -> usize {
    let mut lines = 1_usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let is_break = match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                true
            }
            '\n' => true,
            _ => false,
        };
        if is_break && chars.peek().is_some() {
            lines += 1;
        }
    }
    lines
}

/// Whether a character must be shown escaped: controls, line and paragraph separators, and
/// invisible format characters (bidirectional controls, zero-width characters, tags, variation
/// selectors, fillers).
#[must_use]
pub fn is_hidden(c: char) -> bool {
    if c.is_control() {
        return true;
    }
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x0600..=0x0605
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// Escapes every hidden character of `text` (see [`is_hidden`]).
///
/// `\n`, `\r` and `\t` keep their short forms; other ASCII controls become `\xHH`; every other
/// hidden character becomes `\u{H…}` (lowercase hex, as Rust writes it).
///
/// ```
/// use shellgate_policy::display::escape;
///
/// assert_eq!(escape("a\tb\r\n"), "a\\tb\\r\\n");
/// assert_eq!(escape("\u{1b}[31mred"), "\\x1b[31mred");
/// assert_eq!(escape("safe\u{202e}txt.exe"), "safe\\u{202e}txt.exe");
/// assert_eq!(escape("zero\u{200b}width"), "zero\\u{200b}width");
/// ```
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// Appends `text` to `out` with hidden characters escaped.
pub fn push_escaped(out: &mut String, text: &str) {
    // Fast path: printable ASCII needs no escaping.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        if !is_hidden(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
}

/// One replacement in a source text: the byte range and what to show instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The text shown instead (already one line).
    pub text: String,
}

/// Renders `source` on one line, capped ([`cap`]): the given replacements are applied (ranges
/// that overlap an earlier one, or that are not on character boundaries, are ignored), and
/// everything else is escaped with [`push_escaped`].
#[must_use]
pub fn render(source: &str, mut replacements: Vec<Replacement>) -> String {
    replacements.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(source.len());
    let mut at = 0_usize;
    for replacement in replacements {
        if replacement.start < at || replacement.end < replacement.start {
            continue;
        }
        let (Some(before), Some(_)) = (
            source.get(at..replacement.start),
            source.get(replacement.start..replacement.end),
        ) else {
            continue;
        };
        push_escaped(&mut out, before);
        out.push_str(&replacement.text);
        at = replacement.end;
    }
    if let Some(rest) = source.get(at..) {
        push_escaped(&mut out, rest);
    }
    cap(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of these tests (see the file).
    const CASES: &str = include_str!("../tests/cases/display.toml");

    #[test]
    fn summaries_count_lines_and_chars() {
        shellgate_testkit::check_pairs(CASES, "summarize", |text| Some(summarize(text)));
    }

    #[test]
    fn hidden_characters_are_escaped() {
        shellgate_testkit::check_pairs(CASES, "escape", |text| Some(escape(text)));
    }

    /// Regression (issue 13): a 1 MiB command gave a 1 MiB prompt display.
    #[test]
    fn shown_text_is_capped_at_a_character_boundary() {
        let exact = "é".repeat(MAX_SHOWN_BYTES / 2);
        assert_eq!(cap(exact.clone()), exact);
        let long = "é".repeat(MAX_SHOWN_BYTES);
        let capped = cap(long.clone());
        assert!(capped.len() <= MAX_SHOWN_BYTES);
        let (kept, suffix) = capped.split_once('…').unwrap();
        assert!(kept.chars().all(|c| c == 'é'));
        assert_eq!(suffix, format!(" ({} more bytes)", long.len() - kept.len()));
        // A limit shorter than the count keeps nothing but the count.
        assert_eq!(cap_to("abcdef".to_owned(), 3), "… (6 more bytes)");
        let rendered = render(&format!("echo {}", "a".repeat(1 << 20)), Vec::new());
        assert!(rendered.len() <= MAX_SHOWN_BYTES);
        let (kept, suffix) = rendered.split_once('…').unwrap();
        assert!(kept.starts_with("echo aaa"));
        assert_eq!(
            suffix,
            format!(" ({} more bytes)", (1 << 20) + 5 - kept.len())
        );
    }

    #[test]
    fn render_applies_replacements_in_order() {
        let source = "echo \"a\nb\" > x\ny";
        let out = render(
            source,
            vec![Replacement {
                start: 5,
                end: 10,
                text: summarize("a\nb"),
            }],
        );
        assert_eq!(out, "echo (2 lines, 3 chars) > x\\ny");
        // An overlapping or out-of-range replacement is ignored.
        let out = render(
            "abcdef",
            vec![
                Replacement {
                    start: 1,
                    end: 4,
                    text: "X".into(),
                },
                Replacement {
                    start: 2,
                    end: 3,
                    text: "Y".into(),
                },
                Replacement {
                    start: 5,
                    end: 99,
                    text: "Z".into(),
                },
            ],
        );
        assert_eq!(out, "aXef");
    }
}
