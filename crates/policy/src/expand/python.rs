//! A conservative reader of inline Python (`python3 -c CODE`, `python3 - <<'EOF'`): it says
//! whether a snippet only imports modules and computes, calling nothing but the builtins the
//! policy lists (`print`, `len`, `dir`, …). Such code has no effect of its own beyond standard
//! output; what it imports is the environment's code (the working directory comes first on
//! `sys.path`), which the evaluator lets run silently only in a run zone.
//!
//! The reader never parses Python: it tokenizes and rejects, on the tokens, everything that
//! could reach another effect. Whatever it does not understand is rejected.
//!
//! * every call (`(` after a name, `)`, `]`, `}` or a literal) is a listed builtin, written as
//!   a bare name: a method call (`x.f()`), a call of a call's result (`f()()`), a call through a
//!   subscript, and any other name are rejected;
//! * a listed builtin's name appears nowhere else, so it cannot be rebound (`print = os.system`,
//!   `import os as print`, `for print in …`, `builtins.print = …`);
//! * keyword arguments that make a builtin call or write to another object (`key=`, `file=`)
//!   are rejected, as are `def`, `class`, `lambda`, decorators, `with`, `del`, `global`,
//!   `nonlocal`, `async`, `await` and `yield`;
//! * nothing is assigned to an attribute or a subscript (`sys.stdout = …`, `d[k] = …`, `for
//!   a.b in …`): trusted code could later call it;
//! * the only dunder names are the listed ones (`__version__`), and they are never bound
//!   (`__path__ = […]` would make relative imports, which are rejected too, run any file):
//!   `__import__`, `__dict__`, `__builtins__` and the like are rejected;
//! * names that load native code without a call (`ctypes.cdll["/tmp/x.so"]`) are rejected;
//! * identifiers are ASCII (Python folds `ｐｒｉｎｔ` into `print`);
//! * f-string replacement fields are read with the same rules; a field that does not close
//!   inside its string is rejected;
//! * modules whose import acts by itself (`antigravity` opens a browser) are rejected;
//! * the environment as a whole (`os.environ`) is rejected: printed, it puts every credential
//!   in it into the transcript;
//! * augmented assignments (`+=`, `|=`) are rejected: they change a mutable object in place,
//!   whatever name reaches it (`h = sys.path_hooks; h += [os.system]`);
//! * a carriage return (Python ends a line and a comment there) and an encoding declaration in
//!   the first two lines (`# coding: utf-7` decodes the rest into other code) are rejected.

use shellgate_rules::InlineReader;

/// Python's keywords: a `(` after one of these opens a group or a tuple, not a call.
const KEYWORDS: &[&str] = &[
    "and", "as", "assert", "break", "continue", "elif", "else", "except", "finally", "for", "from",
    "if", "import", "in", "is", "not", "or", "pass", "raise", "return", "try", "while",
];

/// Keywords that define code or reach effects the reader does not follow.
const REJECTED_KEYWORDS: &[&str] = &[
    "def", "class", "lambda", "with", "del", "global", "nonlocal", "async", "await", "yield",
];

/// Names that hold the whole environment (`os.environ`): printing one puts every credential
/// in it into the agent's transcript.
const ENVIRONMENT_NAMES: &[&str] = &["environ", "environb"];

/// Names that load native code without a call (`ctypes.cdll["/tmp/x.so"]` and
/// `hasattr(ctypes.cdll, "/tmp/x.so")` load the library, and run its start-up code), however
/// they are reached (`numpy.ctypeslib.ctypes`).
const NATIVE_NAMES: &[&str] = &[
    "ctypes",
    "_ctypes",
    "ctypeslib",
    "cffi",
    "_cffi_backend",
    "cdll",
    "pydll",
    "windll",
    "oledll",
    "CDLL",
    "PyDLL",
    "WinDLL",
    "OleDLL",
    "LibraryLoader",
    "dlopen",
];

/// Keyword arguments that make a builtin call a function or write to an object.
const REJECTED_KEYWORD_ARGUMENTS: &[&str] = &["key", "file"];

/// Assignment operators (besides `=`).
const AUGMENTED: &[&str] = &[
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=", "&=", "|=", "^=", "@=", ":=",
];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Name(String),
    /// A string or number literal.
    Literal,
    /// An operator or punctuation, as written.
    Op(String),
    /// The end of a logical line (a newline outside brackets, or `;`).
    End,
}

/// Whether `code` only imports and computes, by the rules in the module documentation. `Err`
/// says why not.
pub(crate) fn read_only_code(code: &str, reader: &InlineReader) -> Result<(), String> {
    // Python ends a line (and a comment) at a carriage return too: `1 # x\rimport os` runs.
    if code.contains('\r') {
        return Err("a carriage return ends a line, and a comment, for Python".to_owned());
    }
    // An encoding declaration in the first two lines (`# coding: utf-7`) makes Python decode
    // the rest into text the reader does not see.
    if code
        .lines()
        .take(2)
        .any(|line| line.trim_start().starts_with('#') && line.contains("coding"))
    {
        return Err("an encoding declaration changes how Python reads the code".to_owned());
    }
    let tokens = tokenize(code, reader, false)?;
    check(&tokens, reader)
}

fn check(tokens: &[Token], reader: &InlineReader) -> Result<(), String> {
    let listed = |name: &str| reader.calls.iter().any(|c| c == name);
    let mut statement_has_target = false;
    let mut depth = 0usize;
    let mut in_for_target = false;
    let mut importing = false;
    for (i, token) in tokens.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| tokens.get(p));
        let before_prev = i.checked_sub(2).and_then(|p| tokens.get(p));
        let next = tokens.get(i + 1);
        // (At any depth: `(sys.stdout,) = (os,)` and `(d[1]) = 2` assign to an attribute and
        // an item too; a `.` or `[` before the last `=` of a statement may be in a target.)
        if matches!(token, Token::Op(op) if op == "." || op == "[") {
            statement_has_target = true;
        }
        match token {
            Token::End => {
                statement_has_target = false;
                in_for_target = false;
                importing = false;
            }
            Token::Literal => {}
            Token::Name(name) => {
                if REJECTED_KEYWORDS.contains(&name.as_str()) {
                    return Err(format!("`{name}` is not read"));
                }
                if ENVIRONMENT_NAMES.contains(&name.as_str()) {
                    return Err(format!(
                        "`{name}` holds the environment, credentials included"
                    ));
                }
                if NATIVE_NAMES.contains(&name.as_str()) {
                    return Err(format!("`{name}` loads native code"));
                }
                if name.starts_with("__") && !reader.names.iter().any(|n| n == name) {
                    return Err(format!("the name `{name}` is not read"));
                }
                // A listed dunder name is read, never bound: `__path__ = ["/tmp/p"]` turns the
                // code into a package whose relative imports run any file.
                let binds = matches!(next, Some(Token::Op(op)) if op == "=")
                    || matches!(prev, Some(Token::Name(n)) if n == "as")
                    || in_for_target;
                if name.starts_with("__") && binds {
                    return Err(format!("binds the name `{name}`"));
                }
                let dotted = matches!(prev, Some(Token::Op(op)) if op == ".");
                if listed(name) && (dotted || !matches!(next, Some(Token::Op(op)) if op == "(")) {
                    return Err(format!(
                        "`{name}` is used other than as a call of the builtin"
                    ));
                }
                if depth > 0
                    && REJECTED_KEYWORD_ARGUMENTS.contains(&name.as_str())
                    && matches!(next, Some(Token::Op(op)) if op == "=")
                {
                    return Err(format!("the keyword argument `{name}=` is not read"));
                }
                match name.as_str() {
                    "for" => in_for_target = true,
                    "in" => in_for_target = false,
                    "import" | "from" if depth == 0 => importing = true,
                    _ => {}
                }
                // `from . import m`: a relative import, from wherever `__path__` says.
                if name == "from" && matches!(next, Some(Token::Op(op)) if op == "." || op == "...")
                {
                    return Err("a relative import is not read".to_owned());
                }
                if importing && !matches!(prev, Some(Token::Op(op)) if op == ".") {
                    let acting = reader.acting_modules.iter().any(|m| m == name);
                    if acting {
                        return Err(format!("importing `{name}` acts by itself"));
                    }
                }
            }
            Token::Op(op) => match op.as_str() {
                "(" => {
                    let call = match prev {
                        Some(Token::Name(name)) => !KEYWORDS.contains(&name.as_str()),
                        Some(Token::Literal) => true,
                        Some(Token::Op(p)) => matches!(p.as_str(), ")" | "]" | "}"),
                        _ => false,
                    };
                    if call {
                        let dotted = matches!(before_prev, Some(Token::Op(p)) if p == ".");
                        match prev {
                            Some(Token::Name(name)) if listed(name) && !dotted => {}
                            Some(Token::Name(name)) => {
                                return Err(format!("calls `{name}`, which is not read"));
                            }
                            _ => return Err("calls the result of an expression".to_owned()),
                        }
                    }
                    depth += 1;
                }
                "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                "@" => return Err("a decorator or `@` is not read".to_owned()),
                // `f(**{'key': g})` passes keyword arguments the reader cannot see.
                "**" if matches!(prev, Some(Token::Op(p)) if p == "(" || p == ",") => {
                    return Err("unpacks keyword arguments".to_owned());
                }
                "=" if depth == 0 && statement_has_target => {
                    return Err("assigns to an attribute or an item".to_owned());
                }
                // An augmented assignment changes a mutable object in place, whatever name it
                // is reached by (`h = sys.path_hooks; h += [os.system]`).
                "+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "**=" | ">>=" | "<<=" | "&=" | "|="
                | "^=" | "@=" => {
                    return Err("an augmented assignment changes an object in place".to_owned());
                }
                _ => {}
            },
        }
        if in_for_target && matches!(token, Token::Op(op) if op == "." || op == "[") {
            return Err("a loop assigns to an attribute or an item".to_owned());
        }
    }
    Ok(())
}

/// Splits `code` (an f-string's replacement `field`, or not) into tokens. Rejects what the
/// reader cannot tokenize with certainty, and a `!` that is not part of `!=` or, in a field, a
/// conversion (`!r`): IPython runs `!cmd` as a shell command.
fn tokenize(code: &str, reader: &InlineReader, field: bool) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    while let Some(&c) = chars.get(i) {
        if c == '#' {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
            continue;
        }
        if c == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 2;
            continue;
        }
        if c == '\n' || c == ';' {
            if depth == 0 || c == ';' {
                tokens.push(Token::End);
            }
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if !c.is_ascii() {
            return Err("a character outside ASCII outside a string".to_owned());
        }
        if c == '!'
            && chars.get(i + 1) != Some(&'=')
            && !(field && matches!(chars.get(i + 1), Some('r' | 's' | 'a')))
        {
            return Err("a `!` that is not `!=`".to_owned());
        }
        if let Some(end) = string_at(&chars, i, reader)? {
            tokens.push(Token::Literal);
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            tokens.push(Token::Name(
                chars.get(start..i).unwrap_or_default().iter().collect(),
            ));
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            {
                i += 1;
            }
            tokens.push(Token::Literal);
            continue;
        }
        let three: String = chars.get(i..i + 3).unwrap_or_default().iter().collect();
        let two: String = chars.get(i..i + 2).unwrap_or_default().iter().collect();
        let op = if AUGMENTED.contains(&three.as_str()) {
            three
        } else if AUGMENTED.contains(&two.as_str())
            || matches!(
                two.as_str(),
                "==" | "!=" | "<=" | ">=" | "->" | "**" | "//" | "<<" | ">>"
            )
        {
            two
        } else {
            c.to_string()
        };
        match op.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += op.chars().count();
        tokens.push(Token::Op(op));
    }
    Ok(tokens)
}

/// When a string literal starts at `i` (with its prefix), the index after it. An f-string's
/// replacement fields are read as code.
fn string_at(chars: &[char], i: usize, reader: &InlineReader) -> Result<Option<usize>, String> {
    let mut j = i;
    while chars.get(j).is_some_and(|c| c.is_ascii_alphabetic()) && j - i < 2 {
        j += 1;
    }
    let Some(&quote) = chars.get(j).filter(|c| **c == '\'' || **c == '"') else {
        return Ok(None);
    };
    let prefix: String = chars
        .get(i..j)
        .unwrap_or_default()
        .iter()
        .collect::<String>();
    let prefix = prefix.to_ascii_lowercase();
    if !matches!(
        prefix.as_str(),
        "" | "r" | "b" | "u" | "f" | "rb" | "br" | "fr" | "rf" | "t" | "tr" | "rt"
    ) {
        // A prefix Python may know and the reader does not (a new kind of string whose fields
        // run, as `t'…'` does from 3.14).
        if chars
            .get(i..j)
            .is_some_and(|p| p.iter().all(char::is_ascii_alphabetic))
            && !i
                .checked_sub(1)
                .and_then(|p| chars.get(p))
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            return Err(format!("a string with the prefix `{prefix}` is not read"));
        }
        return Ok(None);
    }
    // A backslash keeps the next character inside the string, raw or not. (A template string,
    // `t'…'` from Python 3.14, evaluates its fields as an f-string does.)
    let formatted = prefix.contains('f') || prefix.contains('t');
    let triple = chars.get(j + 1) == Some(&quote) && chars.get(j + 2) == Some(&quote);
    let open = if triple { 3 } else { 1 };
    let mut k = j + open;
    let body_start = k;
    loop {
        let Some(&c) = chars.get(k) else {
            return Err("a string does not end".to_owned());
        };
        if c == '\\' {
            k += 2;
            continue;
        }
        if !triple && c == '\n' {
            return Err("a string does not end on its line".to_owned());
        }
        if c == quote
            && (!triple || (chars.get(k + 1) == Some(&quote) && chars.get(k + 2) == Some(&quote)))
        {
            break;
        }
        k += 1;
    }
    if formatted {
        let body = chars.get(body_start..k).unwrap_or_default();
        for field in fields(body)? {
            let tokens = tokenize(&field, reader, true)?;
            check(&tokens, reader)?;
        }
    }
    Ok(Some(k + open))
}

/// The replacement fields of an f-string's body (`{expr!r:>10}` gives `expr!r:>10`, whose
/// conversion and format are harmless tokens). `{{` and `}}` are literal braces.
fn fields(body: &[char]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        match c {
            '{' if body.get(i + 1) == Some(&'{') => i += 2,
            '}' if body.get(i + 1) == Some(&'}') => i += 2,
            '{' => {
                let mut depth = 1usize;
                let start = i + 1;
                i += 1;
                while depth > 0 {
                    match body.get(i) {
                        None => return Err("an f-string field does not close".to_owned()),
                        Some('{') => depth += 1,
                        Some('}') => depth -= 1,
                        Some('\'' | '"') => {
                            return Err("an f-string field holds a string".to_owned());
                        }
                        // A format spec's `#` is text, a field's is a comment (from Python
                        // 3.12, one that hides the field's real end): either way, the reader
                        // would not see what runs.
                        Some('#') => {
                            return Err("an f-string field holds a `#`".to_owned());
                        }
                        Some(_) => {}
                    }
                    i += 1;
                }
                out.push(body.get(start..i - 1).unwrap_or_default().iter().collect());
            }
            _ => i += 1,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> InlineReader {
        InlineReader {
            code_flags: vec!["-c".to_owned()],
            flags: vec!["-u".to_owned()],
            calls: ["print", "len", "dir", "str", "sorted", "getattr", "repr"]
                .map(str::to_owned)
                .to_vec(),
            names: vec!["__version__".to_owned(), "__file__".to_owned()],
            acting_modules: vec!["antigravity".to_owned()],
        }
    }

    fn read(code: &str) -> Result<(), String> {
        read_only_code(code, &reader())
    }

    #[test]
    fn imports_and_prints_are_read() {
        for code in [
            "import numpy as np; print('NumPy version:', np.__version__)",
            "import sys; print(sys.version)",
            "from django.db import models\nprint(models.__file__)",
            "import pandera as pa; print(dir(pa))",
            "try:\n    import fasttext\n    print('ok')\nexcept ImportError as e:\n    print('no', e)",
            "import sys\nfor p in sys.path:\n    print(p, len(p))",
            "x = [a for a in dir(sys) if 'path' in a]\nprint(sorted(x))",
            "print(f'{len(sys.path)} entries: {sys.path!r:>10}')",
            "print(\"\"\"a\n(b)\"\"\"); print('it''s', \"q\\\"(\")",
            "if (1 + 2) in (3, 4):\n    print(repr(2**8))",
            "print(1, 2, sep=', ', end='')",
            "x = sys.path[0]; y = x == sys.path[1]\nprint(x, y)",
        ] {
            assert_eq!(read(code), Ok(()), "{code}");
        }
    }

    #[test]
    fn every_other_call_and_rebinding_is_rejected() {
        for (code, why) in [
            (
                "import os; os.system('id')",
                "calls `system`, which is not read",
            ),
            (
                "open('/etc/passwd').read()",
                "calls `open`, which is not read",
            ),
            ("print(open('x', 'w'))", "calls `open`, which is not read"),
            ("'a'.join(['b'])", "calls `join`, which is not read"),
            (
                "getattr(os, 'system')('id')",
                "calls the result of an expression",
            ),
            (
                "[print][0]('x')",
                "`print` is used other than as a call of the builtin",
            ),
            (
                "(len)('x')",
                "`len` is used other than as a call of the builtin",
            ),
            (
                "print = os.system",
                "`print` is used other than as a call of the builtin",
            ),
            (
                "from os import system as print",
                "`print` is used other than as a call of the builtin",
            ),
            (
                "import builtins; builtins.print('x')",
                "`print` is used other than as a call of the builtin",
            ),
            ("__import__('os')", "the name `__import__` is not read"),
            ("__file__ = '/tmp/p'", "binds the name `__file__`"),
            ("from . import m", "a relative import is not read"),
            (
                "import numpy; print(numpy.ctypeslib.ctypes.cdll['/tmp/x.so'])",
                "`ctypeslib` loads native code",
            ),
            (
                "import builtins; builtins.__dict__['len'] = exit",
                "the name `__dict__` is not read",
            ),
            (
                "import sys; sys.stdout = sh",
                "assigns to an attribute or an item",
            ),
            ("d = {}; d['k'] = 1", "assigns to an attribute or an item"),
            (
                "sys.stdout, x = sh, 1",
                "assigns to an attribute or an item",
            ),
            (
                "for sys.stdout in [sh]: pass",
                "a loop assigns to an attribute or an item",
            ),
            (
                "print(sorted(['id'], key=os.system))",
                "the keyword argument `key=` is not read",
            ),
            (
                "print('x', file=sh)",
                "the keyword argument `file=` is not read",
            ),
            ("def f(): pass", "`def` is not read"),
            ("f = lambda: 0", "`lambda` is not read"),
            ("@print\ndef f(): pass", "a decorator or `@` is not read"),
            ("print(**{'file': sh})", "unpacks keyword arguments"),
            ("with x: pass", "`with` is not read"),
            (
                "import antigravity",
                "importing `antigravity` acts by itself",
            ),
            ("ｐrint = 1", "a character outside ASCII outside a string"),
            (
                "print(f'{os.system(\"id\")}')",
                "an f-string field holds a string",
            ),
            ("print(f'{x.pop()}')", "calls `pop`, which is not read"),
            ("print(f'{x')", "an f-string field does not close"),
            ("print('x)\nprint(1)", "a string does not end on its line"),
            ("print(\"\"\"x)", "a string does not end"),
            ("'abc'()", "calls the result of an expression"),
            ("!rm -rf ~", "a `!` that is not `!=`"),
            ("print(1)\n!ls", "a `!` that is not `!=`"),
            // Red-team 41d: targets inside brackets, a `#` in a field, a template string.
            (
                "(os.write,) = (os.system,)",
                "assigns to an attribute or an item",
            ),
            ("(d[1]) = 2", "assigns to an attribute or an item"),
            (
                "x = (sys.stdout) = os",
                "assigns to an attribute or an item",
            ),
            (
                "(sys.stdout): int = os",
                "assigns to an attribute or an item",
            ),
            (
                "print(f'{1:#{os.system(c)}}')",
                "an f-string field holds a `#`",
            ),
            (
                "print(f\"\"\"{1 # }\n+ os.system(c)}\"\"\")",
                "an f-string field holds a `#`",
            ),
            ("t'{__import__(x)}'", "the name `__import__` is not read"),
            (
                "print(t'{os.system(c)}')",
                "calls `system`, which is not read",
            ),
            ("print(ab'x')", "a string with the prefix `ab` is not read"),
        ] {
            assert_eq!(read(code), Err(why.to_owned()), "{code}");
        }
    }
}
