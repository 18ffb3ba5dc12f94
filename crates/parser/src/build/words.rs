//! Words: their parts cooked, the substitutions nested in them collected, and backtick
//! bodies unescaped and parsed again.

use super::*;

impl Builder<'_, '_, '_> {
    /// Builds a `word` (or `cond_regex`) pair.
    pub(super) fn build_word(&mut self, pair: Pair<'_, Rule>) -> Res<AWord> {
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

    pub(super) fn build_part(
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
            Rule::sq => acc.single_quoted(quoted(part.as_str(), "'")),
            Rule::dollar_sq => acc.ansi_c(quoted(part.as_str(), "$'")),
            Rule::dq | Rule::dollar_dq => {
                let outer = acc.double_quotes(true);
                for inner in part.into_inner() {
                    self.build_part(inner, Quoting::Double, false, acc)?;
                }
                acc.double_quotes(outer);
                acc.placeholder();
            }
            Rule::lone_dollar => acc.lone_dollar(),
            _ => {
                // Expansions: keep the source text, record features and nested lists.
                let raw = self.raw(&part);
                let splits = !matches!(part.as_rule(), Rule::procsub | Rule::extglob);
                acc.expansion(&raw, splits);
                // A backtick inside double quotes unescapes `\"` too (`"`echo \"a\"`"`):
                // red-team 41j.
                let outer = std::mem::replace(&mut self.in_dq, quoting == Quoting::Double);
                let built = self.collect_subs(part, &mut acc.subs, &mut acc.features);
                self.in_dq = outer;
                built?;
            }
        }
        Ok(())
    }

    /// Records the features of an expansion pair and builds the lists nested in it.
    pub(super) fn collect_subs(
        &mut self,
        pair: Pair<'_, Rule>,
        subs: &mut Vec<Sub>,
        features: &mut WordFeatures,
    ) -> Res<()> {
        // Whether the pair's children are one nesting level deeper; the arms that build their
        // children themselves, or have none, return.
        let nested = match pair.as_rule() {
            Rule::comsub | Rule::funsub | Rule::procsub => {
                let kind = if pair.as_rule() == Rule::procsub {
                    features.process_substitution = true;
                    SubKind::Process
                } else {
                    features.command_substitution = true;
                    SubKind::Command
                };
                let offset = self.offset(&pair);
                // (`$(…)` starts a new quoting context: a backtick in it is not in the outer
                // double quotes.)
                let outer = std::mem::replace(&mut self.in_dq, false);
                for p in pair.into_inner() {
                    if p.as_rule() == Rule::sub_list {
                        if let Err(e) = self.enter(offset) {
                            self.in_dq = outer;
                            return Err(e);
                        }
                        let list = self.build_sub_list(p);
                        self.leave();
                        match list {
                            Ok(list) => subs.push(Sub { kind, list }),
                            Err(e) => {
                                self.in_dq = outer;
                                return Err(e);
                            }
                        }
                    }
                }
                self.in_dq = outer;
                return Ok(());
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
                return Ok(());
            }
            Rule::param_simple => {
                features.parameter = true;
                return Ok(());
            }
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
            | Rule::EOI => return Ok(()),
            Rule::param_braced => {
                features.parameter = true;
                // (A backquote inside `${…}` is not in the outer double quotes: bash keeps its
                // `\"`, red-team 41o.)
                let outer = std::mem::replace(&mut self.in_dq, false);
                let offset = self.offset(&pair);
                self.enter(offset)?;
                let result = pair
                    .into_inner()
                    .try_for_each(|p| self.collect_subs(p, subs, features));
                self.leave();
                self.in_dq = outer;
                return result;
            }
            Rule::arith_sub | Rule::arith_bracket => {
                features.arithmetic = true;
                false
            }
            Rule::extglob => {
                features.glob = true;
                false
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
            | Rule::cond_regex_group => true,
            _ => return Err(self.unexpected(&pair, "expansion")),
        };
        if nested {
            let offset = self.offset(&pair);
            self.enter(offset)?;
        }
        let result = pair
            .into_inner()
            .try_for_each(|p| self.collect_subs(p, subs, features));
        if nested {
            self.leave();
        }
        result
    }

    pub(super) fn build_sub_list(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
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
    pub(super) fn build_backtick(&mut self, pair: &Pair<'_, Rule>) -> Res<List> {
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

/// How a word part is cooked.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Quoting {
    Unquoted,
    Double,
}

/// The text between the opening quote `open` (`'`, `$'`) and the closing `'` of a
/// single-quoted token.
fn quoted<'t>(text: &'t str, open: &str) -> &'t str {
    text.strip_prefix(open)
        .and_then(|t| t.strip_suffix('\''))
        .unwrap_or_default()
}
