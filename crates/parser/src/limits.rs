//! Resource limits and the nesting pre-scan that runs before pest.
//!
//! pest recurses once per grammar level, so deep nesting must be refused before it is parsed.
//! The pre-scan is a cheap linear byte scan that estimates the nesting depth from
//! brackets, quotes, backquotes and block keywords; it errs on the side of a larger depth
//! (quotes are tracked, so brackets inside quotes do not count, but any `(`, `{` or `[` in code
//! does). The tree builder counts depth again exactly, and pest's own stack guard is a last
//! line of defence.

/// Inputs longer than this are not parsed (bytes).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Deepest nesting of lists, compound commands and substitutions.
pub const MAX_DEPTH: usize = 64;
/// Most clauses one command line may produce.
pub const MAX_CLAUSES: usize = 4096;
/// pest's call limit (counted rule calls per parse run). The grammar is written so that no
/// construct is parsed twice from the same position per nesting level (see the notes in
/// `bash.pest`), so real commands need a few calls per byte: every tldr and NL2Bash line needs
/// fewer than 3,000, and a 60,000-byte script made of them between 100,000 and 300,000. The
/// limit bounds what an input that still makes pest backtrack can cost (tens of
/// milliseconds); it answers an incomplete parse.
pub const CALL_LIMIT: usize = 2_000_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Code,
    DoubleQuoted,
    Backquoted,
    /// Inside `${…}`, where `(` and `[` are text and `{` nests another parameter, as in the
    /// grammar's `param_inner` (counting them as code could end a quote early in the scan:
    /// `"${[""}"` then ran to the end as a quoted string, hiding the brackets after it).
    Param,
}

/// The mode a `$` followed by `next` opens, if any (`$(`, `$[`, `${`; `${` followed by a blank,
/// a newline or `|` is a bash 5.3 command).
fn dollar_mode(next: Option<u8>, after: Option<u8>) -> Option<Mode> {
    match next {
        Some(b'(' | b'[') => Some(Mode::Code),
        Some(b'{') if matches!(after, Some(b' ' | b'\t' | b'\n' | b'|')) => Some(Mode::Code),
        Some(b'{') => Some(Mode::Param),
        _ => None,
    }
}

/// True for bytes after which a word starts.
const fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\r'
            | b'\n'
            | b';'
            | b'&'
            | b'|'
            | b'('
            | b')'
            | b'<'
            | b'>'
            | b'{'
            | b'}'
            | b'`'
    )
}

/// True for bytes after which a `#` starts a comment: bash's metacharacters and the backquote,
/// not `{` or `}`, which are word characters (`{#x` is a word; reading a comment there would
/// skip the rest of the line, and its brackets).
const fn starts_comment_after(b: u8) -> bool {
    is_delimiter(b) && !matches!(b, b'{' | b'}')
}

/// Returns the offset where the estimated nesting depth first exceeds `max`, if it does.
pub(crate) fn nesting_exceeds(input: &str, max: usize) -> Option<usize> {
    let bytes = input.as_bytes();
    // The estimate grows by one per opening byte (a quote, a backquote, a bracket) and per
    // block keyword (at least two letters and a delimiter, or the end): when even all of them
    // together stay within `max`, the scan below cannot exceed it.
    let keywords = bytes.len().div_ceil(3);
    if bytes.len().saturating_add(keywords) <= max {
        return None;
    }
    let openers = bytes
        .iter()
        .filter(|&&b| matches!(b, b'"' | b'`' | b'(' | b'{' | b'['))
        .count();
    if openers.saturating_add(keywords) <= max {
        return None;
    }
    let mut stack: Vec<Mode> = Vec::new();
    let mut keywords: usize = 0;
    let mut word_start = true;
    let mut comment_start = true;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let mode = stack.last().copied().unwrap_or(Mode::Code);
        let at_start = word_start;
        let at_comment = comment_start;
        word_start = is_delimiter(b);
        comment_start = starts_comment_after(b);
        match mode {
            Mode::Code | Mode::Backquoted => match b {
                b'\\' => i += 1,
                // (`$(` and `$[` open code at their bracket, below.)
                b'$' if dollar_mode(bytes.get(i + 1).copied(), bytes.get(i + 2).copied())
                    == Some(Mode::Param) =>
                {
                    stack.push(Mode::Param);
                    i += 1;
                }
                b'\'' => {
                    let ansi = i > 0 && bytes.get(i - 1) == Some(&b'$');
                    i += 1;
                    while let Some(&c) = bytes.get(i) {
                        if c == b'\'' {
                            break;
                        }
                        if ansi && c == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'"' => stack.push(Mode::DoubleQuoted),
                b'`' => {
                    if mode == Mode::Backquoted {
                        stack.pop();
                    } else {
                        stack.push(Mode::Backquoted);
                    }
                }
                b'(' | b'{' | b'[' => stack.push(Mode::Code),
                b')' | b'}' | b']' if mode == Mode::Code => {
                    stack.pop();
                }
                b'#' if at_comment => {
                    while bytes.get(i + 1).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                b'a'..=b'z' if at_start => {
                    let mut end = i + 1;
                    while bytes.get(end).is_some_and(u8::is_ascii_lowercase) {
                        end += 1;
                    }
                    let delimited = bytes.get(end).is_none_or(|&c| is_delimiter(c));
                    if delimited {
                        match bytes.get(i..end) {
                            Some(b"if" | b"case" | b"for" | b"while" | b"until" | b"select") => {
                                keywords += 1;
                            }
                            Some(b"fi" | b"esac" | b"done") => {
                                keywords = keywords.saturating_sub(1)
                            }
                            _ => {}
                        }
                    }
                    i = end - 1;
                }
                _ => {}
            },
            Mode::DoubleQuoted => match b {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'$' => {
                    if let Some(mode) =
                        dollar_mode(bytes.get(i + 1).copied(), bytes.get(i + 2).copied())
                    {
                        stack.push(mode);
                        i += 1;
                    }
                }
                b'`' => stack.push(Mode::Backquoted),
                _ => {}
            },
            Mode::Param => match b {
                b'\\' => i += 1,
                b'\'' => {
                    i += 1;
                    while bytes.get(i).is_some_and(|&c| c != b'\'') {
                        i += 1;
                    }
                }
                b'"' => stack.push(Mode::DoubleQuoted),
                b'`' => stack.push(Mode::Backquoted),
                b'$' => {
                    if let Some(mode) =
                        dollar_mode(bytes.get(i + 1).copied(), bytes.get(i + 2).copied())
                    {
                        stack.push(mode);
                        i += 1;
                    }
                }
                b'<' | b'>' if bytes.get(i + 1) == Some(&b'(') => {
                    stack.push(Mode::Code);
                    i += 1;
                }
                b'{' => stack.push(Mode::Param),
                b'}' => {
                    stack.pop();
                }
                _ => {}
            },
        }
        if stack.len().saturating_add(keywords) > max {
            return Some(i.min(input.len()));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prescan_counts_brackets_quotes_and_keywords() {
        assert_eq!(nesting_exceeds("echo hi", 2), None);
        assert_eq!(nesting_exceeds("((((", 3), Some(3));
        assert_eq!(nesting_exceeds("'(((('", 2), None);
        assert_eq!(nesting_exceeds("\"$($($(\"", 2), Some(4));
        assert_eq!(nesting_exceeds("if if if", 2), Some(7));
        assert_eq!(
            nesting_exceeds("if a; then b; fi; if c; then d; fi", 1),
            None
        );
        assert_eq!(nesting_exceeds("echo a#(((", 2), Some(9));
        assert_eq!(nesting_exceeds("echo # ((((", 2), None);
        // `#` after `{` is inside a word, not a comment: what follows is counted.
        assert_eq!(nesting_exceeds("{#x; ((((", 2), Some(6));
        assert_eq!(nesting_exceeds("x{#x; ((((", 2), Some(7));
        assert_eq!(nesting_exceeds(&"$(".repeat(10_000), 64), Some(129));
    }

    #[test]
    fn prescan_reads_brackets_inside_a_parameter_as_text() {
        // `[` inside `${…}` is text: the quotes after it still close, and the brackets that
        // follow are counted (they used to be read as quoted, so 200 of them passed).
        let deep = format!("\"${{[\"\"}}\"\n{}", "(".repeat(200));
        assert_eq!(nesting_exceeds(&deep, 64), Some(73));
        assert_eq!(
            nesting_exceeds(&format!("\"${{[}}\"\n{}", "(".repeat(200)), 64),
            Some(71)
        );
        assert_eq!(
            nesting_exceeds(&format!("${{x:-({}}}", "(".repeat(100)), 64),
            None
        );
        // Code inside a parameter still counts, and so does a nested parameter.
        assert_eq!(nesting_exceeds("${x:-$($($(}", 3), Some(10));
        assert_eq!(nesting_exceeds("${a${b${c${d", 3), Some(10));
        // `${` and a blank is a bash 5.3 command: code.
        assert_eq!(nesting_exceeds("${ (((", 3), Some(5));
        // Quotes inside a parameter.
        assert_eq!(nesting_exceeds("${x:-'}((((('}", 2), None);
        assert_eq!(nesting_exceeds("\"${x:-\"((((\"}\"", 3), None);
    }
}
