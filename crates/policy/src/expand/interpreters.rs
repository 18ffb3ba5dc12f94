//! Interpreters (`python3 -c`, `node x.js`, `awk` with `system`): whether a call runs code
//! shellgate cannot read.

use shellgate_parser::{Redirect, Word};
use shellgate_rules::Interpreter;
use shellgate_rules::flags::Scan;

use super::Opaque;
use super::python::read_only_code;
use super::shells::{StdinCode, stdin_code};
use super::wrappers::{exactly, listed};

/// Whether `name` is one of the code or script `flags`, or a long option that abbreviates one
/// (`--checkpoint-a` for tar's `--checkpoint-action`: getopt_long takes any unambiguous
/// prefix). A prefix of two letters or fewer (`--c`), or one of the interpreter's own value
/// flags or flags, is not taken for one.
fn code_like(name: &str, flags: &[String], interpreter: &Interpreter) -> bool {
    exactly(name, flags)
        || (name.starts_with("--")
            && name.len() > 4
            // An option of its own (`--checkpoint`, node's `--test`) is no abbreviation.
            && !exactly(name, &interpreter.value_flags)
            && !exactly(name, &interpreter.flags)
            && flags
                .iter()
                .any(|f| f.len() > name.len() && f.starts_with(name)))
}

/// Whether flag `name`, seen in `word`, is a whole bundle of short flags (`-pe`), whose letters
/// are checked one by one.
fn bundled(name: &str, word: Option<&Word>) -> bool {
    !name.starts_with("--")
        && name.chars().count() > 2
        && word.is_some_and(|w| w.cooked.split('=').next() == Some(name))
}

/// Whether option `name` of an interpreter call takes a value: a code, script or value flag.
fn takes_value(interpreter: &Interpreter, name: &str) -> bool {
    code_like(name, &interpreter.code_flags, interpreter)
        || code_like(name, &interpreter.script_flags, interpreter)
        || exactly(name, &interpreter.value_flags)
}

/// The options, values and operands of an interpreter call.
fn scanned(interpreter: &Interpreter, words: &[Word]) -> Scan {
    let mut scan = shellgate_rules::flags::scan(words, interpreter.verb.len(), &|name| {
        takes_value(interpreter, name)
    });
    // With every option that takes a value known, the options end at the script or at the
    // value of the first code flag (`python3 train.py -c config.yaml` runs train.py).
    if interpreter.closed_options {
        let code_value = scan
            .values
            .iter()
            .find(|v| code_like(&v.flag, &interpreter.code_flags, interpreter))
            .map(|v| v.index + 1);
        if let Some(end) = scan
            .operands
            .first()
            .copied()
            .into_iter()
            .chain(code_value)
            .min()
        {
            scan.flags.retain(|f| f.index < end);
            scan.values.retain(|v| v.index < end);
        }
    }
    scan
}

/// The programs of an awk or sed call (`program_operand`), each with whether it is literal:
/// the values of its code flags, or else its first operand; `None` when it has neither (the
/// program comes from a script file or standard input).
fn programs<'w>(
    interpreter: &Interpreter,
    words: &'w [Word],
    scan: &'w Scan,
) -> Option<Vec<(&'w str, bool)>> {
    let code_given = scan
        .flags
        .iter()
        .any(|f| code_like(&f.name, &interpreter.code_flags, interpreter));
    let mut programs: Vec<(&str, bool)> = scan
        .values
        .iter()
        .filter(|v| exactly(&v.flag, &interpreter.code_flags))
        .map(|v| {
            (
                v.text.as_str(),
                words.get(v.index).is_some_and(|w| w.literal),
            )
        })
        .collect();
    if programs.is_empty() && !code_given {
        let word = scan.operands.first().and_then(|i| words.get(*i))?;
        programs.push((word.cooked.as_str(), word.literal));
    }
    Some(programs)
}

/// The shell code that stands for what the literal programs of a call to an interpreter with
/// a program reader (sed) do besides editing: `tee -- FILE` for each file it writes, `cat --
/// FILE` for each it reads and each command line `e` runs (see [`shellgate_rules::sed`]). Every
/// program is read alone and, when there are several (`-e P1 -e P2`), joined as sed joins
/// them.
pub(super) fn program_code(interpreter: &Interpreter, words: &[Word]) -> Vec<String> {
    if interpreter.program.is_none() {
        return Vec::new();
    }
    let scan = scanned(interpreter, words);
    let Some(programs) = programs(interpreter, words, &scan) else {
        return Vec::new();
    };
    let literal: Vec<&str> = programs
        .iter()
        .filter(|(_, literal)| *literal)
        .map(|(text, _)| *text)
        .collect();
    let joined = (literal.len() > 1).then(|| literal.join("\n"));
    let mut code: Vec<String> = Vec::new();
    for program in literal.iter().copied().chain(joined.as_deref()) {
        let Some(effects) = shellgate_rules::sed::effects(program) else {
            continue;
        };
        let lines = effects
            .writes
            .iter()
            .map(|f| format!("tee -- {}", single_quoted(f)))
            .chain(
                effects
                    .reads
                    .iter()
                    .map(|f| format!("cat -- {}", single_quoted(f))),
            )
            .chain(effects.runs.iter().cloned());
        for line in lines {
            if !code.contains(&line) {
                code.push(line);
            }
        }
    }
    code
}

/// `text` as one single-quoted shell word.
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Whether an interpreter call runs code shellgate cannot read (or code it read: see
/// [`inline_read`]).
pub(super) fn interpreter_opaque(
    interpreter: &Interpreter,
    words: &[Word],
    redirects: &[Redirect],
) -> Option<Opaque> {
    let opaque = || Opaque::Interpreter {
        why: interpreter.why.clone(),
        script: None,
        flag: None,
        inline_read: false,
    };
    let takes = |name: &str| takes_value(interpreter, name);
    let scan = scanned(interpreter, words);
    // An option in none of its lists before the script — a long one (`ruby --disable x.rb
    // evil.rb`, `bun --cwd=DIR x.ts`), or any one when the table is complete (a V8 flag such as
    // `node --logfile FILE`) — may take the next word, change what runs, write a file or load
    // code: the call is not known.
    if interpreter.script_operand {
        let end = scan.operands.first().copied().unwrap_or(usize::MAX);
        if let Some(unknown) = scan.flags.iter().find(|f| {
            f.index < end
                && (interpreter.complete_options || f.name.starts_with("--"))
                && !takes(&f.name)
                && !exactly(&f.name, &interpreter.flags)
                && !exactly(&f.name, &interpreter.query_flags)
                && !bundled(&f.name, words.get(f.index))
        }) {
            return Some(Opaque::Interpreter {
                why: format!(
                    "{}; `{}` is an option the policy does not list (it may take the next word, \
                     write a file or load code)",
                    interpreter.why, unknown.name
                ),
                script: None,
                flag: None,
                inline_read: false,
            });
        }
    }
    // Otherwise a code or script flag after what looks like the script (`node x.js -e 1`) is
    // either the script's argument (x.js runs) or, when an option before took that word as its
    // value (`node --disable-warning x.js -e CODE`), the interpreter's own (CODE runs): not
    // known.
    if interpreter.script_operand
        && !interpreter.closed_options
        && let Some(first) = scan.operands.first()
        && scan.flags.iter().any(|f| {
            f.index > *first
                && (code_like(&f.name, &interpreter.code_flags, interpreter)
                    || code_like(&f.name, &interpreter.script_flags, interpreter))
        })
    {
        return Some(opaque());
    }
    // A query flag (`--version`) counts only among the options before any code, script or
    // program: `python3 -c CODE --version` runs CODE.
    let cutoff = scan.operands.first().copied().unwrap_or(usize::MAX);
    for flag in scan.flags.iter().take_while(|f| f.index < cutoff) {
        if code_like(&flag.name, &interpreter.code_flags, interpreter)
            || code_like(&flag.name, &interpreter.script_flags, interpreter)
        {
            break;
        }
        if listed(&flag.name, &interpreter.query_flags) {
            return None;
        }
    }
    if scan
        .flags
        .iter()
        .any(|f| code_like(&f.name, &interpreter.script_flags, interpreter))
    {
        return Some(opaque());
    }
    let code_flag = scan
        .flags
        .iter()
        .find(|f| code_like(&f.name, &interpreter.code_flags, interpreter))
        .map(|f| f.name.clone());
    if !interpreter.program_operand {
        let inline_read = inline_read(interpreter, words, redirects, &scan);
        if let Some(flag) = code_flag {
            return Some(Opaque::Interpreter {
                why: interpreter.why.clone(),
                script: None,
                flag: Some(flag),
                inline_read,
            });
        }
        if let Some(first) = scan.operands.first() {
            let script = words
                .get(*first)
                .filter(|w| w.literal)
                .map(|w| w.cooked.clone());
            if inline_read {
                return Some(Opaque::Interpreter {
                    why: interpreter.why.clone(),
                    script: None,
                    flag: None,
                    inline_read,
                });
            }
            return interpreter.script_operand.then(|| Opaque::Interpreter {
                why: interpreter.why.clone(),
                script,
                flag: None,
                inline_read: false,
            });
        }
        return interpreter.stdin.then(|| Opaque::Interpreter {
            why: interpreter.why.clone(),
            script: None,
            flag: None,
            inline_read,
        });
    }
    // awk / sed: programs are checked against `unsafe_program`.
    let Some(programs) = programs(interpreter, words, &scan) else {
        return interpreter.stdin.then(opaque);
    };
    let unsafe_program = programs
        .iter()
        .any(|(text, literal)| !literal || interpreter.unsafe_program(text));
    (unsafe_program || programs.is_empty()).then(opaque)
}

/// Whether the interpreter's code is inline code its `[interpreter.inline]` reader reads as
/// code that only imports and computes: one literal value of the first code flag (`-c`), or —
/// with no code flag and no operand but `-` — standard input from a heredoc or here-string;
/// every option before the code is one of the reader's `flags`.
fn inline_read(
    interpreter: &Interpreter,
    words: &[Word],
    redirects: &[Redirect],
    scan: &Scan,
) -> bool {
    let Some(reader) = &interpreter.inline else {
        return false;
    };
    let code_value = scan
        .values
        .iter()
        .find(|v| exactly(&v.flag, &interpreter.code_flags));
    let cutoff = code_value
        .map(|v| v.index)
        .or_else(|| scan.operands.first().copied())
        .unwrap_or(usize::MAX);
    let options_known = scan.flags.iter().filter(|f| f.index < cutoff).all(|f| {
        code_value.is_some_and(|v| v.flag == f.name)
            || exactly(&f.name, &reader.flags)
            || (!f.name.starts_with("--") && f.name.chars().count() > 2)
    });
    if !options_known
        || !scan.dynamic.iter().all(|d| *d > cutoff)
        || scan
            .flags
            .iter()
            .any(|f| exactly(&f.name, &interpreter.script_flags))
    {
        return false;
    }
    // Arguments after the code are `sys.argv`, which a module that acts on import reads as
    // its options (`python3 -c 'import test.autotest' --junit-xml ~/.bashrc`).
    let code_end = code_value
        .map(|v| v.index)
        .or_else(|| scan.operands.first().copied());
    if code_end.is_some_and(|end| words.len() > end + 1) {
        return false;
    }
    let code = match code_value {
        Some(value) => {
            if !reader.code_flags.iter().any(|f| f == &value.flag)
                || !words.get(value.index).is_some_and(|w| w.literal)
            {
                return false;
            }
            value.text.clone()
        }
        None => {
            let stdin_operand = scan.operands.first().and_then(|i| words.get(*i));
            if stdin_operand.is_some_and(|w| !(w.literal && w.cooked == "-")) {
                return false;
            }
            match stdin_code(redirects) {
                StdinCode::Text(code) => code,
                StdinCode::File(_) | StdinCode::Dynamic(_) | StdinCode::Pipe => return false,
            }
        }
    };
    read_only_code(&code, reader).is_ok()
}
