//! Compound commands for the fast scanner: subshells, groups, `if`, `while`, `until` and
//! `for`, with the trees `build.rs` makes of the grammar's `subshell`, `group`, `if_cmd`,
//! `while_cmd`, `until_cmd` and `for_cmd`.

use super::{Fast, Scanner};
use crate::ast::{Command, Compound, DoGroup, List};

impl Scanner<'_> {
    /// `compound_command ~ redirect_list`, the command starting at `start` (before its gap,
    /// as the grammar's `command` span does).
    pub(super) fn compound(
        &mut self,
        start: usize,
        parse: fn(&mut Self) -> Fast<Compound>,
    ) -> Fast<Command> {
        self.enter()?;
        let compound = parse(self)?;
        self.depth -= 1;
        let mut redirects = Vec::new();
        loop {
            let before = self.pos;
            self.gap();
            match self.redirect()? {
                Some(redirect) => redirects.push(redirect),
                None => {
                    self.pos = before;
                    break;
                }
            }
        }
        let span = self.span(start, self.pos);
        Some(Command::Compound(Box::new(compound), redirects, span))
    }

    /// Moves past `keyword` (after a gap) or declines.
    fn keyword(&mut self, keyword: &[u8]) -> Fast<()> {
        self.gap();
        if self.token() != keyword {
            return None;
        }
        self.pos += keyword.len();
        Some(())
    }

    /// `compound_list`: `linebreak ~ list ~ linebreak` (the list is required).
    fn compound_list(&mut self) -> Fast<List> {
        self.linebreak();
        if self.at_list_end() {
            return None;
        }
        let list = self.list()?;
        self.linebreak();
        Some(list)
    }

    /// `subshell`: `( compound_list )`; `((` is arithmetic or nested subshells, as
    /// `arith_probe` decides: declined.
    pub(super) fn subshell(&mut self) -> Fast<Compound> {
        if self.peek_at(1) == Some(b'(') {
            return None;
        }
        self.pos += 1;
        let list = self.compound_list()?;
        self.gap();
        if self.peek() != Some(b')') {
            return None;
        }
        self.pos += 1;
        Some(Compound::Subshell(list))
    }

    /// `group`: `{ compound_list }`.
    pub(super) fn group(&mut self) -> Fast<Compound> {
        Some(Compound::Group(self.group_list()?))
    }

    /// The list of a `group`.
    fn group_list(&mut self) -> Fast<List> {
        self.keyword(b"{")?;
        let list = self.compound_list()?;
        self.keyword(b"}")?;
        Some(list)
    }

    /// `if_cmd`: `if` condition `then` list, `elif` branches, `else` list, `fi`.
    pub(super) fn if_command(&mut self) -> Fast<Compound> {
        self.keyword(b"if")?;
        let mut branches = Vec::new();
        let condition = self.compound_list()?;
        self.keyword(b"then")?;
        branches.push((condition, self.compound_list()?));
        let mut otherwise = None;
        loop {
            self.gap();
            match self.token() {
                b"elif" => {
                    self.pos += 4;
                    let condition = self.compound_list()?;
                    self.keyword(b"then")?;
                    branches.push((condition, self.compound_list()?));
                }
                b"else" => {
                    self.pos += 4;
                    otherwise = Some(self.compound_list()?);
                    break;
                }
                _ => break,
            }
        }
        self.keyword(b"fi")?;
        Some(Compound::If {
            branches,
            otherwise,
        })
    }

    /// `while_cmd` and `until_cmd`: the keyword, a condition list and a `do_group`.
    pub(super) fn while_command(&mut self) -> Fast<Compound> {
        self.gap();
        let until = self.token() == b"until";
        // `while` and `until` are both five bytes long.
        self.pos += 5;
        let condition = self.compound_list()?;
        let body = self.do_group()?;
        Some(Compound::While {
            until,
            condition,
            body,
        })
    }

    /// `do_group`: `do compound_list done`, or a group.
    fn do_group(&mut self) -> Fast<DoGroup> {
        self.gap();
        if self.token() == b"{" {
            return Some(DoGroup {
                list: self.group_list()?,
                braces: true,
            });
        }
        self.keyword(b"do")?;
        let list = self.compound_list()?;
        self.keyword(b"done")?;
        Some(DoGroup {
            list,
            braces: false,
        })
    }

    /// `for_cmd`: `for name`, then `in words` and a separator, or a `;`, or nothing; then a
    /// `do_group`.
    pub(super) fn for_command(&mut self) -> Fast<Compound> {
        self.keyword(b"for")?;
        self.gap();
        let name_len = self.name_len(self.pos);
        if name_len == 0 {
            return None;
        }
        let name = self.slice(self.pos, self.pos + name_len)?.to_owned();
        self.pos += name_len;
        // `for_in = linebreak ~ kw_in ~ for_words ~ seq_sep | gap ~ op_semi`.
        let before = self.pos;
        self.linebreak();
        let mut words = None;
        if self.token() == b"in" {
            self.pos += 2;
            let mut list = Vec::new();
            loop {
                let before_word = self.pos;
                self.gap();
                if !self.at_word() {
                    self.pos = before_word;
                    break;
                }
                list.push(self.word()?);
            }
            self.gap();
            match (self.peek(), self.peek_at(1)) {
                (Some(b';'), next) if !matches!(next, Some(b';' | b'&')) => {}
                (Some(b'\n'), _) => {}
                _ => return None,
            }
            self.pos += 1;
            words = Some(list);
        } else {
            self.pos = before;
            self.gap();
            match (self.peek(), self.peek_at(1)) {
                (Some(b';'), next) if !matches!(next, Some(b';' | b'&')) => self.pos += 1,
                _ => self.pos = before,
            }
        }
        self.linebreak();
        let body = self.do_group()?;
        Some(Compound::For {
            select: false,
            name,
            words,
            body,
        })
    }
}
