//! Binding `bash -c CODE $0 $1 …`: the positional parameters a shell's code refers to, replaced
//! by the literal arguments given after the code, quoted for where they stand.

use crate::Word;

/// `code` with `$N`, `${N}`, `$@` and `$*` replaced by the arguments (`args[0]` is `$0`), each
/// quoted for its context (single-quoted outside quotes, escaped inside double quotes; nothing
/// is replaced inside single quotes). An argument the calling shell expands with a leading `~`
/// or `~/` is bound as `${HOME}` and the rest, which the code's shell expands to the same home
/// directory. `None` when the code refers to no positional parameter or an argument is not
/// literal, or another tilde form (`~user`, `~+`): its value is then unknown, and the code
/// stays dynamic. Code that may give the parameters other values (`set -- ~`, `shift`,
/// `getopts`, a sourced file, a function, whose `$1` is its own argument) binds nothing either.
#[must_use]
pub fn bind(code: &str, args: &[Word]) -> Option<String> {
    bind_given(code, args, false)
}

/// [`bind`] for a shell that may be given more arguments at run time (`xargs sh -c CODE _`,
/// `find … -exec sh -c CODE _ {} +`): a parameter past the literal ones, `$@` or `$*` is not
/// known, so nothing is bound.
#[must_use]
pub fn bind_given(code: &str, args: &[Word], more: bool) -> Option<String> {
    if !code.contains('$') || rebinds(code) || unread_quoting(code) {
        return None;
    }
    let values = args.iter().map(Value::of).collect::<Option<Vec<_>>>()?;
    let mut out = String::with_capacity(code.len());
    let mut bound = false;
    let mut single = false;
    let mut double = false;
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if !single => {
                out.push(c);
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            }
            '\'' if !double => {
                single = !single;
                out.push(c);
            }
            '"' if !single => {
                double = !double;
                out.push(c);
            }
            '$' if !single => {
                let rest = code.get(i + 1..).unwrap_or_default();
                match reference(rest) {
                    Some((param, len)) => {
                        let known = match param {
                            Param::Index(n) => n < values.len(),
                            Param::All | Param::Joined => false,
                        };
                        if more && !known {
                            return None;
                        }
                        bound = true;
                        out.push_str(&expand(param, &values, double)?);
                        for _ in 0..len {
                            chars.next();
                        }
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    bound.then_some(out)
}

/// Whether `code` holds text whose quoting the binder's quote tracking does not follow: a
/// comment (`# don't`), `$'…'` (`\'` inside), a heredoc body, a backquote (red-team 41j: an
/// apostrophe in a comment made a single-quoted `$1` look unquoted, and bound).
fn unread_quoting(code: &str) -> bool {
    code.contains(['#', '`']) || code.contains("$'") || code.contains("<<")
}

/// The value of a positional parameter, as the calling shell passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value<'a> {
    /// The text.
    Text(&'a str),
    /// The home directory followed by the text (`~/x` → `$HOME` and `/x`).
    Home(&'a str),
}

impl<'a> Value<'a> {
    fn of(word: &'a Word) -> Option<Self> {
        if !word.literal {
            return None;
        }
        let text = word.cooked.as_str();
        if !word.features.tilde {
            return Some(Self::Text(text));
        }
        match text.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => Some(Self::Home(rest)),
            _ => None,
        }
    }

    /// The value quoted for where it stands: inside double quotes or outside any.
    fn quoted(self, in_double: bool) -> String {
        match (self, in_double) {
            (Self::Text(text), false) => single_quoted(text),
            (Self::Text(text), true) => double_escaped(text),
            (Self::Home(""), false) => "\"${HOME}\"".to_owned(),
            (Self::Home(rest), false) => format!("\"${{HOME}}\"{}", single_quoted(rest)),
            (Self::Home(rest), true) => format!("${{HOME}}{}", double_escaped(rest)),
        }
    }
}

/// A positional parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    /// `$N` / `${N}`.
    Index(usize),
    /// `$@`.
    All,
    /// `$*`.
    Joined,
}

/// The positional parameter at the start of `rest` (the text after a `$`) and the number of
/// characters it takes.
fn reference(rest: &str) -> Option<(Param, usize)> {
    let mut chars = rest.chars();
    match chars.next()? {
        '@' => Some((Param::All, 1)),
        '*' => Some((Param::Joined, 1)),
        c @ '0'..='9' => Some((Param::Index(c.to_digit(10)? as usize), 1)),
        '{' => {
            let inner: String = chars.by_ref().take_while(|c| *c != '}').collect();
            let len = inner.chars().count() + 2;
            if !rest.get(1..)?.contains('}') {
                return None;
            }
            match inner.as_str() {
                "@" => Some((Param::All, len)),
                "*" => Some((Param::Joined, len)),
                digits if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => {
                    Some((Param::Index(digits.parse().ok()?), len))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The text replacing a parameter: single-quoted words outside double quotes; inside them,
/// escaped text (`$@` closes and reopens the quotes between words). Outside double quotes the
/// shell splits a value on blanks (`'x.txt /home/u/.bashrc'` is two words, an empty one none)
/// and globs it: a value it would glob binds nothing (`None`).
fn expand(param: Param, values: &[Value<'_>], in_double: bool) -> Option<String> {
    let value = |n: usize| values.get(n).copied().unwrap_or(Value::Text(""));
    let unquoted = |v: Value<'_>| match v {
        Value::Text(t) | Value::Home(t) if t.contains(['*', '?', '[']) => None,
        Value::Home(t) if t.contains([' ', '\t', '\n']) => None,
        // Split on blanks (bash does not take `IFS` from its environment).
        Value::Text(t) => Some(
            t.split([' ', '\t', '\n'])
                .filter(|w| !w.is_empty())
                .map(single_quoted)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        v => Some(v.quoted(false)),
    };
    let rest = values.iter().skip(1).copied();
    match (param, in_double) {
        (Param::Index(n), true) => Some(value(n).quoted(true)),
        (Param::Index(n), false) => unquoted(value(n)),
        (Param::All | Param::Joined, false) => Some(
            rest.map(unquoted)
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        (Param::All, true) => Some(
            rest.map(|v| v.quoted(true))
                .collect::<Vec<_>>()
                .join("\" \""),
        ),
        (Param::Joined, true) => Some(rest.map(|v| v.quoted(true)).collect::<Vec<_>>().join(" ")),
    }
}

/// Whether `code` may change what the positional parameters are: a word `set`, `shift`,
/// `getopts`, `function`, `source` or `.` anywhere (quoted too: `eval 'set -- ~'`), or a function definition
/// (`f() {`).
fn rebinds(code: &str) -> bool {
    // As written, quotes and backslashes dropped (`s""et`, `se\t`, `eval 'set -- ~'`).
    let keyword = crate::mentions::mentions_word(code, |w| {
        matches!(
            w,
            "set" | "shift" | "getopts" | "function" | "source" | "." | "alias" | "shopt"
        ) || w.starts_with("BASH_ARGV")
    });
    let definition = crate::mentions::defines_function(code);
    keyword || definition || parsed_rebinds(code)
}

/// [`rebinds`] over the parsed code: a command whose name is not known statically (`s${x}et`,
/// `$'\x73et'` cooks to `set`) other than a positional parameter, one of the builtins that
/// change the parameters or run other code, an assignment to `BASH_ARGV0`, or a function body.
fn parsed_rebinds(code: &str) -> bool {
    let parsed = crate::parse(code, &crate::ParseOptions::default());
    parsed.graph.clauses().any(|clause| {
        let verb = clause.argv.first();
        let positional_verb = verb.is_some_and(|w| {
            let raw = w.raw.trim_matches('"');
            raw.strip_prefix('$')
                .map(|r| r.trim_start_matches('{').trim_end_matches('}'))
                .is_some_and(|r| r == "@" || r == "*" || r.chars().all(|c| c.is_ascii_digit()))
        });
        let unknown_verb = verb.is_some_and(|w| !w.literal) && !positional_verb;
        let builtin = verb.is_some_and(|w| {
            matches!(
                w.cooked.as_str(),
                "set"
                    | "shift"
                    | "getopts"
                    | "source"
                    | "."
                    | "eval"
                    | "alias"
                    | "shopt"
                    | "declare"
                    | "typeset"
                    | "local"
                    | "readonly"
                    | "export"
            )
        });
        let assigns = clause
            .assignments
            .iter()
            .any(|a| a.name.starts_with("BASH_ARGV"));
        unknown_verb || builtin || assigns || clause.context == crate::clause::Context::FunctionBody
    })
}

fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn double_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<Word> {
        list.iter()
            .map(|t| Word {
                raw: (*t).to_owned(),
                cooked: (*t).to_owned(),
                literal: true,
                features: crate::WordFeatures::default(),
                span: crate::Span::default(),
            })
            .collect()
    }

    #[test]
    fn binds_each_form() {
        let args = words(&["_", "/", "a b"]);
        let corpus = include_str!("../tests/cases/positional.toml");
        shellgate_testkit::check_pairs(corpus, "bind", |code| bind(code, &args));
    }

    #[test]
    fn a_dynamic_argument_binds_nothing() {
        let mut args = words(&["_", "x"]);
        if let Some(w) = args.get_mut(1) {
            w.literal = false;
        }
        assert_eq!(bind("rm $1", &args), None);
    }

    #[test]
    fn a_tilde_argument_binds_the_home_directory() {
        let tilde = |list: &[&str]| {
            let mut args = words(list);
            for w in args.iter_mut().skip(1) {
                w.features.tilde = true;
            }
            args
        };
        assert_eq!(
            bind("cat $1 \"$1\" $2 \"$2\"", &tilde(&["_", "~/.netrc", "~"])).as_deref(),
            Some("cat \"${HOME}\"'/.netrc' \"${HOME}/.netrc\" \"${HOME}\" \"${HOME}\"")
        );
        // `~user` needs the password database: unknown.
        assert_eq!(bind("cat $1", &tilde(&["_", "~root/x"])), None);
    }

    #[test]
    fn quotes_inside_values_stay_quoted() {
        let args = words(&["_", "it's\"x\"$y"]);
        assert_eq!(
            bind("echo $1 \"$1\"", &args).as_deref(),
            Some("echo 'it'\\''s\"x\"$y' \"it's\\\"x\\\"\\$y\"")
        );
        // Unquoted, a value with blanks is split by the shell into several words.
        assert_eq!(
            bind("rm $1", &words(&["_", "x.txt /home/u/.bashrc"])).as_deref(),
            Some("rm 'x.txt' '/home/u/.bashrc'")
        );
        assert_eq!(bind("rm $1", &words(&["_", "*.txt"])), None);
    }
}
