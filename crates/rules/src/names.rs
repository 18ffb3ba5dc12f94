//! Command names as a case-insensitive file system or Windows resolves them.

/// The suffixes Windows runs a program by (`git.exe`, `npm.cmd`).
const WINDOWS_SUFFIXES: [&str; 4] = [".exe", ".cmd", ".bat", ".com"];

/// The program a command name spelled with capitals or a Windows suffix may name on a
/// case-insensitive file system or Windows (`GIT` → `git`, `Bash.exe` → `bash`, `curl.cmd` →
/// `curl`); `None` when the name is already plain (or is only a suffix).
///
/// Matching the folded name only ever judges more: a deny rule meets `RM -rf ~`, a grant for
/// `Make *` is as narrow as one for `make`, and the walk judges `Bash.exe -c …` as the shell it
/// may be as well as the unknown program it is.
#[must_use]
pub fn folded_name(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let stem = WINDOWS_SUFFIXES
        .iter()
        .find_map(|suffix| lower.strip_suffix(suffix))
        .unwrap_or(&lower);
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
    }
}
