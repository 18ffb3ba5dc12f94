//! Judging one invocation: a wrapper through what it runs, a leaf by its executable, its code,
//! the safe catalog and the approved patterns.

use std::path::PathBuf;

use shellgate_parser::{Context, Redirect, Word};
use shellgate_rules::{Decision, EffectClass, SafeVerdict};

use crate::expand::{Invocation, InvocationKind, Opaque};

use crate::display;
use crate::evaluation::{ClauseVerdict, ReasonKind};
use crate::grant_rule::Narrowness;
use crate::matching::{self, Executable, Token};
use crate::paths;
use crate::proposal::{self, ProposalInput};

use super::clause_text::clause_text;
use super::run::Run;
use super::verdict::Judged;

impl<'a> Run<'a> {
    /// The verdict on one invocation.
    pub(super) fn judge(&self, inv: &Invocation) -> Judged {
        self.current.set(
            self.expansion
                .invocations
                .iter()
                .position(|i| std::ptr::eq(i, inv)),
        );
        let hint = shellgate_parser::verb_hint(
            &inv.words
                .iter()
                .map(|w| w.cooked.as_str())
                .collect::<Vec<_>>(),
        );
        let mut judged = Judged::new(ClauseVerdict {
            verb: hint,
            argv: inv.words.iter().map(|w| w.cooked.clone()).collect(),
            origin: self.origin(inv),
            decision: Decision::Approved,
            reasons: Vec::new(),
            text: clause_text(inv, self.shows_code(inv)),
            clause: Some(inv.clause_index),
            proposal: None,
        });
        if let InvocationKind::Wrapper { privileged } = inv.kind {
            let through = if privileged {
                "runs its inner commands with other privileges; judged through them"
            } else {
                "judged through the commands it runs"
            };
            judged.reason(ReasonKind::Safe, None, format!("wrapper: {through}"));
            // The wrapper's own words (`nice -n $((x)) ls`) are expanded too.
            self.judge_evaluating_expansions(inv, &mut judged);
            // Its redirections belong to it: `sh -c 'true' > /etc/hosts` writes `/etc/hosts`
            // whatever the code does (code parsed again does not inherit them).
            let ctx = self.match_context(inv);
            self.judge_redirects(inv, &ctx, &mut judged);
            self.judge_wrapper_writes(inv, &ctx, &mut judged);
            if let Some(opaque) = &inv.opaque {
                // The code it runs is not (fully) visible: remote, or partly unparsed.
                judged.saveable = false;
                let (kind, message) = opaque_reason(opaque);
                judged.ask(kind, None, message);
            }
            if let Some(wrapper) = self.policy().wrapper(&inv.words)
                && let shellgate_rules::WrapperMode::Prefix(prefix) = &wrapper.mode
                && let Some(runs) = prefix.runs
            {
                self.judge_runner(inv, wrapper, prefix, runs, &ctx, &mut judged);
            }
            return judged;
        }
        self.judge_leaf(inv, &mut judged);
        judged
    }

    /// Judges a plain or inner invocation.
    pub(super) fn judge_leaf(&self, inv: &Invocation, judged: &mut Judged) {
        let ctx = self.match_context(inv);
        self.judge_assignments(inv, judged);
        self.judge_evaluating_expansions(inv, judged);
        if let Some(keyword) = self.shell_keyword(inv) {
            self.judge_keyword(keyword, inv, &ctx, judged);
            return;
        }
        // What the catalog admits it as, then its paths: operands by role, redirect targets,
        // cd targets, appended arguments, the working directory.
        let safe = if inv.words.is_empty() {
            SafeVerdict::NotCatalogued
        } else {
            self.confirm_operands(inv, &ctx, self.policy().safe(&inv.view()))
        };
        let (class, entry_verb) = match &safe {
            SafeVerdict::Admitted { class, verb, .. } => (Some(*class), *verb),
            SafeVerdict::Unsafe { .. } | SafeVerdict::NotCatalogued => (None, &[][..]),
        };
        self.judge_paths(inv, &ctx, &safe, judged);
        // A file a command sends elsewhere (`gh pr create -F FILE`, `gh gist create FILE`) is an
        // upload whatever the command is: it needs a person, and no grant of the command's name
        // covers it (a network command's are judged with its hosts, below).
        if class != Some(EffectClass::Network) {
            for file in std::mem::take(&mut judged.net.uploads) {
                judged.ask_unsaveable(
                    ReasonKind::Network,
                    None,
                    format!("sends the content of `{file}` to another machine (an upload)"),
                );
            }
        }
        let Some(first) = inv.words.first() else {
            // A bare assignment or redirection: nothing runs.
            return;
        };
        if class.is_none() {
            judged.writes_below = Some(ctx.cwd.map_or_else(
                || PathBuf::from("/"),
                |cwd| paths::finish(cwd, ctx.symlinks).unwrap_or_else(|| cwd.to_path_buf()),
            ));
        }
        let tokens: Vec<Token<'_>> = inv.words.iter().map(token).collect();
        // The executable.
        let executable = match tokens.first() {
            Some(first_token) => matching::executable(first_token, &ctx),
            None => Executable::Unknown,
        };
        if !first.literal {
            judged.ask_unsaveable(
                ReasonKind::Executable,
                None,
                format!(
                    "the command name `{}` is not known until it runs",
                    display::escape(&first.raw)
                ),
            );
            return;
        }
        match &executable {
            Executable::Name(name) if first.cooked.contains('/') => judged.reason(
                ReasonKind::Executable,
                None,
                format!(
                    "`{}` is `{name}` from a trusted bin directory",
                    display::escape(&first.cooked)
                ),
            ),
            Executable::Name(_) => {}
            Executable::Path(path) => judged.reason(
                ReasonKind::Executable,
                None,
                format!(
                    "`{}` runs `{}`, which is not in a trusted bin directory",
                    display::escape(&first.cooked),
                    display::escape(&path.to_string_lossy())
                ),
            ),
            Executable::Unknown => {
                judged.ask_unsaveable(
                    ReasonKind::Executable,
                    None,
                    format!(
                        "where `{}` is cannot be known statically",
                        display::escape(&first.cooked)
                    ),
                );
                return;
            }
        }
        // Code the gate cannot read — unless it is the project's own: a script file or a
        // program inside a run zone (`python3 tests/run.py`, `./scripts/test.sh`,
        // `bash build.sh`, `./target/debug/app`). A catalog entry that admits an interpreter
        // call (`python3 -m pytest`) knows more than the interpreter entry.
        let mut project_file: Option<(String, &str)> = None;
        let mut inline_read = false;
        // The interpreter itself, when it is the project's own program (`.venv/bin/python`).
        let project_interpreter = match &executable {
            Executable::Path(path) => path
                .to_str()
                .and_then(|p| self.project_code_file(p, &ctx))
                .map(|file| (PathBuf::from(file), first.cooked.clone())),
            Executable::Name(_) | Executable::Unknown => None,
        };
        // The catalog entry of the project's interpreter's name (`.venv/bin/python -m pytest`).
        let anywhere = match project_interpreter {
            Some(_) if class.is_none() => self.policy().safe_anywhere(&inv.view()),
            _ => SafeVerdict::NotCatalogued,
        };
        let anywhere_verb = match &anywhere {
            SafeVerdict::Admitted { verb, .. } => *verb,
            SafeVerdict::Unsafe { .. } | SafeVerdict::NotCatalogued => &[][..],
        };
        let interpreter_call = match &inv.opaque {
            None => false,
            // The catalog entry names the code flag or the "script" word (`python3 -m pytest`,
            // `bun run build`): it knows what runs.
            Some(Opaque::Interpreter { flag, script, .. })
                if flag.iter().chain(script).any(|w| {
                    entry_verb
                        .iter()
                        .skip(1)
                        .chain(anywhere_verb.iter().skip(1))
                        .any(|v| v == w)
                }) =>
            {
                false
            }
            // Inline code the gate read: it only imports and computes (`[interpreter.inline]`).
            // Its imports are the environment's code, first of all the working directory's. The
            // interpreter itself must be a trusted command or the project's own program: any
            // other file named `python` may be anything.
            Some(Opaque::Interpreter {
                inline_read: true, ..
            }) if matches!(executable, Executable::Name(_)) || project_interpreter.is_some() => {
                judged.reason(
                    ReasonKind::Interpreter,
                    None,
                    "its inline code only imports modules and calls listed builtins",
                );
                judged.project_code.extend(project_interpreter);
                // Code that only imports and computes writes nothing.
                judged.writes_below = None;
                inline_read = true;
                true
            }
            Some(Opaque::Interpreter { why, script, .. }) => {
                match script
                    .as_deref()
                    .and_then(|s| self.project_code_file(s, &ctx).map(|p| (p, s)))
                {
                    Some(found) => {
                        project_file = Some(found);
                        false
                    }
                    None => {
                        judged.reason(ReasonKind::Interpreter, None, why.clone());
                        true
                    }
                }
            }
            Some(opaque @ Opaque::ScriptFile { path }) => {
                if let Some(file) = self.project_code_file(path, &ctx) {
                    project_file = Some((file, path.as_str()));
                    false
                } else {
                    judged.saveable = false;
                    let (kind, message) = opaque_reason(opaque);
                    judged.ask(kind, None, message);
                    return;
                }
            }
            Some(other) => {
                judged.saveable = false;
                let (kind, message) = opaque_reason(other);
                judged.ask(kind, None, message);
                return;
            }
        };
        if let Executable::Path(path) = &executable
            && class.is_none()
            && project_file.is_none()
            && let Some(file) = path.to_str().and_then(|p| self.project_code_file(p, &ctx))
        {
            project_file = Some((file, first.cooked.as_str()));
        }
        // An interpreter's arguments are code or select code: it is only ever saved, and
        // matched, as the exact command.
        let opaque_code = interpreter_call || judged.runs_code.is_some();
        if let Some(code) = judged.runs_code.clone() {
            judged.reason(
                ReasonKind::Interpreter,
                None,
                format!("`{code}` is a program or code that runs"),
            );
        }
        let interpreter_call = opaque_code
            || (class.is_none()
                && project_file.is_none()
                && self.policy().interpreter(&inv.words).is_some());
        // Privilege changes never pass silently.
        if let Some(step) = self.privileged_step(inv) {
            judged.ask_unsaveable(
                ReasonKind::Privileged,
                None,
                format!("runs with other privileges through `{}`", step.join(" ")),
            );
            return;
        }
        if inline_read && self.runs_in_run_zone(&ctx, judged) {
            return;
        }
        // What the command is: its effects beyond its paths (judged above) are those of its
        // class; the project's code runs silently only in a run zone.
        let (unsafe_word, exact_word) = match &safe {
            SafeVerdict::Unsafe { token, exact, .. } => (Some(token.clone()), *exact),
            _ => (None, false),
        };

        // An entry that refuses any grant (`python3 -m tarfile -e`: its input names what it
        // writes) does so for the interpreter's exact command too.
        if opaque_code
            && let SafeVerdict::Unsafe {
                token,
                why,
                saveable: false,
                ..
            } = &safe
        {
            judged.saveable = false;
            judged.reason(
                ReasonKind::Unsafe,
                None,
                format!("`{}`: {why}", display::escape(token)),
            );
        }
        if !opaque_code {
            match safe {
                SafeVerdict::Admitted {
                    class: EffectClass::Pure,
                    ..
                } => {
                    judged.reason(ReasonKind::Pure, None, "a pure side-effect verb");
                    self.judge_exposure(inv, judged);
                    return;
                }
                SafeVerdict::Admitted {
                    class, why, hooks, ..
                } => {
                    judged.reason(ReasonKind::Safe, None, format!("{}: {why}", class.as_str()));
                    if class == EffectClass::ReadOnly {
                        self.judge_exposure(inv, judged);
                    }
                    if class == EffectClass::Network {
                        // What it asks for is its network effects (or its paths), not the verb.
                        self.judge_network(judged);
                        return;
                    }
                    let runs_code = class == EffectClass::Toolchain || hooks;
                    if !runs_code {
                        return;
                    }
                    // (Both are judged: a file from elsewhere is a need of its own, which a saved
                    // grant of the toolchain's name does not cover, in any audience.)
                    let in_zone = self.runs_in_run_zone(&ctx, judged);
                    if self.task_file_runs(inv, &ctx, judged) && in_zone {
                        return;
                    }
                }
                SafeVerdict::Unsafe {
                    token,
                    why,
                    saveable,
                    ..
                } => {
                    judged.saveable &= saveable;
                    judged.reason(
                        ReasonKind::Unsafe,
                        None,
                        format!("`{}`: {why}", display::escape(&token)),
                    );
                }
                SafeVerdict::NotCatalogued => {}
            }
            // A catalog entry for the program's name that refuses the call (`./gradlew build
            // -p /tmp/x`, `node_modules/.bin/jest -c /tmp/x.config.js`) knows more than "the
            // file is the project's".
            let refused = project_file.is_some()
                && matches!(executable, Executable::Path(_))
                && self.judge_refused_anywhere(inv, &ctx, judged);
            if unsafe_word.is_none()
                && !refused
                && let Some((file, shown)) = &project_file
                && self.project_code_runs(
                    file,
                    shown,
                    inv.words.get(1..).unwrap_or_default(),
                    judged,
                )
            {
                return;
            }
        }
        let hint_words: Vec<&str> = match &executable {
            Executable::Name(name) => std::iter::once(name.as_str())
                .chain(inv.words.iter().skip(1).map(|w| w.cooked.as_str()))
                .collect(),
            Executable::Path(_) | Executable::Unknown => Vec::new(),
        };
        let hint = shellgate_parser::verb_hint(&hint_words);
        let input = ProposalInput {
            words: &tokens,
            hint: &hint,
            executable: &executable,
            rule: self.gate.grant_rule(),
        };
        // Embedded code, a command the catalog singles out by one of its words, and a narrow
        // command (one that can destroy, leak or run any code: `kill 1234`, `git push origin
        // main`) are covered only by a pattern that spells every word: `kill 1234 *` must not
        // approve `kill 1234 -1`.
        // (Worked out only when a pattern could match.)
        let exact = interpreter_call
            || exact_word
            || (!self.state.patterns().is_empty()
                && proposal::narrowness(&input) == Narrowness::Every);
        // Code read from standard input is in no word: no pattern stands for it (`psql -h db *`
        // saved for `psql -h db < q.sql` must not approve `psql -h db <<< '\! CMD'`).
        let code_unseen = interpreter_call && !self.code_visible(inv);
        for approved in self.state.patterns().iter().filter(|_| !code_unseen) {
            if matching::matches(&approved.pattern, &tokens, exact, &ctx) {
                judged.reason(
                    ReasonKind::Pattern,
                    Some(approved.pattern.as_str().to_owned()),
                    format!("approved pattern ({})", approved.source.as_str()),
                );
                return;
            }
        }
        let proposal = if interpreter_call {
            if self.code_visible(inv) {
                proposal::propose_exact(&tokens, &executable, self.gate.grant_rule())
            } else {
                None
            }
        } else if exact_word {
            proposal::propose_exact(&tokens, &executable, self.gate.grant_rule())
        } else {
            proposal::propose(&input)
        };
        if proposal.is_none() {
            judged.saveable = false;
        }
        let message = if interpreter_call {
            match &proposal {
                Some(p) => format!("runs code; it can only be saved as the exact command `{p}`"),
                None => "runs code, and the exact command cannot be saved as a pattern".to_owned(),
            }
        } else if exact_word {
            match &proposal {
                Some(p) => format!("not approved; it can only be saved as the exact command `{p}`"),
                None => {
                    "not approved, and the exact command cannot be saved as a pattern".to_owned()
                }
            }
        } else {
            match &proposal {
                Some(p) => format!("not approved; proposed pattern `{p}`"),
                None => "not approved, and no narrow pattern can be proposed".to_owned(),
            }
        };
        let kind = if interpreter_call {
            ReasonKind::Interpreter
        } else {
            ReasonKind::Verb
        };
        judged.ask(kind, None, message);
        judged.verdict.proposal = proposal;
    }

    /// Whether an invocation's words hold code (an interpreter call, or a shell whose code was
    /// parsed again): such words are shown in full, never summarised.
    pub(super) fn shows_code(&self, inv: &Invocation) -> bool {
        matches!(inv.kind, InvocationKind::Wrapper { .. })
            || inv.opaque.is_some()
            || self.policy().interpreter(&inv.words).is_some()
    }

    /// Whether an interpreter call's code is in its words (not read from standard input): only
    /// then can a pattern of its words stand for what it runs.
    pub(super) fn code_visible(&self, inv: &Invocation) -> bool {
        let Some(interpreter) = self.policy().interpreter(&inv.words) else {
            return false;
        };
        // Standard input given to an interpreter that reads code there (a redirection, a
        // heredoc, a pipe) may be its code, whatever else it is given: `psql db < q.sql`,
        // `cross-env X=1 sh < x`, and the interactive, debugger and REPL modes that read it
        // after their script (`python3 -i x.py`, `php -a`, `perl -d x.pl`, `python3 -m pdb`).
        let fed =
            inv.context == Context::Pipeline || inv.redirects.iter().any(Redirect::feeds_stdin);
        if interpreter.stdin && fed {
            return false;
        }
        // (An interpreter that reads its code from standard input takes it from an operand only
        // where it says so: `sftp host` and `R x.R` read their commands from standard input.)
        let operand_code =
            !interpreter.stdin || interpreter.script_operand || interpreter.program_operand;
        let words = inv.words.get(interpreter.verb.len()..).unwrap_or_default();
        words.iter().enumerate().any(|(i, w)| {
            let text = w.cooked.as_str();
            if !text.starts_with('-') {
                return operand_code && !names_stdin(text);
            }
            let code = interpreter
                .code_flags
                .iter()
                .any(|flag| flag_given(text, flag).is_some());
            // A script flag whose file is standard input (`sftp -b -`, `lftp -f /dev/stdin`).
            let script = interpreter.script_flags.iter().any(|flag| {
                flag_given(text, flag).is_some_and(|attached| {
                    let value = if attached.is_empty() {
                        words.get(i + 1).map_or("", |w| w.cooked.as_str())
                    } else {
                        attached
                    };
                    value != "-" && !names_stdin(value)
                })
            });
            code || script
        })
    }
}

/// Whether `word` is `flag` (`Some("")`) or a short `flag` with its value attached (`Some`
/// the value).
fn flag_given<'w>(word: &'w str, flag: &str) -> Option<&'w str> {
    if word == flag {
        return Some("");
    }
    if flag.starts_with("--") {
        return None;
    }
    word.strip_prefix(flag)
}

/// Whether a path names standard input (`/dev/stdin`, `/dev/fd/0`).
fn names_stdin(path: &str) -> bool {
    paths::descriptor(std::path::Path::new(path)) == Some(0)
}

/// The evidence for code the gate cannot read.
pub(super) fn opaque_reason(opaque: &Opaque) -> (ReasonKind, String) {
    match opaque {
        Opaque::ScriptFile { path } => (
            ReasonKind::Opaque,
            format!(
                "runs the script file `{}`, which the gate cannot read",
                display::escape(path)
            ),
        ),
        Opaque::Remote { why } => (
            ReasonKind::Opaque,
            format!("{why}: the code runs where the gate cannot follow it"),
        ),
        Opaque::DynamicCode { why } => (ReasonKind::Opaque, why.clone()),
        Opaque::Interpreter { why, .. } => (ReasonKind::Interpreter, why.clone()),
        Opaque::DepthLimit => (
            ReasonKind::Incomplete,
            "shell code is nested too deep to follow".to_owned(),
        ),
        Opaque::NestedIncomplete => (
            ReasonKind::Incomplete,
            "its shell code did not parse completely".to_owned(),
        ),
        Opaque::UnknownOption { wrapper, option } => (
            ReasonKind::Unsafe,
            format!(
                "`{}` is an option of `{}` that the policy does not know: what it changes cannot be judged",
                display::escape(option),
                display::escape(wrapper)
            ),
        ),
    }
}

/// A word as matching sees it.
pub(super) fn token(word: &Word) -> Token<'_> {
    Token {
        text: &word.cooked,
        literal: word.literal,
        tilde: word.features.tilde,
    }
}
