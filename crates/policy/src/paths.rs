//! Path resolution and zone membership.
//!
//! Every path the gate judges goes through the same steps:
//!
//! 1. **Expansion.** A leading unquoted `~` or `~/` becomes the home directory and `~+` the
//!    working directory (`~user` and `~-` are unknown, so the path is dynamic). A word whose only
//!    expansion is a leading `$HOME` or `${HOME}` is expanded the same way. A relative path is
//!    joined to the clause's working directory; when that is unknown the path is dynamic.
//! 2. **Normalisation.** With symbolic-link resolution off, `.` segments and repeated `/` are
//!    dropped and `..` removes the previous segment (lexically; `/..` stays `/`). With it on, the
//!    path is walked component by component the way the kernel does: every symbolic link met on
//!    the way is replaced by its target (so `..` after a link goes to the target's parent), and
//!    components past the first one that does not exist are added lexically.
//! 3. **Membership.** A path is inside a zone when the zone's components are a prefix of the
//!    path's components ([`Path::starts_with`]): `/tmpevil` is not inside `/tmp`, and
//!    `/tmp/../etc` is `/etc`.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use shellgate_parser::path::{self as lexical, HomePrefix, Tilde};

/// How many symbolic links one resolution may follow (Linux's `MAXSYMLINKS`).
const MAX_SYMLINKS: usize = 40;

/// Lexically normalises an absolute path.
///
/// Drops `.` segments and repeated separators and resolves `..` against the previous segment;
/// `..` at the root stays at the root. Returns `None` for a relative path.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use shellgate_policy::paths::normalize;
///
/// assert_eq!(normalize(Path::new("/tmp/../etc//x/.")), Some(PathBuf::from("/etc/x")));
/// assert_eq!(normalize(Path::new("/../..")), Some(PathBuf::from("/")));
/// assert_eq!(normalize(Path::new("relative")), None);
/// ```
#[must_use]
pub fn normalize(path: &Path) -> Option<PathBuf> {
    // A Windows prefix never occurs in an absolute Unix path.
    let prefixed = matches!(path.components().next(), Some(Component::Prefix(_)));
    (path.is_absolute() && !prefixed).then(|| lexical::normalize_path(path))
}

/// Resolves an absolute path against the file system, following symbolic links.
///
/// Walks the components in order; a component that is a symbolic link is replaced by the
/// link's target (an absolute target restarts from `/`), so `..` after a link goes to the
/// target's parent as it does in the kernel. Once a component does not exist, the rest is
/// added lexically. Returns `None` for a relative path, when links loop (more than 40), or when
/// a link cannot be read.
#[must_use]
pub fn resolve_symlinks(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut queue: VecDeque<OsString> = VecDeque::new();
    push_components(&mut queue, path, false)?;
    let mut out = PathBuf::from("/");
    let mut followed = 0_usize;
    let mut exists = true;
    while let Some(segment) = queue.pop_front() {
        if segment == ".." {
            out.pop();
            continue;
        }
        out.push(&segment);
        if !exists {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // A process's magic links (`/proc/self`, `/dev/fd`, `/dev/stdout`) lead into
                // the gate's own process, not the command's: a descriptor's name is returned
                // as it is (the caller judges what the command binds to it), and any other
                // path through them is not known.
                if out.starts_with("/proc")
                    || out.starts_with("/dev/fd")
                    || descriptor(&out).is_some()
                {
                    out.extend(queue);
                    return descriptor(&out).is_some().then_some(out);
                }
                followed += 1;
                if followed > MAX_SYMLINKS {
                    return None;
                }
                let target = std::fs::read_link(&out).ok()?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut queue, &target, true)?;
            }
            Ok(_) => {}
            Err(_) => exists = false,
        }
    }
    Some(out)
}

/// Adds the normal and `..` components of `path` to `queue`, at the front when `front`.
fn push_components(queue: &mut VecDeque<OsString>, path: &Path, front: bool) -> Option<()> {
    let mut segments = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir => segments.push(OsString::from("..")),
            Component::Normal(segment) => segments.push(segment.to_os_string()),
            Component::Prefix(_) => return None,
        }
    }
    if front {
        for segment in segments.into_iter().rev() {
            queue.push_front(segment);
        }
    } else {
        queue.extend(segments);
    }
    Some(())
}

/// Turns an absolute (not yet normalised) path into the path the gate judges: resolved through
/// symbolic links when `symlinks`, else lexically normalised.
#[must_use]
pub fn finish(path: &Path, symlinks: bool) -> Option<PathBuf> {
    if symlinks {
        resolve_symlinks(path)
    } else {
        normalize(path)
    }
}

/// Expands the cooked text of a path operand into an absolute, not yet normalised path.
///
/// `tilde` says whether the word began with an unquoted `~` (only then is `~` expanded, as in
/// bash). Returns `None` when the path depends on something unknown: `~user`, `~-`, a missing
/// home directory, or a relative path with no known working directory.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use shellgate_policy::paths::expand;
///
/// let cwd = Some(Path::new("/w"));
/// let home = Some(Path::new("/home/u"));
/// assert_eq!(expand("~/x", true, cwd, home), Some(PathBuf::from("/home/u/x")));
/// assert_eq!(expand("~/x", false, cwd, home), Some(PathBuf::from("/w/~/x")));
/// assert_eq!(expand("a/b", false, cwd, home), Some(PathBuf::from("/w/a/b")));
/// assert_eq!(expand("~root", true, cwd, home), None);
/// assert_eq!(expand("C:/Users/me/.bashrc", false, cwd, home), None);
/// ```
#[must_use]
pub fn expand(text: &str, tilde: bool, cwd: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(prefix) = lexical::tilde(text).filter(|_| tilde) {
        let (base, rest) = match prefix {
            Tilde::Home(rest) => (home?, rest),
            Tilde::WorkingDir(rest) => (cwd?, rest),
            // `~user` needs the password database and `~-` the previous directory: unknown.
            Tilde::Unknown => return None,
        };
        if !base.is_absolute() || up_after_name(rest) {
            return None;
        }
        return Some(if rest.is_empty() {
            base.to_path_buf()
        } else {
            base.join(rest)
        });
    }
    // A Windows drive or UNC path (Git Bash): never a path below the working directory. A
    // backslash is a directory separator where Git Bash runs (Windows: `..\x` is `../x`), a
    // character of one name here (`up\x/.bashrc` goes through a directory named `up\x`).
    let windows = cfg!(windows)
        .then(|| shellgate_parser::path::windows_separators(text))
        .flatten();
    let text = windows.as_deref().unwrap_or(text);
    if text.is_empty() || shellgate_parser::path::is_foreign_absolute(text) || up_after_name(text) {
        return None;
    }
    let path = Path::new(text);
    if path.is_absolute() {
        process_link(path, cwd)
    } else {
        let cwd = cwd?;
        if cwd.is_absolute() {
            Some(cwd.join(path))
        } else {
            None
        }
    }
}

/// Whether a `..` segment of `text` follows a named one (`l/../x`, `/proc/self/cwd/..`). The
/// kernel goes up from where the name *leads*: a symbolic link (one the same command makes,
/// such as `ln -s /tmp l`, or a magic link of `/proc`) goes up from its target, so folding
/// `l/..` away lexically could name the wrong file. Leading `..` segments go up from the
/// working directory, which is known.
pub(crate) fn up_after_name(text: &str) -> bool {
    let mut named = false;
    for segment in text.split('/') {
        match segment {
            "" | "." => {}
            ".." if named => return true,
            ".." => {}
            _ => named = true,
        }
    }
    false
}

/// An absolute path through a process's magic links (`/proc/self/root/…`, `/proc/self/cwd/…`,
/// also below `task/TID/`), as the path they stand for in the process that runs the command:
/// `root` is `/` and `cwd` is its working directory; another process's (`/proc/1/cwd`) are
/// unknown. Any other path is returned as it is (`/proc/self/fd/1`, `/proc/1/environ`).
fn process_link(path: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let mut parts = path.components().skip(1).map(|c| c.as_os_str().to_str());
    let top = parts.next();
    // A descriptor opened on a directory (`3<~`) is that directory: a path below `/dev/fd/3`
    // (or `/dev/stdin`) names a file in it, unknown here.
    if top == Some(Some("dev")) {
        let below_descriptor = match parts.next() {
            Some(Some("fd")) => parts.nth(1).is_some(),
            Some(Some("stdin" | "stdout" | "stderr")) => parts.next().is_some(),
            _ => false,
        };
        return (!below_descriptor).then(|| path.to_path_buf());
    }
    if top != Some(Some("proc")) {
        return Some(path.to_path_buf());
    }
    let Some(Some(process)) = parts.next() else {
        return Some(path.to_path_buf());
    };
    let own = matches!(process, "self" | "thread-self");
    if !own && !process.bytes().all(|b| b.is_ascii_digit()) {
        return Some(path.to_path_buf());
    }
    let mut link = parts.next().flatten();
    if link == Some("task") {
        let _thread = parts.next();
        link = parts.next().flatten();
    }
    let base = match link {
        Some("root") if own => PathBuf::from("/"),
        Some("cwd") if own => cwd.filter(|c| c.is_absolute())?.to_path_buf(),
        Some("root" | "cwd") => return None,
        // `fd/N/…`: below a descriptor opened on a directory.
        Some("fd") if parts.nth(1).is_some() => return None,
        _ => return Some(path.to_path_buf()),
    };
    parts.try_fold(base, |acc, part| part.map(|part| acc.join(part)))
}

/// The directory a working-directory option names (`env -C DIR`, `git -C DIR`, `tmux -c DIR`),
/// joined to `cwd`; `None` when it is not known statically. `chdir` goes up from where a link
/// leads: a `..` after a named segment (`link/..`, `/var/run/..`) is not known, and a leading
/// `..` is resolved through the links on disk (`cd link && env -C .. …`).
#[must_use]
pub fn working_directory(
    value: &shellgate_parser::Word,
    cwd: Option<&Path>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    // (`{}` is a finder's placeholder: `find ~/src -exec git -C {} status \;` runs in each
    // directory found.)
    if !value.literal || up_after_name(&value.cooked) || value.cooked.contains("{}") {
        return None;
    }
    let resolved = shellgate_parser::path::forms(&value.cooked, cwd, home).resolved;
    if !resolved.starts_with('/') {
        return None;
    }
    let up = value.cooked.split('/').any(|segment| segment == "..");
    match (up, cwd) {
        (true, Some(cwd)) => resolve_symlinks(&cwd.join(&value.cooked)),
        _ => Some(PathBuf::from(resolved)),
    }
}

/// Expands a leading `$HOME` or `${HOME}` when it is the only expansion of a word.
///
/// `cooked` is the word's cooked text (expansions kept as source text). Returns the text with
/// the home directory substituted, or `None` when the word has another expansion, a different
/// variable (`$HOMEDIR`), or the home directory is unknown.
#[must_use]
pub fn expand_home_variable(cooked: &str, home: Option<&Path>) -> Option<String> {
    let Some((HomePrefix::Variable, after)) = lexical::home_prefix(cooked) else {
        return None;
    };
    // Any other `$` or backquote may be another expansion: refuse rather than guess.
    if after.contains(['$', '`']) || up_after_name(after) {
        return None;
    }
    let home = home?.to_str()?;
    if !Path::new(home).is_absolute() {
        return None;
    }
    let mut text = String::with_capacity(home.len() + after.len());
    text.push_str(home);
    text.push_str(after);
    Some(text)
}

/// Whether `path` is `dir` or below it, comparing whole components.
///
/// ```
/// use std::path::Path;
/// use shellgate_policy::paths::is_within;
///
/// assert!(is_within(Path::new("/tmp/a"), Path::new("/tmp")));
/// assert!(is_within(Path::new("/tmp"), Path::new("/tmp")));
/// assert!(!is_within(Path::new("/tmpevil"), Path::new("/tmp")));
/// ```
#[must_use]
pub fn is_within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// The device files that are never judged as paths: writing to them writes nowhere, or where
/// the command's own output goes.
pub const WRITE_EXEMPT: [&str; 3] = ["/dev/null", "/dev/stdout", "/dev/stderr"];

/// The descriptor an absolute path names in the process that opens it: `/dev/stdin` (0),
/// `/dev/stdout` (1), `/dev/stderr` (2), `/dev/fd/N`, and `/proc/self/fd/N` (also through
/// `thread-self` and `task/TID`). `None` for any other path, and for a path below one.
///
/// ```
/// use std::path::Path;
/// use shellgate_policy::paths::descriptor;
///
/// assert_eq!(descriptor(Path::new("/dev/stdout")), Some(1));
/// assert_eq!(descriptor(Path::new("/proc/self/task/7/fd/3")), Some(3));
/// assert_eq!(descriptor(Path::new("/dev/fd/3/x")), None);
/// assert_eq!(descriptor(Path::new("/proc/1/fd/3")), None);
/// ```
#[must_use]
pub fn descriptor(path: &Path) -> Option<u32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let number = |n: &str| {
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .then(|| n.parse().ok())
            .flatten()
    };
    if let Some(n) = text.strip_prefix("/dev/fd/") {
        return number(n);
    }
    let rest = text
        .strip_prefix("/proc/self/")
        .or_else(|| text.strip_prefix("/proc/thread-self/"))?;
    let rest = match rest.strip_prefix("task/") {
        Some(task) => task.split_once('/')?.1,
        None => rest,
    };
    number(rest.strip_prefix("fd/")?)
}

/// The device files that are never judged as paths when read.
pub const READ_EXEMPT: [&str; 2] = ["/dev/null", "/dev/stdin"];

/// The parts of a glob path: the literal directory before the first glob component, and
/// whether the glob is safe to judge by that directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobSplit<'a> {
    /// The text before the first component with a glob character (may be empty: the cwd).
    pub prefix: &'a str,
    /// The components from the first glob component on.
    pub rest: Vec<&'a str>,
}

/// Splits a glob path into its literal directory and the glob components.
///
/// Returns `None` when the glob could reach outside its literal directory: a glob component
/// that could match `.` or `..` (one that starts with `.` or `[`, or uses an extglob `(…)`), or
/// a `..` component after the first glob component.
///
/// ```
/// use shellgate_policy::paths::split_glob;
///
/// let split = split_glob("src/*/main.rs").unwrap();
/// assert_eq!(split.prefix, "src");
/// assert_eq!(split.rest, ["*", "main.rs"]);
/// assert!(split_glob("src/.*").is_none());
/// assert!(split_glob("src/*/../../etc").is_none());
/// ```
#[must_use]
pub fn split_glob(text: &str) -> Option<GlobSplit<'_>> {
    let mut offset = 0_usize;
    let mut first_glob = None;
    for (index, component) in text.split('/').enumerate() {
        if component.contains(['*', '?', '[']) || component.contains('(') {
            first_glob = Some((index, offset));
            break;
        }
        offset += component.len() + 1;
    }
    let (glob_index, glob_offset) = first_glob?;
    let prefix = match glob_index {
        0 => "",
        // `/*`: the literal directory is the root itself.
        1 if text.starts_with('/') => "/",
        _ => text.get(..glob_offset.saturating_sub(1))?,
    };
    let rest: Vec<&str> = text.get(glob_offset..)?.split('/').collect();
    let mut seen_glob = false;
    for component in &rest {
        let is_glob = component.contains(['*', '?', '[']) || component.contains('(');
        if is_glob {
            seen_glob = true;
            if component.starts_with(['.', '[']) || component.contains('(') {
                return None;
            }
        } else if seen_glob && *component == ".." {
            return None;
        }
    }
    Some(GlobSplit { prefix, rest })
}

/// Matches one path component against a glob of a *command* the way bash's pathname
/// expansion does: `*` (any run of characters), `?` (one character) and `[…]` (a set, with
/// ranges and `!`/`^` negation; an unclosed `[` is literal). This is the shell's dialect, used
/// to expand a command's own globs against the file system; policy files and grants use the
/// policy glob dialect (`shellgate_rules::glob`).
///
/// When `leading_dot` is true, a leading `.` in `name` must be matched by a literal `.`, as in
/// bash without `dotglob`.
///
/// ```
/// use shellgate_policy::paths::fnmatch;
///
/// assert!(fnmatch("*.rs", "main.rs", true));
/// assert!(!fnmatch("*.rs", ".hidden.rs", true));
/// assert!(fnmatch("v[0-9]*", "v1.2", false));
/// assert!(!fnmatch("a?c", "ac", false));
/// ```
#[must_use]
pub fn fnmatch(pattern: &str, name: &str, leading_dot: bool) -> bool {
    if leading_dot && name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    match_from(&pattern, &name)
}

/// Iterative glob matching with single-star backtracking.
fn match_from(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0_usize, 0_usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let Some(&c) = name.get(n) else { return false };
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some('?') => {
                p += 1;
                n += 1;
                continue;
            }
            Some('[') => {
                if let Some((matched, len)) = match_class(pattern.get(p..).unwrap_or_default(), c) {
                    if matched {
                        p += len;
                        n += 1;
                        continue;
                    }
                } else if c == '[' {
                    // An unterminated `[` is a literal bracket.
                    p += 1;
                    n += 1;
                    continue;
                }
            }
            Some(&literal) if literal == c => {
                p += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((star_p, star_n)) => {
                p = star_p + 1;
                n = star_n + 1;
                star = Some((star_p, star_n + 1));
            }
            None => return false,
        }
    }
    pattern
        .get(p..)
        .unwrap_or_default()
        .iter()
        .all(|&c| c == '*')
}

/// Matches `c` against the bracket expression at the start of `pattern` (which starts with
/// `[`). Returns whether it matched and the expression's length, or `None` when unterminated.
fn match_class(pattern: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1_usize;
    let negate = matches!(pattern.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &current = pattern.get(i)?;
        if current == ']' && !first {
            break;
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|&end| end != ']') {
            let &end = pattern.get(i + 2)?;
            if current <= c && c <= end {
                matched = true;
            }
            i += 3;
        } else {
            if current == c {
                matched = true;
            }
            i += 1;
        }
    }
    Some((matched != negate, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> PathBuf {
        PathBuf::from(text)
    }

    #[test]
    fn lexical_normalisation() {
        let cases = [
            ("/", "/"),
            ("/tmp", "/tmp"),
            ("/tmp/", "/tmp"),
            ("//tmp///a//", "/tmp/a"),
            ("/tmp/./a/.", "/tmp/a"),
            ("/tmp/../etc", "/etc"),
            ("/tmp/a/../../../etc/passwd", "/etc/passwd"),
            ("/..", "/"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize(Path::new(input)), Some(p(expected)), "{input}");
        }
        assert_eq!(normalize(Path::new("a/b")), None);
    }

    #[test]
    fn expansion_of_tilde_and_relative_paths() {
        let cwd = Some(Path::new("/w/proj"));
        let home = Some(Path::new("/home/u"));
        let cases: [(&str, bool, Option<&str>); 12] = [
            ("~", true, Some("/home/u")),
            ("~/", true, Some("/home/u")),
            ("~/.ssh/id", true, Some("/home/u/.ssh/id")),
            ("~+/x", true, Some("/w/proj/x")),
            ("~-", true, None),
            ("~root/x", true, None),
            ("~/x", false, Some("/w/proj/~/x")),
            ("x", false, Some("/w/proj/x")),
            ("../x", false, Some("/w/proj/../x")),
            ("/abs", false, Some("/abs")),
            ("", false, None),
            // Regression: `~//x` was joined as the absolute `/x`.
            ("~//etc/x", true, Some("/home/u/etc/x")),
        ];
        for (text, tilde, expected) in cases {
            assert_eq!(expand(text, tilde, cwd, home), expected.map(p), "{text}");
        }
        // `..` after a name goes up from wherever the name leads (a link): not known.
        for text in ["a/../x", "/tmp/l/../etc", "./a/./../b", "../a/../b"] {
            assert_eq!(expand(text, false, cwd, home), None, "{text}");
        }
        assert_eq!(expand("~/l/../.bashrc", true, cwd, home), None);
        assert_eq!(expand_home_variable("$HOME/l/../.bashrc", home), None);
        assert_eq!(
            expand("../../x", false, cwd, home),
            Some(p("/w/proj/../../x"))
        );
        assert_eq!(expand("x", false, None, home), None);
        assert_eq!(expand("~/x", true, cwd, None), None);
        assert_eq!(expand("x", false, Some(Path::new("rel")), home), None);
    }

    #[test]
    fn process_links_stand_for_the_running_process() {
        let cwd = Some(Path::new("/w/proj"));
        let home = Some(Path::new("/home/u"));
        let cases: [(&str, Option<&str>); 14] = [
            ("/proc/self/root/home/u/.aws/x", Some("/home/u/.aws/x")),
            ("/proc/thread-self/root", Some("/")),
            ("/proc/self/cwd/src/a.rs", Some("/w/proj/src/a.rs")),
            ("/proc/self/task/7/cwd/x", Some("/w/proj/x")),
            ("/proc/1/cwd/.env", None),
            ("/proc/42/task/1/root/etc", None),
            ("/proc/self/environ", Some("/proc/self/environ")),
            ("/proc/self/fd/1", Some("/proc/self/fd/1")),
            ("/proc/cpuinfo", Some("/proc/cpuinfo")),
            ("/proc/self/fd/3/.aws/credentials", None),
            ("/dev/fd/3/.aws/credentials", None),
            ("/dev/stdin/.netrc", None),
            ("/dev/fd/1", Some("/dev/fd/1")),
            ("/dev/stdin", Some("/dev/stdin")),
        ];
        for (text, expected) in cases {
            assert_eq!(expand(text, false, cwd, home), expected.map(p), "{text}");
        }
        assert_eq!(expand("/proc/self/cwd/x", false, None, home), None);
    }

    #[test]
    fn home_variable_expansion() {
        let home = Some(Path::new("/home/u"));
        assert_eq!(
            expand_home_variable("$HOME", home).as_deref(),
            Some("/home/u")
        );
        assert_eq!(
            expand_home_variable("$HOME/a", home).as_deref(),
            Some("/home/u/a")
        );
        assert_eq!(
            expand_home_variable("${HOME}/a", home).as_deref(),
            Some("/home/u/a")
        );
        assert_eq!(expand_home_variable("$HOMEDIR/a", home), None);
        assert_eq!(expand_home_variable("$HOME/$X", home), None);
        assert_eq!(expand_home_variable("$HOME/`id`", home), None);
        assert_eq!(expand_home_variable("$X/a", home), None);
        assert_eq!(expand_home_variable("$HOME/a", None), None);
    }

    #[test]
    fn membership_is_by_components() {
        assert!(is_within(Path::new("/tmp/x/y"), Path::new("/tmp")));
        assert!(!is_within(Path::new("/tmpevil/x"), Path::new("/tmp")));
        assert!(!is_within(Path::new("/tm"), Path::new("/tmp")));
        assert!(is_within(Path::new("/anything"), Path::new("/")));
    }

    #[test]
    fn globs_split_at_the_first_glob_component() {
        let split = split_glob("/tmp/*").unwrap();
        assert_eq!((split.prefix, split.rest), ("/tmp", vec!["*"]));
        let split = split_glob("*.rs").unwrap();
        assert_eq!((split.prefix, split.rest), ("", vec!["*.rs"]));
        let split = split_glob("/*").unwrap();
        assert_eq!((split.prefix, split.rest), ("/", vec!["*"]));
        let split = split_glob("a/b/c?/d").unwrap();
        assert_eq!((split.prefix, split.rest), ("a/b", vec!["c?", "d"]));
        assert!(split_glob("plain/path").is_none());
        assert!(split_glob("a/.?").is_none());
        assert!(split_glob("a/[.]x").is_none());
        assert!(split_glob("a/@(x|..)").is_none());
        assert!(split_glob("a/*/..").is_none());
    }

    #[test]
    fn component_globs() {
        let corpus = include_str!("../tests/cases/paths.toml");
        shellgate_testkit::check_verdicts(corpus, "fnmatch", |pattern, name| {
            fnmatch(pattern, name, true)
        });
    }

    #[test]
    fn symlinks_are_followed_to_their_targets() {
        let (_dir, root) = crate::testing::temp_tree(&["zone/sub", "outside"]);
        std::os::unix::fs::symlink(root.join("outside"), root.join("zone/link")).unwrap();
        std::os::unix::fs::symlink("../outside", root.join("zone/rel")).unwrap();
        std::os::unix::fs::symlink("loop2", root.join("zone/loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", root.join("zone/loop2")).unwrap();
        let r = |s: &str| resolve_symlinks(&root.join(s));
        assert_eq!(r("zone/link/f"), Some(root.join("outside/f")));
        assert_eq!(r("zone/rel/f"), Some(root.join("outside/f")));
        assert_eq!(r("zone/link/../x"), Some(root.join("x")));
        assert_eq!(r("zone/sub/../new/x"), Some(root.join("zone/new/x")));
        assert_eq!(r("zone/missing/../../etc"), Some(root.join("etc")));
        assert_eq!(r("zone/loop1"), None);
        assert_eq!(resolve_symlinks(Path::new("rel")), None);
    }
}
