//! A clause's redirects and assignments as the parser corpus (`tests/corpus/parser.toml`)
//! writes them: shared by its runner (`parser.rs`) and the example that drafts cases
//! (`crates/parser/examples/golden.rs`).

use shellgate_parser::{Clause, RedirectTarget};

/// Each redirect as the corpus writes it: the descriptor, the operator and the target (a
/// heredoc by its delimiter), as in `2> /dev/null`.
pub fn redirect_text(clause: &Clause) -> Vec<String> {
    clause
        .redirects
        .iter()
        .map(|r| {
            let fd = r.fd.as_ref().map(ToString::to_string).unwrap_or_default();
            let target = match &r.target {
                RedirectTarget::Word(w) => w.cooked.clone(),
                RedirectTarget::Heredoc(h) => h.delimiter.clone(),
            };
            format!("{fd}{} {target}", r.op.as_str())
        })
        .collect()
}

/// Each assignment prefix as the corpus writes it: `NAME[INDEX]=value`, `+=`, arrays as
/// `(a b)`.
pub fn assignment_text(clause: &Clause) -> Vec<String> {
    clause
        .assignments
        .iter()
        .map(|a| a.text_with(|w| w.cooked.clone()))
        .collect()
}
