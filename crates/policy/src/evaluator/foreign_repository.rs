//! Which repository a repository program (`git`) works in, and whether its configuration is
//! someone else's: a directory outside the project, a directory the gate cannot know, or a
//! bare-repository-shaped directory committed inside the project (`fx/evil.git` with `HEAD`,
//! `objects/`, `refs/` and a `config` naming `core.fsmonitor`), which git finds before the
//! project's own `.git` when it works there.

use std::path::{Path, PathBuf};

use crate::matching::MatchContext;
use crate::paths;

impl super::Run<'_> {
    /// The working directory of a command that runs what the directory's own files say (a
    /// repository's configuration, a Makefile), when it lies outside the project, the session
    /// directory and the run zones — lexically, or where it really is when the gate resolves
    /// links (`ln -s /tmp/x sub; git -C sub status`: git works in `/tmp/x`). A directory
    /// holding the project (`cd .. && git status` from a package of a monorepo) is the
    /// project's own, unless it is `/` or the home directory.
    pub(super) fn foreign_directory(&self, ctx: &MatchContext<'_>) -> Option<PathBuf> {
        let cwd = ctx.cwd?;
        let project = self.state.project().and_then(paths::normalize);
        let session = self.state.session().and_then(paths::normalize);
        let outside = |dir: &Path, project: Option<&Path>| {
            self.state.run_zone_for(dir).is_none()
                && !project.is_some_and(|p| paths::is_within(dir, p))
                && !session.as_ref().is_some_and(|s| paths::is_within(dir, s))
                && !project.is_some_and(|p| {
                    paths::is_within(p, dir)
                        && !self.gate.grant_rule().too_broad(dir, self.state.home())
                })
        };
        if outside(cwd, project.as_deref()) {
            return Some(cwd.to_path_buf());
        }
        if !ctx.symlinks {
            return None;
        }
        let real = std::fs::canonicalize(cwd).ok().filter(|real| real != cwd)?;
        let real_project = project
            .as_deref()
            .and_then(|p| std::fs::canonicalize(p).ok());
        outside(&real, real_project.as_deref().or(project.as_deref())).then_some(real)
    }
}

/// The directory git would take for a bare repository when it works in `cwd`: searching
/// upward as git does, the first directory that holds a `.git` is a real repository (the
/// project's, or one git itself made, whose internals are protected) and ends the search; one
/// that is itself shaped like a repository's internals is a repository whose `config` is an
/// ordinary file. The search goes on above `project` (a project without a `.git` may lie in
/// such a directory, or be one: an extracted archive). Reads the disk.
pub(super) fn bare_repository_from(cwd: &Path) -> Option<PathBuf> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if std::fs::symlink_metadata(d.join(".git")).is_ok() {
            return None;
        }
        if looks_like_git_dir(d) {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// git's own test (`is_git_directory`), erring toward yes: a `HEAD` (a file, or a link even
/// when dangling), and an object store and a refs directory, or a `commondir` file that names
/// another directory holding them (and its `config`).
pub(super) fn looks_like_git_dir(dir: &Path) -> bool {
    let present = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    present("HEAD") && ((present("objects") && present("refs")) || present("commondir"))
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
        assert_eq!(bare_repository_from(&bare), Some(bare.clone()));
        assert_eq!(bare_repository_from(&bare.join("sub")), Some(bare.clone()));
        assert_eq!(bare_repository_from(&project.join("fx")), None);
        assert_eq!(bare_repository_from(&project), None);
        // A `commondir` stands for the object store and refs.
        let common = project.join("v/evil");
        std::fs::create_dir_all(&common).unwrap();
        std::fs::write(common.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(common.join("commondir"), "../store\n").unwrap();
        assert_eq!(bare_repository_from(&common), Some(common.clone()));
    }

    #[test]
    fn a_project_without_a_dot_git_inside_a_bare_shaped_directory() {
        let root = tempfile::tempdir().unwrap();
        let outer = root.path().join("x");
        std::fs::create_dir_all(outer.join("objects")).unwrap();
        std::fs::create_dir_all(outer.join("refs")).unwrap();
        std::os::unix::fs::symlink("refs/heads/main", outer.join("HEAD")).unwrap();
        let project = outer.join("proj");
        std::fs::create_dir_all(&project).unwrap();
        assert_eq!(bare_repository_from(&project), Some(outer));
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
        assert_eq!(bare_repository_from(&nested), None);
    }
}
