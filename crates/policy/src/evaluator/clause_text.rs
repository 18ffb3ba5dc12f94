//! A clause shown on one line.

use crate::expand::Invocation;
use shellgate_parser::{RedirectTarget, Word};

use crate::display;

/// Whether a literal word's value spans two lines or more and is shown summarised.
pub(super) fn summarizable(word: &Word) -> bool {
    word.literal && display::is_summarized(&word.cooked)
}

/// The clause shown on one line: assignments, words and redirects as written, multi-line
/// literal words summarised, everything escaped.
pub(super) fn clause_text(inv: &Invocation, code: bool) -> String {
    let word_text = |word: &Word| {
        if code {
            display::escape(&word.raw)
        } else {
            word_text(word)
        }
    };
    let mut parts: Vec<String> = inv
        .assignments
        .iter()
        .map(|assignment| assignment.text_with(word_text))
        .collect();
    parts.extend(inv.words.iter().map(&word_text));
    for redirect in &inv.redirects {
        let fd = redirect.fd.as_ref().map(ToString::to_string);
        let mut text = fd.unwrap_or_default();
        text.push_str(redirect.op.as_str());
        match &redirect.target {
            RedirectTarget::Word(word) => text.push_str(&word_text(word)),
            RedirectTarget::Heredoc(heredoc) => {
                if heredoc.quoted {
                    text.push('\'');
                    text.push_str(&display::escape(&heredoc.delimiter));
                    text.push('\'');
                } else {
                    text.push_str(&display::escape(&heredoc.delimiter));
                }
                text.push(' ');
                text.push_str(&display::summarize(&heredoc.body));
            }
        }
        parts.push(text);
    }
    parts.join(" ")
}

/// One word shown: summarised when it is a literal multi-line value, else escaped raw text. A
/// word made by unwrapping (`env NAME='a b'` or `env -S`) has no quotes of its own; one with
/// whitespace is shown single-quoted so the words stay apart.
pub(super) fn word_text(word: &Word) -> String {
    if summarizable(word) {
        return display::summarize(&word.cooked);
    }
    if word.literal && word.raw.contains(char::is_whitespace) && word.raw == word.cooked {
        return format!("'{}'", display::escape(&word.raw.replace('\'', "'\\''")));
    }
    display::escape(&word.raw)
}
