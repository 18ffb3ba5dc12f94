//! Credentials a repository's configuration holds (a token in a remote's URL, an
//! `http.extraheader` that CI checkouts write) and the git commands that print them
//! (`git remote -v`, `git config -l`): printed, they enter the agent's transcript.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of a configuration file that is read.
const CONFIG_BYTES: u64 = 256 * 1024;

/// Options of `git config` that are prefixes of listing options but print one key's value.
const OWN_OPTIONS: [&str; 2] = ["--get", "--get-all"];

/// What a git command prints of the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prints {
    /// Nothing of it.
    Nothing,
    /// Its remotes' URLs (`git remote -v`): only a token in a URL is printed.
    Urls,
    /// Settings (`git config -l`): any credential is printed.
    Settings,
}

/// What `words` (`git SUBCOMMAND …`, global options already removed) print of the repository's
/// configuration: settings, or its remotes' URLs.
pub(super) fn prints_configuration(words: &[shellgate_parser::Word]) -> Prints {
    let settings = |yes: bool| {
        if yes {
            Prints::Settings
        } else {
            Prints::Nothing
        }
    };
    let urls = |yes: bool| if yes { Prints::Urls } else { Prints::Nothing };
    let cooked: Vec<&str> = words.iter().map(|w| w.cooked.as_str()).collect();
    // (A long option by any unique abbreviation git accepts — `--li`, `--get-u` — and a short
    // one inside a cluster: `-lz`.)
    let has = |flags: &[&str]| {
        cooked.iter().skip(2).any(|w| {
            let name = w.split_once('=').map_or(*w, |(n, _)| n);
            flags.iter().any(|f| {
                *f == name
                    || (f.starts_with("--")
                        && name.len() > 3
                        && f.starts_with(name)
                        // (An option git has by that name is no abbreviation: `--get KEY`.)
                        && !OWN_OPTIONS.contains(&name))
                    || (f.len() == 2
                        && !f.starts_with("--")
                        && name.starts_with('-')
                        && !name.starts_with("--")
                        && name.contains(f.get(1..).unwrap_or_default()))
            })
        })
    };
    match cooked.get(1).copied() {
        // A listing, or a key that names a URL, a header or a credential (`git config user.name`
        // prints only the name).
        Some("config") => settings(
            has(&[
                "-l",
                "--list",
                "list",
                "--get-regexp",
                "get-regexp",
                "--get-urlmatch",
                "--regexp",
                "--all",
            ]) || cooked.iter().skip(2).any(|w| {
                let key = w.to_ascii_lowercase();
                // (`hub.oauthtoken`, `sendemail.smtppass`, `transcrypt.password`: red-team 41c.)
                !key.starts_with('-')
                    && [
                        "url",
                        "extraheader",
                        "credential",
                        "insteadof",
                        "proxy",
                        "token",
                        "pass",
                        "secret",
                        "auth",
                        "cookie",
                    ]
                    .iter()
                    .any(|k| key.contains(k))
            }),
        ),
        Some("var") => settings(has(&["-l"])),
        Some("remote") => urls(
            has(&["-v", "--verbose", "get-url", "show"])
                || cooked.iter().skip(2).any(|w| w.starts_with("-v")),
        ),
        Some("ls-remote") => urls(has(&["--get-url"])),
        _ => Prints::Nothing,
    }
}

/// The configuration files git reads in `cwd` that hold a credential `printed` prints (any, or
/// only a token in a URL): the repository's own (found upward from `cwd` as git finds it) and
/// the user's `~/.gitconfig`. Reads the disk.
pub(super) fn configs_with_credentials(
    cwd: &Path,
    home: Option<&Path>,
    printed: Prints,
) -> Vec<PathBuf> {
    if printed == Prints::Nothing {
        return Vec::new();
    }
    let urls_only = printed == Prints::Urls;
    let mut files: Vec<PathBuf> = repository_config(cwd).into_iter().collect();
    // (A worktree's own settings, and the system's: red-team 41c.)
    let worktree: Vec<PathBuf> = files
        .iter()
        .filter_map(|config| config.parent().map(|dir| dir.join("config.worktree")))
        .collect();
    files.extend(worktree);
    files.push(PathBuf::from("/etc/gitconfig"));
    if let Some(home) = home {
        files.push(home.join(".gitconfig"));
        files.push(home.join(".config/git/config"));
    }
    files
        .into_iter()
        .filter(|f| holds_credentials_within(f, home, 0, urls_only))
        .collect()
}

/// Whether `path` is a git configuration file by its name (`.git/config`, `~/.gitconfig`,
/// `~/.config/git/config`, `/etc/gitconfig`, `config.worktree`, a bare repository's `config`).
pub(super) fn is_git_config(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str());
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str());
    // (A bare repository's `config`: `mirror.git/config`, or any directory laid out as one.)
    matches!(name, Some(".gitconfig" | "gitconfig" | "config.worktree"))
        || (name == Some("config")
            && (matches!(parent, Some(".git" | "git"))
                || parent.is_some_and(|p| p.ends_with(".git"))
                || path
                    .parent()
                    .is_some_and(super::foreign_repository::looks_like_git_dir)))
}

/// The `config` file of the repository git finds from `cwd`.
fn repository_config(cwd: &Path) -> Option<PathBuf> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            if meta.is_dir() {
                return Some(dot_git.join("config"));
            }
            // A `.git` file (a worktree or a submodule) names the git directory; a worktree's
            // `commondir` names the repository's.
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            let git_dir = d.join(target);
            let common = std::fs::read_to_string(git_dir.join("commondir"))
                .ok()
                .map(|c| git_dir.join(c.trim()));
            return Some(common.unwrap_or(git_dir).join("config"));
        }
        if super::foreign_repository::looks_like_git_dir(d) {
            return Some(d.join("config"));
        }
        dir = d.parent();
    }
    None
}

/// Whether a configuration file holds a URL with a password or token (`https://user:TOKEN@…`,
/// `https://TOKEN@…` for a known token shape), an extra HTTP header, or a token or password
/// setting (`hub.oauthtoken`, `github.token`, `sendemail.smtpPass`, `imap.pass`) — itself or a
/// file it includes (`[include]`/`[includeIf …]` `path`, as git follows them: actions/checkout
/// keeps its token in an included file), up to [`INCLUDE_DEPTH`] files deep.
pub(super) fn holds_credentials(file: &Path, home: Option<&Path>) -> bool {
    holds_credentials_within(file, home, 0, false)
}

/// How deep includes are followed.
const INCLUDE_DEPTH: usize = 4;

/// (`urls_only`: only a token in a URL counts, what `git remote -v` prints.)
fn holds_credentials_within(
    file: &Path,
    home: Option<&Path>,
    depth: usize,
    urls_only: bool,
) -> bool {
    let Ok(handle) = std::fs::File::open(file) else {
        return false;
    };
    // (Bytes, not text: one byte that is not UTF-8 must not hide the rest. A configuration
    // larger than what is read is not known: it counts as holding one.)
    let mut bytes = Vec::new();
    if handle
        .take(CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return true;
    }
    if bytes.len() as u64 > CONFIG_BYTES {
        return true;
    }
    // (A value continued on the next line with `\` is one value: a URL split across lines.)
    let text = String::from_utf8_lossy(&bytes).replace("\\\n", "");
    let mut in_include = false;
    text.lines().any(|line| {
        // A section header may hold a URL (`[url "https://TOKEN@host/"]`) and be followed by a
        // setting on the same line (`[include] path = x`).
        let line = match line.trim_start().strip_prefix('[') {
            Some(header) => {
                let (section, rest) = header.split_once(']').unwrap_or((header, ""));
                if url_with_secret(section) {
                    return true;
                }
                in_include = section
                    .trim_start()
                    .to_ascii_lowercase()
                    .starts_with("include");
                rest
            }
            None => line,
        };
        let lower = line.to_ascii_lowercase();
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        let key = key.trim().to_ascii_lowercase();
        let value = without_comment(value);
        // A credential helper that is a shell snippet may print the password itself.
        if !urls_only && key == "helper" && value.to_ascii_lowercase().contains("password") {
            return true;
        }
        if in_include && key == "path" && depth < INCLUDE_DEPTH {
            let value = value.trim().trim_matches('"');
            let included = match value.strip_prefix("~/") {
                Some(rest) => home.map(|h| h.join(rest)),
                None => file.parent().map(|dir| dir.join(value)),
            };
            if included.is_some_and(|f| holds_credentials_within(&f, home, depth + 1, urls_only)) {
                return true;
            }
        }
        let setting = lower.contains("extraheader")
            || (line.contains('=')
                && (key.ends_with("token")
                    || key.contains("password")
                    || key.contains("smtppass")
                    || key == "pass"));
        (setting && !urls_only) || url_with_secret(line)
    })
}

/// A configuration value without its trailing `;` or `#` comment (outside double quotes).
fn without_comment(value: &str) -> &str {
    let mut quoted = false;
    for (at, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' | '#' if !quoted => return value.get(..at).unwrap_or(value),
            _ => {}
        }
    }
    value
}

/// Whether `line` holds a URL whose user part carries a password (`user:secret@`) or is itself a
/// token (`ghp_…@`, `glpat-…@`, a long opaque string).
fn url_with_secret(line: &str) -> bool {
    line.match_indices("://").any(|(at, _)| {
        let rest = line.get(at + 3..).unwrap_or_default();
        let authority = rest.split(['/', ' ', '\t', '"']).next().unwrap_or_default();
        let Some((user, _)) = authority.rsplit_once('@') else {
            return false;
        };
        user.contains(':')
            || [
                "ghp_",
                "gho_",
                "ghs_",
                "github_pat_",
                "glpat-",
                "x-access-token",
                "oauth2",
            ]
            .iter()
            .any(|p| user.starts_with(p))
            || (user.len() >= 32
                && user
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_by_abbreviation_and_cluster_but_not_one_key() {
        let print = |text: &str| {
            let parsed = shellgate_parser::parse(text, &shellgate_parser::ParseOptions::default());
            let words = parsed.graph.clauses().next().unwrap().argv.clone();
            prints_configuration(&words)
        };
        assert_eq!(print("git config --li"), Prints::Settings);
        assert_eq!(print("git config -lz"), Prints::Settings);
        assert_eq!(print("git config --get-regex remote"), Prints::Settings);
        assert_eq!(print("git config --get user.name"), Prints::Nothing);
        assert_eq!(print("git remote -v"), Prints::Urls);
        assert_eq!(print("git ls-remote --get-u"), Prints::Urls);
        assert_eq!(print("git status"), Prints::Nothing);
    }

    #[test]
    fn urls_with_passwords_or_tokens_hold_secrets() {
        assert!(url_with_secret(
            "\turl = https://x-access-token:ghp_abc@github.com/o/r.git"
        ));
        assert!(url_with_secret(
            "\turl = https://ghp_abcdefghij@github.com/o/r.git"
        ));
        assert!(!url_with_secret("\turl = git@github.com:o/r.git"));
        assert!(!url_with_secret("\turl = https://github.com/o/r.git"));
        assert!(!url_with_secret("\turl = ssh://git@example.com/o/r.git"));
    }

    #[test]
    fn finds_the_repository_configuration_that_holds_a_token() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("proj");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[remote \"origin\"]\n\turl = https://u:tok@example.com/r.git\n",
        )
        .unwrap();
        assert_eq!(
            configs_with_credentials(&project.join("src"), None, Prints::Settings),
            vec![project.join(".git/config")]
        );
        std::fs::write(
            project.join(".git/config"),
            "[remote \"origin\"]\n\turl = https://example.com/r.git\n",
        )
        .unwrap();
        assert!(configs_with_credentials(&project, None, Prints::Settings).is_empty());
        // A file it includes, relative to it, or one `includeIf` names (actions/checkout).
        std::fs::write(
            project.join(".git/config"),
            "[includeIf \"gitdir:/x/.git\"]\n\tpath = creds.config\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".git/creds.config"),
            "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eC1h\n",
        )
        .unwrap();
        assert_eq!(
            configs_with_credentials(&project, None, Prints::Settings),
            vec![project.join(".git/config")]
        );
        // `git remote -v` prints URLs: an extra header is not among them.
        assert!(configs_with_credentials(&project, None, Prints::Urls).is_empty());
        std::fs::write(
            project.join(".git/creds.config"),
            "[imap]\n\tpass = s3cret\n",
        )
        .unwrap();
        assert!(holds_credentials(&project.join(".git/config"), None));
        std::fs::write(project.join(".git/creds.config"), "[user]\n\tname = me\n").unwrap();
        assert!(!holds_credentials(&project.join(".git/config"), None));
    }

    #[test]
    fn credentials_in_headers_helpers_inline_includes_and_commented_paths() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("config");
        let creds = root.path().join("ci.cfg");
        std::fs::write(
            &creds,
            "[http]\n\textraheader = AUTHORIZATION: basic eC1h\n",
        )
        .unwrap();
        for (text, holds) in [
            (
                "[url \"https://x-access-token:ghs_abc@github.com/\"]\n\tinsteadOf = https://github.com/\n",
                true,
            ),
            (
                "[credential]\n\thelper = \"!f() { echo password=ghp_x; }; f\"\n",
                true,
            ),
            ("[include] path = ci.cfg\n", true),
            ("[include]\n\tpath = ci.cfg ; CI auth\n", true),
            ("[credential]\n\thelper = osxkeychain\n", false),
            (
                "[remote \"o\"]\n\turl = https://x-access-token:\\\nghs_abc@github.com/o/r\n",
                true,
            ),
            (
                "[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n",
                false,
            ),
        ] {
            std::fs::write(&file, text).unwrap();
            assert_eq!(holds_credentials(&file, None), holds, "{text}");
        }
        // A byte that is not UTF-8 hides nothing; a file larger than what is read counts.
        let mut bytes = b"[user]\n\tname = Jos\xe9\n".to_vec();
        bytes.extend_from_slice(b"[remote \"o\"]\n\turl = https://x:ghs_abc@github.com/o/r\n");
        std::fs::write(&file, &bytes).unwrap();
        assert!(holds_credentials(&file, None));
        let padded = format!("[user]\n\tname = me\n#{}\n", "x".repeat(300 * 1024));
        std::fs::write(&file, padded).unwrap();
        assert!(holds_credentials(&file, None));
    }
}
