//! Compound commands: groups, subshells, `if`, `while`/`until`, `for`, `select`, `case`,
//! `[[ … ]]`, `(( … ))`, function definitions and `coproc`.

use super::*;

impl Builder<'_, '_, '_> {
    pub(super) fn build_compound(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
        let offset = self.offset(&pair);
        self.enter(offset)?;
        let result = self.build_compound_inner(pair);
        self.leave();
        result
    }

    pub(super) fn build_compound_inner(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
    pub(super) fn build_single_list(&mut self, pair: Pair<'_, Rule>) -> Res<List> {
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

    pub(super) fn build_if(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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

    pub(super) fn build_while(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
        let body = body.ok_or_else(|| ParseError::nothing("while", 0))?;
        Ok(Compound::While {
            until,
            condition,
            body,
        })
    }

    pub(super) fn build_do_group(&mut self, pair: Pair<'_, Rule>) -> Res<DoGroup> {
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

    pub(super) fn build_for(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
        let body = body.ok_or_else(|| ParseError::nothing("for", 0))?;
        Ok(Compound::For {
            select,
            name,
            words,
            body,
        })
    }

    pub(super) fn build_arith_for(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
            _ => Err(ParseError::nothing("for (( ))", 0)),
        }
    }

    pub(super) fn build_case(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
        let word = word.ok_or_else(|| ParseError::nothing("case", 0))?;
        Ok(Compound::Case { word, arms })
    }

    pub(super) fn build_case_item(&mut self, pair: Pair<'_, Rule>) -> Res<CaseArm> {
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

    pub(super) fn build_cond(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
    pub(super) fn operator_word(&self, pair: &Pair<'_, Rule>) -> AWord {
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

    pub(super) fn build_arith_cmd(&mut self, pair: Pair<'_, Rule>) -> Res<Compound> {
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
            None => Err(ParseError::nothing("(( ))", span.start)),
        }
    }

    /// The text of an arithmetic expression as one non-literal word.
    pub(super) fn build_arith_text(&mut self, pair: Pair<'_, Rule>) -> Res<AWord> {
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

    pub(super) fn build_function_def(&mut self, pair: Pair<'_, Rule>) -> Res<FunctionDef> {
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
        let body = body.ok_or_else(|| ParseError::nothing("function", span.start))?;
        Ok(FunctionDef {
            name,
            keyword,
            parens,
            body: Box::new(body),
            redirects,
            span,
        })
    }

    pub(super) fn build_coproc(&mut self, pair: Pair<'_, Rule>) -> Res<Coproc> {
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
                return Err(ParseError::nothing("coproc", compound_span.start));
            }
        };
        Ok(Coproc {
            name,
            body: Box::new(body),
        })
    }
}

/// Extends a compound command's span over its trailing redirections.
pub(super) fn compound_span(span: Span, redirects: &[ARedirect]) -> Span {
    match redirects.last() {
        Some(r) => Span::new(span.start, span.end.max(r.span.end)),
        None => span,
    }
}
