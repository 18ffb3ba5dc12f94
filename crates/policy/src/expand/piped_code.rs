//! Literal code piped into a shell (`echo 'rm -rf ~' | sh`, `cat <<'EOF' | bash`): the text
//! the first stage prints is judged as the code of the shell reading the pipe. The shell stays
//! as opaque as it was, so a person still decides; the deny rules and every effect of the code
//! apply.

use shellgate_parser::Word;

use super::shells::{StdinCode, code_cwd, env_exports, stdin_code};
use super::{Invocation, Via, Walker};

/// A shell reading its code from a pipe (see [`Walker::piped_code`]).
pub(super) struct StdinShell {
    /// Its invocation.
    pub(super) index: usize,
    /// How many shell re-parses deep it is.
    pub(super) depth: usize,
    /// The words bound to its code's `$0 $1 …`.
    pub(super) positional: Vec<Word>,
}

impl Walker<'_> {
    /// Judges a literal text piped into a shell that reads its code from standard input
    /// (`echo 'rm -rf ~' | sh`, `cat <<'EOF' | bash`): `producer` is the only command of the
    /// pipeline stage before `stage`. The shell stays as opaque as it was (a person decides),
    /// and its code meets the deny rules and is judged like any other.
    pub(super) fn piped_code(&mut self, producer: usize, stage: &[usize]) {
        let Some(code) = self.ex.invocations.get(producer).and_then(literal_output) else {
            return;
        };
        let Some(&first) = stage.first() else { return };
        let (shells, rest): (Vec<StdinShell>, Vec<StdinShell>) =
            std::mem::take(&mut self.stdin_shells)
                .into_iter()
                .partition(|s| stage.contains(&s.index) && self.reads_stage_input(s.index, first));
        self.stdin_shells = rest;
        for StdinShell {
            index,
            depth,
            positional,
        } in shells
        {
            let Some(inv) = self.ex.invocations.get(index) else {
                continue;
            };
            let home = inv.home.clone();
            let Some(shell) = self.policy.shell(&inv.words) else {
                continue;
            };
            let cwd = code_cwd(shell, &inv.words, inv.cwd.clone(), home.as_deref());
            let bound = if shell.code_flags.is_empty() || shell.code_operand {
                None
            } else {
                shellgate_parser::positional::bind(&code, &positional)
            };
            let Ok(exports) = env_exports(shell, &inv.words) else {
                continue;
            };
            let code = exports + bound.as_deref().unwrap_or(&code);
            self.walk_code(index, code, cwd, home, Via::Shell, None, depth);
        }
    }

    /// Whether invocation `index` reads the standard input of the pipeline stage that starts
    /// with invocation `first`: it is `first`, or `first` runs it through wrappers that pass
    /// their input on (`sudo sh`, `timeout 5 bash`), not one that reads it (`xargs sh`).
    fn reads_stage_input(&self, index: usize, first: usize) -> bool {
        let Some(inv) = self.ex.invocations.get(index) else {
            return false;
        };
        if index == first {
            return true;
        }
        if inv.appended_args {
            return false;
        }
        let Some(at) = inv.origin.iter().position(|s| s.invocation == first) else {
            return false;
        };
        inv.origin
            .get(at..)
            .unwrap_or_default()
            .iter()
            .all(|s| s.via == Via::Wrapper)
    }
}

/// The text a command prints when it is all literal and known: `echo WORDS` (without options
/// but `-n`/`-E`, or backslashes, which some shells' `echo` interprets), `printf FORMAT` (its
/// only argument, with `%%` and the escapes `\n`, `\t`, `\'`, `\"`), and `cat` of a heredoc
/// or here-string. Anything else, or any redirection of its output, is `None`.
fn literal_output(inv: &Invocation) -> Option<String> {
    let words = &inv.words;
    if inv.opaque.is_some() || words.iter().any(|w| !w.literal) {
        return None;
    }
    let verb = words.first()?.cooked.as_str();
    let mut args = words.get(1..).unwrap_or_default();
    // Its standard output is the pipe: no redirection of descriptor 1 (`2>&1` and
    // `2>/dev/null` leave it), and `cat` reads only a heredoc or here-string.
    let other_descriptor = |r: &shellgate_parser::Redirect| matches!(r.fd, Some(shellgate_parser::RedirectFd::Number(n)) if n > 1);
    let output_kept = inv.redirects.iter().all(|r| {
        other_descriptor(r)
            || (verb == "cat"
                && matches!(r.fd, None | Some(shellgate_parser::RedirectFd::Number(0)))
                && r.stdin_text().is_some())
    });
    if !output_kept {
        return None;
    }
    match verb {
        "echo" => {
            // `-n` (no newline) and `-E` (no escapes, bash's default) change nothing that
            // matters; `-e` and a backslash (which zsh's and dash's `echo` interpret) do.
            let mut newline = true;
            while let Some((first, rest)) = args.split_first() {
                match first.cooked.as_str() {
                    "-n" | "-nE" | "-En" => newline = false,
                    "-E" => {}
                    _ => break,
                }
                args = rest;
            }
            if args.first().is_some_and(|w| w.cooked.starts_with('-'))
                || args.iter().any(|w| w.cooked.contains('\\'))
            {
                return None;
            }
            let mut text = args
                .iter()
                .map(|w| w.cooked.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" => match args {
            [format] if !format.cooked.starts_with('-') => printf_literal(&format.cooked),
            _ => None,
        },
        "cat" if args.is_empty() => match stdin_code(&inv.redirects) {
            StdinCode::Text(text) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

/// What `printf FORMAT` prints, for a format without conversions and with only the common
/// escapes; `None` otherwise.
fn printf_literal(format: &str) -> Option<String> {
    let mut out = String::with_capacity(format.len());
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next()? {
                '%' => out.push('%'),
                _ => return None,
            },
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                c @ ('\'' | '"') => out.push(c),
                _ => return None,
            },
            other => out.push(other),
        }
    }
    Some(out)
}
