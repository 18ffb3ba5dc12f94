//! Printing the typed tree back to canonical bash text.
//!
//! Words, assignments and redirections are printed as written; structure is printed in one
//! canonical layout (one list element per line, keywords at line starts, heredoc bodies after
//! the line that opened them). Parsing the rendered text gives the same clause graph as the
//! original (spans aside), which the property tests check.

use crate::ast::{
    AAssignment, ARedirect, ATarget, AWord, AndOr, Command, Compound, DoGroup, HeredocSlot, List,
    Pipeline, Sep, SimpleCommand, Sub,
};
use crate::build;
use crate::clause::Operator;
use crate::limits;

/// Renders `input` in canonical form, or `None` when it does not parse completely (or is over
/// a limit).
#[must_use]
pub fn render(input: &str) -> Option<String> {
    render_with(input, build::Engine::Fast)
}

/// [`render`] with the parsers `engine` allows.
pub(crate) fn render_with(input: &str, engine: build::Engine) -> Option<String> {
    if input.len() > limits::MAX_INPUT_BYTES
        || input.contains('\0')
        || limits::nesting_exceeds(input, limits::MAX_DEPTH).is_some()
    {
        return None;
    }
    pest::set_call_limit(std::num::NonZeroUsize::new(limits::CALL_LIMIT));
    let script = build::build_script(input, limits::MAX_DEPTH, engine).ok()?;
    let mut printer = Printer {
        out: String::with_capacity(input.len().saturating_add(16)),
        heredocs: &script.heredocs,
        pending: Vec::new(),
        end: None,
    };
    printer.list(&script.list);
    printer.flush();
    // A backslash can only end a word at the end of the input (`echo d\`, a literal `\`):
    // followed by the final newline it would become a line continuation.
    if printer.out.ends_with("\\\n") {
        printer.out.pop();
    }
    Some(printer.out)
}

/// One element of a simple command.
enum Item<'a> {
    Assignment(&'a AAssignment),
    Word(&'a AWord),
    Redirect(&'a ARedirect),
}

struct Printer<'a> {
    out: String,
    heredocs: &'a [HeredocSlot],
    pending: Vec<usize>,
    /// Where the compound command being printed ends in the source (`None` at the top).
    end: Option<usize>,
}

impl Printer<'_> {
    /// Ends a line and writes the bodies of the heredocs opened on it. A line ending in a
    /// carriage return gets a blank first, or the pair would be read as a CRLF line end (and
    /// `echo a\r` would lose the `\r` of its argument).
    fn newline(&mut self) {
        if self.out.ends_with('\r') {
            self.out.push(' ');
        }
        self.out.push('\n');
        self.flush();
    }

    fn flush(&mut self) {
        for slot in std::mem::take(&mut self.pending) {
            if let Some(h) = self.heredocs.get(slot) {
                self.out.push_str(&h.body_raw);
                self.out.push_str(&h.terminator_raw);
                self.out.push('\n');
            }
        }
    }

    /// Where the earliest pending heredoc body starts in the source.
    fn pending_body_start(&self) -> Option<usize> {
        self.pending
            .iter()
            .filter_map(|&slot| self.heredocs.get(slot))
            .map(|h| h.body_span.start)
            .min()
    }

    /// Whether pending heredoc bodies were read in the source before `next` (where what is
    /// printed next starts): then they are written first, on a line of their own.
    fn bodies_come_first(&self, next: Option<usize>) -> bool {
        matches!((next, self.pending_body_start()), (Some(next), Some(body)) if body < next)
    }

    /// Ends a line, unless heredoc bodies are pending and the source had `next` (the start of
    /// what is printed next) before them, on the same line: then `same_line` is printed
    /// instead, so the clauses keep their source order around the bodies (in `cat <<A; c=1`,
    /// `c=1` comes before the body's substitutions).
    fn break_before(&mut self, next: Option<usize>, same_line: &str) {
        match (next, self.pending_body_start()) {
            (Some(next), Some(body)) if next < body => self.out.push_str(same_line),
            _ => self.newline(),
        }
    }

    fn list(&mut self, list: &List) {
        // Bodies the source read before the list's first command (`<<A | (⏎body⏎A⏎h)`) are
        // written before it, on a line of their own, so the clauses keep their source order.
        let first = list
            .items
            .first()
            .and_then(|item| command_start(&item.and_or.first.first));
        if self.bodies_come_first(first) {
            self.newline();
        }
        let mut items = list.items.iter().peekable();
        while let Some(item) = items.next() {
            self.and_or(&item.and_or);
            let next = items
                .peek()
                .and_then(|next| command_start(&next.and_or.first.first))
                .or(self.end);
            if item.sep == Sep::Background {
                self.out.push_str(" &");
                self.break_before(next, " ");
            } else {
                self.break_before(next, "; ");
            }
        }
    }

    fn and_or(&mut self, and_or: &AndOr) {
        self.pipeline(&and_or.first);
        for (op, pipeline) in &and_or.rest {
            self.operator((*op).into(), command_start(&pipeline.first));
            self.pipeline(pipeline);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        if pipeline.time {
            self.out.push_str("time ");
            if pipeline.time_posix {
                self.out.push_str("-p ");
            }
        }
        if pipeline.bang {
            self.out.push_str("! ");
        }
        self.command(&pipeline.first);
        for (op, command) in &pipeline.rest {
            self.operator((*op).into(), command_start(command));
            self.command(command);
        }
    }

    /// A list between `open` and `close` (a subshell, a group).
    fn enclosed(&mut self, open: &str, list: &List, close: char) {
        self.out.push_str(open);
        self.list(list);
        self.out.push(close);
    }

    /// An operator between two commands, with a space on either side; or, when heredoc bodies
    /// are pending and the source read them before `next` (the next command's start), a line
    /// end that writes them. The source's line then holds no more pending heredocs than the
    /// parser allows (`<<A | <<B | <<C | <<D |⏎bodies⏎<<E`), and neither does the rendering.
    fn operator(&mut self, op: Operator, next: Option<usize>) {
        self.out.push(' ');
        self.out.push_str(op.as_str());
        if self.bodies_come_first(next) {
            self.newline();
        } else {
            self.out.push(' ');
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects, span) => {
                let outer = self.end.replace(span.end);
                self.compound(compound);
                self.end = outer;
                self.redirects(redirects);
            }
            Command::Function(function) => {
                if function.keyword {
                    self.out.push_str("function ");
                }
                self.out.push_str(&function.name);
                if function.parens || !function.keyword {
                    // `f@()` would read back as the extglob word `f@()`, not a definition.
                    if function.name.ends_with(['@', '*', '+', '?', '!']) {
                        self.out.push(' ');
                    }
                    self.out.push_str("()");
                }
                self.out.push(' ');
                let outer = self.end.replace(function.span.end);
                self.compound(&function.body);
                self.end = outer;
                self.redirects(&function.redirects);
            }
            Command::Coproc(coproc) => {
                self.out.push_str("coproc ");
                if let Some(name) = &coproc.name {
                    self.out.push_str(name);
                    self.out.push(' ');
                }
                self.command(&coproc.body);
            }
        }
    }

    /// Prints assignments, words and redirections in source order: `<x if` runs a command
    /// named `if`, but `if <x` opens an `if` statement, and the order of substitutions is the
    /// order of their clauses.
    fn simple(&mut self, simple: &SimpleCommand) {
        let mut items: Vec<(usize, Item<'_>)> = Vec::with_capacity(
            simple.assignments.len() + simple.words.len() + simple.redirects.len(),
        );
        items.extend(
            simple
                .assignments
                .iter()
                .map(|a| (a.assignment.span.start, Item::Assignment(a))),
        );
        items.extend(
            simple
                .words
                .iter()
                .map(|w| (w.word.span.start, Item::Word(w))),
        );
        items.extend(
            simple
                .redirects
                .iter()
                .map(|r| (r.span.start, Item::Redirect(r))),
        );
        items.sort_by_key(|&(start, _)| start);
        for (index, (_, item)) in items.into_iter().enumerate() {
            if index > 0 {
                self.out.push(' ');
            }
            match item {
                Item::Assignment(assignment) => {
                    self.out.push_str(&assignment.raw);
                    // A newline inside an array (`a=(x⏎…)`) reads the pending heredoc bodies
                    // there, so the text just printed holds them: not again after the line.
                    let span = assignment.assignment.span;
                    let heredocs = self.heredocs;
                    self.pending.retain(|&slot| {
                        heredocs.get(slot).is_none_or(|h| {
                            h.body_span.start < span.start || h.body_span.start >= span.end
                        })
                    });
                    self.note_subs(&assignment.subs, assignment.assignment.span.end);
                }
                Item::Word(word) => self.word(word),
                Item::Redirect(redirect) => self.redirect(redirect),
            }
        }
    }

    fn redirects(&mut self, redirects: &[ARedirect]) {
        for redirect in redirects {
            self.out.push(' ');
            self.redirect(redirect);
        }
    }

    fn redirect(&mut self, redirect: &ARedirect) {
        self.out.push_str(&redirect.raw);
        match &redirect.target {
            ATarget::Word(word) => self.note_subs(&word.subs, word.word.span.end),
            ATarget::Heredoc(slot) => {
                self.pending.push(*slot);
                if let Some(h) = self.heredocs.get(*slot) {
                    self.note_subs(&h.subs, h.body_span.end);
                }
            }
        }
    }

    fn word(&mut self, word: &AWord) {
        self.out.push_str(&word.word.raw);
        self.note_subs(&word.subs, word.word.span.end);
    }

    /// Heredocs opened inside a printed word whose bodies come after the word are pending on
    /// the current line.
    fn note_subs(&mut self, subs: &[Sub], end: usize) {
        for sub in subs {
            visit_heredocs(&sub.list, &mut |slot| {
                if let Some(h) = self.heredocs.get(slot)
                    && h.body_span.start >= end
                    && !self.pending.contains(&slot)
                {
                    self.pending.push(slot);
                }
            });
        }
    }

    fn do_group(&mut self, group: &DoGroup) {
        if group.braces {
            self.out.push_str("{ ");
            self.list(&group.list);
            self.out.push('}');
        } else {
            self.out.push_str("do ");
            self.list(&group.list);
            self.out.push_str("done");
        }
    }

    fn compound(&mut self, compound: &Compound) {
        match compound {
            Compound::Subshell(list) => self.enclosed("( ", list, ')'),
            Compound::Group(list) => self.enclosed("{ ", list, '}'),
            Compound::If {
                branches,
                otherwise,
            } => {
                for (index, (condition, body)) in branches.iter().enumerate() {
                    self.out.push_str(if index == 0 { "if " } else { "elif " });
                    self.list(condition);
                    self.out.push_str("then ");
                    self.list(body);
                }
                if let Some(list) = otherwise {
                    self.out.push_str("else ");
                    self.list(list);
                }
                self.out.push_str("fi");
            }
            Compound::While {
                until,
                condition,
                body,
            } => {
                self.out.push_str(if *until { "until " } else { "while " });
                self.list(condition);
                self.do_group(body);
            }
            Compound::For {
                select,
                name,
                words,
                body,
            } => {
                self.out.push_str(if *select { "select " } else { "for " });
                self.out.push_str(name);
                if let Some(words) = words {
                    self.out.push_str(" in");
                    for word in words {
                        self.out.push(' ');
                        self.word(word);
                    }
                }
                self.break_before(self.end, "; ");
                self.do_group(body);
            }
            Compound::ArithFor { expr, body } => {
                self.out.push_str("for ((");
                self.out.push_str(&expr.word.raw);
                self.note_subs(&expr.subs, expr.word.span.end);
                self.out.push_str("))");
                self.break_before(self.end, "; ");
                self.do_group(body);
            }
            Compound::Case { word, arms } => {
                self.out.push_str("case ");
                self.word(word);
                self.out.push_str(" in");
                let first = arms
                    .first()
                    .and_then(|a| a.patterns.first())
                    .map(|p| p.word.span.start)
                    .or(self.end);
                self.break_before(first, " ");
                for (index, arm) in arms.iter().enumerate() {
                    self.out.push('(');
                    for (index, pattern) in arm.patterns.iter().enumerate() {
                        if index > 0 {
                            self.out.push_str(" | ");
                        }
                        self.word(pattern);
                    }
                    self.out.push(')');
                    let body = arm
                        .body
                        .as_ref()
                        .and_then(|b| b.items.first())
                        .and_then(|item| command_start(&item.and_or.first.first))
                        .or(self.end);
                    self.break_before(body, " ");
                    if let Some(body) = &arm.body {
                        self.list(body);
                    }
                    self.out.push_str(arm.end.unwrap_or(";;"));
                    let next = arms
                        .get(index + 1)
                        .and_then(|a| a.patterns.first())
                        .map(|p| p.word.span.start)
                        .or(self.end);
                    self.break_before(next, " ");
                }
                self.out.push_str("esac");
            }
            Compound::Cond { items, .. } => {
                self.out.push_str("[[");
                for item in items {
                    self.out.push(' ');
                    self.word(item);
                }
                self.out.push_str(" ]]");
            }
            Compound::Arith { expr, .. } => {
                self.out.push_str("((");
                self.out.push_str(&expr.word.raw);
                self.note_subs(&expr.subs, expr.word.span.end);
                self.out.push_str("))");
            }
        }
    }
}

/// Where a command starts in the source.
fn command_start(command: &Command) -> Option<usize> {
    match command {
        Command::Simple(simple) => Some(simple.span.start),
        Command::Compound(_, _, span) => Some(span.start),
        Command::Function(function) => Some(function.span.start),
        Command::Coproc(coproc) => command_start(&coproc.body),
    }
}

/// Calls `f` with the slot of every heredoc redirection in `list`, those in substitutions
/// inside its words included (`$( $(<<A); )` opens `A` in a word of a word).
fn visit_heredocs(list: &List, f: &mut dyn FnMut(usize)) {
    for item in &list.items {
        for pipeline in
            std::iter::once(&item.and_or.first).chain(item.and_or.rest.iter().map(|(_, p)| p))
        {
            for command in
                std::iter::once(&pipeline.first).chain(pipeline.rest.iter().map(|(_, c)| c))
            {
                visit_command(command, f);
            }
        }
    }
}

fn visit_command(command: &Command, f: &mut dyn FnMut(usize)) {
    let redirects: &[ARedirect] = match command {
        Command::Simple(simple) => {
            for assignment in &simple.assignments {
                visit_subs(&assignment.subs, f);
            }
            for word in &simple.words {
                visit_subs(&word.subs, f);
            }
            &simple.redirects
        }
        Command::Compound(compound, redirects, _) => {
            visit_compound(compound, f);
            redirects
        }
        Command::Function(function) => {
            visit_compound(&function.body, f);
            &function.redirects
        }
        Command::Coproc(coproc) => {
            visit_command(&coproc.body, f);
            &[]
        }
    };
    for redirect in redirects {
        match &redirect.target {
            ATarget::Heredoc(slot) => f(*slot),
            ATarget::Word(word) => visit_subs(&word.subs, f),
        }
    }
}

fn visit_subs(subs: &[Sub], f: &mut dyn FnMut(usize)) {
    for sub in subs {
        visit_heredocs(&sub.list, f);
    }
}

fn visit_compound(compound: &Compound, f: &mut dyn FnMut(usize)) {
    match compound {
        Compound::Subshell(list) | Compound::Group(list) => visit_heredocs(list, f),
        Compound::If {
            branches,
            otherwise,
        } => {
            for (c, b) in branches {
                visit_heredocs(c, f);
                visit_heredocs(b, f);
            }
            if let Some(o) = otherwise {
                visit_heredocs(o, f);
            }
        }
        Compound::While {
            condition, body, ..
        } => {
            visit_heredocs(condition, f);
            visit_heredocs(&body.list, f);
        }
        Compound::For { words, body, .. } => {
            for word in words.iter().flatten() {
                visit_subs(&word.subs, f);
            }
            visit_heredocs(&body.list, f);
        }
        Compound::ArithFor { expr, body } => {
            visit_subs(&expr.subs, f);
            visit_heredocs(&body.list, f);
        }
        Compound::Case { word, arms } => {
            visit_subs(&word.subs, f);
            for arm in arms {
                for pattern in &arm.patterns {
                    visit_subs(&pattern.subs, f);
                }
                if let Some(body) = &arm.body {
                    visit_heredocs(body, f);
                }
            }
        }
        Compound::Cond { items, .. } => {
            for item in items {
                visit_subs(&item.subs, f);
            }
        }
        Compound::Arith { expr, .. } => visit_subs(&expr.subs, f),
    }
}
