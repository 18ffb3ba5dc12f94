//! Lexical path resolution: `~`/`$HOME` expansion, joining to the working directory, and
//! removal of `.`, `..`, repeated and trailing slashes. Nothing touches the file system.

use std::path::{Path, PathBuf};

/// A path operand in the two forms globs are matched against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathForms {
    /// Absolute and normalised when the working directory (or home) is known; otherwise
    /// normalised as written (relative).
    pub(crate) resolved: String,
    /// The same path relative to home as `~` or `~/…`, when it is inside home (or the home
    /// directory is unknown and the operand was written with `~` or `$HOME`).
    pub(crate) tilde: Option<String>,
}

impl PathForms {
    /// Both forms, for matching.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.resolved.as_str()).chain(self.tilde.as_deref())
    }
}

/// The part of `text` after a home prefix (`~`, `$HOME`, `${HOME}`), if it has one: `""` for
/// the home directory itself, `"/x"` for a path inside it.
fn home_suffix(text: &str) -> Option<&str> {
    ["~", "${HOME}", "$HOME"].into_iter().find_map(|prefix| {
        let rest = text.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    })
}

/// Resolves `text` lexically (see the module docs) into both match forms.
pub(crate) fn forms(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> PathForms {
    let home_text = home.and_then(Path::to_str).map(|h| normalize(h, true));
    if let Some(rest) = home_suffix(text) {
        return match &home_text {
            Some(h) => {
                let resolved = normalize(&format!("{h}/{rest}"), true);
                let tilde = tilde_form(&resolved, h);
                PathForms { resolved, tilde }
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
                }
            }
        };
    }
    let resolved = if text.starts_with('/') {
        normalize(text, true)
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
    PathForms { resolved, tilde }
}

/// `~` or `~/rest` when `path` is `home` or inside it.
fn tilde_form(path: &str, home: &str) -> Option<String> {
    if home == "/" {
        return None;
    }
    let rest = path.strip_prefix(home)?;
    if rest.is_empty() {
        Some("~".to_owned())
    } else if rest.starts_with('/') {
        Some(format!("~{rest}"))
    } else {
        None
    }
}

/// Normalises a `/`-separated path lexically. `absolute` paths never climb above `/`; relative
/// ones keep leading `..`. The empty relative path is `.`.
pub(crate) fn normalize(text: &str, absolute: bool) -> String {
    if is_normal(text, absolute) {
        return text.to_owned();
    }
    normalize_segments(text, absolute)
}

/// [`normalize`] the long way: segment by segment.
fn normalize_segments(text: &str, absolute: bool) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
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

/// Resolves a path operand the way every matcher does: `~`, `~/…`, `$HOME` and `${HOME}` are
/// expanded from `home`, a relative path is joined to `cwd`, and `.`, `..`, repeated and
/// trailing slashes are removed lexically (a `..` never climbs above `/`). A relative path with
/// no known `cwd` stays relative (normalised). Nothing touches the file system.
///
/// ```
/// use std::path::Path;
/// use shellgate_rules::resolve_path;
///
/// let home = Some(Path::new("/home/u"));
/// let cwd = Some(Path::new("/home/u/proj"));
/// assert_eq!(resolve_path("../../../..", cwd, home), Path::new("/"));
/// assert_eq!(resolve_path("~/.ssh/", cwd, home), Path::new("/home/u/.ssh"));
/// assert_eq!(resolve_path("$HOME", cwd, home), Path::new("/home/u"));
/// assert_eq!(resolve_path("build/./x", cwd, home), Path::new("/home/u/proj/build/x"));
/// ```
#[must_use]
pub fn resolve_path(text: &str, cwd: Option<&Path>, home: Option<&Path>) -> PathBuf {
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
        assert_eq!(normalize("/usr/../", true), "/");
        assert_eq!(normalize("//etc//", true), "/etc");
        assert_eq!(normalize("/../../x", true), "/x");
        assert_eq!(normalize("a/../../b", false), "../b");
        assert_eq!(normalize("./", false), ".");
        assert_eq!(normalize("/*/..", true), "/");
    }

    #[test]
    fn the_fast_path_only_skips_paths_already_normal() {
        // Every string of up to 7 characters over `a`, `/` and `.`, both ways.
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
        let mut fast = 0;
        for text in &texts {
            for absolute in [true, false] {
                let slow = normalize_segments(text, absolute);
                assert_eq!(normalize(text, absolute), slow, "{text:?} {absolute}");
                if is_normal(text, absolute) {
                    fast += 1;
                    assert_eq!(slow, *text, "{text:?} {absolute}");
                }
            }
        }
        assert!(fast > 100, "{fast}");
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
        assert_eq!(f("*", Some("/"), home), ("/*".into(), None));
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
