//! A conservative fallback tokenizer for input the grammar rejects.
//!
//! It never decides that anything is safe: its clauses only feed hard-deny rules on an
//! incomplete parse. It over-splits on purpose: every unquoted (or double-quoted) `;`, `&`,
//! `|`, newline, `(`, `)`, `` ` ``, `$(`, `<(` and `>(` ends a clause, so text inside
//! substitutions becomes clauses of its own; single quotes are respected; leading reserved words
//! are dropped (`if rm -rf x` gives `rm -rf x`). It is a single loop with no recursion.

use crate::clause::{
    Clause, Context, Operator, Redirect, RedirectFd, RedirectOp, RedirectTarget, Span, Word,
    WordFeatures,
};
use crate::cook;
use crate::verb::verb_hint;

const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!", "time",
    "coproc", "esac", "[[", "]]",
];

/// Splits `text` (which starts at `base` in the input) into clauses, at most `max`.
pub(crate) fn fallback_clauses(text: &str, base: usize, depth0: usize, max: usize) -> Vec<Clause> {
    let mut t = Tokenizer {
        text,
        base,
        out: Vec::new(),
        max,
        words: Vec::new(),
        redirects: Vec::new(),
        pending_redirect: None,
        word: None,
        operator: None,
        depth: depth0,
        clause_start: None,
    };
    t.run();
    t.out
}

struct PendingWord {
    raw_start: usize,
    cooked: String,
    features: WordFeatures,
    quoted: bool,
}

struct Tokenizer<'a> {
    text: &'a str,
    base: usize,
    out: Vec<Clause>,
    max: usize,
    words: Vec<Word>,
    redirects: Vec<Redirect>,
    pending_redirect: Option<(RedirectOp, Option<RedirectFd>, usize)>,
    word: Option<PendingWord>,
    operator: Option<Operator>,
    depth: usize,
    clause_start: Option<usize>,
}

impl Tokenizer<'_> {
    fn run(&mut self) {
        let text = self.text;
        let mut chars = text.char_indices().peekable();
        // 'd': inside double quotes; 'p' / 'b': code inside `$(`/backquotes inside them.
        let mut modes: Vec<u8> = Vec::new();
        while let Some((i, c)) = chars.next() {
            let in_dq = modes.last() == Some(&b'd');
            if self.out.len() >= self.max {
                return;
            }
            let next = chars.peek().map(|&(_, n)| n);
            if in_dq {
                match c {
                    '"' => {
                        modes.pop();
                    }
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            self.push_char(i, n, false);
                        }
                    }
                    '`' => {
                        modes.push(b'b');
                        self.boundary(i, None, 1);
                    }
                    '$' if next == Some('(') => {
                        chars.next();
                        modes.push(b'p');
                        self.boundary(i, None, 1);
                    }
                    '$' => self.push_char_feature(i, c, true),
                    _ => self.push_char(i, c, true),
                }
                continue;
            }
            match c {
                ' ' | '\t' | '\r' => self.end_word(i),
                '\n' | ';' => self.boundary(i, Some(Operator::Sequence), 0),
                '&' if next == Some('&') => {
                    chars.next();
                    self.boundary(i, Some(Operator::And), 0);
                }
                '&' if next == Some('>') => {
                    chars.next();
                    let op = if chars.peek().map(|&(_, n)| n) == Some('>') {
                        chars.next();
                        RedirectOp::AppendBoth
                    } else {
                        RedirectOp::WriteBoth
                    };
                    self.start_redirect(i, op);
                }
                '&' => self.boundary(i, Some(Operator::Background), 0),
                '|' if next == Some('|') => {
                    chars.next();
                    self.boundary(i, Some(Operator::Or), 0);
                }
                '|' => self.boundary(i, Some(Operator::Pipe), 0),
                '(' => self.boundary(i, None, 1),
                ')' => {
                    if modes.last() == Some(&b'p') {
                        modes.pop();
                    }
                    self.boundary(i, None, -1);
                }
                '`' => {
                    if modes.last() == Some(&b'b') {
                        modes.pop();
                        self.boundary(i, None, -1);
                    } else {
                        self.boundary(i, None, 1);
                    }
                }
                '$' if next == Some('(') => {
                    chars.next();
                    self.boundary(i, None, 1);
                }
                '<' | '>' if next == Some('(') => {
                    chars.next();
                    self.boundary(i, None, 1);
                }
                '>' | '<' => {
                    // The two-character operators; `<<<` is `<<` and one more `<`.
                    let pair = match (c, next) {
                        ('>', Some('>')) => Some(RedirectOp::Append),
                        ('>', Some('|')) => Some(RedirectOp::Clobber),
                        ('>', Some('&')) => Some(RedirectOp::DupOut),
                        ('<', Some('&')) => Some(RedirectOp::DupIn),
                        ('<', Some('>')) => Some(RedirectOp::ReadWrite),
                        ('<', Some('<')) => Some(RedirectOp::Heredoc),
                        _ => None,
                    };
                    let mut op = match pair {
                        Some(op) => {
                            chars.next();
                            op
                        }
                        None if c == '>' => RedirectOp::Write,
                        None => RedirectOp::Read,
                    };
                    if op == RedirectOp::Heredoc && chars.peek().map(|&(_, n)| n) == Some('<') {
                        chars.next();
                        op = RedirectOp::HereString;
                    }
                    self.start_redirect(i, op);
                }
                '\\' => match chars.next() {
                    Some((_, '\n')) | None => {}
                    Some((_, n)) => self.push_char(i, n, false),
                },
                '\'' => {
                    self.touch(i).quoted = true;
                    for (_, n) in chars.by_ref() {
                        if n == '\'' {
                            break;
                        }
                        self.push_char(i, n, false);
                    }
                }
                '"' => {
                    self.touch(i).quoted = true;
                    modes.push(b'd');
                }
                '#' if self.word.is_none() => {
                    while chars.peek().is_some_and(|&(_, n)| n != '\n') {
                        chars.next();
                    }
                }
                '$' => self.push_char_feature(i, c, true),
                _ => self.push_char(i, c, true),
            }
        }
        self.boundary(text.len(), None, 0);
    }

    fn touch(&mut self, i: usize) -> &mut PendingWord {
        self.clause_start.get_or_insert(i);
        self.word.get_or_insert_with(|| PendingWord {
            raw_start: i,
            cooked: String::new(),
            features: WordFeatures::default(),
            quoted: false,
        })
    }

    fn push_char(&mut self, i: usize, c: char, unquoted: bool) {
        let word = self.touch(i);
        word.cooked.push(c);
        if unquoted && matches!(c, '*' | '?' | '[') {
            word.features.glob = true;
        }
    }

    fn push_char_feature(&mut self, i: usize, c: char, parameter: bool) {
        let word = self.touch(i);
        word.cooked.push(c);
        word.features.parameter |= parameter;
        // Whether the `$` is inside double quotes is not tracked here: say it may split.
        word.features.splits |= parameter;
    }

    fn end_word(&mut self, i: usize) {
        let Some(pending) = self.word.take() else {
            return;
        };
        let raw = self
            .text
            .get(pending.raw_start..i)
            .unwrap_or_default()
            .to_owned();
        let mut features = pending.features;
        if !pending.quoted && pending.cooked.starts_with('~') {
            features.tilde = true;
        }
        if cook::has_brace_expansion(&pending.cooked) {
            features.brace = true;
        }
        let word = Word {
            raw,
            cooked: pending.cooked,
            literal: !features.is_dynamic(),
            features,
            span: Span::new(self.base + pending.raw_start, self.base + i),
        };
        if let Some((op, fd, start)) = self.pending_redirect.take() {
            self.redirects.push(Redirect {
                op,
                fd,
                target: RedirectTarget::Word(word),
                span: Span::new(self.base + start, self.base + i),
            });
        } else {
            self.words.push(word);
        }
    }

    fn start_redirect(&mut self, i: usize, op: RedirectOp) {
        // A word of digits right before the operator is its descriptor.
        let fd = match &self.word {
            Some(w)
                if !w.quoted
                    && !w.cooked.is_empty()
                    && w.cooked.bytes().all(|b| b.is_ascii_digit()) =>
            {
                let n = w.cooked.parse().unwrap_or(u32::MAX);
                self.word = None;
                Some(RedirectFd::Number(n))
            }
            _ => {
                self.end_word(i);
                None
            }
        };
        self.clause_start.get_or_insert(i);
        self.pending_redirect = Some((op, fd, i));
    }

    /// Ends the current clause at `i`; `nest` moves the depth (+1 into a substitution, -1 out).
    fn boundary(&mut self, i: usize, operator: Option<Operator>, nest: i32) {
        self.end_word(i);
        self.pending_redirect = None;
        let words = std::mem::take(&mut self.words);
        let redirects = std::mem::take(&mut self.redirects);
        let start = self.clause_start.take().unwrap_or(i);
        let argv: Vec<Word> = words
            .into_iter()
            .skip_while(|w| RESERVED.contains(&w.cooked.as_str()) && w.literal)
            .collect();
        if (!argv.is_empty() || !redirects.is_empty()) && self.out.len() < self.max {
            let literal_verb = argv.first().is_none_or(|w| w.literal);
            let verb = verb_hint(&argv);
            let context = if self.depth > 0 {
                Context::Substitution
            } else {
                Context::Top
            };
            self.out.push(Clause {
                argv,
                assignments: Vec::new(),
                redirects,
                context,
                operator: self.operator.take(),
                cwd: None,
                verb,
                literal_verb,
                depth: self.depth,
                parent: None,
                span: Span::new(self.base + start, self.base + i),
            });
        }
        if operator.is_some() {
            self.operator = operator;
        }
        if nest > 0 {
            self.depth = self.depth.saturating_add(1);
        } else if nest < 0 {
            self.depth = self.depth.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(text: &str) -> Vec<Vec<String>> {
        fallback_clauses(text, 0, 0, 100)
            .iter()
            .map(|c| c.argv.iter().map(|w| w.cooked.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_conservatively() {
        assert_eq!(
            argvs("echo 'a;b' \"$(rm -rf /)\" ; if sudo x; then"),
            vec![
                vec!["echo", "a;b", ""],
                vec!["rm", "-rf", "/"],
                vec!["sudo", "x"]
            ]
        );
        assert_eq!(
            argvs("a && b || `c` | d & e"),
            vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"], vec!["e"]]
        );
        assert_eq!(
            argvs("echo 'unterminated ; rm"),
            vec![vec!["echo", "unterminated ; rm"]]
        );
    }

    #[test]
    fn records_redirects() {
        let clauses = fallback_clauses("cat x 2>/dev/null > /etc/passwd (", 0, 0, 10);
        let c = clauses.first().unwrap();
        assert_eq!(c.redirects.len(), 2);
        assert_eq!(c.redirects[0].fd, Some(RedirectFd::Number(2)));
        assert_eq!(c.redirects[1].write_target().unwrap().cooked, "/etc/passwd");
    }
}
