//! Redirections and heredocs: operators, targets, delimiters and the bodies read after a
//! newline (unquoted bodies parsed again for their substitutions).

use super::*;

impl Builder<'_, '_, '_> {
    pub(super) fn build_redirect_list(&mut self, pair: Pair<'_, Rule>) -> Res<Vec<ARedirect>> {
        let mut out = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::redirect => out.push(self.build_redirect(p)?),
                _ => return Err(self.unexpected(&p, "redirections")),
            }
        }
        Ok(out)
    }

    pub(super) fn build_redirect(&mut self, pair: Pair<'_, Rule>) -> Res<ARedirect> {
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
        let target = target.ok_or_else(|| ParseError::nothing("redirection", span.start))?;
        Ok(ARedirect {
            op,
            fd,
            target,
            raw,
            span,
        })
    }

    pub(super) fn build_heredoc_delim(&mut self, pair: Pair<'_, Rule>, strip: bool) -> Res<usize> {
        let mut slot = HeredocSlot {
            strip_tabs: strip,
            ..HeredocSlot::default()
        };
        for d in pair.into_inner() {
            if d.as_rule() != Rule::heredoc_delim {
                return Err(self.unexpected(&d, "heredoc"));
            }
            slot.delimiter_raw = self.raw(&d);
            // bash removes a line continuation before it reads the delimiter (`<<E\⏎OF` is
            // `EOF`); the grammar reads the delimiter as written, so its body would end
            // elsewhere than bash's.
            // (Nor does it read a delimiter with `${…}`, `$(…)` or a backquote as bash does: bash
            // keeps the quotes inside `${a'b'}`, the grammar removes them: red-team 41m.)
            let raw = &slot.delimiter_raw;
            // (A backquote within one single-quoted delimiter is a character: `<<'```'`.)
            let single_quoted = raw.len() > 1
                && raw.starts_with('\'')
                && raw.ends_with('\'')
                && raw.matches('\'').count() == 2;
            let backquote = raw.contains('`') && !single_quoted;
            if raw.contains("\\\n") || raw.contains("${") || raw.contains("$(") || backquote {
                return Err(ParseError::Syntax {
                    kind: DiagnosticKind::Unsupported,
                    message: "a heredoc delimiter continued on the next line, or with `${`, `$(` or a backquote, is not read"
                        .to_owned(),
                    offset: self.offset(&d),
                });
            }
            for seg in d.into_inner() {
                match seg.as_rule() {
                    Rule::hd_bare => slot.delimiter.push_str(seg.as_str()),
                    Rule::hd_sq | Rule::hd_ansi | Rule::hd_dq | Rule::hd_esc => {
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
    pub(super) fn build_newline(&mut self, pair: Pair<'_, Rule>) -> Res<()> {
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

    pub(super) fn parse_heredoc_content(&mut self, start: usize, end: usize) -> Res<Vec<Sub>> {
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
