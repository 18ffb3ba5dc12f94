//! Test helpers: hand-made words.

use shellgate_parser::{Span, Word, WordFeatures};

/// One word per text; a text with `$`, `*`, `?` or `[` is not literal.
pub(crate) fn words(texts: &[&str]) -> Vec<Word> {
    texts.iter().map(|t| word(t)).collect()
}

/// One hand-made word.
pub(crate) fn word(text: &str) -> Word {
    let parameter = text.contains('$');
    let glob = text.contains(['*', '?', '[']);
    Word {
        raw: text.to_owned(),
        cooked: text.to_owned(),
        literal: !(parameter || glob),
        features: WordFeatures {
            parameter,
            glob,
            tilde: text.starts_with('~'),
            ..WordFeatures::default()
        },
        span: Span::new(0, text.len()),
    }
}
