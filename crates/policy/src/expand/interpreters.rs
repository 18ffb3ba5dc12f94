//! Interpreters (`python3 -c`, `node x.js`, `awk` with `system`): whether a call runs code
//! shellgate cannot read.

use shellgate_parser::Word;
use shellgate_rules::Interpreter;

use super::Opaque;
use super::wrappers::{exactly, listed};

/// Whether an interpreter call runs code shellgate cannot read.
pub(super) fn interpreter_opaque(interpreter: &Interpreter, words: &[Word]) -> Option<Opaque> {
    let start = interpreter.verb.len();
    let opaque = || Opaque::Interpreter {
        why: interpreter.why.clone(),
        script: None,
        flag: None,
    };
    let takes = |name: &str| {
        exactly(name, &interpreter.code_flags)
            || exactly(name, &interpreter.script_flags)
            || exactly(name, &interpreter.value_flags)
    };
    let scan = shellgate_rules::flags::scan(words, start, &takes);
    // A query flag (`--version`) counts only among the options before any code, script or
    // program: `python3 -c CODE --version` runs CODE.
    let cutoff = scan.operands.first().copied().unwrap_or(usize::MAX);
    for flag in scan.flags.iter().take_while(|f| f.index < cutoff) {
        if exactly(&flag.name, &interpreter.code_flags)
            || exactly(&flag.name, &interpreter.script_flags)
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
        .any(|f| exactly(&f.name, &interpreter.script_flags))
    {
        return Some(opaque());
    }
    let code_flag = scan
        .flags
        .iter()
        .find(|f| exactly(&f.name, &interpreter.code_flags))
        .map(|f| f.name.clone());
    let code_given = code_flag.is_some();
    if !interpreter.program_operand {
        if let Some(flag) = code_flag {
            return Some(Opaque::Interpreter {
                why: interpreter.why.clone(),
                script: None,
                flag: Some(flag),
            });
        }
        if let Some(first) = scan.operands.first() {
            let script = words
                .get(*first)
                .filter(|w| w.literal)
                .map(|w| w.cooked.clone());
            return interpreter.script_operand.then(|| Opaque::Interpreter {
                why: interpreter.why.clone(),
                script,
                flag: None,
            });
        }
        return interpreter.stdin.then(opaque);
    }
    // awk / sed: programs are checked against `unsafe_program`.
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
        match scan.operands.first().and_then(|i| words.get(*i)) {
            Some(word) => programs.push((word.cooked.as_str(), word.literal)),
            None => return interpreter.stdin.then(opaque),
        }
    }
    let unsafe_program = programs
        .iter()
        .any(|(text, literal)| !literal || interpreter.unsafe_program(text));
    (unsafe_program || programs.is_empty()).then(opaque)
}
