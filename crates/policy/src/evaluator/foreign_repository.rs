//! Which repository a repository program (`git`) works in, and whether its configuration is
//! someone else's: a directory outside the project, a directory the gate cannot know, or a
//! bare-repository-shaped directory committed inside the project (`fx/evil.git` with `HEAD`,
//! `objects/`, `refs/` and a `config` naming `core.fsmonitor`), which git finds before the
//! project's own `.git` when it works there.

use std::path::{Path, PathBuf};

use crate::paths;

/// The directory git would take for a bare repository when it works in `cwd`, a directory at
/// or below `project`: searching upward as git does, the first directory that holds a `.git`
/// is a real repository (the project's, or one git itself made, whose internals are
/// protected) and ends the search; one that is itself shaped like a repository's internals
/// (`HEAD`, `objects/`, `refs/`) is a bare repository whose `config` is an ordinary file.
/// The project's own directory is not searched (its repository is the project's). Reads the
/// disk.
pub(super) fn bare_repository_below(cwd: &Path, project: &Path) -> Option<PathBuf> {
    let mut dir = cwd;
    while dir != project && paths::is_within(dir, project) {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return None;
        }
        if looks_like_git_dir(dir) {
            return Some(dir.to_path_buf());
        }
        dir = dir.parent()?;
    }
    None
}

/// git's own test (`is_git_directory`): a `HEAD`, an object store and a refs directory.
fn looks_like_git_dir(dir: &Path) -> bool {
    let present = |name: &str| std::fs::metadata(dir.join(name)).is_ok();
    present("HEAD") && present("objects") && present("refs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_bare_shaped_directory_between_the_working_directory_and_the_project() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("proj");
        let bare = project.join("fx/evil.git");
        std::fs::create_dir_all(bare.join("objects")).unwrap();
        std::fs::create_dir_all(bare.join("refs")).unwrap();
        std::fs::create_dir_all(bare.join("sub")).unwrap();
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(bare_repository_below(&bare, &project), Some(bare.clone()));
        assert_eq!(
            bare_repository_below(&bare.join("sub"), &project),
            Some(bare.clone())
        );
        assert_eq!(bare_repository_below(&project.join("fx"), &project), None);
        assert_eq!(bare_repository_below(&project, &project), None);
    }

    #[test]
    fn a_nested_dot_git_ends_the_search() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("proj");
        let bare = project.join("b");
        std::fs::create_dir_all(bare.join("objects")).unwrap();
        std::fs::create_dir_all(bare.join("refs")).unwrap();
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let nested = bare.join("n");
        std::fs::create_dir_all(nested.join(".git")).unwrap();
        assert_eq!(bare_repository_below(&nested, &project), None);
    }
}
