//! `[[ … ]]` and `(( … ))`: expressions the shell evaluates itself.

use crate::expand::Invocation;
use shellgate_parser::Context;

use crate::display;
use crate::evaluation::ReasonKind;
use crate::matching::MatchContext;

use super::run::Run;
use super::verdict::Judged;

impl<'a> Run<'a> {
    /// `[[`, `((` or `let` when the invocation is a conditional or arithmetic command evaluated
    /// by the shell itself (its words are the expression, not a command). Known for top-level clauses
    /// and for any arithmetic context; a `[[ … ]]` inside re-parsed shell code is judged as a
    /// command (and so needs a person).
    pub(super) fn shell_keyword(&self, inv: &Invocation) -> Option<&'static str> {
        if inv.context == Context::Arithmetic {
            return Some("((");
        }
        // `let EXPR…`: each operand is an arithmetic expression, as in `((`.
        if inv
            .words
            .first()
            .is_some_and(|w| w.literal && w.cooked == "let")
        {
            return Some("let");
        }
        if !inv.origin.is_empty() {
            return None;
        }
        let clause = self.parsed.graph.get(inv.clause_index)?;
        match clause.verb.first().map(String::as_str) {
            Some("[[") if clause.verb.len() == 1 => Some("[["),
            Some("((") if clause.verb.len() == 1 => Some("(("),
            _ => None,
        }
    }

    /// A `[[ … ]]` or `(( … ))` expression: nothing runs but the shell, so it passes — unless
    /// bash could evaluate text as arithmetic, where `a[$(cmd)]` runs a command: a word with
    /// `[`, `$(` or a backquote, the name of a `-v`/`-R` test when it is not literal, or (in
    /// `((` or an arithmetic `[[` comparison) a word that is not literal. Substitutions inside
    /// are clauses of their own; redirections are judged.
    pub(super) fn judge_keyword(
        &self,
        keyword: &str,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        self.judge_redirects(inv, ctx, judged);
        let comparison = inv.words.iter().any(|w| {
            matches!(
                w.cooked.as_str(),
                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
            )
        });
        // `[[ -v $x ]]`: the name's value is looked up as a variable, and a value such as
        // `a[$(cmd)]` has its subscript evaluated (bash runs `cmd`).
        let tested_name = inv.words.windows(2).find_map(|pair| match pair {
            [test, name] if test.literal && matches!(test.cooked.as_str(), "-v" | "-R") => {
                (!name.literal).then_some(name)
            }
            _ => None,
        });
        let arithmetic = matches!(keyword, "((" | "let");
        let operands = inv
            .words
            .get(usize::from(keyword == "let")..)
            .unwrap_or_default();
        let risky = tested_name.or_else(|| {
            operands.iter().find(|w| {
                w.cooked.contains(['[', '`'])
                || w.cooked.contains("$(")
                // `(( x + 1 ))`: the value of a variable is evaluated as arithmetic too, and
                // a value such as `a[$(cmd)]` runs `cmd`.
                || (arithmetic && shellgate_parser::evaluates::arithmetic_reads_data(&w.cooked))
                // `[[ $x -eq 0 ]]`, `[[ x -eq 0 ]]`: so are the operands of a comparison.
                || (keyword == "[["
                    && comparison
                    && !matches!(w.cooked.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
                    && (!w.literal || has_identifier(&w.cooked)))
            })
        });
        match risky {
            None => judged.reason(
                ReasonKind::Safe,
                None,
                format!("`{keyword}` is evaluated by the shell itself; nothing else runs"),
            ),
            Some(word) => {
                judged.ask_unsaveable(
                    ReasonKind::Opaque,
                    None,
                    format!(
                        "`{}` in a `{keyword}` expression may be evaluated as arithmetic, which can run commands",
                        display::escape(&word.raw)
                    ),
                );
            }
        }
    }
}

/// Whether a text names a variable (an ASCII letter or `_`), as arithmetic would evaluate it.
pub(super) fn has_identifier(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_alphabetic() || b == b'_')
}
