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

mod compound;
mod redirects;
mod words;

use compound::compound_span;

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
        let program = pairs
            .next()
            .ok_or_else(|| ParseError::nothing("program", self.map.at(0)))?;
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
        let (first, rest) = self.build_chain(
            pair,
            "and-or list",
            Rule::pipeline,
            Self::build_pipeline,
            AndOrOp::And,
            |rule| match rule {
                Rule::op_and => Some(AndOrOp::And),
                Rule::op_or => Some(AndOrOp::Or),
                _ => None,
            },
        )?;
        Ok(AndOr { first, rest })
    }

    /// Items joined by operators (`a && b || c`, `a | b |& c`, newlines allowed after an
    /// operator): the first item, then each later one with the operator before it.
    fn build_chain<T, Op: Copy>(
        &mut self,
        pair: Pair<'_, Rule>,
        parent: &'static str,
        item: Rule,
        build: fn(&mut Self, Pair<'_, Rule>) -> Res<T>,
        mut op: Op,
        operator: impl Fn(Rule) -> Option<Op>,
    ) -> Res<(T, Vec<(Op, T)>)> {
        let mut first = None;
        let mut rest = Vec::new();
        for p in pair.into_inner() {
            let rule = p.as_rule();
            if rule == item {
                let built = build(self, p)?;
                if first.is_none() {
                    first = Some(built);
                } else {
                    rest.push((op, built));
                }
            } else if let Some(next) = operator(rule) {
                op = next;
            } else if rule == Rule::newline {
                self.build_newline(p)?;
            } else {
                return Err(self.unexpected(&p, parent));
            }
        }
        let first = first.ok_or_else(|| ParseError::nothing(parent, 0))?;
        Ok((first, rest))
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
        let (first, rest) = seq.ok_or_else(|| ParseError::nothing("pipeline", 0))?;
        Ok(Pipeline {
            bang,
            time,
            time_posix,
            first,
            rest,
        })
    }

    fn build_pipe_seq(&mut self, pair: Pair<'_, Rule>) -> Res<(Command, Vec<(PipeOp, Command)>)> {
        self.build_chain(
            pair,
            "pipeline",
            Rule::command,
            Self::build_command,
            PipeOp::Pipe,
            |rule| match rule {
                Rule::op_pipe => Some(PipeOp::Pipe),
                Rule::op_pipe_both => Some(PipeOp::PipeBoth),
                _ => None,
            },
        )
    }

    fn build_command(&mut self, pair: Pair<'_, Rule>) -> Res<Command> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let Some(first) = inner.next() else {
            return Err(ParseError::nothing("command", span.start));
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
