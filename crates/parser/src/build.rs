//! Pairs → typed tree: one `build_<rule>` function per grammar rule.
//!
//! Words are cooked on the way (see `cook.rs`). Backtick substitutions are unescaped and parsed
//! again; unquoted heredoc bodies are parsed with the `heredoc_content` rule to find their
//! substitutions. Every nested list goes through [`Builder::enter`], which enforces the depth
//! limit before recursing.

use std::collections::VecDeque;

use pest::Parser as _;
use pest::iterators::Pair;

use crate::ast::{
    AAssignment, ARedirect, ATarget, AWord, AndOr, AndOrOp, CaseArm, Command, Compound, Coproc,
    DoGroup, FunctionDef, HeredocSlot, List, ListItem, PipeOp, Pipeline, Script, Sep,
    SimpleCommand, Sub, SubKind,
};
use crate::clause::{Assignment, RedirectFd, RedirectOp, Span, Word, WordFeatures};
use crate::cook::{self, WordAcc};
use crate::error::{DiagnosticKind, ParseError};
use crate::grammar::{BashParser, Rule};

type Res<T> = Result<T, ParseError>;

/// Where the text pest parsed sits in the original input.
#[derive(Clone, Debug)]
enum OffsetMap {
    /// The text is `original[base..]`.
    Base(usize),
    /// The text was unescaped (backticks): byte `i` of the text came from `table[i]`.
    Table(Vec<usize>),
}

impl OffsetMap {
    fn at(&self, local: usize) -> usize {
        match self {
            Self::Base(base) => base.saturating_add(local),
            Self::Table(table) => table
                .get(local)
                .or_else(|| table.last())
                .copied()
                .unwrap_or(0),
        }
    }

    fn slice(&self, start: usize, end: usize) -> Self {
        match self {
            Self::Base(base) => Self::Base(base.saturating_add(start)),
            Self::Table(table) => Self::Table(
                table
                    .get(start..=end)
                    .map(<[usize]>::to_vec)
                    .unwrap_or_default(),
            ),
        }
    }
}

/// State shared by every pest run of one `parse()` call.
pub(crate) struct Shared<'o> {
    original: &'o str,
    heredocs: Vec<HeredocSlot>,
    max_depth: usize,
}

/// Which parsers [`build_script`] may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    /// The fast scanner when it takes the input, else the grammar.
    Fast,
    /// The grammar alone (the reference for differential tests).
    Grammar,
}

/// Parses `original` and builds the typed tree.
pub(crate) fn build_script(original: &str, max_depth: usize, engine: Engine) -> Res<Script> {
    if engine == Engine::Fast
        && max_depth > crate::fast::MAX_FAST_DEPTH
        && let Some(script) = crate::fast::script(original)
    {
        return Ok(script);
    }
    let mut shared = Shared {
        original,
        heredocs: Vec::new(),
        max_depth,
    };
    let list = {
        let mut builder = Builder::new(&mut shared, original, OffsetMap::Base(0), 0, false);
        builder.run_program()?
    };
    Ok(Script {
        list,
        heredocs: shared.heredocs,
    })
}

/// Builds one pest run (the whole input, a backtick body or a heredoc body).
struct Builder<'s, 'o, 't> {
    shared: &'s mut Shared<'o>,
    text: &'t str,
    map: OffsetMap,
    depth: usize,
    /// Heredoc slots waiting for a body, oldest first.
    pending: VecDeque<usize>,
    /// True inside a double-quoted backtick (where `\"` is unescaped too).
    in_dq: bool,
}

/// How a word part is cooked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Unquoted,
    Double,
}

impl<'s, 'o, 't> Builder<'s, 'o, 't> {
    fn new(
        shared: &'s mut Shared<'o>,
        text: &'t str,
        map: OffsetMap,
        depth: usize,
        in_dq: bool,
    ) -> Self {
        Self {
            shared,
            text,
            map,
            depth,
            pending: VecDeque::new(),
            in_dq,
        }
    }

    // ----- helpers ------------------------------------------------------------------------

    fn span(&self, span: pest::Span<'_>) -> Span {
        Span::new(self.map.at(span.start()), self.map.at(span.end()))
    }

    /// The source text of a pair as written in the original input.
    fn raw(&self, pair: &Pair<'_, Rule>) -> String {
        let span = self.span(pair.as_span());
        match self.shared.original.get(span.start..span.end) {
            Some(s) => s.to_owned(),
            None => pair.as_str().to_owned(),
        }
    }

    fn offset(&self, pair: &Pair<'_, Rule>) -> usize {
        self.map.at(pair.as_span().start())
    }

    fn unexpected(&self, pair: &Pair<'_, Rule>, parent: &'static str) -> ParseError {
        ParseError::Internal {
            rule: format!("{:?}", pair.as_rule()),
            parent,
            offset: self.offset(pair),
        }
    }

    /// Enters one nesting level; fails with a limit error past the maximum depth.
    fn enter(&mut self, offset: usize) -> Res<()> {
        self.depth = self.depth.saturating_add(1);
        if self.depth > self.shared.max_depth {
            return Err(ParseError::Depth {
                limit: self.shared.max_depth,
                offset,
            });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn syntax_error(&self, err: &pest::error::Error<Rule>, what: &str) -> ParseError {
        let local = match err.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        };
        let offset = self.map.at(local);
        let limit = err.variant.message().contains("limit");
        let (kind, message) = if limit {
            (
                DiagnosticKind::Limit,
                format!("the parser's work limit was reached in {what}"),
            )
        } else {
            let near: String = self
                .text
                .get(local..)
                .unwrap_or_default()
                .chars()
                .take(12)
                .collect();
            let message = if near.is_empty() {
                format!("syntax error at the end of {what}")
            } else {
                format!("syntax error in {what} near `{}`", near.escape_debug())
            };
            (DiagnosticKind::Syntax, message)
        };
        ParseError::Syntax {
            kind,
            message,
            offset,
        }
    }

    // ----- entry points -------------------------------------------------------------------

    fn run_program(&mut self) -> Res<List> {
        let text = self.text;
        let mut pairs = BashParser::parse(Rule::program, text)
            .map_err(|e| self.syntax_error(&e, "the command"))?;
        let program = pairs.next().ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "program",
            offset: self.map.at(0),
        })?;
        let list = self.build_program(program)?;
        if let Some(&slot) = self.pending.front() {
            let offset = self
                .shared
                .heredocs
                .get(slot)
                .map_or(0, |h| h.body_span.start);
            return Err(ParseError::Syntax {
                kind: DiagnosticKind::Unterminated,
                message: "a heredoc has no body".to_owned(),
                offset,
            });
        }
        Ok(list)
    }

    fn build_program(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
        let mut list = List::default();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::list => list = self.build_list(p)?,
                Rule::newline => self.build_newline(p)?,
                Rule::EOI => {}
                _ => return Err(self.unexpected(&p, "program")),
            }
        }
        Ok(list)
    }

    // ----- lists --------------------------------------------------------------------------

    fn build_list(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
        let mut items: Vec<ListItem> = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::and_or => items.push(ListItem {
                    and_or: self.build_and_or(p)?,
                    sep: Sep::None,
                }),
                Rule::list_sep => {
                    let sep = self.build_list_sep(p)?;
                    if let Some(last) = items.last_mut() {
                        last.sep = sep;
                    }
                }
                _ => return Err(self.unexpected(&p, "list")),
            }
        }
        Ok(List { items })
    }

    fn build_list_sep(&mut self, pair: Pair<'_, Rule>) -> Res<Sep> {
        let mut sep = Sep::Seq;
        let mut first = true;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::op_semi => sep = Sep::Seq,
                Rule::op_amp => sep = Sep::Background,
                Rule::newline => {
                    if first {
                        sep = Sep::Seq;
                    }
                    self.build_newline(p)?;
                }
                _ => return Err(self.unexpected(&p, "list separator")),
            }
            first = false;
        }
        Ok(sep)
    }

    fn build_and_or(&mut self, pair: Pair<'_, Rule>) -> Res<AndOr> {
        let mut first: Option<Pipeline> = None;
        let mut rest = Vec::new();
        let mut op = AndOrOp::And;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::pipeline => {
                    let pipeline = self.build_pipeline(p)?;
                    if first.is_none() {
                        first = Some(pipeline);
                    } else {
                        rest.push((op, pipeline));
                    }
                }
                Rule::op_and => op = AndOrOp::And,
                Rule::op_or => op = AndOrOp::Or,
                Rule::newline => self.build_newline(p)?,
                _ => return Err(self.unexpected(&p, "and-or list")),
            }
        }
        let first = first.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "and-or list",
            offset: 0,
        })?;
        Ok(AndOr { first, rest })
    }

    fn build_pipeline(&mut self, pair: Pair<'_, Rule>) -> Res<Pipeline> {
        let mut bang = false;
        let mut time = false;
        let mut time_posix = false;
        let mut seq = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::kw_bang => bang = !bang,
                Rule::kw_time => time = true,
                Rule::time_posix => time_posix = true,
                Rule::pipe_seq => seq = Some(self.build_pipe_seq(p)?),
                _ => return Err(self.unexpected(&p, "pipeline")),
            }
        }
        let (first, rest) = seq.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "pipeline",
            offset: 0,
        })?;
        Ok(Pipeline {
            bang,
            time,
            time_posix,
            first,
            rest,
        })
    }

    fn build_pipe_seq(&mut self, pair: Pair<'_, Rule>) -> Res<(Command, Vec<(PipeOp, Command)>)> {
        let mut first = None;
        let mut rest = Vec::new();
        let mut op = PipeOp::Pipe;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::command => {
                    let command = self.build_command(p)?;
                    if first.is_none() {
                        first = Some(command);
                    } else {
                        rest.push((op, command));
                    }
                }
                Rule::op_pipe => op = PipeOp::Pipe,
                Rule::op_pipe_both => op = PipeOp::PipeBoth,
                Rule::newline => self.build_newline(p)?,
                _ => return Err(self.unexpected(&p, "pipeline")),
            }
        }
        let first = first.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "pipeline",
            offset: 0,
        })?;
        Ok((first, rest))
    }

    fn build_command(&mut self, pair: Pair<'_, Rule>) -> Res<Command> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let Some(first) = inner.next() else {
            return Err(ParseError::Internal {
                rule: "nothing".to_owned(),
                parent: "command",
                offset: span.start,
            });
        };
        match first.as_rule() {
            Rule::simple_command => Ok(Command::Simple(self.build_simple_command(first)?)),
            Rule::function_def => Ok(Command::Function(self.build_function_def(first)?)),
            Rule::coproc => Ok(Command::Coproc(self.build_coproc(first)?)),
            _ => {
                let compound = self.build_compound(first)?;
                let redirects = match inner.next() {
                    Some(r) => self.build_redirect_list(r)?,
                    None => Vec::new(),
                };
                let span = compound_span(span, &redirects);
                Ok(Command::Compound(Box::new(compound), redirects, span))
            }
        }
    }

    // ----- simple commands ----------------------------------------------------------------

    fn build_simple_command(&mut self, pair: Pair<'_, Rule>) -> Res<SimpleCommand> {
        let mut cmd = SimpleCommand {
            span: self.span(pair.as_span()),
            ..SimpleCommand::default()
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                // After the command word (declaration builtins), an assignment is an argument.
                Rule::assignment if !cmd.words.is_empty() => {
                    let word = self.build_assignment_word(p)?;
                    cmd.words.push(word);
                }
                Rule::assignment => cmd.assignments.push(self.build_assignment(p)?),
                Rule::redirect => cmd.redirects.push(self.build_redirect(p)?),
                Rule::word => cmd.words.push(self.build_word(p)?),
                _ => return Err(self.unexpected(&p, "simple command")),
            }
        }
        Ok(cmd)
    }

    /// An assignment used as an argument (`declare -a x=(a b)`).
    fn build_assignment_word(&mut self, pair: Pair<'_, Rule>) -> Res<AWord> {
        Ok(cook::assignment_word(self.build_assignment(pair)?))
    }

    fn build_assignment(&mut self, pair: Pair<'_, Rule>) -> Res<AAssignment> {
        let span = self.span(pair.as_span());
        let raw = self.raw(&pair);
        let mut name = String::new();
        let mut index = None;
        let mut append = false;
        let mut value = None;
        let mut array = None;
        let mut subs = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::assign_name => p.as_str().clone_into(&mut name),
                Rule::assign_index => {
                    let text = p.as_str();
                    let inner = text
                        .strip_prefix('[')
                        .and_then(|t| t.strip_suffix(']'))
                        .unwrap_or(text);
                    index = Some(inner.to_owned());
                    let mut features = WordFeatures::default();
                    self.collect_subs(p, &mut subs, &mut features)?;
                }
                Rule::assign_op => append = p.as_str() == "+=",
                Rule::word => {
                    let mut word = self.build_word(p)?;
                    subs.append(&mut word.subs);
                    value = Some(word.word);
                }
                Rule::array_value => {
                    let mut elements = Vec::new();
                    for e in p.into_inner() {
                        match e.as_rule() {
                            Rule::word => {
                                let mut word = self.build_word(e)?;
                                subs.append(&mut word.subs);
                                elements.push(word.word);
                            }
                            Rule::newline => self.build_newline(e)?,
                            _ => return Err(self.unexpected(&e, "array")),
                        }
                    }
                    array = Some(elements);
                }
                _ => return Err(self.unexpected(&p, "assignment")),
            }
        }
        Ok(AAssignment {
            assignment: Assignment {
                name,
                index,
                append,
                value,
                array,
                span,
            },
            raw,
            subs,
        })
    }

    // ----- redirections -------------------------------------------------------------------

    fn build_redirect_list(&mut self, pair: Pair<'_, Rule>) -> Res<Vec<ARedirect>> {
        let mut out = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::redirect => out.push(self.build_redirect(p)?),
                _ => return Err(self.unexpected(&p, "redirections")),
            }
        }
        Ok(out)
    }

    fn build_redirect(&mut self, pair: Pair<'_, Rule>) -> Res<ARedirect> {
        let span = self.span(pair.as_span());
        let raw = self.raw(&pair);
        let mut fd = None;
        let mut op = RedirectOp::Write;
        let mut target = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::io_fd => {
                    let text = p.as_str();
                    fd = Some(
                        match text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                            Some(var) => RedirectFd::Variable(var.to_owned()),
                            None => RedirectFd::Number(text.parse().unwrap_or(u32::MAX)),
                        },
                    );
                }
                Rule::here_string => {
                    op = RedirectOp::HereString;
                    for w in p.into_inner() {
                        target = Some(ATarget::Word(self.build_word(w)?));
                    }
                }
                Rule::file_redirect => {
                    for w in p.into_inner() {
                        match w.as_rule() {
                            Rule::redir_op => op = redirect_op(w.as_str()),
                            Rule::word => target = Some(ATarget::Word(self.build_word(w)?)),
                            _ => return Err(self.unexpected(&w, "redirection")),
                        }
                    }
                }
                Rule::heredoc_strip | Rule::heredoc_plain => {
                    let strip = p.as_rule() == Rule::heredoc_strip;
                    op = if strip {
                        RedirectOp::HeredocStrip
                    } else {
                        RedirectOp::Heredoc
                    };
                    target = Some(ATarget::Heredoc(self.build_heredoc_delim(p, strip)?));
                }
                _ => return Err(self.unexpected(&p, "redirection")),
            }
        }
        let target = target.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "redirection",
            offset: span.start,
        })?;
        Ok(ARedirect {
            op,
            fd,
            target,
            raw,
            span,
        })
    }

    fn build_heredoc_delim(&mut self, pair: Pair<'_, Rule>, strip: bool) -> Res<usize> {
        let mut slot = HeredocSlot {
            strip_tabs: strip,
            ..HeredocSlot::default()
        };
        for d in pair.into_inner() {
            if d.as_rule() != Rule::heredoc_delim {
                return Err(self.unexpected(&d, "heredoc"));
            }
            slot.delimiter_raw = self.raw(&d);
            for seg in d.into_inner() {
                match seg.as_rule() {
                    Rule::hd_bare => slot.delimiter.push_str(seg.as_str()),
                    Rule::hd_sq | Rule::hd_dq | Rule::hd_esc => {
                        slot.quoted = true;
                        slot.delimiter.push_str(seg.as_str());
                    }
                    _ => return Err(self.unexpected(&seg, "heredoc delimiter")),
                }
            }
        }
        let index = self.shared.heredocs.len();
        self.shared.heredocs.push(slot);
        self.pending.push_back(index);
        Ok(index)
    }

    /// A newline token: hands the bodies it read to the pending heredocs, oldest first.
    fn build_newline(&mut self, pair: Pair<'_, Rule>) -> Res<()> {
        for body in pair.into_inner() {
            let body_end = body.as_span().end();
            let Some(text) = body.into_inner().next() else {
                continue;
            };
            let Some(index) = self.pending.pop_front() else {
                return Err(self.unexpected(&text, "heredoc body"));
            };
            let local_start = text.as_span().start();
            let local_end = text.as_span().end();
            let span = self.span(text.as_span());
            let body_raw = text.as_str().to_owned();
            // The terminator line without its newline; a carriage return before the newline
            // belongs to the line (and so to a delimiter that ends in one).
            let terminator = self.text.get(local_end..body_end).unwrap_or_default();
            let terminator_raw = terminator
                .strip_suffix('\n')
                .unwrap_or(terminator)
                .to_owned();
            let (quoted, strip) = match self.shared.heredocs.get(index) {
                Some(slot) => (slot.quoted, slot.strip_tabs),
                None => (true, false),
            };
            let body_text = if strip {
                strip_leading_tabs(&body_raw)
            } else {
                body_raw.clone()
            };
            let subs = if quoted {
                Vec::new()
            } else {
                self.parse_heredoc_content(local_start, local_end)?
            };
            if let Some(slot) = self.shared.heredocs.get_mut(index) {
                slot.body = body_text;
                slot.body_raw = body_raw;
                slot.body_span = span;
                slot.terminator_raw = terminator_raw;
                slot.filled = true;
                slot.subs = subs;
            }
        }
        Ok(())
    }

    fn parse_heredoc_content(&mut self, start: usize, end: usize) -> Res<Vec<Sub>> {
        let Some(text) = self.text.get(start..end) else {
            return Ok(Vec::new());
        };
        if !text.contains(['$', '`']) {
            return Ok(Vec::new());
        }
        let map = self.map.slice(start, end);
        let mut child = Builder::new(self.shared, text, map, self.depth, false);
        child.enter(0)?;
        let pairs = BashParser::parse(Rule::heredoc_content, text)
            .map_err(|e| child.syntax_error(&e, "a heredoc body"))?;
        let mut subs = Vec::new();
        let mut features = WordFeatures::default();
        for p in pairs {
            child.collect_subs(p, &mut subs, &mut features)?;
        }
        child.leave();
        Ok(subs)
    }

    // ----- compound commands --------------------------------------------------------------

    fn build_compound(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let offset = self.offset(&pair);
        self.enter(offset)?;
        let result = self.build_compound_inner(pair);
        self.leave();
        result
    }

    fn build_compound_inner(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        match pair.as_rule() {
            Rule::subshell => Ok(Compound::Subshell(self.build_single_list(pair)?)),
            Rule::group => Ok(Compound::Group(self.build_single_list(pair)?)),
            Rule::if_cmd => self.build_if(pair),
            Rule::while_cmd | Rule::until_cmd => self.build_while(pair),
            Rule::for_cmd | Rule::select_cmd => self.build_for(pair),
            Rule::arith_for_cmd => self.build_arith_for(pair),
            Rule::case_cmd => self.build_case(pair),
            Rule::cond_cmd => self.build_cond(pair),
            Rule::arith_cmd => self.build_arith_cmd(pair),
            _ => Err(self.unexpected(&pair, "compound command")),
        }
    }

    /// A rule whose only list child is a `compound_list` (subshell, group, condition, …).
    fn build_single_list(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
        let mut list = List::default();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::compound_list | Rule::condition => list = self.build_single_list(p)?,
                Rule::list => list = self.build_list(p)?,
                Rule::newline => self.build_newline(p)?,
                _ => return Err(self.unexpected(&p, "compound list")),
            }
        }
        Ok(list)
    }

    fn build_if(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        let mut condition: Option<List> = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::condition => condition = Some(self.build_single_list(p)?),
                Rule::compound_list => {
                    let body = self.build_single_list(p)?;
                    branches.push((condition.take().unwrap_or_default(), body));
                }
                Rule::elif_clause => {
                    let mut cond = List::default();
                    for e in p.into_inner() {
                        match e.as_rule() {
                            Rule::condition => cond = self.build_single_list(e)?,
                            Rule::compound_list => {
                                let body = self.build_single_list(e)?;
                                branches.push((std::mem::take(&mut cond), body));
                            }
                            _ => return Err(self.unexpected(&e, "elif")),
                        }
                    }
                }
                Rule::else_clause => otherwise = Some(self.build_single_list(p)?),
                _ => return Err(self.unexpected(&p, "if")),
            }
        }
        Ok(Compound::If {
            branches,
            otherwise,
        })
    }

    fn build_while(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let until = pair.as_rule() == Rule::until_cmd;
        let mut condition = List::default();
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::condition => condition = self.build_single_list(p)?,
                Rule::do_group => body = Some(self.build_do_group(p)?),
                _ => return Err(self.unexpected(&p, "while")),
            }
        }
        let body = body.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "while",
            offset: 0,
        })?;
        Ok(Compound::While {
            until,
            condition,
            body,
        })
    }

    fn build_do_group(&mut self, pair: Pair<'_, Rule>) -> Res<DoGroup> {
        let mut group = DoGroup {
            list: List::default(),
            braces: false,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::compound_list => group.list = self.build_single_list(p)?,
                Rule::group => {
                    group.list = self.build_single_list(p)?;
                    group.braces = true;
                }
                _ => return Err(self.unexpected(&p, "do group")),
            }
        }
        Ok(group)
    }

    fn build_for(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let select = pair.as_rule() == Rule::select_cmd;
        let mut name = String::new();
        let mut words = None;
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::assign_name => p.as_str().clone_into(&mut name),
                Rule::for_in => {
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::for_words => {
                                let mut list = Vec::new();
                                for w in q.into_inner() {
                                    list.push(self.build_word(w)?);
                                }
                                words = Some(list);
                            }
                            Rule::newline => self.build_newline(q)?,
                            Rule::op_semi => {}
                            _ => return Err(self.unexpected(&q, "for")),
                        }
                    }
                }
                Rule::newline => self.build_newline(p)?,
                Rule::do_group => body = Some(self.build_do_group(p)?),
                _ => return Err(self.unexpected(&p, "for")),
            }
        }
        let body = body.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "for",
            offset: 0,
        })?;
        Ok(Compound::For {
            select,
            name,
            words,
            body,
        })
    }

    fn build_arith_for(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let mut expr = None;
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::arith_text => expr = Some(self.build_arith_text(p)?),
                Rule::newline => self.build_newline(p)?,
                Rule::op_semi => {}
                Rule::do_group => body = Some(self.build_do_group(p)?),
                _ => return Err(self.unexpected(&p, "for (( ))")),
            }
        }
        match (expr, body) {
            (Some(expr), Some(body)) => Ok(Compound::ArithFor { expr, body }),
            _ => Err(ParseError::Internal {
                rule: "nothing".to_owned(),
                parent: "for (( ))",
                offset: 0,
            }),
        }
    }

    fn build_case(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let mut word = None;
        let mut arms = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::word => word = Some(self.build_word(p)?),
                Rule::newline => self.build_newline(p)?,
                Rule::case_item => arms.push(self.build_case_item(p)?),
                _ => return Err(self.unexpected(&p, "case")),
            }
        }
        let word = word.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "case",
            offset: 0,
        })?;
        Ok(Compound::Case { word, arms })
    }

    fn build_case_item(&mut self, pair: Pair<'_, Rule>) -> Res<CaseArm> {
        let mut arm = CaseArm {
            patterns: Vec::new(),
            body: None,
            end: None,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::case_pattern => {
                    for w in p.into_inner() {
                        arm.patterns.push(self.build_word(w)?);
                    }
                }
                Rule::case_body => {
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::list => arm.body = Some(self.build_list(q)?),
                            Rule::newline => self.build_newline(q)?,
                            _ => return Err(self.unexpected(&q, "case arm")),
                        }
                    }
                }
                Rule::case_end => {
                    arm.end = Some(match p.as_str() {
                        ";;&" => ";;&",
                        ";&" => ";&",
                        _ => ";;",
                    });
                }
                Rule::newline => self.build_newline(p)?,
                _ => return Err(self.unexpected(&p, "case arm")),
            }
        }
        Ok(arm)
    }

    fn build_cond(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let span = self.span(pair.as_span());
        let mut items = Vec::new();
        for p in pair.into_inner() {
            if p.as_rule() != Rule::cond_items {
                return Err(self.unexpected(&p, "[[ ]]"));
            }
            for q in p.into_inner() {
                match q.as_rule() {
                    Rule::word | Rule::cond_regex => items.push(self.build_word(q)?),
                    Rule::cond_op | Rule::cond_regex_op => {
                        items.push(self.operator_word(&q));
                    }
                    Rule::newline => self.build_newline(q)?,
                    _ => return Err(self.unexpected(&q, "[[ ]]")),
                }
            }
        }
        Ok(Compound::Cond { items, span })
    }

    /// An operator inside `[[ ]]` recorded as a literal word.
    fn operator_word(&self, pair: &Pair<'_, Rule>) -> AWord {
        let text = pair.as_str().to_owned();
        AWord {
            word: Word {
                raw: text.clone(),
                cooked: text,
                literal: true,
                features: WordFeatures::default(),
                span: self.span(pair.as_span()),
            },
            subs: Vec::new(),
        }
    }

    fn build_arith_cmd(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let span = self.span(pair.as_span());
        let mut expr = None;
        for p in pair.into_inner() {
            if p.as_rule() != Rule::arith_text {
                return Err(self.unexpected(&p, "(( ))"));
            }
            expr = Some(self.build_arith_text(p)?);
        }
        match expr {
            Some(expr) => Ok(Compound::Arith { expr, span }),
            None => Err(ParseError::Internal {
                rule: "nothing".to_owned(),
                parent: "(( ))",
                offset: span.start,
            }),
        }
    }

    /// The text of an arithmetic expression as one non-literal word.
    fn build_arith_text(&mut self, pair: Pair<'_, Rule>) -> Res<AWord> {
        let span = self.span(pair.as_span());
        let raw = self.raw(&pair);
        let mut subs = Vec::new();
        let mut features = WordFeatures {
            arithmetic: true,
            ..WordFeatures::default()
        };
        self.collect_subs(pair, &mut subs, &mut features)?;
        Ok(AWord {
            word: Word {
                cooked: raw.trim().to_owned(),
                raw,
                literal: false,
                features,
                span,
            },
            subs,
        })
    }

    fn build_function_def(&mut self, pair: Pair<'_, Rule>) -> Res<FunctionDef> {
        let span = self.span(pair.as_span());
        let keyword = pair.as_str().starts_with("function");
        let parens = pair.as_str().contains("()") || {
            // `name ( )` with blanks: the name is followed by `(` before the body.
            let text = pair.as_str();
            let body_start = text.find(['{', '(']).unwrap_or(text.len());
            text.get(..body_start).is_some_and(|t| t.contains('('))
        };
        let mut name = String::new();
        let mut body = None;
        let mut redirects = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::func_name => p.as_str().clone_into(&mut name),
                Rule::newline => self.build_newline(p)?,
                Rule::redirect_list => redirects = self.build_redirect_list(p)?,
                _ => body = Some(self.build_compound(p)?),
            }
        }
        let body = body.ok_or_else(|| ParseError::Internal {
            rule: "nothing".to_owned(),
            parent: "function",
            offset: span.start,
        })?;
        Ok(FunctionDef {
            name,
            keyword,
            parens,
            body: Box::new(body),
            redirects,
            span,
        })
    }

    fn build_coproc(&mut self, pair: Pair<'_, Rule>) -> Res<Coproc> {
        let span = self.span(pair.as_span());
        let mut name = None;
        let mut body: Option<Command> = None;
        let mut redirects = Vec::new();
        let mut compound_span = span;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::coproc_name => name = Some(p.as_str().to_owned()),
                Rule::simple_command => {
                    body = Some(Command::Simple(self.build_simple_command(p)?));
                }
                Rule::redirect_list => redirects = self.build_redirect_list(p)?,
                _ => {
                    compound_span = self.span(p.as_span());
                    let compound = self.build_compound(p)?;
                    body = Some(Command::Compound(
                        Box::new(compound),
                        Vec::new(),
                        compound_span,
                    ));
                }
            }
        }
        let body = match body {
            Some(Command::Compound(c, _, s)) => {
                let s = self::compound_span(s, &redirects);
                Command::Compound(c, redirects, s)
            }
            Some(other) => other,
            None => {
                return Err(ParseError::Internal {
                    rule: "nothing".to_owned(),
                    parent: "coproc",
                    offset: compound_span.start,
                });
            }
        };
        Ok(Coproc {
            name,
            body: Box::new(body),
        })
    }

    // ----- words --------------------------------------------------------------------------

    /// Builds a `word` (or `cond_regex`) pair.
    fn build_word(&mut self, pair: Pair<'_, Rule>) -> Res<AWord> {
        let span = self.span(pair.as_span());
        let raw = self.raw(&pair);
        let text = pair.as_str();
        let mut acc = WordAcc::new(text.contains('{'), text.len());
        let mut first = true;
        for part in pair.into_inner() {
            self.build_part(part, Quoting::Unquoted, first, &mut acc)?;
            first = false;
        }
        Ok(acc.finish(raw, span))
    }

    fn build_part(
        &mut self,
        part: Pair<'_, Rule>,
        quoting: Quoting,
        first: bool,
        acc: &mut WordAcc,
    ) -> Res<()> {
        match part.as_rule() {
            Rule::text | Rule::dq_text | Rule::hc_text => {
                acc.text(part.as_str(), quoting == Quoting::Unquoted, first);
            }
            Rule::escape => acc.unquoted_escape(part.as_str()),
            Rule::dq_escape => acc.dq_escape(part.as_str()),
            Rule::hc_escape => acc.heredoc_escape(part.as_str()),
            Rule::sq => {
                let text = part.as_str();
                let inner = text
                    .strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or_default();
                acc.single_quoted(inner);
            }
            Rule::dollar_sq => {
                let text = part.as_str();
                let inner = text
                    .strip_prefix("$'")
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or_default();
                acc.ansi_c(inner);
            }
            Rule::dq | Rule::dollar_dq => {
                for inner in part.into_inner() {
                    self.build_part(inner, Quoting::Double, false, acc)?;
                }
                acc.placeholder();
            }
            Rule::lone_dollar => acc.lone_dollar(),
            _ => {
                // Expansions: keep the source text, record features and nested lists.
                let raw = self.raw(&part);
                acc.expansion(&raw);
                self.collect_subs(part, &mut acc.subs, &mut acc.features)?;
            }
        }
        Ok(())
    }

    /// Records the features of an expansion pair and builds the lists nested in it.
    fn collect_subs(
        &mut self,
        pair: Pair<'_, Rule>,
        subs: &mut Vec<Sub>,
        features: &mut WordFeatures,
    ) -> Res<()> {
        match pair.as_rule() {
            Rule::comsub | Rule::funsub | Rule::procsub => {
                let kind = if pair.as_rule() == Rule::procsub {
                    features.process_substitution = true;
                    SubKind::Process
                } else {
                    features.command_substitution = true;
                    SubKind::Command
                };
                let offset = self.offset(&pair);
                for p in pair.into_inner() {
                    if p.as_rule() == Rule::sub_list {
                        self.enter(offset)?;
                        let list = self.build_sub_list(p);
                        self.leave();
                        subs.push(Sub { kind, list: list? });
                    }
                }
            }
            Rule::backtick => {
                features.command_substitution = true;
                for p in pair.into_inner() {
                    if p.as_rule() == Rule::backtick_text {
                        let list = self.build_backtick(&p)?;
                        subs.push(Sub {
                            kind: SubKind::Command,
                            list,
                        });
                    }
                }
            }
            Rule::param_simple => features.parameter = true,
            Rule::lone_dollar
            | Rule::text
            | Rule::escape
            | Rule::sq
            | Rule::dollar_sq
            | Rule::dq_text
            | Rule::dq_escape
            | Rule::hc_text
            | Rule::hc_escape
            | Rule::param_text
            | Rule::arith_chars
            | Rule::subscript_text
            | Rule::EOI => {}
            Rule::param_braced => {
                features.parameter = true;
                self.collect_children(pair, subs, features)?;
            }
            Rule::arith_sub | Rule::arith_bracket => {
                features.arithmetic = true;
                self.collect_children(pair, subs, features)?;
            }
            Rule::extglob => {
                features.glob = true;
                self.collect_children(pair, subs, features)?;
            }
            Rule::dq
            | Rule::dollar_dq
            | Rule::param_inner
            | Rule::param_nested
            | Rule::arith_text
            | Rule::arith_paren
            | Rule::subscript
            | Rule::subscript_nested
            | Rule::assign_index
            | Rule::heredoc_content
            | Rule::word
            | Rule::cond_regex
            | Rule::cond_regex_group => {
                let offset = self.offset(&pair);
                self.enter(offset)?;
                let result = self.collect_children(pair, subs, features);
                self.leave();
                result?;
            }
            _ => return Err(self.unexpected(&pair, "expansion")),
        }
        Ok(())
    }

    fn collect_children(
        &mut self,
        pair: Pair<'_, Rule>,
        subs: &mut Vec<Sub>,
        features: &mut WordFeatures,
    ) -> Res<()> {
        for p in pair.into_inner() {
            self.collect_subs(p, subs, features)?;
        }
        Ok(())
    }

    fn build_sub_list(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
        let mut list = List::default();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::list => list = self.build_list(p)?,
                Rule::newline => self.build_newline(p)?,
                _ => return Err(self.unexpected(&p, "substitution")),
            }
        }
        Ok(list)
    }

    /// Unescapes a backtick body (`\$`, `` \` ``, `\\`, and `\"` inside double quotes) and
    /// parses it as a program.
    fn build_backtick(&mut self, pair: &Pair<'_, Rule>) -> Res<List> {
        let offset = self.offset(pair);
        let local_start = pair.as_span().start();
        let (out, table) = cook::unescape_backquoted(pair.as_str(), self.in_dq, |at| {
            self.map.at(local_start.saturating_add(at))
        });
        self.enter(offset)?;
        let result = {
            let mut child = Builder::new(
                self.shared,
                &out,
                OffsetMap::Table(table),
                self.depth,
                false,
            );
            child.run_program()
        };
        self.leave();
        result
    }
}

/// Extends a compound command's span over its trailing redirections.
fn compound_span(span: Span, redirects: &[ARedirect]) -> Span {
    match redirects.last() {
        Some(r) => Span::new(span.start, span.end.max(r.span.end)),
        None => span,
    }
}

fn redirect_op(text: &str) -> RedirectOp {
    match text {
        "&>>" => RedirectOp::AppendBoth,
        "&>" => RedirectOp::WriteBoth,
        ">>" => RedirectOp::Append,
        ">|" => RedirectOp::Clobber,
        ">&" => RedirectOp::DupOut,
        "<>" => RedirectOp::ReadWrite,
        "<&" => RedirectOp::DupIn,
        "<" => RedirectOp::Read,
        _ => RedirectOp::Write,
    }
}

fn strip_leading_tabs(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        out.push_str(line.trim_start_matches('\t'));
    }
    out
}

/// Parses `text` with `rule` and reports whether the whole text matched (used by tests).
#[cfg(test)]
pub(crate) fn matches(rule: Rule, text: &str) -> bool {
    BashParser::parse(rule, text).is_ok_and(|p| p.count() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heredoc_stack_is_restored_when_pest_backtracks() {
        // `$((` is tried as arithmetic first: the inner heredoc pushes a frame, the arithmetic
        // fails at `) |`, and pest must drop that frame before parsing `$(` again; otherwise
        // the newline would expect two bodies.
        assert!(matches(
            Rule::program,
            "echo $(( $(cat <<EOF) ) | x)\nbody\nEOF\n"
        ));
        let script = build_script(
            "echo $(( $(cat <<EOF) ) | x)\nbody\nEOF\n",
            64,
            Engine::Grammar,
        )
        .unwrap();
        assert_eq!(script.heredocs.len(), 1);
        assert_eq!(script.heredocs[0].body, "body\n");
    }

    #[test]
    fn heredoc_grammar_cases() {
        assert!(matches(Rule::program, "cat <<A; cat <<B\na\nA\nb\nB\n"));
        assert!(matches(Rule::program, "cat <<-X\n\tx\n\tX\n"));
        assert!(!matches(Rule::program, "cat <<X\n\tx\n\tX\n"));
        assert!(!matches(Rule::program, "cat <<X\nno terminator\n"));
        assert!(!matches(Rule::program, "cat <<X"));
        assert!(matches(Rule::program, "echo $((1<<2))"));
        // A newline inside `$( )` while an outer heredoc is pending is refused.
        assert!(!matches(Rule::program, "cat <<A $(a\nb)\nx\nA\n"));
        assert!(matches(Rule::program, "cat <<A $(a; b)\nx\nA\n"));
    }
}
