//! What a piece of shell text mentions, read loosely: the words it holds with quotes and
//! backslashes dropped (`s""et` and `se\\t` are `set`, `eval 'set -- ~'` holds `set`), and
//! whether it defines a function. A cheap over-approximation for the checks that must err
//! toward "it may": binding positional parameters and unrolling loops.

/// Whether `text`, quotes and backslashes dropped, holds a word for which `is` holds (a word is
/// a run of letters, digits and `_-./`).
pub(crate) fn mentions_word(text: &str, is: impl Fn(&str) -> bool) -> bool {
    let plain = plain(text);
    let word_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    plain.split(|c: char| !word_char(c)).any(is)
}

/// Whether `text`, quotes and backslashes dropped, defines a function (`f() {`, `f ( ) …`).
pub(crate) fn defines_function(text: &str) -> bool {
    plain(text)
        .split('(')
        .skip(1)
        .any(|rest| rest.trim_start().starts_with(')'))
}

fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect()
}
