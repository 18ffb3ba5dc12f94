//! Prints `tests/corpus/parser.toml` cases for `name<TAB>input` lines read from stdin (`\n` in
//! the input column is a newline, `\t` a tab). A drafting aid: every generated case must be
//! reviewed by hand before it goes into the corpus.

use std::io::BufRead as _;

use shellgate_parser::{ParseOptions, RedirectTarget, parse};

#[path = "../../../tests/driver/clause_text.rs"]
mod clause_text;

/// A TOML basic string.
fn q(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| q(s)).collect();
    format!("[{}]", items.join(", "))
}

/// `\\` → `\`, `\n` → newline, `\t` → tab, `\r` → carriage return.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn main() {
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Some((name, input)) = line.split_once('\t') else {
            continue;
        };
        let input = unescape(input);
        let out = parse(&input, &options);
        println!("[[case]]\nname = {}\ninput = {}", q(name), q(&input));
        if !out.complete {
            println!("complete = false");
            if let Some(d) = out.diagnostics.first() {
                println!("kind = {:?}", d.kind.as_str());
            }
        }
        println!("clauses = [");
        for c in out.graph.clauses() {
            let argv: Vec<String> = c.cooked_argv().map(str::to_owned).collect();
            let mut fields = vec![
                format!("argv = {}", list(&argv)),
                format!("verb = {}", list(&c.verb)),
            ];
            if c.context.as_str() != "top" {
                fields.push(format!("context = {:?}", c.context.as_str()));
            }
            if let Some(op) = c.operator {
                fields.push(format!("operator = {:?}", op.as_str()));
            }
            if !c.redirects.is_empty() {
                let r = clause_text::redirect_text(c);
                fields.push(format!("redirects = {}", list(&r)));
                let bodies: Vec<String> = c
                    .redirects
                    .iter()
                    .filter_map(|r| r.stdin_text().map(str::to_owned))
                    .collect();
                if c.redirects
                    .iter()
                    .any(|r| matches!(r.target, RedirectTarget::Heredoc(_)))
                {
                    fields.push(format!("heredoc = {}", list(&bodies)));
                }
            }
            let cwd = c
                .cwd
                .as_ref()
                .map_or("?".to_owned(), |p| p.display().to_string());
            if cwd != "/work" {
                fields.push(format!("cwd = {}", q(&cwd)));
            }
            if let Some(p) = c.parent {
                fields.push(format!("parent = {p}"));
            }
            if !c.literal_verb {
                fields.push("literal_verb = false".to_owned());
            }
            if !c.assignments.is_empty() {
                let a = clause_text::assignment_text(c);
                fields.push(format!("assignments = {}", list(&a)));
            }
            println!("  {{ {} }},", fields.join(", "));
        }
        println!("]\n");
    }
}
