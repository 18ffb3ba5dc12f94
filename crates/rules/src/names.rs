//! Command names as a case-insensitive file system or Windows resolves them.

/// The suffixes Windows runs a program by (`git.exe`, `npm.cmd`).
const WINDOWS_SUFFIXES: [&str; 4] = [".exe", ".cmd", ".bat", ".com"];

/// The program a command name spelled with capitals, a Windows suffix or the trailing dots and
/// blanks Windows drops may name on a case-insensitive file system or Windows (`GIT` → `git`,
/// `Bash.exe` → `bash`, `curl.cmd` → `curl`, `bash.` → `bash`); `None` when the name is
/// already plain (or is only a suffix).
///
/// Matching the folded name only ever judges more: a deny rule meets `RM -rf ~`, a grant for
/// `Make *` is as narrow as one for `make`, and the walk judges `Bash.exe -c …` as the shell it
/// may be as well as the unknown program it is.
#[must_use]
pub fn folded_name(name: &str) -> Option<String> {
    let dropped = |s: &str| s.trim_end_matches(['.', ' ']).len();
    let lower = name.to_ascii_lowercase();
    let lower = lower.get(..dropped(&lower)).unwrap_or_default();
    let stem = WINDOWS_SUFFIXES
        .iter()
        .find_map(|suffix| lower.strip_suffix(suffix))
        .unwrap_or(lower);
    let stem = stem.get(..dropped(stem)).unwrap_or_default();
    (stem != name && !stem.is_empty()).then(|| stem.to_owned())
}

#[cfg(test)]
mod tests {
    use super::folded_name;

    #[test]
    fn folds_capitals_and_windows_suffixes_only() {
        assert_eq!(folded_name("GIT").as_deref(), Some("git"));
        assert_eq!(folded_name("Bash.exe").as_deref(), Some("bash"));
        assert_eq!(folded_name("curl.CMD").as_deref(), Some("curl"));
        assert_eq!(folded_name("make.bat").as_deref(), Some("make"));
        assert_eq!(folded_name("git"), None);
        assert_eq!(folded_name("python3.11"), None);
        assert_eq!(folded_name(".exe"), None);
        assert_eq!(folded_name(".EXE").as_deref(), None);
        assert_eq!(folded_name("bash.").as_deref(), Some("bash"));
        assert_eq!(folded_name("rm. .").as_deref(), Some("rm"));
        assert_eq!(folded_name("Bash.exe.").as_deref(), Some("bash"));
        assert_eq!(folded_name("..."), None);
        assert_eq!(folded_name("."), None);
    }
}
