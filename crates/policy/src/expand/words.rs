//! Words the walk makes: brace expansions, synthetic literal words, and a clause's text.

use shellgate_parser::{Clause, RedirectTarget, Word, WordFeatures};

/// Whether `name` is a shell variable name.
pub(super) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// A literal word made by shellgate (from `env -S` splitting or an inline option value).
pub(crate) fn synthetic_word(text: String, span: shellgate_parser::Span) -> Word {
    Word {
        raw: text.clone(),
        cooked: text,
        literal: true,
        features: WordFeatures::default(),
        span,
    }
}

/// The words with every literal brace expansion expanded (`None` when one cannot be expanded
/// statically, or a word has other expansions too).
pub(super) fn brace_expanded(words: &[Word]) -> Option<Vec<Word>> {
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        if !word.features.brace {
            out.push(word.clone());
            continue;
        }
        let f = &word.features;
        if f.parameter || f.command_substitution || f.process_substitution || f.arithmetic {
            return None;
        }
        for text in shellgate_parser::braces::expand(&word.raw)? {
            let tilde = text.starts_with('~');
            let glob = text.contains(['*', '?', '[']);
            out.push(Word {
                raw: text.clone(),
                cooked: text,
                literal: !glob,
                features: WordFeatures {
                    tilde,
                    glob,
                    ..WordFeatures::default()
                },
                span: word.span,
            });
        }
    }
    Some(out)
}

/// The clause's text rebuilt from its raw parts: assignments, words and redirections.
pub(super) fn clause_text(clause: &Clause) -> String {
    let mut parts: Vec<String> = clause
        .assignments
        .iter()
        .map(|a| a.text_with(|w| w.raw.clone()))
        .collect();
    parts.extend(clause.argv.iter().map(|w| w.raw.clone()));
    for r in &clause.redirects {
        let fd = r.fd.as_ref().map(ToString::to_string).unwrap_or_default();
        let target = match &r.target {
            RedirectTarget::Word(w) => w.raw.clone(),
            RedirectTarget::Heredoc(h) => h.delimiter.clone(),
        };
        parts.push(format!("{fd}{}{target}", r.op.as_str()));
    }
    parts.join(" ")
}

/// The names a finder writes a found file's name into: GNU find's `{}`, and fd's `{}`, `{/}`
/// (base name), `{//}` (parent), `{.}` and `{/.}` (without the extension).
const PLACEHOLDERS: [&str; 5] = ["{}", "{/}", "{//}", "{.}", "{/.}"];

/// Whether a word of a finder's command has a found file's name spliced into it: it holds a
/// placeholder but is not one. GNU find replaces `{}` wherever it occurs (`/etc/{}` reads
/// `/etc/./shadow` for a found `./shadow`). A word that is a placeholder is a found file, judged
/// below the finder's directories.
pub(crate) fn holds_placeholder(word: &str) -> bool {
    !PLACEHOLDERS.contains(&word) && PLACEHOLDERS.iter().any(|p| word.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for name in ["LD_PRELOAD", "_x1"] {
            assert!(is_name(name), "{name}");
        }
        for text in ["1x", "", "a-b"] {
            assert!(!is_name(text), "{text}");
        }
    }

    #[test]
    fn a_placeholder_inside_a_word_is_spliced() {
        for word in [
            "/etc/{}",
            "{}.bak",
            "x{/}",
            "{//}/y",
            "a{.}b",
            "{/.}.txt",
            "cat /etc/{}",
        ] {
            assert!(super::holds_placeholder(word), "{word}");
        }
        for word in [
            "{}", "{/}", "{//}", "{.}", "{/.}", "{print}", "${1##*/}", "a{b}c", "plain",
        ] {
            assert!(!super::holds_placeholder(word), "{word}");
        }
    }
}
