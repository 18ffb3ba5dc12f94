//! How an approved verb pattern matches a command.
//!
//! A pattern such as `git push origin main *` or `rm /tmp/build/*` is a literal prefix of N
//! tokens followed by one argument glob ([`VerbPattern`]). It matches a command when:
//!
//! 1. **The prefix.** The command's first N cooked words equal the N prefix tokens exactly, and
//!    each of those words is literal (`$X` never equals a token, even one spelled `$X`). The
//!    first token is the executable: a bare name such as `cat` matches the command `cat` and a
//!    path-qualified command whose directory is a trusted bin directory (`/usr/bin/cat`), never
//!    `./cat` or `/tmp/x/cat`. A first token with a `/` (`/home/u/proj/run.sh`) is a path: it is
//!    expanded (`~`, relative to the working directory), normalised, and compared with the
//!    command's executable resolved the same way.
//! 2. **The argument glob**, over the words after the prefix:
//!    - `*` matches any remaining words, including none;
//!    - a **path glob** (a glob with a `/`, or starting with `~`) matches when there is at least
//!      one operand and *every* operand lies inside it. Operands are the remaining words that
//!      are not flags (a flag starts with `-` and comes before `--`; `--` itself is skipped).
//!      Each operand is resolved like any judged path (`~`, `$HOME`, relative to the working
//!      directory, `..` normalised, symbolic links followed when the state resolves them) and
//!      compared component by component with the glob: a final bare `*` (or `**`) matches
//!      anything strictly below its directory at any depth, `**` elsewhere matches any number
//!      of components, and any other component is a glob over that one component. So
//!      `rm /tmp/*` matches `rm -rf /tmp/a/b` but never `rm /tmpevil`, `rm /tmp`,
//!      `rm /tmp/../etc` or `rm /tmp/a /etc/x`;
//!    - any other glob (`v*`, `test-?`) must match *every* remaining word, and there must be at
//!      least one (`git tag v*` matches `git tag v1.2`, not `git tag -d v1`).
//!
//!    - a **stem** (`npm run test* *`): the first remaining word is literal and starts with the
//!      stem (`test`, `test:unit`), and any words follow it.
//!
//!    Globs are in the policy glob dialect (`shellgate_rules::glob`: `*`, `?`, `[…]`, `{a,b}`,
//!    `\` escapes); a word or component is matched as one segment, and a glob that cannot be
//!    compiled (an unclosed `[`) matches nothing.
//! 3. **Embedded code.** For an interpreter call with code the gate cannot read, a pattern only
//!    matches the exact command: the prefix must cover every word, so the glob matches nothing.

use std::path::{Component, Path, PathBuf};

use shellgate_rules::glob::SegmentGlobs;
use shellgate_rules::pattern::PathArg;
use shellgate_rules::{ArgGlob, VerbPattern};

use crate::paths;

/// One word of a command, as matching sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The cooked text.
    pub text: &'a str,
    /// False when the word has an expansion, glob or substitution.
    pub literal: bool,
    /// True when the word starts with an unquoted `~`.
    pub tilde: bool,
}

impl<'a> Token<'a> {
    /// A literal word without a tilde.
    #[must_use]
    pub const fn literal(text: &'a str) -> Self {
        Self {
            text,
            literal: true,
            tilde: false,
        }
    }
}

/// Where a command runs, for resolving paths while matching.
#[derive(Clone, Copy, Debug)]
pub struct MatchContext<'a> {
    /// The clause's working directory, when known.
    pub cwd: Option<&'a Path>,
    /// The home directory, when known.
    pub home: Option<&'a Path>,
    /// Whether symbolic links are followed.
    pub symlinks: bool,
    /// The policy's trusted bin directories.
    pub trusted_bin_dirs: &'a [PathBuf],
}

/// What the executable of a command is, for matching its first word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Executable {
    /// A bare name, or a path in a trusted bin directory reduced to its name.
    Name(String),
    /// A path-qualified executable outside the trusted bin directories, resolved.
    Path(PathBuf),
    /// A path-qualified executable whose location cannot be known statically.
    Unknown,
}

/// Classifies the first word of a command (see the module docs).
#[must_use]
pub fn executable(first: &Token<'_>, ctx: &MatchContext<'_>) -> Executable {
    if !first.literal {
        return Executable::Unknown;
    }
    let path_qualified = first.text.contains('/') || (first.tilde && first.text.starts_with('~'));
    if !path_qualified {
        return Executable::Name(first.text.to_owned());
    }
    let Some(path) = resolve_token(first, ctx) else {
        return Executable::Unknown;
    };
    let trusted = path.parent().is_some_and(|dir| {
        ctx.trusted_bin_dirs
            .iter()
            .any(|bin| paths::normalize(bin).is_some_and(|bin| bin == dir))
    });
    match (trusted, path.file_name().and_then(|name| name.to_str())) {
        (true, Some(name)) => Executable::Name(name.to_owned()),
        _ => Executable::Path(path),
    }
}

/// Resolves a literal (or `$HOME`-only) token as a path.
#[must_use]
pub fn resolve_token(token: &Token<'_>, ctx: &MatchContext<'_>) -> Option<PathBuf> {
    let expanded = if token.literal {
        paths::expand(token.text, token.tilde, ctx.cwd, ctx.home)?
    } else {
        let text = paths::expand_home_variable(token.text, ctx.home)?;
        PathBuf::from(text)
    };
    paths::finish(&expanded, ctx.symlinks)
}

/// Whether `pattern` matches the command `words` (see the module docs). `exact` is set for an
/// interpreter call: the pattern must then cover every word.
#[must_use]
pub fn matches(
    pattern: &VerbPattern,
    words: &[Token<'_>],
    exact: bool,
    ctx: &MatchContext<'_>,
) -> bool {
    let prefix = pattern.prefix();
    let stem = pattern.stem();
    // A stem pattern covers words beyond what it spells: never an exact (interpreter) match.
    if words.len() < prefix.len() || (exact && (stem.is_some() || words.len() != prefix.len())) {
        return false;
    }
    let mut pairs = prefix.iter().zip(words);
    let Some((head, first)) = pairs.next() else {
        return false;
    };
    if !verb_matches(head, first, ctx) {
        return false;
    }
    if !pairs.all(|(token, word)| word.literal && word.text == token.as_str()) {
        return false;
    }
    let rest = words.get(prefix.len()..).unwrap_or_default();
    match stem {
        // `npm run test* *`: one literal word starting with the stem, then any words.
        Some(stem) => rest
            .first()
            .is_some_and(|word| word.literal && word.text.starts_with(stem)),
        None => glob_matches(pattern, rest, ctx),
    }
}

/// Whether the pattern's first token names the command's executable.
fn verb_matches(head: &str, first: &Token<'_>, ctx: &MatchContext<'_>) -> bool {
    match executable(first, ctx) {
        Executable::Name(name) => !head.contains('/') && name == head,
        Executable::Path(path) => {
            head.contains('/')
                && resolve_token(
                    &Token {
                        text: head,
                        literal: true,
                        tilde: head.starts_with('~'),
                    },
                    ctx,
                )
                .is_some_and(|pattern_path| pattern_path == path)
        }
        Executable::Unknown => false,
    }
}

/// Whether the argument glob matches the words after the prefix.
fn glob_matches(pattern: &VerbPattern, rest: &[Token<'_>], ctx: &MatchContext<'_>) -> bool {
    match pattern.arg() {
        ArgGlob::Any => true,
        ArgGlob::Path(arg) => path_glob_matches(arg, rest, ctx),
        ArgGlob::Word(glob) => {
            !rest.is_empty()
                && rest
                    .iter()
                    .all(|word| word.literal && glob.is_match(word.text))
        }
    }
}

/// A path glob: every operand (non-flag word) must lie inside the glob; at least one operand.
fn path_glob_matches(arg: &PathArg, rest: &[Token<'_>], ctx: &MatchContext<'_>) -> bool {
    let (Some(base), Some(below)) = (resolve_dir(arg.dir(), ctx), arg.below()) else {
        return false;
    };
    let mut operands = 0_usize;
    let mut options_done = false;
    for word in rest {
        if !options_done && word.literal {
            if word.text == "--" {
                options_done = true;
                continue;
            }
            if word.text.len() > 1 && word.text.starts_with('-') {
                continue;
            }
        }
        operands += 1;
        let Some(path) = resolve_token(word, ctx) else {
            return false;
        };
        if !below_matches(&base, below, &path) {
            return false;
        }
    }
    operands > 0
}

/// The literal directory of a path glob, resolved like an operand.
fn resolve_dir(literal: &str, ctx: &MatchContext<'_>) -> Option<PathBuf> {
    if literal.starts_with('$') {
        let text = paths::expand_home_variable(literal, ctx.home)?;
        return paths::finish(Path::new(&text), ctx.symlinks);
    }
    let token = Token {
        text: if literal.is_empty() { "." } else { literal },
        literal: true,
        tilde: literal.starts_with('~'),
    };
    resolve_token(&token, ctx)
}

/// Whether an absolute, resolved `path` is below `base` where `below` matches.
fn below_matches(base: &Path, below: &SegmentGlobs, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(base) else {
        return false;
    };
    let names: Vec<&str> = rest
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    names.len() == rest.components().count() && below.matches(&names)
}

/// A compiled path glob: the resolved literal directory and the segment globs below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathGlob {
    /// The literal directory, absolute and resolved.
    base: PathBuf,
    /// The segments from the first glob segment on.
    below: SegmentGlobs,
}

impl PathGlob {
    /// Compiles a path glob: `~` and `$HOME` expanded, relative to the working directory,
    /// literal part normalised (and resolved through links when the context says so). Returns
    /// `None` when the glob cannot be resolved or has `..` after a glob component.
    #[must_use]
    pub fn new(glob: &str, ctx: &MatchContext<'_>) -> Option<Self> {
        let arg = PathArg::new(glob);
        let base = resolve_dir(arg.dir(), ctx)?;
        Some(Self {
            base,
            below: arg.below()?.clone(),
        })
    }

    /// Whether an absolute, resolved path matches.
    #[must_use]
    pub fn matches(&self, path: &Path) -> bool {
        below_matches(&self.base, &self.below, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'a>(bins: &'a [PathBuf]) -> MatchContext<'a> {
        MatchContext {
            cwd: Some(Path::new("/w/proj")),
            home: Some(Path::new("/home/u")),
            symlinks: false,
            trusted_bin_dirs: bins,
        }
    }

    fn words(command: &str) -> Vec<Token<'_>> {
        command
            .split_whitespace()
            .map(|w| Token {
                text: w,
                literal: !w.starts_with('$'),
                tilde: w.starts_with('~'),
            })
            .collect()
    }

    fn check(pattern: &str, command: &str) -> bool {
        let bins = [PathBuf::from("/usr/bin"), PathBuf::from("/bin")];
        let pattern: VerbPattern = pattern.parse().unwrap();
        matches(&pattern, &words(command), false, &ctx(&bins))
    }

    /// Asserts that each pattern matches each command of `[topic] matches` in
    /// `tests/cases/matching.toml`, and none of `[topic] rejects`.
    fn check_topic(topic: &str) {
        let corpus = include_str!("../tests/cases/matching.toml");
        shellgate_testkit::check_verdicts(corpus, topic, check);
    }

    #[test]
    fn a_stem_covers_one_word_starting_with_it_then_anything() {
        check_topic("stem");
        let bins = [PathBuf::from("/usr/bin")];
        let stem: VerbPattern = "python3 scr* *".parse().unwrap();
        assert!(!matches(
            &stem,
            &words("python3 script.py"),
            true,
            &ctx(&bins)
        ));
    }

    #[test]
    fn prefix_and_star() {
        check_topic("prefix");
    }

    #[test]
    fn path_globs_are_boundary_safe() {
        check_topic("path_glob");
    }

    #[test]
    fn word_globs_match_every_remaining_word() {
        check_topic("word_glob");
    }

    #[test]
    fn exact_mode_requires_the_whole_command() {
        let bins: [PathBuf; 0] = [];
        let pattern: VerbPattern = "python3 -c print(1) *".parse().unwrap();
        assert!(matches(
            &pattern,
            &words("python3 -c print(1)"),
            true,
            &ctx(&bins)
        ));
        assert!(!matches(
            &pattern,
            &words("python3 -c print(1) -c evil"),
            true,
            &ctx(&bins)
        ));
        assert!(matches(
            &pattern,
            &words("python3 -c print(1) -c evil"),
            false,
            &ctx(&bins)
        ));
    }

    #[test]
    fn symlinked_operands_are_judged_by_their_target() {
        let (_dir, root) = crate::testing::temp_tree(&["scratch", "precious"]);
        std::os::unix::fs::symlink(root.join("precious"), root.join("scratch/link")).unwrap();
        let bins: [PathBuf; 0] = [];
        let ctx = MatchContext {
            cwd: Some(&root),
            home: None,
            symlinks: true,
            trusted_bin_dirs: &bins,
        };
        let pattern: VerbPattern = format!("rm {}/scratch/*", root.display()).parse().unwrap();
        let inside = format!("{}/scratch/file", root.display());
        let through = format!("{}/scratch/link/file", root.display());
        assert!(matches(
            &pattern,
            &[Token::literal("rm"), Token::literal(&inside)],
            false,
            &ctx
        ));
        assert!(!matches(
            &pattern,
            &[Token::literal("rm"), Token::literal(&through)],
            false,
            &ctx
        ));
    }
}
