//! Protected files inside a directory a command reads recursively, found on the file system:
//! `grep -r KEY .` prints a project's `.env` as `cat .env` would.

use std::path::{Path, PathBuf};

use shellgate_rules::{Access, Decision, IncludeFilter};

use super::repository_secrets::{holds_credentials, is_git_config};
use super::run::Run;

/// How many directory entries a walk reads before it gives up.
const WALK_ENTRIES: usize = 20_000;

/// The directories below a `.git` directory that hold no configuration (objects, refs, logs).
const GIT_DATA: [&str; 7] = [
    "objects", "refs", "logs", "lfs", "hooks", "info", "rr-cache",
];

/// What a walk found.
pub(super) enum Inside {
    /// Nothing protected for reading.
    Nothing,
    /// A file protected for reading (the entry's id and why), or a git configuration holding a
    /// credential.
    Protected {
        path: PathBuf,
        id: String,
        why: String,
    },
    /// More than [`WALK_ENTRIES`] entries: not known.
    TooLarge,
}

impl Run<'_> {
    /// Walks `dir` for a file a recursive read reaches that is protected for reading, or a git
    /// configuration holding a credential (`.git/config`, `.git/modules/NAME/config`, a bare
    /// repository's `config`). Links are followed, as `grep -R`, `rg -L` and `tar -h` follow
    /// them (a link's target is judged, a linked directory walked). Hidden entries are skipped
    /// unless `hidden`; committed templates (`templates` of `[[protected]]`: `.env.example`)
    /// reach no secret; the project's disposable outputs (`settings.disposable`), virtual
    /// environments (`pyvenv.cfg` beside `bin/python` or `Scripts/python.exe`) and git's object
    /// store are not entered.
    ///
    /// With `only`, files whose names it does not admit are not read (`rg -g '*.ts'`), unless
    /// a directory above them, below `dir`, has a name it admits (`rg -g web`: conservatively,
    /// as if a directory's match let in all of it).
    pub(super) fn protected_inside(
        &self,
        dir: &Path,
        hidden: bool,
        only: Option<&IncludeFilter>,
    ) -> Inside {
        let policy = self.policy();
        let home = self.state.home();
        let disposable = &policy.settings().disposable;
        let mut stack: Vec<(PathBuf, bool, bool)> = vec![(dir.to_path_buf(), false, false)];
        let mut seen = 0usize;
        while let Some((current, in_git, admitted)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&current) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > WALK_ENTRIES {
                    return Inside::TooLarge;
                }
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if !hidden && name.starts_with('.') {
                    continue;
                }
                let link = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                // A link stands for its target: judged where it leads, walked when a directory
                // (whatever its name: `node_modules -> ../.ssh` is not the project's output).
                let link_entry = kind.is_symlink();
                let (path, kind) = if link_entry {
                    let (Ok(target), Ok(meta)) =
                        (std::fs::canonicalize(&link), std::fs::metadata(&link))
                    else {
                        continue;
                    };
                    (target, meta.file_type())
                } else {
                    (link, kind)
                };
                if kind.is_dir() {
                    let skip = !link_entry
                        && (disposable.iter().any(|d| *d == name)
                            || (in_git && GIT_DATA.contains(&name.as_ref()))
                            || virtual_environment(&path));
                    if !skip {
                        let admitted = admitted || only.is_some_and(|filter| filter.admits(&name));
                        stack.push((path, in_git || name == ".git", admitted));
                    }
                    continue;
                }
                if policy.protected_template(&path, home)
                    || only.is_some_and(|filter| !admitted && !filter.admits(&name))
                {
                    continue;
                }
                if let Some(entry) = self
                    .protected_entry(&path, Access::Read)
                    .filter(|e| e.read != Decision::Approved)
                {
                    return Inside::Protected {
                        path,
                        id: entry.id.clone(),
                        why: entry.why.clone(),
                    };
                }
                let git_config = is_git_config(&path) || (in_git && name == "config");
                if kind.is_file() && git_config && holds_credentials(&path, home) {
                    return Inside::Protected {
                        path,
                        id: "git-credentials".to_owned(),
                        why: "a git configuration that holds a credential (a token in a remote's URL, an extra HTTP header)".to_owned(),
                    };
                }
            }
        }
        Inside::Nothing
    }
}

/// Whether `dir` is a Python virtual environment: a `pyvenv.cfg` beside its interpreter.
fn virtual_environment(dir: &Path) -> bool {
    dir.join("pyvenv.cfg").is_file()
        && (dir.join("bin/python").exists() || dir.join("Scripts/python.exe").exists())
}
