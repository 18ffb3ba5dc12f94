//! Working-directory tracking: the static effect of `cd`, `pushd` and `popd`.
//!
//! Paths are joined and `..`-normalised lexically (no file system access). Anything that cannot
//! be known statically (a dynamic target, `cd -`, `~user`, an unknown option, no base
//! directory for a relative target) makes the directory unknown (`None`). `CDPATH` is not
//! consulted: a relative `cd` is resolved against the current directory only.

use std::path::{Path, PathBuf};

use crate::clause::Word;
pub(crate) use crate::path::normalize_path as normalize;
use crate::path::{self, Tilde};

/// The words of a command that changes the directory, without a `builtin`/`command` prefix.
fn cd_words(argv: &[Word]) -> Option<(&str, &[Word])> {
    let (first, rest) = argv.split_first()?;
    if !first.literal {
        return None;
    }
    match first.cooked.as_str() {
        "cd" | "pushd" | "popd" => Some((first.cooked.as_str(), rest)),
        "builtin" | "command" => {
            let (second, rest) = rest.split_first()?;
            match second.cooked.as_str() {
                "cd" | "pushd" | "popd" if second.literal => Some((second.cooked.as_str(), rest)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// True when the command changes the working directory of the shell that runs it.
pub(crate) fn changes_cwd(argv: &[Word]) -> bool {
    cd_words(argv).is_some() || runs_a_directory_change(argv) || sets_physical(argv)
}

/// True for `set -P` and `set -o physical` (also bundled, `set -eP`): from then on `cd`
/// follows symbolic links before `..`, which a lexical join cannot know.
fn sets_physical(argv: &[Word]) -> bool {
    let Some((first, rest)) = argv.split_first() else {
        return false;
    };
    if !(first.literal && first.cooked == "set") {
        return false;
    }
    let mut words = rest.iter().peekable();
    while let Some(word) = words.next() {
        let text = word.cooked.as_str();
        if !word.literal {
            return true;
        }
        if text == "-o" {
            if words
                .peek()
                .is_none_or(|w| !w.literal || w.cooked == "physical")
            {
                return true;
            }
        } else if text.starts_with('-') && !text.starts_with("--") && text.contains('P') {
            return true;
        }
    }
    false
}

/// True for `eval` and `trap` given code that may change the directory of this shell
/// (`eval cd ~`, `trap 'cd /etc' DEBUG`): the directory after them is not known statically.
fn runs_a_directory_change(argv: &[Word]) -> bool {
    let Some((first, rest)) = argv.split_first() else {
        return false;
    };
    if !(first.literal && matches!(first.cooked.as_str(), "eval" | "trap")) {
        return false;
    }
    rest.iter().any(|word| {
        !word.literal
            || word
                .cooked
                .split(|c: char| c.is_whitespace() || ";&|(){}`".contains(c))
                .any(|token| matches!(token, "cd" | "pushd" | "popd"))
    })
}

/// The directory after running `argv` in `cwd`, or `None` when `argv` is not a directory
/// change (the state is then unchanged). `Some(None)` means "unknown from now on".
pub(crate) fn apply(
    argv: &[Word],
    cwd: Option<&Path>,
    home: Option<&Path>,
) -> Option<Option<PathBuf>> {
    if runs_a_directory_change(argv) || sets_physical(argv) {
        return Some(None);
    }
    let (verb, args) = cd_words(argv)?;
    if verb == "popd" {
        return Some(None);
    }
    let mut target: Option<&Word> = None;
    let mut options_done = false;
    let mut physical = false;
    for word in args {
        if !word.literal {
            // `cd $HOME/proj`: the home directory and a literal rest.
            if let Some(home_path) = home_relative(&word.raw, home) {
                let last = args.last().is_some_and(|l| std::ptr::eq(l, word));
                if target.is_some() || !last || (physical && word.raw.contains("..")) {
                    return Some(None);
                }
                return Some(Some(home_path));
            }
            return Some(None);
        }
        let text = word.cooked.as_str();
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && text.len() > 1 && text.starts_with('-') {
            let known = verb == "cd"
                && text
                    .chars()
                    .skip(1)
                    .all(|c| matches!(c, 'L' | 'P' | 'e' | '@'));
            if known {
                physical |= text.contains('P');
                continue;
            }
            return Some(None);
        }
        if !options_done && verb == "pushd" && text.starts_with('+') {
            return Some(None);
        }
        if target.is_some() {
            // Too many arguments: bash refuses; treat as unknown.
            return Some(None);
        }
        target = Some(word);
    }
    let Some(target) = target else {
        // `cd` alone goes home; `pushd` alone swaps the top two directories.
        return Some(if verb == "cd" {
            home.map(normalize)
        } else {
            None
        });
    };
    let text = target.cooked.as_str();
    // `-P` goes up from where a link leads (`cd -P link/..`), not lexically.
    if text == "-" || (physical && text.split('/').any(|segment| segment == "..")) {
        return Some(None);
    }
    if text.is_empty() {
        return Some(cwd.map(Path::to_path_buf));
    }
    if target.features.tilde {
        return Some(resolve_tilde(text, cwd, home));
    }
    if path::is_foreign_absolute(text) {
        // `cd C:/Users/me` under Git Bash: not a directory below this one.
        return Some(None);
    }
    // (`cd ..\` is `cd ../` where Git Bash runs, Windows; here `..\` is one name.)
    let windows = cfg!(windows)
        .then(|| path::windows_separators(text))
        .flatten();
    let text = windows.as_deref().unwrap_or(text);
    let path = Path::new(text);
    if path.is_absolute() {
        return Some(Some(normalize(path)));
    }
    Some(cwd.map(|base| normalize(&base.join(path))))
}

/// `$HOME`, `${HOME}`, `"$HOME"` followed by nothing or by `/` and plain characters, resolved
/// from `home` (a `HOME` the command sets makes it ask, whatever the directory).
fn home_relative(raw: &str, home: Option<&Path>) -> Option<PathBuf> {
    let unquoted = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let rest = ["${HOME}", "$HOME"]
        .iter()
        .find_map(|p| unquoted.strip_prefix(p))?;
    let plain =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@' | ',');
    if !(rest.is_empty() || rest.starts_with('/')) || !rest.chars().all(plain) {
        return None;
    }
    Some(normalize(&home?.join(rest.trim_start_matches('/'))))
}

fn resolve_tilde(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let (base, rest) = match path::tilde(text)? {
        Tilde::Home(rest) => (home?, rest),
        Tilde::WorkingDir(rest) => (cwd?, rest),
        Tilde::Unknown => return None,
    };
    Some(normalize(&base.join(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clause::{Span, WordFeatures};

    fn w(text: &str) -> Word {
        let features = WordFeatures {
            tilde: text.starts_with('~'),
            parameter: text.contains('$'),
            ..WordFeatures::default()
        };
        Word {
            raw: text.to_owned(),
            cooked: text.to_owned(),
            literal: !features.is_dynamic(),
            features,
            span: Span::default(),
        }
    }

    fn run(cmd: &str, cwd: Option<&str>) -> Option<Option<PathBuf>> {
        let argv: Vec<Word> = cmd.split(' ').map(w).collect();
        apply(&argv, cwd.map(Path::new), Some(Path::new("/home/me")))
    }

    #[test]
    fn static_targets_resolve() {
        let cases = [
            ("cd /tmp", "/x", "/tmp"),
            ("cd sub/../other/.", "/x", "/x/other"),
            ("cd ../..", "/a/b/c", "/a"),
            ("cd /..", "/a", "/"),
            ("cd", "/x", "/home/me"),
            ("cd ~", "/x", "/home/me"),
            ("cd ~/src", "/x", "/home/me/src"),
            ("cd -P /tmp", "/x", "/tmp"),
            ("pushd /srv", "/x", "/srv"),
            ("builtin cd /srv", "/x", "/srv"),
            // Regression: `~//tmp` was joined as the absolute `/tmp`.
            ("cd ~//tmp", "/x", "/home/me/tmp"),
            ("cd $HOME/src", "/x", "/home/me/src"),
            ("cd ${HOME}", "/x", "/home/me"),
            ("cd \"$HOME/src\"", "/x", "/home/me/src"),
        ];
        for (cmd, cwd, target) in cases {
            assert_eq!(
                run(cmd, Some(cwd)),
                Some(Some(PathBuf::from(target))),
                "{cmd} in {cwd}"
            );
        }
    }

    #[test]
    fn unknowable_targets() {
        assert_eq!(run("cd -", Some("/x")), Some(None));
        assert_eq!(run("cd $D", Some("/x")), Some(None));
        assert_eq!(run("cd $HOME$X", Some("/x")), Some(None));
        assert_eq!(run("cd $HOME/$X", Some("/x")), Some(None));
        assert_eq!(run("cd $HOME/a b", Some("/x")), Some(None));
        assert_eq!(run("cd ~bob", Some("/x")), Some(None));
        assert_eq!(run("cd rel", None), Some(None));
        assert_eq!(run("cd a b", Some("/x")), Some(None));
        assert_eq!(run("popd", Some("/x")), Some(None));
        assert_eq!(run("pushd", Some("/x")), Some(None));
        assert_eq!(run("ls /tmp", Some("/x")), None);
    }

    #[test]
    fn physical_changes_follow_links_before_dot_dot() {
        assert_eq!(run("cd -P ..", Some("/x/link")), Some(None));
        assert_eq!(run("cd -LP link/../y", Some("/x")), Some(None));
        assert_eq!(
            run("cd -L ..", Some("/x/y")),
            Some(Some(PathBuf::from("/x")))
        );
        assert_eq!(run("set -P", Some("/x")), Some(None));
        assert_eq!(run("set -eP", Some("/x")), Some(None));
        assert_eq!(run("set -o physical", Some("/x")), Some(None));
        assert_eq!(run("set -o pipefail", Some("/x")), None);
        assert_eq!(run("set -eu", Some("/x")), None);
    }

    #[test]
    fn eval_and_trap_code_that_changes_directory_makes_it_unknown() {
        assert_eq!(run("eval cd /tmp", Some("/x")), Some(None));
        assert_eq!(run("trap cd;pwd DEBUG", Some("/x")), Some(None));
        assert_eq!(run("eval echo cd-rom", Some("/x")), None);
        assert_eq!(run("trap true EXIT", Some("/x")), None);
    }
}
