//! The rules crate's former lexical path resolution, kept only to show that the parser's
//! path module (`shellgate_parser::path`), which replaced it, agrees with it.

use std::path::Path;

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

#[cfg(test)]
mod tests {
    use super::*;
    use shellgate_parser::path;

    /// Every sequence of up to four path pieces, every word of the test corpora and every glob
    /// of the default policy.
    fn corpus() -> Vec<String> {
        let pieces = ["a", "/", ".", "..", "~", "~+", "$HOME", "${HOME}", "b"];
        let mut texts = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for text in &frontier {
                for piece in pieces {
                    next.push(format!("{text}{piece}"));
                }
            }
            texts.extend(next.iter().cloned());
            frontier = next;
        }
        for name in ["gate", "rules", "adversarial", "parser"] {
            let file = format!(
                "{}/../../tests/corpus/{name}.toml",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(&file).unwrap();
            for line in text.lines() {
                if let Some(command) = line.strip_prefix("command = ") {
                    texts.extend(
                        command
                            .trim_matches(['"', '\''])
                            .split_whitespace()
                            .map(str::to_owned),
                    );
                }
            }
        }
        for line in crate::DEFAULT_POLICY.lines() {
            texts.extend(line.split('"').skip(1).step_by(2).map(str::to_owned));
        }
        texts.sort();
        texts.dedup();
        texts
    }

    #[test]
    fn the_parser_path_module_agrees() {
        let cwds = [
            None,
            Some("/home/u/proj"),
            Some("/"),
            Some("rel"),
            Some("/a/../b/"),
        ];
        let homes = [
            None,
            Some("/home/u"),
            Some("/"),
            Some("/home/u/"),
            Some("h"),
        ];
        let texts = corpus();
        for text in &texts {
            for absolute in [true, false] {
                assert_eq!(normalize(text, absolute), path::normalize(text, absolute));
            }
            for cwd in cwds {
                for home in homes {
                    let (cwd, home) = (cwd.map(Path::new), home.map(Path::new));
                    let old = forms(text, cwd, home);
                    let new = path::forms(text, cwd, home);
                    assert_eq!(
                        (old.resolved, old.tilde),
                        (new.resolved, new.tilde),
                        "{text:?} {cwd:?} {home:?}"
                    );
                }
            }
        }
        assert!(texts.len() > 8_000, "{}", texts.len());
    }
}
