//! What the catalog says about a command's operands, checked against what only the evaluation
//! knows. Operands that must name nothing on the file system (`absent_operands`): `git checkout
//! NAME` switches branches, keeping local changes, but when NAME is a path git restores it from
//! the index and discards its uncommitted changes; the file system where the command runs tells
//! the two apart, and a name the gate cannot look up keeps the command out of its class.
//! Arguments appended at run time (`xargs gunzip`) against the entry's `max_operands`.

use std::io::ErrorKind;

use shellgate_rules::SafeVerdict;

use crate::matching::MatchContext;
use crate::paths;

use super::run::Run;
use crate::expand::Invocation;

impl Run<'_> {
    /// Whether an earlier clause of the command writes `path` or a directory above it.
    fn written_before(&self, path: &std::path::Path) -> bool {
        self.written_set
            .try_borrow()
            .is_ok_and(|set| path.ancestors().any(|p| set.contains(p)))
    }

    /// Whether an earlier clause of the command writes, moves or removes `path` or a directory
    /// above it (`written_set` and `touched_set`): it may not be what is on disk now. (Not
    /// known, when a set cannot be read: yes.)
    pub(super) fn changed_before(&self, path: &std::path::Path) -> bool {
        [&self.written_set, &self.touched_set].iter().any(|set| {
            set.try_borrow()
                .map_or(true, |set| path.ancestors().any(|p| set.contains(p)))
        })
    }

    /// `safe`, or the refusal of its entry when arguments appended at run time meet its
    /// `max_operands`, or when an `absent_operands` operand names an existing file or directory
    /// below the working directory, or one the gate cannot look up: an expansion, a glob or a
    /// pathspec (`*.py`, `:/src`), an unknown working directory, or a file system that is not
    /// consulted.
    pub(super) fn confirm_operands<'p>(
        &'p self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        safe: SafeVerdict<'p>,
    ) -> SafeVerdict<'p> {
        // Arguments appended at run time (`xargs gunzip`) are operands the catalog did not see.
        if inv.appended_args
            && let Some((_, why)) = self.policy().operand_limit(&inv.view(), &safe)
        {
            return SafeVerdict::Unsafe {
                token: "(arguments appended at run time)".to_owned(),
                why,
                saveable: true,
                exact: true,
            };
        }
        let Some((operands, why, lenient)) = self.policy().absent_operands(&inv.view(), &safe)
        else {
            return safe;
        };
        // Names are looked up below a working directory that exists: in one that does not (a
        // replayed log, a made-up project), nothing can be told apart — unless the entry says
        // such a directory holds nothing (`absent_repository`: `git pull origin`).
        let known_dir = ctx
            .cwd
            .filter(|cwd| std::fs::metadata(cwd).is_ok_and(|m| m.is_dir()));
        if lenient && (known_dir.is_none() || !ctx.symlinks) {
            return safe;
        }
        let cwd = known_dir.filter(|_| ctx.symlinks);
        let present = operands.into_iter().find(|word| {
            // (`\` quotes the next character of a pathspec: `a\.c` names `a.c`.)
            let unreadable = !word.literal
                || word.cooked.contains(['*', '?', '[', '\\'])
                || word.cooked.starts_with([':', '~']);
            let Some(cwd) = cwd.filter(|_| !unreadable) else {
                return true;
            };
            let path = cwd.join(&word.cooked);
            // A clause before this one may make the name (`git mv a.c b.c && git checkout b.c`).
            let made =
                paths::finish(&path, ctx.symlinks).is_some_and(|path| self.written_before(&path));
            let exists = |path: &std::path::Path| {
                !matches!(
                    std::fs::symlink_metadata(path),
                    Err(e) if e.kind() == ErrorKind::NotFound
                )
            };
            // (git also tries `NAME.git` for a repository: red-team 41l.)
            made || exists(&path) || (lenient && exists(&cwd.join(format!("{}.git", word.cooked))))
        });
        match present {
            Some(word) => SafeVerdict::Unsafe {
                token: word.cooked.clone(),
                why,
                saveable: true,
                exact: true,
            },
            None => safe,
        }
    }
}

#[cfg(test)]
mod tests {
    use shellgate_rules::{Decision, Policy};

    use crate::evaluator::GateEvaluator;
    use crate::trust::TrustState;

    /// The decision of `command` run in the project `root` (home its parent), the file system
    /// consulted or not, and the message of its `unsafe` reason.
    fn decide(root: &std::path::Path, consult: bool, command: &str) -> (Decision, Vec<String>) {
        let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
        let mut state = TrustState::new("personal", root);
        state.set_home(root.parent().unwrap());
        state.set_project(root);
        state.set_resolve_symlinks(consult);
        gate.apply_profile(&mut state).unwrap();
        let evaluation = gate.evaluate(command, &state);
        let unsafe_reasons = evaluation
            .clauses
            .iter()
            .flat_map(|c| &c.reasons)
            .filter(|r| r.kind.to_string() == "unsafe")
            .map(|r| r.message.clone())
            .collect();
        (evaluation.decision, unsafe_reasons)
    }

    #[test]
    fn checkout_of_a_name_that_is_no_path_switches_branches() {
        let (_dir, base) = crate::testing::temp_tree(&["proj/src"]);
        let root = base.join("proj");
        std::fs::write(root.join("README.md"), "x").unwrap();
        std::os::unix::fs::symlink("/nonexistent", root.join("dangling")).unwrap();
        let restores = "names, or may name, a path: git restores it from the index, discarding \
                        its uncommitted changes";
        for command in [
            "git checkout main",
            "git checkout -- main",
            "git checkout -q --track origin/dev",
            "cd src && git checkout main",
            "git checkout -",
        ] {
            assert_eq!(
                decide(&root, true, command),
                (Decision::Approved, vec![]),
                "{command}"
            );
        }
        for (command, word) in [
            ("git checkout README.md", "README.md"),
            ("git checkout src", "src"),
            ("git checkout .", "."),
            ("git checkout dangling", "dangling"),
            ("cd src && git checkout ../README.md", "../README.md"),
            ("git checkout '*.md'", "*.md"),
            ("git checkout :/README.md", ":/README.md"),
        ] {
            assert_eq!(
                decide(&root, true, command),
                (Decision::NeedsPrompt, vec![format!("`{word}`: {restores}")]),
                "{command}"
            );
        }
        // A parameter may hold an option (`-f`) as well as a path.
        assert_eq!(
            decide(&root, true, "git checkout \"$B\""),
            (
                Decision::NeedsPrompt,
                vec!["`$B`: a dynamic argument could expand to an unsafe option".to_owned()]
            )
        );
        // Without the file system, or in a working directory that does not exist, no name can be
        // told apart from a path.
        assert_eq!(
            decide(&root, false, "git checkout main"),
            (Decision::NeedsPrompt, vec![format!("`main`: {restores}")])
        );
        assert_eq!(
            decide(&root.join("gone"), true, "git checkout -- ."),
            (Decision::NeedsPrompt, vec![format!("`.`: {restores}")])
        );
    }

    #[test]
    fn a_fetch_from_a_name_that_is_a_directory_is_another_repository() {
        let (_dir, base) = crate::testing::temp_tree(&["proj/vendored", "other"]);
        let root = base.join("proj");
        std::os::unix::fs::symlink(base.join("other"), root.join("lnk")).unwrap();
        let another = "names an existing file or directory, which git takes for another \
                       repository when no remote has that name: its commits, and the hooks they \
                       bring, run here";
        for command in [
            "git pull origin main",
            "git fetch upstream",
            "git pull",
            "git fetch",
        ] {
            assert_eq!(
                decide(&root, true, command),
                (Decision::Approved, vec![]),
                "{command}"
            );
        }
        for (command, word) in [
            ("git pull lnk master", "lnk"),
            ("git fetch vendored", "vendored"),
            ("git ls-remote lnk", "lnk"),
        ] {
            assert_eq!(
                decide(&root, true, command),
                (Decision::NeedsPrompt, vec![format!("`{word}`: {another}")]),
                "{command}"
            );
        }
        // A working directory that does not exist, or a file system not consulted, holds no
        // repository: a replayed `git pull origin` stays approved.
        assert_eq!(
            decide(&root.join("gone"), true, "git pull origin main"),
            (Decision::Approved, vec![])
        );
        assert_eq!(
            decide(&root, false, "git pull lnk"),
            (Decision::Approved, vec![])
        );
    }
}
