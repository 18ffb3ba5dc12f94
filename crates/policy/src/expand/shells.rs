//! Shells (`bash -c`, `eval`, `su -c`, `ssh host CMD`, `env -S`): where a shell's code is
//! (a code flag, joined operands, a script, standard input, a heredoc), and the code parsed
//! again and walked as commands of its own.

use std::ops::Range;
use std::path::{Path, PathBuf};

use shellgate_parser::{ParseOptions, Redirect, RedirectTarget, Word};
use shellgate_rules::Shell;

use super::piped_code::StdinShell;
use super::words::synthetic_word;
use super::wrappers::exactly;
use super::{CodeSource, Opaque, Via, Walker};

/// Where the code of a shell invocation is.
pub(super) enum Found {
    /// Word `index` (or, with `Some(range)`, the value part of it) is the code.
    Code(usize, Option<Range<usize>>),
    /// Words from `index` on, joined by spaces, are the code.
    Joined(usize),
    /// Word `index` is a script file.
    Script(usize),
    /// Standard input is the code; its positional parameters `$1 …` are the words from
    /// `index` on (`bash -s a b`; none without `stdin_flags`).
    Stdin(usize),
    /// No code (an interactive shell, or a usage error).
    Nothing,
}

impl Walker<'_> {
    pub(super) fn shell(
        &mut self,
        index: usize,
        shell: &Shell,
        found: Found,
        trusted: bool,
        depth: usize,
    ) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = inv.words.clone();
        let redirects = inv.redirects.clone();
        let cwd = inv.cwd.clone();
        let home = inv.home.clone();
        if shell.remote {
            self.set_opaque(
                index,
                Opaque::Remote {
                    why: shell
                        .why
                        .clone()
                        .unwrap_or_else(|| "runs code in another program".to_owned()),
                },
            );
        }
        // With one of its `judged_flags` the shell is judged by itself (never transparent); its
        // code is still parsed and judged.
        let judged = judged_option(shell, &words) || judged_value(shell, &words);
        if judged {
            self.mark_judged_wrapper(index);
        }
        let trusted = trusted && !judged;
        let after = match &found {
            Found::Code(i, _) => i + 1,
            _ => words.len(),
        };
        // Where the options before the code flag end (the flag's own word, or the word holding
        // it with the code attached: `-S 'CMD'`, `--split-string=CMD`).
        let options_end = match &found {
            Found::Code(i, Some(_)) => *i,
            Found::Code(i, None) => i.saturating_sub(1),
            _ => shell.verb.len(),
        }
        .max(shell.verb.len());
        // The words bound to the code's `$0 $1 …`, if any.
        let mut positional: Vec<Word> = Vec::new();
        let code = match found {
            Found::Nothing => return,
            // `bash /dev/stdin`, `source /dev/fd/0`: the script is standard input.
            Found::Script(i) if words.get(i).is_some_and(names_stdin) => {
                positional = words.get(i..).unwrap_or_default().to_vec();
                match self.stdin_code(index, shell, &redirects, &positional, depth) {
                    Some(code) => code,
                    None => return,
                }
            }
            Found::Script(i) => {
                // A script named by an expansion or a process substitution (`bash <(…)`,
                // `bash "$(…)"`, `bash "${x:-/tmp/x.sh}"`) is code the gate cannot read.
                if let Some(word) = words.get(i).filter(|w| !w.literal) {
                    self.dynamic(
                        index,
                        &format!("the script `{}` is not known statically", word.raw),
                    );
                    return;
                }
                let path = words.get(i).map(|w| w.cooked.clone()).unwrap_or_default();
                if shell.path_search && !path.contains('/') {
                    self.dynamic(
                        index,
                        &format!(
                            "`{}` is looked up in `PATH` before the working directory: which file runs is not known",
                            path
                        ),
                    );
                    return;
                }
                self.set_opaque(index, Opaque::ScriptFile { path });
                return;
            }
            Found::Code(i, part) => {
                let Some(word) = words.get(i) else { return };
                if !word.literal {
                    self.dynamic(
                        index,
                        &format!("the code `{}` is not known statically", word.raw),
                    );
                    return;
                }
                positional = words.get(i + 1..).unwrap_or_default().to_vec();
                match part {
                    Some(range) => word.cooked.get(range).unwrap_or_default().to_owned(),
                    None => word.cooked.clone(),
                }
            }
            Found::Joined(i) => {
                let tail = words.get(i..).unwrap_or_default();
                if let Some(word) = tail.iter().find(|w| !w.literal) {
                    self.dynamic(
                        index,
                        &format!("the code word `{}` is not known statically", word.raw),
                    );
                    return;
                }
                tail.iter()
                    .map(|w| w.cooked.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            Found::Stdin(i) => {
                // `$0` is the shell's own name.
                positional = words.get(..1).unwrap_or_default().to_vec();
                positional.extend(words.get(i..).unwrap_or_default().iter().cloned());
                match self.stdin_code(index, shell, &redirects, &positional, depth) {
                    Some(code) => code,
                    None => return,
                }
            }
        };
        // `sh` may be dash, which has no `$'…'` or `$"…"` quoting: bash's reading of the code
        // is not dash's (red-team 41m: `sh -c "echo \$'\\' ; rm -rf ~ ; #'"`).
        let program = words
            .first()
            .map(|w| w.cooked.rsplit('/').next().unwrap_or_default());
        if program.is_some_and(|p| shell.posix_names.iter().any(|n| n == p))
            && (code.contains("$'") || code.contains("$\""))
        {
            self.dynamic(
                index,
                "its code quotes with `$'…'` or `$\"…\"`, which a POSIX shell (dash) reads otherwise than bash",
            );
            return;
        }

        if shell.split_only {
            let Some(split) = split_words(&code) else {
                self.dynamic(index, "the split string uses expansions");
                return;
            };
            if trusted {
                self.mark_wrapper(index, shell.privileged);
            }
            let span = words
                .get(after.saturating_sub(1))
                .map(|w| w.span)
                .unwrap_or_default();
            // The split words are arguments of the same command again (`env -S 'A=1 cmd'` is
            // `env A=1 cmd`: assignments, options and the command are read as env reads them),
            // after the options before the flag (`env -C DIR -S 'CMD'` runs CMD in DIR).
            let mut inner: Vec<Word> = words.get(..options_end).unwrap_or_default().to_vec();
            inner.extend(split.into_iter().map(|s| synthetic_word(s, span)));
            inner.extend(words.get(after..).unwrap_or_default().iter().cloned());
            self.inner(index, inner, Vec::new(), cwd, Via::Split, false, depth);
            return;
        }
        let (code_cwd, code_home) = if shell.remote {
            (None, None)
        } else {
            (code_cwd(shell, &words, cwd, home.as_deref()), home)
        };
        // `bash -c 'rm -rf "$1"' _ /`: the arguments after the code are `$0 $1 …`; when they are
        // literal they are bound before the code is judged, so `rm -rf "/"` meets the deny rules.
        // (Only those given, when more are appended at run time: `xargs sh -c 'rm "$1"'`.)
        let appended = self
            .ex
            .invocations
            .get(index)
            .is_some_and(|inv| inv.appended_args);
        let code = if !shell.code_flags.is_empty() && !shell.code_operand {
            shellgate_parser::positional::bind_given(&code, &positional, appended).unwrap_or(code)
        } else {
            code
        };
        // `tmux new-session -e NAME=VALUE CMD`: the code runs with the variable exported.
        let code = match env_exports(shell, &words) {
            Ok(exports) => exports + &code,
            Err(why) => {
                self.dynamic(index, &why);
                return;
            }
        };
        let via = if shell.remote {
            Via::Remote
        } else {
            Via::Shell
        };
        let wrapper = trusted.then_some(shell.privileged);
        self.walk_code(index, code, code_cwd, code_home, via, wrapper, depth);
    }

    /// Parses `code`, run by the shell invocation `index` in `cwd` with home `home`, and walks
    /// its clauses as that invocation's inner commands. With `wrapper` (whether it changes
    /// privilege), a shell whose code is all known is judged through its code; without, it
    /// stays as opaque as it was, and its code is judged besides.
    #[expect(
        clippy::too_many_arguments,
        reason = "the code, where it runs, and how it was reached"
    )]
    pub(super) fn walk_code(
        &mut self,
        index: usize,
        code: String,
        cwd: Option<PathBuf>,
        home: Option<PathBuf>,
        via: Via,
        wrapper: Option<bool>,
        depth: usize,
    ) {
        let text = self
            .ex
            .invocations
            .get(index)
            .map(|i| i.text.clone())
            .unwrap_or_default();
        if depth + 1 > self.max_depth {
            self.ex.complete = false;
            self.ex.notes.push(format!(
                "`{text}`: shell code nested more than {} levels deep",
                self.max_depth
            ));
            self.set_opaque(index, Opaque::DepthLimit);
            if depth + 1 > self.parse_depth {
                return;
            }
        }
        let options = ParseOptions {
            cwd,
            home: home.clone(),
        };
        let parsed = shellgate_parser::parse(&code, &options);
        self.ex.background |= parsed.background;
        // Words of the code that belong to no clause (`for`/`case` words) are judged here.
        if let Some(why) = shellgate_parser::evaluates::unjudged_evaluation(&code, &parsed.graph) {
            self.dynamic(index, &why);
        }
        self.ex.sources.push(CodeSource {
            text: code,
            invocation: index,
        });
        if !parsed.complete {
            self.ex.complete = false;
            self.ex.notes.push(format!(
                "`{text}`: the nested shell code did not parse completely"
            ));
            self.set_opaque(index, Opaque::NestedIncomplete);
        }
        if let Some(privileged) = wrapper
            && !parsed.graph.is_empty()
        {
            self.mark_wrapper(index, privileged);
        }
        let clause_index = self.ex.invocations.get(index).map_or(0, |i| i.clause_index);
        self.graph(
            &parsed.graph,
            Some((index, via)),
            home.as_deref(),
            depth + 1,
            Some(clause_index),
        );
    }

    /// The code shell invocation `index` reads on standard input, when its redirections give
    /// it; otherwise it is made opaque and `None` returned. A shell reading a pipe is
    /// remembered: a literal text piped into it is judged as its code later
    /// ([`Walker::piped_code`]).
    fn stdin_code(
        &mut self,
        index: usize,
        shell: &Shell,
        redirects: &[Redirect],
        positional: &[Word],
        depth: usize,
    ) -> Option<String> {
        match stdin_code(redirects) {
            StdinCode::Text(code) => Some(code),
            StdinCode::File(path) => {
                self.set_opaque(index, Opaque::ScriptFile { path });
                None
            }
            StdinCode::Dynamic(why) => {
                self.dynamic(index, &why);
                None
            }
            StdinCode::Pipe => {
                self.dynamic(index, "it reads code from standard input");
                if !shell.remote {
                    self.stdin_shells.push(StdinShell {
                        index,
                        depth,
                        positional: positional.to_vec(),
                    });
                }
                None
            }
        }
    }
}

/// Whether a script operand names the shell's standard input.
fn names_stdin(word: &Word) -> bool {
    word.literal && crate::paths::descriptor(Path::new(&word.cooked)) == Some(0)
}

/// Where a shell's code is.
pub(super) fn find_code(shell: &Shell, words: &[Word]) -> Found {
    let mut i = shell.verb.len();
    let mut options_done = false;
    let mut code_flag = false;
    let mut skipped = 0;
    let mut query = false;
    // `bash -s ARGS`: standard input is the code, and the operands are `$1 …`.
    let mut stdin_flag = false;
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        let option = !options_done && word.literal && text.len() > 1 && text.starts_with('-');
        query |= option && exactly(text, &shell.query_flags);
        stdin_flag |= option && exactly(text, &shell.stdin_flags);
        if !options_done && word.literal && (text == "--" || (text == "-" && shell.stdin)) {
            // (A shell reading standard input takes a lone `-` as `--`: `bash - ARGS`.)
            options_done = true;
        } else if option && text.starts_with("--") {
            let (name, inline) = match text.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (text, None),
            };
            // (A unique abbreviation of a long code flag is that flag, as getopt_long reads it:
            // `env --s 'rm -rf ~'`.)
            let abbreviates = |flag: &String| {
                shell.split_only
                    && name.len() > 2
                    && flag.starts_with("--")
                    && flag.starts_with(name)
            };
            if exactly(name, &shell.code_flags) || shell.code_flags.iter().any(abbreviates) {
                if let Some(v) = inline {
                    let from = text.len() - v.len();
                    return Found::Code(i, Some(from..text.len()));
                }
                // (`env -S`'s string is its value, whatever it starts with: `-S "-i rm …"`.)
                if shell.split_only && words.get(i + 1).is_some() {
                    return Found::Code(i + 1, None);
                }
                code_flag = true;
            } else if inline.is_none() && exactly(name, &shell.value_flags) {
                i += 1;
            }
        } else if option && exactly(text, &shell.value_flags) {
            i += 1;
        } else if option {
            let body = text.get(1..).unwrap_or_default();
            for (pos, c) in body.char_indices() {
                let name = format!("-{c}");
                let rest_at = 1 + pos + c.len_utf8();
                stdin_flag |= exactly(&name, &shell.stdin_flags);
                if exactly(&name, &shell.code_flags) {
                    if shell.split_only && rest_at < text.len() {
                        return Found::Code(i, Some(rest_at..text.len()));
                    }
                    if shell.split_only && words.get(i + 1).is_some() {
                        return Found::Code(i + 1, None);
                    }
                    code_flag = true;
                } else if exactly(&name, &shell.value_flags) {
                    if rest_at >= text.len() {
                        i += 1;
                    }
                    break;
                }
            }
        } else if code_flag || shell.code_operand {
            return Found::Code(i, None);
        } else if shell.split_only {
            // Its options end at the first operand (an assignment or the command): a `-S`
            // after it is the command's (`env python3 -c CODE -S x` runs python3).
            return Found::Nothing;
        } else if stdin_flag && shell.stdin {
            return Found::Stdin(i);
        } else if skipped < shell.skip_positionals {
            skipped += 1;
        } else if shell.skip_positionals > 0 && !shell.join_args && !shell.script_operand {
            // After the operands it skips, another one is a command with its own options
            // (`flock FILE python3 -c CODE` runs python3; flock's `-c` comes right after the
            // file): red-team 41o.
            return Found::Nothing;
        } else if shell.join_args {
            return Found::Joined(i);
        } else if shell.script_operand {
            return Found::Script(i);
        }
        i += 1;
    }
    if !code_flag && shell.stdin && !query {
        Found::Stdin(words.len())
    } else {
        Found::Nothing
    }
}

/// Whether an option value before the code matches one of `shell`'s `judged_values`, or is not
/// known statically (`tmux new -c '#{HOME}' CMD`: tmux expands the format).
fn judged_value(shell: &Shell, words: &[Word]) -> bool {
    if shell.judged_values.is_empty() {
        return false;
    }
    option_values(shell, words, &shell.value_flags)
        .iter()
        .any(|(word, value)| !word.literal || shell.judged_value(value))
}

/// Whether one of `shell`'s `judged_flags` is among its options (before its code, script or
/// joined arguments), in any spelling: `-k`, a bundle `-kc`, `--rcfile=FILE`, and `+O` for
/// `-O` (a `+` letter unsets the option a `-` letter sets).
fn judged_option(shell: &Shell, words: &[Word]) -> bool {
    if shell.judged_flags.is_empty() {
        return false;
    }
    let mut rest = words.iter().skip(shell.verb.len());
    while let Some(word) = rest.next() {
        let text = word.cooked.as_str();
        let sign = text.chars().next();
        if !word.literal || text == "--" || text.len() < 2 || !matches!(sign, Some('-' | '+')) {
            return false;
        }
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        if sign == Some('-') && exactly(name, &shell.judged_flags) {
            return true;
        }
        if text.starts_with("--") && long_judged(name, &shell.judged_flags) {
            return true;
        }
        if text.starts_with("--") {
            if !text.contains('=') && exactly(text, &shell.value_flags) {
                rest.next();
            }
            continue;
        }
        let mut letters = text.chars().skip(1);
        let mut takes_next = false;
        while let Some(c) = letters.next() {
            let letter = format!("-{c}");
            if exactly(&letter, &shell.judged_flags) {
                return true;
            }
            if exactly(&letter, &shell.value_flags) {
                takes_next = letters.next().is_none();
                break;
            }
        }
        if takes_next {
            rest.next();
        }
    }
    false
}

/// Whether the long option `name` is one of `judged`'s long options or an abbreviation of one,
/// compared as zsh compares option names (any case, `_` and `-` ignored): `--exe` for `--exec`,
/// `--GLOB_SUBST` for `--globsubst`.
fn long_judged(name: &str, judged: &[String]) -> bool {
    let norm = |s: &str| {
        s.trim_start_matches('-')
            .chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    let given = norm(name);
    !given.is_empty()
        && judged
            .iter()
            .filter(|j| j.starts_with("--"))
            .any(|j| norm(j).starts_with(&given))
}

/// `export 'NAME=VALUE';` for each value of one of `shell`'s `env_flags` among its options
/// (`-e NAME=VALUE`, `-eNAME=VALUE`, bundled `-de NAME=VALUE`), or why a value is not known
/// statically.
pub(super) fn env_exports(shell: &Shell, words: &[Word]) -> Result<String, String> {
    let mut exports = String::new();
    for (word, value) in option_values(shell, words, &shell.env_flags) {
        if !word.literal {
            return Err(format!(
                "the variable `{}` given to the new shell is not known statically",
                word.raw
            ));
        }
        exports.push_str("export '");
        exports.push_str(&value.replace('\'', "'\\''"));
        exports.push_str("';\n");
    }
    Ok(exports)
}

/// The working directory a shell's code runs in: the value of the last of its `cwd_flags`
/// (`tmux new-session -c DIR`), resolved; `None` when it is not known statically. Without one,
/// `cwd`.
pub(super) fn code_cwd(
    shell: &Shell,
    words: &[Word],
    cwd: Option<PathBuf>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    // Code that runs later runs wherever the shell is then.
    if shell.later {
        return None;
    }
    let Some((word, value)) = option_values(shell, words, &shell.cwd_flags).pop() else {
        return cwd;
    };
    if !word.literal || shell.judged_value(&value) {
        return None;
    }
    let value = super::words::synthetic_word(value, word.span);
    crate::paths::working_directory(&value, cwd.as_deref(), home)
}

/// The values of `wanted` options among `shell`'s options, in order, with the word that holds
/// each (`-c DIR`, `-cDIR`, bundled `-dc DIR`, `--opt=VALUE`).
fn option_values<'w>(
    shell: &Shell,
    words: &'w [Word],
    wanted: &[String],
) -> Vec<(&'w Word, String)> {
    let mut found = Vec::new();
    if wanted.is_empty() {
        return found;
    }
    let takes = |name: &str| exactly(name, &shell.value_flags) || exactly(name, wanted);
    let mut i = shell.verb.len();
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        if !word.literal || text == "--" || text.len() < 2 || !text.starts_with('-') {
            break;
        }
        let (name, inline) = if text.starts_with("--") {
            match text.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v)),
                None => (text.to_owned(), None),
            }
        } else {
            // The first short option that takes a value takes the rest of the word, or the
            // next word.
            let body = text.get(1..).unwrap_or_default();
            let first = body.char_indices().find_map(|(pos, c)| {
                let name = format!("-{c}");
                let rest = body.get(pos + c.len_utf8()..).unwrap_or_default();
                takes(&name).then(|| (name, (!rest.is_empty()).then_some(rest)))
            });
            match first {
                Some(first) => first,
                None => {
                    i += 1;
                    continue;
                }
            }
        };
        match (exactly(&name, wanted), inline) {
            (true, Some(value)) => found.push((word, value.to_owned())),
            (true, None) => {
                if let Some(value) = words.get(i + 1) {
                    found.push((value, value.cooked.clone()));
                }
                i += 1;
            }
            (false, None) if takes(&name) => i += 1,
            (false, _) => {}
        }
        i += 1;
    }
    found
}

/// What a shell reading standard input reads.
pub(super) enum StdinCode {
    Text(String),
    File(String),
    Dynamic(String),
    /// No redirection gives it: a pipe, or the terminal.
    Pipe,
}

pub(super) fn stdin_code(redirects: &[Redirect]) -> StdinCode {
    // The last redirection of descriptor 0 decides; `3<<EOF` feeds another descriptor.
    for redirect in redirects.iter().rev() {
        if !redirect.feeds_stdin() {
            continue;
        }
        if let RedirectTarget::Heredoc(heredoc) = &redirect.target
            && !heredoc.quoted
        {
            return match heredoc_code(&heredoc.body) {
                Ok(code) => StdinCode::Text(code),
                Err(why) => StdinCode::Dynamic(why),
            };
        }
        if let RedirectTarget::Word(word) = &redirect.target
            && redirect.stdin_text().is_some()
            && !word.literal
        {
            return StdinCode::Dynamic(format!(
                "the here-string `{}` is not known statically",
                word.raw
            ));
        }
        if let Some(text) = redirect.stdin_text() {
            return StdinCode::Text(text.to_owned());
        }
        // (`< <(printf 'rm -rf ~')`: a process substitution, no file of the project.)
        if let Some(target) = redirect.read_target() {
            if !target.literal {
                return StdinCode::Dynamic(format!(
                    "its standard input comes from `{}`, which is not known statically",
                    target.raw
                ));
            }
            return StdinCode::File(target.cooked.clone());
        }
        // `<&3`, `<&-`: standard input comes from elsewhere.
        return StdinCode::Dynamic(
            "its standard input is taken from another descriptor".to_owned(),
        );
    }
    StdinCode::Pipe
}

/// The code a shell reads from an unquoted heredoc: bash expands the body before the shell
/// sees it, so `\$`, `` \` `` and `\\` lose their backslash and `\`-newline joins lines
/// (`bash <<EOF` + ``echo \`id\` `` runs `id`). An expansion left in the body (`$x`, `$(…)`,
/// a backquote) puts data into the code: the code is then not known statically.
fn heredoc_code(body: &str) -> Result<String, String> {
    let mut code = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&next @ ('$' | '`' | '\\')) => {
                    code.push(next);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                _ => code.push(c),
            },
            '$' if chars.peek().is_some_and(|n| {
                n.is_ascii_alphanumeric()
                    || matches!(
                        n,
                        '_' | '{' | '(' | '[' | '@' | '*' | '#' | '?' | '-' | '$' | '!'
                    )
            }) =>
            {
                return Err(
                    "the heredoc is expanded before the shell reads it, and an expansion in it puts data into the code"
                        .to_owned(),
                );
            }
            '`' => {
                return Err(
                    "the heredoc is expanded before the shell reads it, and a substitution in it puts its output into the code"
                        .to_owned(),
                );
            }
            other => code.push(other),
        }
    }
    Ok(code)
}

/// What a backslash sequence of an `env -S` string stands for (GNU env): a character, a word
/// break (`\_` outside double quotes), the end of the string (`\c`); `None` for a sequence env
/// refuses.
enum Escape {
    Char(char),
    Break,
    End,
}

fn env_escape(c: Option<char>, in_double: bool) -> Option<Escape> {
    Some(match c? {
        '_' if in_double => Escape::Char(' '),
        '_' => Escape::Break,
        'n' => Escape::Char('\n'),
        't' => Escape::Char('\t'),
        'r' => Escape::Char('\r'),
        'f' => Escape::Char('\x0c'),
        'v' => Escape::Char('\x0b'),
        // (`\c` cannot stand inside double quotes.)
        'c' if in_double => return None,
        'c' => Escape::End,
        c @ ('#' | '$' | '\\' | '"' | '\'') => Escape::Char(c),
        _ => return None,
    })
}

/// Splits an `env -S` string into words (quotes and backslash sequences as GNU env reads
/// them: `\_` breaks words, `\n` is a newline, `\c` ends the string); `None` when it uses `$`
/// expansions, which env would perform, or a sequence env refuses.
fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '\'' => break,
                        // (In single quotes only `\\` and `\'` are sequences.)
                        '\\' => match chars.next() {
                            Some(e @ ('\\' | '\'')) => current.push(e),
                            Some(other) => current.extend(['\\', other]),
                            None => current.push('\\'),
                        },
                        other => current.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '$' => return None,
                        '\\' => match env_escape(chars.next(), true)? {
                            Escape::Char(e) => current.push(e),
                            Escape::Break | Escape::End => return None,
                        },
                        other => current.push(other),
                    }
                }
            }
            '\\' => match env_escape(chars.next(), false)? {
                Escape::Char(e) => {
                    in_word = true;
                    current.push(e);
                }
                Escape::Break => {
                    if in_word {
                        words.push(std::mem::take(&mut current));
                        in_word = false;
                    }
                }
                Escape::End => break,
            },
            '$' | '`' => return None,
            '#' if !in_word => break,
            other => {
                in_word = true;
                current.push(other);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_split_string() {
        assert_eq!(
            split_words("rm -rf '/tmp/a b' \"x\\\"y\" # c"),
            Some(vec![
                "rm".into(),
                "-rf".into(),
                "/tmp/a b".into(),
                "x\"y".into()
            ])
        );
        assert_eq!(split_words("echo $HOME"), None);
        // GNU env's sequences: `\_` breaks words outside double quotes, `\n` is a newline,
        // `\c` ends the string; an unknown one is refused.
        assert_eq!(
            split_words("rm\\_-f\\_x"),
            Some(vec!["rm".into(), "-f".into(), "x".into()])
        );
        assert_eq!(
            split_words("sh -c \"echo x\\nrm -rf ~\\_y\""),
            Some(vec!["sh".into(), "-c".into(), "echo x\nrm -rf ~ y".into()])
        );
        assert_eq!(
            split_words("echo a\\c rm -rf ~"),
            Some(vec!["echo".into(), "a".into()])
        );
        assert_eq!(split_words("echo \\q"), None);
        assert_eq!(
            split_words("echo 'a\\nb'"),
            Some(vec!["echo".into(), "a\\nb".into()])
        );
        assert_eq!(
            split_words("echo '$HOME'"),
            Some(vec!["echo".into(), "$HOME".into()])
        );
    }

    #[test]
    fn unquoted_heredoc_code_is_expanded_first() {
        assert_eq!(
            heredoc_code("echo \\`id\\`\n"),
            Ok("echo `id`\n".to_owned())
        );
        assert_eq!(heredoc_code("echo \\$((x))"), Ok("echo $((x))".to_owned()));
        assert_eq!(
            heredoc_code("to\\\nuch x \\\\ y"),
            Ok("touch x \\ y".to_owned())
        );
        assert_eq!(
            heredoc_code("echo \\a $ 5$"),
            Ok("echo \\a $ 5$".to_owned())
        );
        assert!(heredoc_code("echo $HOME").is_err());
        assert!(heredoc_code("$(cat x)").is_err());
        assert!(heredoc_code("echo `id`").is_err());
        assert!(heredoc_code("echo ${x}").is_err());
    }
}
