//! Explains a failed parse: is something left open at the end of the input?
//!
//! This only chooses the diagnostic's kind and message; it never decides what is a command.
//! A linear scan tracks quotes, brackets, backquotes, block keywords and heredocs; if one is
//! still open at the end, the parse failed because the input is unterminated.

use crate::error::{Diagnostic, DiagnosticKind};

#[derive(Clone, Copy)]
enum Open {
    Paren,
    Brace,
    DoubleQuote,
    Backquote,
    Block(&'static str, &'static str),
}

/// An `Unterminated` diagnostic when the input ends inside a quote, substitution, block or
/// heredoc, or right after `&&`, `||` or `|`; `None` otherwise.
pub(crate) fn unterminated(input: &str) -> Option<Diagnostic> {
    let bytes = input.as_bytes();
    let mut stack: Vec<(Open, usize)> = Vec::new();
    let mut heredocs: Vec<(String, bool, usize)> = Vec::new();
    let mut i = 0;
    let report = |message: String, offset: usize| {
        Some(Diagnostic {
            kind: DiagnosticKind::Unterminated,
            message,
            offset,
        })
    };
    while let Some(&b) = bytes.get(i) {
        let in_dq = matches!(stack.last(), Some((Open::DoubleQuote, _)));
        if in_dq {
            match b {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'$' if bytes.get(i + 1) == Some(&b'(') => {
                    stack.push((Open::Paren, i));
                    i += 1;
                }
                b'$' if bytes.get(i + 1) == Some(&b'{') => {
                    stack.push((Open::Brace, i));
                    i += 1;
                }
                b'`' => stack.push((Open::Backquote, i)),
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'\\' => i += 1,
            b'\'' => {
                let ansi = i > 0 && bytes.get(i - 1) == Some(&b'$');
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => return report("unterminated single quote".to_owned(), start),
                        Some(b'\'') => break,
                        Some(b'\\') if ansi => i += 2,
                        Some(_) => i += 1,
                    }
                }
            }
            b'"' => stack.push((Open::DoubleQuote, i)),
            b'`' => {
                if matches!(stack.last(), Some((Open::Backquote, _))) {
                    stack.pop();
                } else {
                    stack.push((Open::Backquote, i));
                }
            }
            b'(' => stack.push((Open::Paren, i)),
            b')' => {
                if matches!(stack.last(), Some((Open::Paren, _))) {
                    stack.pop();
                }
            }
            b'{' => stack.push((Open::Brace, i)),
            b'}' => {
                if matches!(stack.last(), Some((Open::Brace, _))) {
                    stack.pop();
                }
            }
            b'#' if word_start(bytes, i) => {
                while bytes.get(i + 1).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) != Some(&b'<') => {
                let start = i;
                i += 2;
                let strip = bytes.get(i) == Some(&b'-');
                if strip {
                    i += 1;
                }
                while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                let mut delimiter = String::new();
                while let Some(&c) = bytes.get(i) {
                    if b" \t\r\n;&|()<>".contains(&c) {
                        break;
                    }
                    if !matches!(c, b'\'' | b'"' | b'\\') {
                        delimiter.push(char::from(c));
                    }
                    i += 1;
                }
                heredocs.push((delimiter, strip, start));
                continue;
            }
            b'\n' if !heredocs.is_empty() => {
                for (delimiter, strip, start) in std::mem::take(&mut heredocs) {
                    let mut found = false;
                    while i < bytes.len() {
                        let line_start = i + 1;
                        let line_end = bytes
                            .get(line_start..)
                            .and_then(|rest| rest.iter().position(|&c| c == b'\n'))
                            .map_or(bytes.len(), |n| line_start + n);
                        i = line_end;
                        let line = input.get(line_start..line_end).unwrap_or_default();
                        let line = line.strip_suffix('\r').unwrap_or(line);
                        let line = if strip {
                            line.trim_start_matches('\t')
                        } else {
                            line
                        };
                        if line == delimiter {
                            found = true;
                            break;
                        }
                    }
                    if !found {
                        return report(
                            format!("heredoc `{delimiter}` has no terminator line"),
                            start,
                        );
                    }
                }
            }
            b'a'..=b'z' if word_start(bytes, i) => {
                let end = bytes
                    .get(i..)
                    .and_then(|rest| rest.iter().position(|c| !c.is_ascii_lowercase()))
                    .map_or(bytes.len(), |n| i + n);
                let delimited = bytes.get(end).is_none_or(|c| b" \t\r\n;&|()<>".contains(c));
                if delimited {
                    match bytes.get(i..end) {
                        Some(b"if") => stack.push((Open::Block("if", "fi"), i)),
                        Some(b"case") => stack.push((Open::Block("case", "esac"), i)),
                        Some(b"for") => stack.push((Open::Block("for", "done"), i)),
                        Some(b"while") => stack.push((Open::Block("while", "done"), i)),
                        Some(b"until") => stack.push((Open::Block("until", "done"), i)),
                        Some(b"select") => stack.push((Open::Block("select", "done"), i)),
                        Some(word @ (b"fi" | b"esac" | b"done")) => {
                            if let Some((Open::Block(_, closer), _)) = stack.last()
                                && closer.as_bytes() == word
                            {
                                stack.pop();
                            }
                        }
                        _ => {}
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((delimiter, _, start)) = heredocs.first() {
        return report(format!("heredoc `{delimiter}` has no body"), *start);
    }
    if let Some(&(open, offset)) = stack.last() {
        let message = match open {
            Open::Paren => "unterminated `(` or `$(`".to_owned(),
            Open::Brace => "unterminated `{` or `${`".to_owned(),
            Open::DoubleQuote => "unterminated double quote".to_owned(),
            Open::Backquote => "unterminated backquote".to_owned(),
            Open::Block(opener, closer) => format!("`{opener}` without `{closer}`"),
        };
        return report(message, offset);
    }
    let trimmed = input.trim_end();
    for op in ["&&", "||", "|"] {
        if trimmed.ends_with(op) && !trimmed.ends_with(&format!("\\{op}")) {
            return report(format!("the command ends with `{op}`"), trimmed.len());
        }
    }
    None
}

fn word_start(bytes: &[u8], i: usize) -> bool {
    i == 0
        || bytes
            .get(i - 1)
            .is_some_and(|c| b" \t\r\n;&|()<>`".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(input: &str) -> Option<String> {
        unterminated(input).map(|d| d.message)
    }

    fn assert_message(input: &str, expected: Option<&str>) {
        assert_eq!(message(input).as_deref(), expected, "{input:?}");
    }

    #[test]
    fn names_what_is_open() {
        assert_message("echo 'a", Some("unterminated single quote"));
        assert_message("echo \"a", Some("unterminated double quote"));
        assert_message("echo $(a", Some("unterminated `(` or `$(`"));
        assert_message("echo `a", Some("unterminated backquote"));
        assert_message("if a; then b", Some("`if` without `fi`"));
        assert_message("a &&", Some("the command ends with `&&`"));
        assert_message(
            "cat <<EOF\nbody",
            Some("heredoc `EOF` has no terminator line"),
        );
        assert_message("cat <<'E'\nbody\nE\n", None);
        assert_message("echo a; fi", None);
        assert_message("echo >", None);
    }
}
