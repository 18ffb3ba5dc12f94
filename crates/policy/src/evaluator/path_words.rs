//! What a word says about the path it names: a literal path, a leading `$HOME`, a process
//! substitution, a glob (expanded on the file system when symbolic links are resolved), an
//! assignment value with a `~`.

use std::path::{Path, PathBuf};

use shellgate_parser::Word;

use crate::matching::MatchContext;
use crate::paths;

/// Most files a glob path is expanded to when symbolic links are resolved; more make the path
/// untrusted.
pub(super) const MAX_GLOB_MATCHES: usize = 256;

/// The absolute, normalised path a literal word names (`~` expanded when the shell would),
/// or `None` for a word with expansions.
pub(super) fn literal_path(word: &Word, text: &str, ctx: &MatchContext<'_>) -> Option<PathBuf> {
    word.literal
        .then(|| {
            let tilde = text.starts_with('~') && word.features.tilde;
            paths::expand(text, tilde, ctx.cwd, ctx.home)
        })
        .flatten()
        .and_then(|p| paths::normalize(&p))
}

/// The directory a recursive read of `word` reaches everything below, as far as it is known
/// statically: the literal path, the path a leading `$HOME` stands for (`"$HOME/.aws"`), or
/// for a glob the directory before its first pattern character (`~/.*` reaches below `~`).
/// `None` for any other expansion (judged as a path not known until it runs).
pub(super) fn searched_root(word: &Word, text: &str, ctx: &MatchContext<'_>) -> Option<PathBuf> {
    if word.literal {
        return literal_path(word, text, ctx);
    }
    if only_home_variable(word) {
        let expanded = paths::expand_home_variable(text, ctx.home)?;
        return paths::normalize(Path::new(&expanded));
    }
    if only_glob(word) {
        let pattern_at = text.find(['*', '?', '['])?;
        let dir = text
            .get(..pattern_at)?
            .rsplit_once('/')
            .map_or(".", |(dir, _)| if dir.is_empty() { "/" } else { dir });
        let tilde = dir.starts_with('~') && word.features.tilde;
        return paths::expand(dir, tilde, ctx.cwd, ctx.home).and_then(|p| paths::normalize(&p));
    }
    None
}

/// Whether a word's only expansion is a leading `$HOME`/`${HOME}`.
pub(super) fn only_home_variable(word: &Word) -> bool {
    let f = &word.features;
    f.parameter
        && !f.command_substitution
        && !f.process_substitution
        && !f.arithmetic
        && !f.glob
        && !f.brace
}

/// Whether a word's only expansion is a glob.
pub(super) fn only_glob(word: &Word) -> bool {
    let f = &word.features;
    f.glob
        && !f.parameter
        && !f.command_substitution
        && !f.process_substitution
        && !f.arithmetic
        && !f.brace
}

/// Whether `text` is the value of a `name=value` word whose value starts with an unquoted `~`
/// (bash expands it, as in `dd of=~/x`).
pub(super) fn is_assignment_value(word: &Word, text: &str) -> bool {
    let Some((name, value)) = word.raw.split_once('=') else {
        return false;
    };
    value.starts_with('~')
        && word.cooked.ends_with(text)
        && !name.is_empty()
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Expands glob components below `dir` on the file system (no dotfiles unless the component
/// starts with `.`); returns false when there are more than [`MAX_GLOB_MATCHES`] candidates.
pub(super) fn expand_glob(dir: &Path, components: &[&str], out: &mut Vec<PathBuf>) -> bool {
    let Some((first, rest)) = components.split_first() else {
        out.push(dir.to_path_buf());
        return out.len() <= MAX_GLOB_MATCHES;
    };
    if first.is_empty() || *first == "." {
        return expand_glob(dir, rest, out);
    }
    if !first.contains(['*', '?', '[']) {
        let next = dir.join(first);
        if std::fs::symlink_metadata(&next).is_err() {
            return true;
        }
        return expand_glob(&next, rest, out);
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        if paths::fnmatch(first, name, true) && !expand_glob(&dir.join(name), rest, out) {
            return false;
        }
        if out.len() > MAX_GLOB_MATCHES {
            return false;
        }
    }
    true
}
