//! Lexical paths: the one place shellgate normalises a path, expands a home prefix and makes
//! the forms a path is matched in. Nothing here touches the file system.
//!
//! * **Normalisation** ([`normalize`], [`normalize_path`]) drops empty and `.` segments and
//!   lets `..` remove the segment before it. An absolute path never climbs above `/`; a
//!   relative one keeps its leading `..`. The empty relative path is `.`.
//! * **Home prefixes** ([`home_prefix`]): `~`, `$HOME` and `${HOME}`, each followed by the end
//!   of the text or by `/`. **Tilde prefixes** ([`tilde`]) as bash expands them at the start of
//!   a word: `~` (home), `~+` (the working directory), anything else (`~user`, `~-`) unknown.
//! * **Match forms** ([`forms`]): a path operand resolved against the working directory and
//!   home, and the same path relative to home (`~/…`), which is what policy globs are matched
//!   against.
//!
//! ```
//! use std::path::Path;
//! use shellgate_parser::path::{forms, normalize};
//!
//! assert_eq!(normalize("/usr/../etc//x/.", true), "/etc/x");
//! assert_eq!(normalize("a/../../b", false), "../b");
//! let f = forms("$HOME/.ssh/", Some(Path::new("/w")), Some(Path::new("/home/u")));
//! assert_eq!(f.resolved, "/home/u/.ssh");
//! assert_eq!(f.tilde.as_deref(), Some("~/.ssh"));
//! ```

use std::path::{Component, Path, PathBuf};

/// Which home prefix a text starts with (see [`home_prefix`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomePrefix {
    /// `~`.
    Tilde,
    /// `$HOME` or `${HOME}`.
    Variable,
}

/// The home prefix `text` starts with and the rest after it: `""` for the home directory
/// itself, `"/x"` for a path inside it. `None` when the text has no home prefix (`~user`,
/// `$HOMEDIR` and `~+` have none).
///
/// ```
/// use shellgate_parser::path::{HomePrefix, home_prefix};
///
/// assert_eq!(home_prefix("~/x"), Some((HomePrefix::Tilde, "/x")));
/// assert_eq!(home_prefix("${HOME}"), Some((HomePrefix::Variable, "")));
/// assert_eq!(home_prefix("$HOMEDIR/x"), None);
/// ```
#[must_use]
pub fn home_prefix(text: &str) -> Option<(HomePrefix, &str)> {
    [
        ("~", HomePrefix::Tilde),
        ("${HOME}", HomePrefix::Variable),
        ("$HOME", HomePrefix::Variable),
    ]
    .into_iter()
    .find_map(|(prefix, kind)| {
        let rest = text.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with('/')).then_some((kind, rest))
    })
}

/// A leading tilde as bash expands it at the start of a word (see [`tilde`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tilde<'a> {
    /// `~` or `~/rest`: the home directory; the text after the slashes that follow.
    Home(&'a str),
    /// `~+` or `~+/rest`: the working directory; the text after the slashes that follow.
    WorkingDir(&'a str),
    /// `~user`, `~-` and the like: needs the password database or the previous directory.
    Unknown,
}

/// The tilde prefix of `text`, or `None` when it does not start with `~`.
///
/// ```
/// use shellgate_parser::path::{Tilde, tilde};
///
/// assert_eq!(tilde("~/src/x"), Some(Tilde::Home("src/x")));
/// assert_eq!(tilde("~+"), Some(Tilde::WorkingDir("")));
/// assert_eq!(tilde("~root/x"), Some(Tilde::Unknown));
/// assert_eq!(tilde("x"), None);
/// ```
#[must_use]
pub fn tilde(text: &str) -> Option<Tilde<'_>> {
    if !text.starts_with('~') {
        return None;
    }
    let (head, rest) = text.split_once('/').unwrap_or((text, ""));
    // `~//x` is `$HOME//x`: joining the rest as written would make it the absolute `/x`.
    let rest = rest.trim_start_matches('/');
    Some(match head {
        "~" => Tilde::Home(rest),
        "~+" => Tilde::WorkingDir(rest),
        _ => Tilde::Unknown,
    })
}

/// One part of a path, as normalisation sees it.
enum Part<T> {
    /// The root, an empty segment or `.`.
    Skip,
    /// `..`.
    Up,
    /// A name.
    Name(T),
}

/// Normalises `parts`: the leading `..` count (kept only for a relative path) and the names.
fn lexical<T>(parts: impl Iterator<Item = Part<T>>, absolute: bool) -> (usize, Vec<T>) {
    let mut ups = 0;
    let mut names = Vec::new();
    for part in parts {
        match part {
            Part::Skip => {}
            // `..` removes the name before it; with none left it stays at the root of an
            // absolute path and is kept by a relative one.
            Part::Up => {
                if names.pop().is_none() && !absolute {
                    ups += 1;
                }
            }
            Part::Name(name) => names.push(name),
        }
    }
    (ups, names)
}

/// Normalises a `/`-separated path lexically (see the module docs). With `absolute`, the
/// result starts with `/` whether or not `text` does.
#[must_use]
pub fn normalize(text: &str, absolute: bool) -> String {
    if is_normal(text, absolute) {
        return text.to_owned();
    }
    let parts = text.split('/').map(|part| match part {
        "" | "." => Part::Skip,
        ".." => Part::Up,
        name => Part::Name(name),
    });
    let (ups, names) = lexical(parts, absolute);
    let joined = std::iter::repeat_n("..", ups)
        .chain(names)
        .collect::<Vec<_>>()
        .join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

/// [`normalize`] for a [`Path`] (any bytes), absolute when it has a root.
#[must_use]
pub fn normalize_path(path: &Path) -> PathBuf {
    let absolute = path.has_root();
    let parts = path.components().map(|component| match component {
        Component::Prefix(_) | Component::RootDir | Component::CurDir => Part::Skip,
        Component::ParentDir => Part::Up,
        Component::Normal(name) => Part::Name(name),
    });
    let (ups, names) = lexical(parts, absolute);
    let mut out = if absolute {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    };
    for _ in 0..ups {
        out.push("..");
    }
    for name in names {
        out.push(name);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// True when [`normalize`] would return `text` unchanged (the common case, checked without
/// allocating): no empty, `.` or `..` segment, and for an absolute path a leading `/`.
fn is_normal(text: &str, absolute: bool) -> bool {
    let segments = if absolute {
        if text == "/" {
            return true;
        }
        match text.strip_prefix('/') {
            Some(rest) => rest,
            None => return false,
        }
    } else {
        text
    };
    !segments.is_empty()
        && segments
            .split('/')
            .all(|part| !matches!(part, "" | "." | ".."))
}

/// A path operand in the two forms globs are matched against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathForms {
    /// Absolute and normalised when the working directory (or home) is known; otherwise
    /// normalised as written (relative).
    pub resolved: String,
    /// The same path relative to home as `~` or `~/…`, when it is inside home (or the home
    /// directory is unknown and the operand was written with a home prefix).
    pub tilde: Option<String>,
    /// For a path with a backslash, both forms of the path Git Bash reads (`\` a separator:
    /// [`windows_separators`]), matched too: `.git\hooks\x` is a hook there.
    pub windows: Option<(String, Option<String>)>,
}

impl PathForms {
    /// Every form, for matching.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let (windows, windows_tilde) = match &self.windows {
            Some((resolved, tilde)) => (Some(resolved.as_str()), tilde.as_deref()),
            None => (None, None),
        };
        std::iter::once(self.resolved.as_str())
            .chain(self.tilde.as_deref())
            .chain(windows)
            .chain(windows_tilde)
    }
}

/// Whether `text` is a path of another system's shape, which names another file there than
/// here: a Windows drive path (`C:/Users`, `d:\x`, `C:`, the drive-relative `C:x`), a UNC path
/// (`\\server\share`; `//server/share` is a POSIX path) or one from a drive's root
/// (`\Users\me`). Agents on Windows run Git Bash or MSYS, where
/// `C:/Users/me/.bashrc` is the home directory's start-up file; read here it would be a
/// relative path below the working directory. Such a path is never known statically: whoever
/// judges it treats it as unknown. (On Windows, where drive paths are native, this is always
/// false.)
///
/// ```
/// use shellgate_parser::path::is_foreign_absolute;
///
/// # if cfg!(windows) { return; }
/// for text in [
///     "C:/Users/me/.bashrc", "d:\\x", "C:", "z:", "\\\\host\\share", "C:.git/hooks/x",
///     "\\Users\\me",
/// ] {
///     assert!(is_foreign_absolute(text), "{text}");
/// }
/// for text in [
///     "src/main.rs", "/etc/hosts", "ab:/x", "./C:/x", "http://x", "../x", "a.b/c", "~/x", "v1.2/x~",
///     "./...", "HEAD~3", "main~2", "origin/main~1", "#(touch /x)", "a.", "GIT~1/hooks",
/// ] {
///     assert!(!is_foreign_absolute(text), "{text}");
/// }
/// ```
#[must_use]
pub fn is_foreign_absolute(text: &str) -> bool {
    // On Windows itself these are the native absolute forms.
    if cfg!(windows) {
        return false;
    }
    let bytes = text.as_bytes();
    if let [drive, b':', ..] = bytes
        && drive.is_ascii_alphabetic()
    {
        return true;
    }
    // (`\\host\share`, and `\Users\me`, a path from the root of the current drive.)
    if text.starts_with('\\') {
        return true;
    }
    false
}

/// `text` with Windows' directory separator read as `/` (`..\x` is `../x` to Git Bash and
/// MSYS, `.git\hooks\pre-commit` a hook), when it has one: what a path with a backslash names
/// on Windows, where paths are resolved so; path globs (deny rules, protected paths) match it
/// on every system, whatever a backslash is there.
///
/// ```
/// use shellgate_parser::path::windows_separators;
///
/// assert_eq!(windows_separators("..\\.aws\\credentials").as_deref(), Some("../.aws/credentials"));
/// assert_eq!(windows_separators("src/main.rs"), None);
/// assert_eq!(windows_separators("\\\\host\\share"), None);
/// assert_eq!(windows_separators("\\"), None);
/// ```
#[must_use]
pub fn windows_separators(text: &str) -> Option<String> {
    // (A UNC path, `\\host\share`, and a path from a drive's root, `\Users`, are not known
    // here: see [`is_foreign_absolute`].)
    (text.contains('\\') && !text.starts_with('\\')).then(|| text.replace('\\', "/"))
}

/// Resolves `text` lexically into both match forms: a home prefix ([`home_prefix`]) is
/// expanded from `home`, a relative path is joined to `cwd` (when it is absolute), and the
/// result is normalised. `~user/…` is kept as written. Quoting is not considered: a policy
/// glob meets a path however it was spelled.
#[must_use]
pub fn forms(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> PathForms {
    let mut forms = literal_forms(text, cwd, home);
    forms.windows = windows_reading(text).map(|windows| {
        let other = literal_forms(&windows, cwd, home);
        (other.resolved, other.tilde)
    });
    forms
}

/// How Windows reads `text`, when it differs: `\` a separator, the trailing dots and blanks of
/// a name dropped (`.git.` is `.git`), an NTFS stream's suffix dropped (`.git::$INDEX_ALLOCATION`
/// is `.git`). (8.3 short names, `GIT~1`, cannot be mapped without the disk.)
fn windows_reading(text: &str) -> Option<String> {
    let separated = windows_separators(text);
    let base = separated.as_deref().unwrap_or(text);
    let read: Vec<&str> = base
        .split('/')
        .map(|segment| {
            let segment = segment.split_once("::$").map_or(segment, |(name, _)| name);
            if matches!(segment, "." | "..") {
                return segment;
            }
            let stem = segment.trim_end_matches(['.', ' ']);
            if stem.is_empty() { segment } else { stem }
        })
        .collect();
    let read = read.join("/");
    (read != text).then_some(read)
}

/// [`forms`] of `text` as written.
fn literal_forms(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> PathForms {
    let home_text = home.and_then(Path::to_str).map(|h| normalize(h, true));
    if let Some((_, rest)) = home_prefix(text) {
        return match &home_text {
            Some(h) => {
                let resolved = normalize(&format!("{h}/{rest}"), true);
                let tilde = tilde_form(&resolved, h);
                PathForms {
                    resolved,
                    tilde,
                    windows: None,
                }
            }
            None => {
                let tail = normalize(rest, true);
                let tilde = if tail == "/" {
                    "~".to_owned()
                } else {
                    format!("~{tail}")
                };
                PathForms {
                    resolved: tilde.clone(),
                    tilde: Some(tilde),
                    windows: None,
                }
            }
        };
    }
    let working = cwd
        .and_then(Path::to_str)
        .filter(|dir| dir.starts_with('/'));
    let pwd = ["${PWD}", "$PWD"].into_iter().find_map(|prefix| {
        let rest = text.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    });
    let resolved = if text.starts_with('/') {
        // The process's own root is `/` (`/proc/self/root/etc` is `/etc`).
        let own_root = ["/proc/self/root", "/proc/thread-self/root"]
            .into_iter()
            .find_map(|root| {
                let rest = text.strip_prefix(root)?;
                (rest.is_empty() || rest.starts_with('/')).then_some(rest)
            });
        match own_root {
            Some(rest) => normalize(&format!("/{rest}"), true),
            None => normalize(text, true),
        }
    } else if let (Some(rest), Some(dir)) = (pwd, working) {
        // `$PWD` is the working directory.
        normalize(&format!("{dir}/{rest}"), true)
    } else if let (Some(Tilde::WorkingDir(rest)), Some(dir)) = (tilde(text), working) {
        // `~+` is the working directory.
        normalize(&format!("{dir}/{rest}"), true)
    } else if text.starts_with('~') {
        // `~user/…`: another user's home; keep it as written.
        normalize(text, false)
    } else {
        match cwd.and_then(Path::to_str) {
            Some(dir) if dir.starts_with('/') => normalize(&format!("{dir}/{text}"), true),
            _ => normalize(text, false),
        }
    };
    let tilde = home_text.as_deref().and_then(|h| tilde_form(&resolved, h));
    PathForms {
        resolved,
        tilde,
        windows: None,
    }
}

/// `~` or `~/rest` when `path` is `home` or inside it.
fn tilde_form(path: &str, home: &str) -> Option<String> {
    if home == "/" {
        return None;
    }
    // (In any letter case: on a case-insensitive file system — macOS, Windows — `/users/me` is
    // `/Users/me`.)
    let rest = path.strip_prefix(home).or_else(|| {
        path.get(..home.len())
            .filter(|head| head.eq_ignore_ascii_case(home))
            .and_then(|_| path.get(home.len()..))
    })?;
    if rest.is_empty() {
        Some("~".to_owned())
    } else if rest.starts_with('/') {
        Some(format!("~{rest}"))
    } else {
        None
    }
}

/// The resolved form of [`forms`] as a path: home prefixes expanded, relative paths joined to
/// `cwd`, `.`, `..`, repeated and trailing slashes removed (a `..` never climbs above `/`). A
/// relative path with no known `cwd` stays relative (normalised).
///
/// ```
/// use std::path::Path;
/// use shellgate_parser::path::resolve;
///
/// let home = Some(Path::new("/home/u"));
/// let cwd = Some(Path::new("/home/u/proj"));
/// assert_eq!(resolve("../../../..", cwd, home), Path::new("/"));
/// assert_eq!(resolve("~/.ssh/", cwd, home), Path::new("/home/u/.ssh"));
/// assert_eq!(resolve("$HOME", cwd, home), Path::new("/home/u"));
/// assert_eq!(resolve("build/./x", cwd, home), Path::new("/home/u/proj/build/x"));
/// ```
#[must_use]
pub fn resolve(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> PathBuf {
    PathBuf::from(forms(text, cwd, home).resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str, cwd: Option<&str>, home: Option<&str>) -> (String, Option<String>) {
        let p = forms(text, cwd.map(Path::new), home.map(Path::new));
        (p.resolved, p.tilde)
    }

    #[test]
    fn normalises_lexically() {
        let cases = [
            ("/usr/../", true, "/"),
            ("//etc//", true, "/etc"),
            ("/../../x", true, "/x"),
            ("a/../../b", false, "../b"),
            ("../..", false, "../.."),
            ("./", false, "."),
            ("", false, "."),
            ("", true, "/"),
            ("a/b", true, "/a/b"),
            ("/*/..", true, "/"),
        ];
        for (text, absolute, expected) in cases {
            assert_eq!(normalize(text, absolute), expected, "{text:?} {absolute}");
            let path = if absolute && !text.starts_with('/') {
                format!("/{text}")
            } else {
                text.to_owned()
            };
            assert_eq!(
                normalize_path(Path::new(&path)),
                PathBuf::from(expected),
                "{path:?}"
            );
        }
    }

    /// Every string of up to 7 characters over `a`, `/` and `.`: the fast path only skips
    /// paths already normal, and the text and path forms agree.
    #[test]
    fn every_short_path_normalises_the_same_both_ways() {
        let mut texts = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..7 {
            let mut next = Vec::new();
            for text in &frontier {
                for c in ['a', '/', '.'] {
                    next.push(format!("{text}{c}"));
                }
            }
            texts.extend(next.iter().cloned());
            frontier = next;
        }
        assert_eq!(texts.len(), 3280);
        for text in &texts {
            let absolute = text.starts_with('/');
            let normal = normalize(text, absolute);
            assert_eq!(
                normalize_path(Path::new(text)),
                PathBuf::from(&normal),
                "{text:?}"
            );
            assert_eq!(normalize(&normal, absolute), normal, "{text:?}");
            if is_normal(text, absolute) {
                assert_eq!(normal, *text, "{text:?}");
            }
        }
    }

    #[test]
    fn prefixes() {
        assert_eq!(home_prefix("~"), Some((HomePrefix::Tilde, "")));
        assert_eq!(home_prefix("$HOME/a"), Some((HomePrefix::Variable, "/a")));
        assert_eq!(home_prefix("~user"), None);
        assert_eq!(home_prefix("${HOME}x"), None);
        assert_eq!(home_prefix("x~"), None);
        assert_eq!(tilde("~"), Some(Tilde::Home("")));
        assert_eq!(tilde("~/"), Some(Tilde::Home("")));
        assert_eq!(tilde("~+/a/b"), Some(Tilde::WorkingDir("a/b")));
        assert_eq!(tilde("~//etc"), Some(Tilde::Home("etc")));
        assert_eq!(tilde("~-"), Some(Tilde::Unknown));
        assert_eq!(tilde("$HOME"), None);
    }

    #[test]
    fn resolves_against_cwd_and_home() {
        let home = Some("/home/u");
        assert_eq!(f("..", Some("/home"), home), ("/".into(), None));
        assert_eq!(f("../../..", Some("/home/u/p"), home), ("/".into(), None));
        assert_eq!(f("~", None, home), ("/home/u".into(), Some("~".into())));
        assert_eq!(
            f("$HOME/", None, home),
            ("/home/u".into(), Some("~".into()))
        );
        assert_eq!(
            f("${HOME}/.ssh/id", None, home),
            ("/home/u/.ssh/id".into(), Some("~/.ssh/id".into()))
        );
        assert_eq!(
            f("/home/u/x/..", None, home),
            ("/home/u".into(), Some("~".into()))
        );
        assert_eq!(f("/home/user2", None, home), ("/home/user2".into(), None));
        assert_eq!(f("x", None, home), ("x".into(), None));
        assert_eq!(f("x", Some("rel"), home), ("x".into(), None));
        assert_eq!(f("*", Some("/"), home), ("/*".into(), None));
        assert_eq!(f("/x", None, Some("/")), ("/x".into(), None));
    }

    #[test]
    fn unknown_home_keeps_the_tilde_form() {
        assert_eq!(f("~", None, None), ("~".into(), Some("~".into())));
        assert_eq!(
            f("$HOME/a/../b", None, None),
            ("~/b".into(), Some("~/b".into()))
        );
        assert_eq!(f("~root/x", Some("/tmp"), None), ("~root/x".into(), None));
    }
}
