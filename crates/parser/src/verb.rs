//! The verb hint: "stop at the first non-verb-like token" (seed 000).
//!
//! The hint is for display, audit grouping and proposals only. Security matching never uses it:
//! a pattern matches when the first N cooked argv tokens equal its N-token prefix.

/// Longest token that can be verb-like.
const MAX_VERB_LEN: usize = 64;

/// Flags that take a value and are transparent to the walk, per root verb.
const FLAGS_WITH_VALUE: &[(&str, &[&str])] = &[
    ("git", &["-C", "-c", "--git-dir", "--work-tree"]),
    ("docker", &["-H", "--host", "--context"]),
    ("kubectl", &["-n", "--namespace", "--context"]),
];

/// Well-known multi-word idioms: the token after the idiom is always part of the verb (when it
/// is not a flag), even if it is not verb-like (`bun run test:unit`).
const IDIOMS: &[&[&str]] = &[&["docker", "compose"], &["bun", "run"]];

/// True when `token` is a bare lowercase identifier: ASCII lowercase letters, digits, `-`, `.`
/// and `_`, starting with a letter, at most 64 bytes. This excludes flags, paths, numbers,
/// URLs, `$` references and anything quoted or globbed.
#[must_use]
pub fn is_verb_like(token: &str) -> bool {
    let mut bytes = token.bytes();
    let Some(first) = bytes.next() else {
        return false;
    };
    token.len() <= MAX_VERB_LEN
        && first.is_ascii_lowercase()
        && bytes.all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_')
        })
}

/// The verb hint of a command's cooked words: the consecutive verb-like tokens from the start,
/// skipping known flag-with-value pairs of the root verb (`git -C /repo worktree list` gives
/// `git worktree list`), stopping at the first other token.
///
/// This is a display hint, not a security contract (see the crate docs).
#[must_use]
pub fn verb_hint<S: AsRef<str>>(words: &[S]) -> Vec<String> {
    let mut verb: Vec<String> = Vec::new();
    let Some(root) = words.first().map(AsRef::as_ref) else {
        return verb;
    };
    let flags: &[&str] = FLAGS_WITH_VALUE
        .iter()
        .find(|(name, _)| *name == root)
        .map_or(&[], |(_, flags)| *flags);
    let idiom = IDIOMS.iter().find(|idiom| {
        idiom.len() <= words.len() && idiom.iter().zip(words).all(|(a, b)| *a == b.as_ref())
    });
    let mut i = 0;
    while let Some(token) = words.get(i).map(AsRef::as_ref) {
        if !verb.is_empty() && flags.contains(&token) {
            // `-C /repo`: the flag and its value are transparent.
            i += 2;
            continue;
        }
        if !verb.is_empty()
            && flags.iter().any(|f| {
                f.starts_with("--") && token.strip_prefix(f).is_some_and(|v| v.starts_with('='))
            })
        {
            // `--git-dir=/x`: flag and value in one token.
            i += 1;
            continue;
        }
        let after_idiom = idiom.is_some_and(|idiom| i == idiom.len());
        if is_verb_like(token) || (after_idiom && !token.is_empty() && !token.starts_with('-')) {
            verb.push(token.to_owned());
            i += 1;
            continue;
        }
        break;
    }
    verb
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(s: &str) -> Vec<String> {
        verb_hint(&s.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn seed_000_cases() {
        assert_eq!(
            hint("freshdesk ticket list --status open"),
            ["freshdesk", "ticket", "list"]
        );
        assert_eq!(
            hint("git -C /repo worktree list --porcelain"),
            ["git", "worktree", "list"]
        );
        assert_eq!(hint("kubectl get pods"), ["kubectl", "get", "pods"]);
        assert_eq!(
            hint("kubectl get pods my-pod"),
            ["kubectl", "get", "pods", "my-pod"]
        );
        assert_eq!(hint("aws s3 cp src dst"), ["aws", "s3", "cp", "src", "dst"]);
        assert_eq!(
            hint("git push origin main"),
            ["git", "push", "origin", "main"]
        );
        assert_eq!(hint("cat /etc/passwd"), ["cat"]);
        assert_eq!(hint("chmod 755 file"), ["chmod"]);
        assert_eq!(hint("echo --version"), ["echo"]);
        assert_eq!(hint("ls -la /tmp"), ["ls"]);
    }

    #[test]
    fn flags_idioms_and_non_verbs() {
        assert_eq!(
            hint("kubectl -n kube-system get pods -o wide"),
            ["kubectl", "get", "pods"]
        );
        assert_eq!(hint("git --git-dir=/x status"), ["git", "status"]);
        assert_eq!(hint("docker -H tcp://h ps"), ["docker", "ps"]);
        assert_eq!(
            hint("bun run test:unit --watch"),
            ["bun", "run", "test:unit"]
        );
        assert_eq!(hint("docker compose up -d"), ["docker", "compose", "up"]);
        assert_eq!(hint("/usr/bin/git status"), Vec::<String>::new());
        assert_eq!(hint("Rscript x.r"), Vec::<String>::new());
        assert_eq!(hint("ls -C /x y"), ["ls"]);
        assert!(is_verb_like("python3.12"));
        assert!(!is_verb_like("$HOME"));
        assert!(!is_verb_like("https://x"));
        assert!(!is_verb_like("1.5"));
        assert!(!is_verb_like(&"a".repeat(65)));
        assert!(verb_hint::<&str>(&[]).is_empty());
    }
}
