//! A clause's redirects and assignments as the parser corpus (`tests/corpus/parser.toml`)
//! writes them: shared by its runner (`parser.rs`) and the example that drafts cases
//! (`crates/parser/examples/golden.rs`).

use shellgate_parser::{Clause, RedirectFd, RedirectTarget};

/// Each redirect as the corpus writes it: the descriptor, the operator and the target (a
/// heredoc by its delimiter), as in `2> /dev/null`.
pub fn redirect_text(clause: &Clause) -> Vec<String> {
    clause
        .redirects
        .iter()
        .map(|r| {
            let fd = match &r.fd {
                Some(RedirectFd::Number(n)) => n.to_string(),
                Some(RedirectFd::Variable(v)) => format!("{{{v}}}"),
                None => String::new(),
            };
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
        .map(|a| {
            let op = if a.append { "+=" } else { "=" };
            let index = a
                .index
                .as_ref()
                .map(|i| format!("[{i}]"))
                .unwrap_or_default();
            let value = match (&a.value, &a.array) {
                (_, Some(items)) => {
                    let items: Vec<&str> = items.iter().map(|w| w.cooked.as_str()).collect();
                    format!("({})", items.join(" "))
                }
                (Some(v), None) => v.cooked.clone(),
                (None, None) => String::new(),
            };
            format!("{}{index}{op}{value}", a.name)
        })
        .collect()
}
