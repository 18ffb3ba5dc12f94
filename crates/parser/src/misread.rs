//! Constructs bash reads differently from this grammar: where they appear, the clauses the gate
//! sees may not be the ones bash runs.
//!
//! * **A line continuation inside a token.** Bash deletes `\` + newline before it recognises
//!   anything, so `$\⏎(cmd)` is `$(cmd)`, `$\⏎HOME` is `$HOME` and `(\⏎(x))` is arithmetic;
//!   the grammar joins the lines only when it cooks a word, after deciding what the word is.
//!   A continuation between two word characters (`ab\⏎cd`) or next to a blank is read alike.
//! * **Single quotes inside `${…}` that hold a substitution.** Within double quotes (and in an
//!   unquoted heredoc body) the word of `${x:-word}`, `${x+word}`, `${x=word}`, `${x?word}`
//!   takes `'` as an ordinary character, so `"${x:-'$(cmd)'}"` runs `cmd`; the grammar takes
//!   the quotes as quoting.
//! * **Locale strings `$"…"`.** Bash replaces the text by its translation from a catalog that
//!   `TEXTDOMAIN` and `TEXTDOMAINDIR` choose, and (since 5.2) expands the translation.
//!
//! The scan reads the raw text (quotes included), without the bodies of quoted heredocs (data,
//! never read as shell code): a look-alike inside quotes counts too, which can only make a
//! decision stricter.

use crate::ClauseGraph;

/// Why a line continuation inside a token is code the gate cannot read.
const CONTINUATION: &str = "a line continuation inside a token (`$\\⏎(…)`, `(\\⏎(`): bash joins the lines before it reads them, and may run what the gate did not see";
/// Why single quotes inside `${…}` are.
const QUOTED_DEFAULT: &str = "single quotes inside `${…}` hold a substitution: within double quotes bash takes them as ordinary characters and runs it";
/// Why a locale string is.
const LOCALE_STRING: &str =
    "a locale string `$\"…\"` is replaced by a translation a catalog file chooses, then expanded";

/// Why the shell source `text` holds a construct bash reads differently (see the module docs).
///
/// ```
/// use shellgate_parser::misread::misread;
///
/// assert!(misread("echo \"$\\\n(rm -rf ~)\"").is_some());
/// assert!(misread("echo \"${x:-'$(rm -rf ~)'}\"").is_some());
/// assert!(misread("echo \"${x:-'}$(rm -rf ~)'}\"").is_some());
/// assert!(misread("echo $\"hi\"").is_some());
/// assert_eq!(misread("docker run \\\n  -it alpine && echo \"${x:-'a b'}\" ab\\\ncd"), None);
/// ```
#[must_use]
pub fn misread(text: &str) -> Option<&'static str> {
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("\\\n") {
        // An escaped backslash (`\\` then a newline) is no continuation.
        let backslashes = bytes
            .get(..at)
            .unwrap_or_default()
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 1 {
            continue;
        }
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(at + 2).copied();
        let (Some(before), Some(after)) = (before, after) else {
            continue;
        };
        if before.is_ascii_whitespace() || after.is_ascii_whitespace() {
            continue;
        }
        if before == b'$' || !(word_byte(before) && (word_byte(after) || after == b'\\')) {
            return Some(CONTINUATION);
        }
    }
    for (at, _) in text.match_indices("${") {
        let inner = expansion_inner(text, at + 2);
        // (A `}` inside the quotes ends the expansion where bash reads it, and the
        // substitution follows it, up to where the quotes would end it: `"${x:-'}$(rm -rf
        // ~)'}"`, red-team 41m.)
        let quoted = quoted_expansion_inner(text, at + 2);
        let beyond = quoted.get(inner.len()..).unwrap_or_default();
        let runs = |t: &str| t.contains("$(") || t.contains('`');
        // (POSIX shells — dash, zsh, `bash --posix` — end it at that brace whatever follows:
        // `sh -c 'echo "${x:-'"'"'}" ; rm -rf ~ ; "'"'"'}"'`, red-team 41o.)
        if inner.contains('\'') && (runs(inner) || !beyond.is_empty()) {
            return Some(QUOTED_DEFAULT);
        }
    }
    locale_string(bytes).then_some(LOCALE_STRING)
}

/// Whether `$"` starts a locale string: outside quotes (inside double quotes `$"` is a dollar
/// sign that ends the string: `grep "x$"`), not escaped. A `$(…)` or backquote inside double
/// quotes starts unquoted text again (`"$(echo $"x")"`).
fn locale_string(bytes: &[u8]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Quote {
        None,
        Single,
        AnsiC,
        Double,
    }
    let mut quote = Quote::None;
    // The quoting to return to at the `)` or backquote that closes a substitution.
    let mut outer: Vec<(Quote, u8)> = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        match (quote, b) {
            (Quote::None | Quote::Double | Quote::AnsiC, b'\\') => i += 1,
            (Quote::None, b'$') if next == Some(b'"') => return true,
            (Quote::None, b'$') if next == Some(b'\'') => {
                quote = Quote::AnsiC;
                i += 1;
            }
            (Quote::None | Quote::Double, b'$') if next == Some(b'(') => {
                outer.push((quote, b')'));
                quote = Quote::None;
                i += 1;
            }
            (Quote::None | Quote::Double, b'`')
                if outer.last().is_none_or(|&(_, close)| close != b'`') =>
            {
                outer.push((quote, b'`'));
                quote = Quote::None;
            }
            (Quote::None, b')' | b'`') if outer.last().is_some_and(|&(_, close)| close == b) => {
                quote = outer.pop().map_or(Quote::None, |(q, _)| q);
            }
            (Quote::None, b'(') if !outer.is_empty() => outer.push((Quote::None, b')')),
            (Quote::None, b'\'') => quote = Quote::Single,
            (Quote::None, b'"') => quote = Quote::Double,
            (Quote::Single | Quote::AnsiC, b'\'') | (Quote::Double, b'"') => quote = Quote::None,
            _ => {}
        }
        i += 1;
    }
    false
}

/// [`misread`] over the command `text` that `graph` was parsed from, without the bodies of
/// quoted heredocs.
///
/// ```
/// use shellgate_parser::{ParseOptions, misread::misread_in, parse};
///
/// let text = "cat > a.sh <<'EOF'\necho $\"hi\"\nEOF\n";
/// let parsed = parse(text, &ParseOptions::default());
/// assert_eq!(misread_in(text, &parsed.graph), None);
/// ```
#[must_use]
pub fn misread_in(text: &str, graph: &ClauseGraph) -> Option<&'static str> {
    // Fast path: most commands hold none of the three.
    if !(text.contains("\\\n") || text.contains("${") || text.contains("$\"")) {
        return None;
    }
    misread(&crate::evaluates::without_quoted_bodies(text, graph))
}

/// A byte that joins a word on both sides of a continuation without forming an operator or an
/// expansion.
const fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'.' | b'/' | b'-' | b'+' | b',' | b'=' | b':' | b'~' | b'"' | b'\''
        )
}

/// [`expansion_inner`] with single-quoted text skipped, as the grammar reads it.
fn quoted_expansion_inner(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or_default();
    let mut depth = 0_usize;
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            _ if quoted => {}
            '{' => depth += 1,
            '}' if depth == 0 => return rest.get(..i).unwrap_or_default(),
            '}' => depth -= 1,
            _ => {}
        }
    }
    rest
}

/// The text of a `${…}` from `start` (after the brace) to its closing brace, nested braces
/// counted (quotes are not considered), or to the end.
fn expansion_inner(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or_default();
    let mut depth = 0_usize;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return rest.get(..i).unwrap_or_default(),
            '}' => depth -= 1,
            _ => {}
        }
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_that_form_a_token_are_found() {
        for text in [
            "echo \"$\\\n(rm -rf ~)\"",
            "cp x $\\\nHOME/.bashrc",
            "ls='a[$(rm -rf ~)]'; (\\\n(ls))",
            "x='$(curl x)'; echo ${x\\\n@P}",
            "$\\\n'\\x72m' -rf ~",
            "true &\\\n& curl x",
        ] {
            assert_eq!(misread(text), Some(CONTINUATION), "{text:?}");
        }
    }

    #[test]
    fn continuations_read_alike_are_not() {
        for text in [
            "docker run \\\n  --rm alpine",
            "cargo test \\\n--all",
            "echo ab\\\ncd --flag=\\\nvalue",
            "echo x\\\\\n(y)",
            "printf 'a.\\\n\\\nb'",
        ] {
            assert_eq!(misread(text), None, "{text:?}");
        }
    }

    #[test]
    fn single_quoted_substitutions_in_defaults_are_found() {
        assert_eq!(
            misread("echo \"${x:-'$(rm -rf ~)'}\""),
            Some(QUOTED_DEFAULT)
        );
        assert_eq!(misread("echo \"${x-'`rm -rf ~`'}\""), Some(QUOTED_DEFAULT));
        assert_eq!(misread("echo \"${x:-'a b'}\" \"$(date)\""), None);
        assert_eq!(
            misread("echo \"${x:-'}$(rm -rf ~)'}\""),
            Some(QUOTED_DEFAULT)
        );
    }

    #[test]
    fn locale_strings_are_found_unless_escaped() {
        assert_eq!(misread("echo $\"hi\""), Some(LOCALE_STRING));
        assert_eq!(misread("echo \\$\"hi\""), None);
        assert_eq!(misread("grep \"x$\" f | grep 'y$\"' $'\\'$\"'"), None);
        assert_eq!(misread("echo \"a\"$\"hi\""), Some(LOCALE_STRING));
        assert_eq!(misread("echo \"$(echo $\"x\")\""), Some(LOCALE_STRING));
        assert_eq!(misread("echo \"`echo $\"x\"`\""), Some(LOCALE_STRING));
        assert_eq!(misread("echo \"$(f (a) \"b$\")\" \"c$\""), None);
    }
}
