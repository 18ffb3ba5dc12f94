//! `for NAME in WORDS; do BODY; done` over literal words: the body is lowered once per word,
//! with `$NAME` bound to it (`for f in ~; do rm -rf "$f"; done` is `rm -rf ~`, which meets the
//! deny rules). Only when every value is known and the body cannot give `NAME` another value;
//! otherwise the body is lowered once and `$NAME` stays an expansion, not known until it runs.

use crate::ast::{ARedirect, ATarget, AWord, Command, Compound, List, Pipeline};
use crate::clause::{Word, WordFeatures};
use crate::mentions;

/// The most values a loop is unrolled for.
pub(crate) const MAX_LOOP_VALUES: usize = 16;

/// Whether loops in `input` may be unrolled at all: nothing in the whole command can change a
/// loop variable from outside its body or change what `$NAME` expands to — a `trap` (its code
/// runs before every command), a function, a variable attribute (`declare -l f` lower-cases
/// every value), `IFS`, aliases and shell options, or code the lowering does not see (`eval`,
/// `source`). Words are compared with quotes and backslashes dropped (`tr""ap`); ANSI-C and
/// locale quoting (`$'\164rap'`) never unroll.
pub(crate) fn may_unroll(input: &str) -> bool {
    // `$'\164rap'` and `$"…"` decode to any word.
    if input.contains("$'") || input.contains("$\"") {
        return false;
    }
    let keyword = mentions::mentions_word(input, |w| {
        matches!(
            w,
            "trap"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "shopt"
                | "alias"
                | "function"
                | "eval"
                | "source"
                | "."
                | "IFS"
                | "enable"
                | "builtin"
        )
    });
    let definition = mentions::defines_function(input);
    !keyword && !definition
}

/// Whether `name` may be bound: one with a lower-case letter (bash's own variables, which it
/// sets by itself — `_`, `REPLY`, `MAPFILE`, `BASH_REMATCH`, `DIRSTACK`, `PWD` — are upper
/// case or `_`).
pub(crate) fn bindable_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_lowercase())
}

/// The values of a loop's words, when each is one literal word the shell does not split,
/// glob or brace-expand (a leading `~` or `~/` is the home directory).
pub(crate) fn literal_values(words: &[AWord]) -> Option<Vec<Word>> {
    if words.is_empty() || words.len() > MAX_LOOP_VALUES {
        return None;
    }
    words
        .iter()
        .map(|w| {
            let word = &w.word;
            let f = &word.features;
            let plain = w.subs.is_empty()
                && word.literal
                && !f.glob
                && !f.brace
                && (!f.tilde || word.cooked == "~" || word.cooked.starts_with("~/"))
                // (bash expands `~` after `=` and `:` in a word too: `of=~/.bashrc`.)
                && !word.cooked.contains("=~")
                && !word.cooked.contains(":~");
            plain.then(|| word.clone())
        })
        .collect()
}

/// Whether `body` leaves `name` as the loop set it: no assignment, `read`, `declare`,
/// `printf -v`, `unset`, `${NAME:=…}` or arithmetic naming it, no nested loop over it, and
/// nothing that runs code the lowering does not see (`eval`, `source`, a function, a
/// coprocess) or a heredoc (its body is lowered once).
pub(crate) fn binds_safely(body: &List, name: &str) -> bool {
    let mut body = body.clone();
    let mut check = Check { name, safe: true };
    walk_list(&mut body, &mut check);
    check.safe
}

/// Binds `$NAME` to `value` in every word of `body` where it can (see [`bind_word`]).
pub(crate) fn substitute(body: &mut List, name: &str, value: &Word) {
    walk_list(body, &mut Bind { name, value });
}

/// What a walk over a loop body does at each place.
trait Visit {
    fn word(&mut self, word: &mut AWord);
    fn assigned(&mut self, name: &str);
    fn loop_name(&mut self, name: &str);
    fn arithmetic(&mut self, word: &AWord);
    fn unseen_code(&mut self);
}

struct Check<'a> {
    name: &'a str,
    safe: bool,
}

impl Visit for Check<'_> {
    fn word(&mut self, word: &mut AWord) {
        let cooked = word.word.cooked.as_str();
        let name = self.name;
        let sets = cooked == name
            || cooked
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(['=', '[', '+']));
        let runs_unseen = matches!(cooked, "eval" | "source" | ".");
        let raw = &word.word.raw;
        let default_assigns = [":=", "="]
            .iter()
            .any(|op| raw.contains(&format!("${{{name}{op}")));
        // Arithmetic assigns (`$((f = 2))`, `[[ 1 -eq ++f ]]`).
        let arithmetic = raw.contains(name)
            && (raw.contains("((")
                || [
                    format!("++{name}"),
                    format!("--{name}"),
                    format!("{name}++"),
                    format!("{name}--"),
                ]
                .iter()
                .any(|op| raw.contains(op.as_str())));
        if sets || runs_unseen || default_assigns || arithmetic {
            self.safe = false;
        }
    }

    fn assigned(&mut self, name: &str) {
        if name == self.name {
            self.safe = false;
        }
    }

    fn loop_name(&mut self, name: &str) {
        if name == self.name {
            self.safe = false;
        }
    }

    /// `(( … ))` and `for (( … ))`: any mention may assign.
    fn arithmetic(&mut self, word: &AWord) {
        if word.word.raw.contains(self.name) {
            self.safe = false;
        }
    }

    fn unseen_code(&mut self) {
        self.safe = false;
    }
}

struct Bind<'a> {
    name: &'a str,
    value: &'a Word,
}

impl Visit for Bind<'_> {
    fn word(&mut self, word: &mut AWord) {
        if word.subs.is_empty()
            && let Some(bound) = bind_word(&word.word, self.name, self.value)
        {
            word.word = bound;
        }
    }

    fn assigned(&mut self, _: &str) {}

    fn loop_name(&mut self, _: &str) {}

    fn arithmetic(&mut self, _: &AWord) {}

    fn unseen_code(&mut self) {}
}

/// `word` with each `$NAME` / `${NAME}` replaced by `value`, when the result is one literal
/// word: the word holds no other expansion, quote but `"`, backslash, glob, brace or tilde (but
/// a leading `~` or `~/`); an unquoted occurrence of a value the shell would split or glob, or of an empty value, leaves
/// it as it is; a tilde value only stands at the start. `None` when nothing is replaced.
fn bind_word(word: &Word, name: &str, value: &Word) -> Option<Word> {
    let raw = word.raw.as_str();
    if raw.contains(['\'', '\\', '`']) {
        return None;
    }
    let text = value.cooked.as_str();
    let tilde = value.features.tilde;
    // Unquoted, a value is split and globbed (extended globs too: `@(.env)`): only plain ones.
    let splits = text.is_empty()
        || !text.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '.' | '_' | '/' | ':' | ',' | '=' | '%' | '-' | '~')
        });
    let mut out = String::with_capacity(raw.len() + text.len());
    let mut double = false;
    let mut bound = false;
    // The word's own leading `~` or `~/` (`~/$f`): the home directory.
    let own_tilde = raw == "~" || raw.starts_with("~/");
    let mut rest = raw;
    if own_tilde {
        out.push('~');
        rest = rest.get(1..)?;
    }
    while let Some(c) = rest.chars().next() {
        match c {
            '"' => {
                double = !double;
                rest = rest.get(1..)?;
            }
            '$' => {
                let after = rest.get(1..)?;
                let (ident, len) = match after.strip_prefix('{') {
                    Some(inner) => {
                        let end = inner.find('}')?;
                        (inner.get(..end)?, end + 2)
                    }
                    None => {
                        let end = after
                            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .unwrap_or(after.len());
                        (after.get(..end)?, end)
                    }
                };
                if ident != name || (!double && splits) || (tilde && !out.is_empty()) {
                    return None;
                }
                out.push_str(text);
                bound = true;
                rest = after.get(len..)?;
            }
            '*' | '?' | '[' | '{' | '~' if !double => return None,
            other => {
                out.push(other);
                rest = rest.get(other.len_utf8()..)?;
            }
        }
    }
    if !bound || double {
        return None;
    }
    // A tilde value keeps its meaning only where the shell expanded it: the whole word's start,
    // followed by nothing or a `/` (`"$f"x` with `f=~` is `/home/ux`, not `~x`).
    if tilde && !(out == text || out.starts_with(&format!("{text}/"))) {
        return None;
    }
    let tilde = own_tilde || (tilde && out.starts_with('~'));
    Some(Word {
        raw: word.raw.clone(),
        cooked: out,
        literal: true,
        features: WordFeatures {
            tilde,
            ..WordFeatures::default()
        },
        span: word.span,
    })
}

fn walk_list(list: &mut List, v: &mut dyn Visit) {
    for item in &mut list.items {
        walk_pipeline(&mut item.and_or.first, v);
        for (_, pipeline) in &mut item.and_or.rest {
            walk_pipeline(pipeline, v);
        }
    }
}

fn walk_pipeline(pipeline: &mut Pipeline, v: &mut dyn Visit) {
    walk_command(&mut pipeline.first, v);
    for (_, command) in &mut pipeline.rest {
        walk_command(command, v);
    }
}

fn walk_word(word: &mut AWord, v: &mut dyn Visit) {
    for sub in &mut word.subs {
        walk_list(&mut sub.list, v);
    }
    v.word(word);
}

fn walk_redirects(redirects: &mut [ARedirect], v: &mut dyn Visit) {
    for redirect in redirects {
        match &mut redirect.target {
            ATarget::Word(word) => walk_word(word, v),
            ATarget::Heredoc(_) => v.unseen_code(),
        }
    }
}

fn walk_command(command: &mut Command, v: &mut dyn Visit) {
    match command {
        Command::Simple(simple) => {
            for assignment in &mut simple.assignments {
                v.assigned(&assignment.assignment.name);
                for sub in &mut assignment.subs {
                    walk_list(&mut sub.list, v);
                }
            }
            for word in &mut simple.words {
                walk_word(word, v);
            }
            walk_redirects(&mut simple.redirects, v);
        }
        Command::Compound(compound, redirects, _) => {
            walk_compound(compound, v);
            walk_redirects(redirects, v);
        }
        Command::Function(_) | Command::Coproc(_) => v.unseen_code(),
    }
}

fn walk_compound(compound: &mut Compound, v: &mut dyn Visit) {
    match compound {
        Compound::Subshell(list) | Compound::Group(list) => walk_list(list, v),
        Compound::If {
            branches,
            otherwise,
        } => {
            for (condition, body) in branches {
                walk_list(condition, v);
                walk_list(body, v);
            }
            if let Some(list) = otherwise {
                walk_list(list, v);
            }
        }
        Compound::While {
            condition, body, ..
        } => {
            walk_list(condition, v);
            walk_list(&mut body.list, v);
        }
        Compound::For {
            name, words, body, ..
        } => {
            v.loop_name(name);
            for word in words.iter_mut().flatten() {
                walk_word(word, v);
            }
            walk_list(&mut body.list, v);
        }
        Compound::ArithFor { expr, body } => {
            v.arithmetic(expr);
            walk_list(&mut body.list, v);
        }
        Compound::Case { word, arms } => {
            walk_word(word, v);
            for arm in arms {
                for pattern in &mut arm.patterns {
                    walk_word(pattern, v);
                }
                if let Some(list) = &mut arm.body {
                    walk_list(list, v);
                }
            }
        }
        Compound::Cond { items, .. } => {
            for item in items {
                walk_word(item, v);
            }
        }
        Compound::Arith { expr, .. } => v.arithmetic(expr),
    }
}
