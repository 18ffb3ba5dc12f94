//! Option parsing over cooked words, with the flag-set semantics every matcher shares.
//!
//! * Bundled short flags: `-rf` is `-r -f`; a single-dash token is also kept whole, so a
//!   single-dash long option such as find's `-delete` matches too.
//! * Long options: `--name=value` counts as `--name`; so does `-name=value` for a whole
//!   single-dash option that takes a value (Go's `-coverprofile=c.out`). A given long option also matches any
//!   listed spelling it is a non-empty prefix of (`--rec` matches `--recursive`), because GNU
//!   getopt accepts unambiguous prefixes; this only ever makes a deny rule or an unsafe flag
//!   match *more*, never less.
//! * `--` ends the options: everything after it is an operand. A lone `-` is an operand.
//! * A flag that takes a value consumes it (`-n 5`, `-n5`, `--max-count=5`, and gcc's
//!   `-MFdeps.d` for a listed single-dash option of two or more letters) so the value is
//!   never read as an operand or a flag. Which flags take values is the caller's table; deny
//!   rules use none, so every dash-token counts as a flag (the strict reading).
//! * A word that is not literal (`$x`, `$(…)`, a glob) is an operand here and is reported in
//!   [`Scan::dynamic`]: it could expand to anything, including a flag.

use shellgate_parser::Word;

/// One flag seen on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagHit {
    /// The flag's name: `--output`, `-o`, or a whole single-dash token such as `-delete`.
    pub name: String,
    /// The index of the word it is in.
    pub index: usize,
}

/// The value taken by a value flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueHit {
    /// The flag that takes the value.
    pub flag: String,
    /// The index of the word holding the value (the flag's own word for `--x=v` and `-xv`).
    pub index: usize,
    /// The value text.
    pub text: String,
}

/// The words after a command prefix, sorted into flags, flag values and operands.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Every flag seen, in order. A bundle contributes each letter (and itself whole when it has
    /// more than one letter).
    pub flags: Vec<FlagHit>,
    /// Values of value flags.
    pub values: Vec<ValueHit>,
    /// Word indices of operands (including every word after `--`).
    pub operands: Vec<usize>,
    /// Word indices of non-literal words met before `--`.
    pub dynamic: Vec<usize>,
    /// The index of the `--` word, if any.
    pub double_dash: Option<usize>,
}

/// Sorts `words[start..]`. `takes_value(name)` says whether a flag consumes a value.
pub fn scan(words: &[Word], start: usize, takes_value: &dyn Fn(&str) -> bool) -> Scan {
    let mut out = Scan::default();
    let mut i = start;
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        if out.double_dash.is_some() {
            out.operands.push(i);
        } else if word.literal && text == "--" {
            out.double_dash = Some(i);
        } else if !word.literal && word.is_process_substitution() {
            // `<(cmd)` becomes `/dev/fd/N`: an operand, never an option.
            out.operands.push(i);
        } else if !word.literal {
            out.dynamic.push(i);
            out.operands.push(i);
        } else if text.starts_with("--") {
            if let Some((name, value)) = text.split_once('=') {
                push_flag(&mut out, name, i);
                if takes_value(name) {
                    out.values.push(ValueHit {
                        flag: name.to_owned(),
                        index: i,
                        text: value.to_owned(),
                    });
                }
            } else {
                push_flag(&mut out, text, i);
                if takes_value(text) {
                    i += 1;
                    take_next(&mut out, words, text, i);
                }
            }
        } else if text.len() > 1 && text.starts_with('-') {
            let attached = text
                .split_once('=')
                .filter(|(name, _)| name.chars().count() > 2 && takes_value(name));
            if let Some((name, value)) = attached {
                // A whole single-dash option with its value attached (Go's
                // `-coverprofile=c.out`).
                push_flag(&mut out, name, i);
                out.values.push(ValueHit {
                    flag: name.to_owned(),
                    index: i,
                    text: value.to_owned(),
                });
            } else if takes_value(text) {
                // A whole single-dash option that takes a value, such as find's `-name`.
                push_flag(&mut out, text, i);
                i += 1;
                take_next(&mut out, words, text, i);
            } else if let Some((name, value)) = attached_long(text, takes_value) {
                // A whole single-dash option with its value attached without `=` (gcc's
                // `-MFdeps.d`, `-isystem/usr/x`).
                push_flag(&mut out, text, i);
                push_flag(&mut out, name, i);
                out.values.push(ValueHit {
                    flag: name.to_owned(),
                    index: i,
                    text: value.to_owned(),
                });
            } else {
                i = scan_bundle(&mut out, words, text, i, takes_value);
            }
        } else {
            out.operands.push(i);
        }
        i += 1;
    }
    out
}

/// The longest single-dash value option of two or more letters that `text` starts with, and
/// the rest of `text` as its value (`-MFdeps.d`: `-MF`, `deps.d`).
fn attached_long<'t>(
    text: &'t str,
    takes_value: &dyn Fn(&str) -> bool,
) -> Option<(&'t str, &'t str)> {
    (3..text.len())
        .rev()
        .filter(|&at| text.is_char_boundary(at))
        .find_map(|at| {
            let (name, value) = (text.get(..at)?, text.get(at..)?);
            takes_value(name).then_some((name, value.strip_prefix('=').unwrap_or(value)))
        })
}

/// Records a flag.
fn push_flag(out: &mut Scan, name: &str, index: usize) {
    out.flags.push(FlagHit {
        name: name.to_owned(),
        index,
    });
}

/// Records word `index` as the value of `flag`, if it exists.
fn take_next(out: &mut Scan, words: &[Word], flag: &str, index: usize) {
    if let Some(value) = words.get(index) {
        out.values.push(ValueHit {
            flag: flag.to_owned(),
            index,
            text: value.cooked.clone(),
        });
    }
}

/// Splits a short-option bundle such as `-rf` or `-n5`; returns the index of the last word
/// consumed.
fn scan_bundle(
    out: &mut Scan,
    words: &[Word],
    text: &str,
    index: usize,
    takes_value: &dyn Fn(&str) -> bool,
) -> usize {
    let body = text.get(1..).unwrap_or_default();
    if body.chars().count() > 1 {
        push_flag(out, text, index);
    }
    for (pos, c) in body.char_indices() {
        let name = format!("-{c}");
        push_flag(out, &name, index);
        if takes_value(&name) {
            let rest = body.get(pos + c.len_utf8()..).unwrap_or_default();
            if rest.is_empty() {
                take_next(out, words, &name, index + 1);
                // A bundle whose last letter takes a value may also be a whole option (gcc's
                // `-MMD` is not `-M -M -D`): an option word after it is then read both ways, as
                // the value (getopt's reading: `cp -vt -/../x`) and as an option (`-MMD -MF
                // .git/hooks/x`).
                let option_next = words
                    .get(index + 1)
                    .is_some_and(|w| w.cooked.len() > 1 && w.cooked.starts_with('-'));
                if body.chars().count() > 1 && option_next {
                    return index;
                }
                return index + 1;
            }
            // `-o=PATH`: Go's flag package reads `PATH` (getopt would read `=PATH`, a name in
            // the working directory); the path is the one to judge.
            let rest = rest.strip_prefix('=').unwrap_or(rest);
            out.values.push(ValueHit {
                flag: name,
                index,
                text: rest.to_owned(),
            });
            return index;
        }
    }
    index
}

/// Whether a flag seen on the command line (`given`) is the listed spelling `spelling`:
/// equal, or for long options a non-empty prefix of it (`--rec` for `--recursive`).
pub fn flag_is(given: &str, spelling: &str) -> bool {
    if given == spelling {
        return true;
    }
    match (given.strip_prefix("--"), spelling.strip_prefix("--")) {
        (Some(g), Some(s)) => !g.is_empty() && s.starts_with(g),
        _ => false,
    }
}

/// Checks a flag spelling written in a policy: it must start with `-`, not be `-` or `--`, and
/// contain no whitespace or `=`. Returns the problem, if any.
pub(crate) fn spelling_problem(spelling: &str) -> Option<&'static str> {
    if !spelling.starts_with('-') {
        Some("a flag starts with `-`")
    } else if spelling == "-" || spelling == "--" {
        Some("`-` and `--` are not flags")
    } else if spelling.contains(char::is_whitespace) || spelling.contains('=') {
        Some("a flag is one word without `=`; `--x=v` is matched by listing `--x`")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::words;

    fn names(scan: &Scan) -> Vec<&str> {
        scan.flags.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn bundles_split_and_stay_whole() {
        let w = words(&["rm", "-rf", "/", "--force"]);
        let s = scan(&w, 1, &|_| false);
        assert_eq!(names(&s), ["-rf", "-r", "-f", "--force"]);
        assert_eq!(s.operands, [2]);
    }

    #[test]
    fn double_dash_ends_options() {
        let w = words(&["rm", "--", "-rf", "x"]);
        let s = scan(&w, 1, &|_| false);
        assert!(s.flags.is_empty());
        assert_eq!(s.operands, [2, 3]);
        assert_eq!(s.double_dash, Some(1));
    }

    #[test]
    fn values_are_consumed_in_every_spelling() {
        let w = words(&[
            "head",
            "-n",
            "5",
            "-n5",
            "--lines=7",
            "--lines",
            "8",
            "-vn",
            "9",
            "f",
        ]);
        let value = |name: &str| name == "-n" || name == "--lines";
        let s = scan(&w, 1, &value);
        let values: Vec<(&str, usize, &str)> = s
            .values
            .iter()
            .map(|v| (v.flag.as_str(), v.index, v.text.as_str()))
            .collect();
        assert_eq!(
            values,
            [
                ("-n", 2, "5"),
                ("-n", 3, "5"),
                ("--lines", 4, "7"),
                ("--lines", 6, "8"),
                ("-n", 8, "9")
            ]
        );
        assert_eq!(s.operands, [9]);
    }

    #[test]
    fn long_prefixes_match_listed_spellings() {
        assert!(flag_is("--rec", "--recursive"));
        assert!(flag_is("--recursive", "--recursive"));
        assert!(!flag_is("--recursively", "--recursive"));
        assert!(!flag_is("--", "--recursive"));
        assert!(!flag_is("-r", "--recursive"));
        assert!(flag_is("-r", "-r"));
        assert!(!flag_is("-rf", "-r"));
    }

    #[test]
    fn single_dash_long_options_take_values_whole() {
        let w = words(&["find", ".", "-name", "-delete", "-delete"]);
        let s = scan(&w, 1, &|n| n == "-name");
        assert_eq!(s.values.len(), 1);
        assert_eq!(s.values.first().map(|v| v.text.as_str()), Some("-delete"));
        assert!(names(&s).contains(&"-delete"));
        assert_eq!(s.operands, [1]);
    }
}
