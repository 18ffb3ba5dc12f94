//! The targets of links a command makes (`ln -s TARGET LINK`, `cp -s SOURCE DEST`): whatever
//! writes through the new name writes the target. A later command that writes through the
//! link is judged by where the link points (symbolic links are resolved), but a clause of the
//! same command runs before anything can look at the link (`ln -s ~/.bashrc rc; echo x >> rc`).
//! So the target is judged as a *possible* write as well as a read: outside the write zones,
//! or protected, it needs a person (never a refusal: the link alone changes nothing).

use std::path::Path;

use shellgate_parser::Word;
use shellgate_rules::{Access, ArgRole, Decision, Role};

use crate::display;
use crate::evaluation::ReasonKind;
use crate::matching::MatchContext;

use super::path_effects::Certainty;
use super::path_words::searched_root;
use super::run::Run;
use super::verdict::Judged;

/// How many links one clause records before every path counts as below one.
const MAX_LINKS: usize = 64;

impl Run<'_> {
    /// Judges the link target `text` (the word `word`, read already) of a command whose other
    /// argument roles are `roles` over `words`.
    pub(super) fn judge_link_target(
        &self,
        word: &Word,
        text: &str,
        roles: &[ArgRole],
        words: &[Word],
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        self.judge_path(word, text, Access::Write, Certainty::Possible, ctx, judged);
        // A relative target is relative to the link's directory, not the working directory
        // (`ln -s ../../.bashrc sub/rc`). The link is the last operand or the target directory
        // (`-t DIR`): the target is judged from that path and from its parent, whichever is the
        // directory the link lands in.
        let relative = word.literal && !text.starts_with('/') && !text.starts_with('~');
        if relative {
            let places = roles
                .iter()
                .filter(|r| matches!(r.role, Role::WritePath | Role::DeletePath) && !r.inside)
                .filter(|r| words.get(r.index).is_some_and(|w| w.literal));
            for place in places {
                let place = Path::new(&place.text);
                for base in [Some(place), place.parent()].into_iter().flatten() {
                    if base.as_os_str().is_empty() {
                        continue;
                    }
                    // (Folded here: the link's directory is the one its operand names.)
                    let joined = shellgate_parser::path::normalize_path(&base.join(text));
                    let from_link = crate::expand::synthetic_word(
                        joined.to_string_lossy().into_owned(),
                        word.span,
                    );
                    let joined = from_link.cooked.clone();
                    for (access, certainty) in [
                        (Access::Read, Certainty::Certain),
                        (Access::Write, Certainty::Possible),
                    ] {
                        self.judge_path(&from_link, &joined, access, certainty, ctx, judged);
                    }
                }
            }
        }
        // A link whose name is a directory of protected files (`ln -s stage/v .vscode` makes
        // `stage/v/tasks.json` the folder-open tasks) writes them. (The link is its name
        // operand, or lands in that directory under the target's name.)
        let target_name = Path::new(text).file_name();
        for place in roles
            .iter()
            .filter(|r| matches!(r.role, Role::WritePath | Role::DeletePath) && !r.inside)
        {
            if let Some(word) = words.get(place.index)
                && self.judge_protected_name(word, &place.text, target_name, ctx, judged)
            {
                break;
            }
        }
        // A linked directory makes everything below it writable under another name: a
        // protected path below it (`ln -s ~/.config c`) needs a person.
        let Some(dir) = searched_root(word, text, ctx) else {
            return;
        };
        let rule = self.gate.grant_rule();
        // (The target itself was judged above.)
        if let Some((entry, base)) = rule
            .protected_below(&dir, ctx.home, |entry| entry.write != Decision::Approved)
            .filter(|(_, base)| *base != dir)
        {
            judged.ask_unsaveable(
                ReasonKind::Path,
                Some(entry.id.clone()),
                format!(
                    "a link to `{}` lets what follows write `{}` under another name ({}: {})",
                    display::escape(&dir.to_string_lossy()),
                    display::escape(&base.to_string_lossy()),
                    entry.id,
                    entry.why
                ),
            );
        }
    }

    /// Judges `text` (the word `word`), a path a command gives a directory, a link or a moved
    /// tree (or, when it is a directory, that path joined with `name`, where it lands): when
    /// it is the name of a directory of protected files (`.vscode` for
    /// `**/.vscode/tasks.json`), what lands there becomes those files, so a person decides.
    /// Whether it was.
    pub(super) fn judge_protected_name(
        &self,
        word: &Word,
        text: &str,
        name: Option<&std::ffi::OsStr>,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> bool {
        let Some(path) = searched_root(word, text, ctx) else {
            return false;
        };
        // Into a directory (`DIR/`, `.`, or one on disk) it lands under its own name; else
        // the path is its new name.
        let into =
            text.ends_with('/') || matches!(text, "." | "..") || (ctx.symlinks && path.is_dir());
        // (Names a glob or an expansion picks are not known: the directory itself is judged.)
        let known = name.filter(|n| {
            n.to_str()
                .is_some_and(|n| !n.contains(['*', '?', '[', '$', '`']))
        });
        // A directory an earlier clause removed, moved or wrote may not be there any more
        // (`rmdir .vscode && ln -s cfg .vscode`), and neither may one after any earlier clause
        // (`git rm -r .vscode && …` removes it too): the path itself is judged as well.
        let changed_before = !self.judged.is_empty() || self.changed_before(&path);
        let mut places = Vec::new();
        match (into, known) {
            (true, Some(name)) => {
                places.push(path.join(name));
                if changed_before {
                    places.push(path.clone());
                }
            }
            _ => places.push(path),
        }
        let Some((place, entry)) = places.into_iter().find_map(|place| {
            let entry = self.policy().protected_below_name(&place, ctx.home)?;
            Some((place, entry))
        }) else {
            return false;
        };
        judged.ask_unsaveable(
            ReasonKind::Path,
            Some(entry.id.clone()),
            format!(
                "`{}` would become a directory of protected files, and what is linked, moved or copied there would be them ({}: {})",
                display::escape(&place.to_string_lossy()),
                entry.id,
                entry.why
            ),
        );
        true
    }

    /// A moved source that is a directory of files protected against reads (`mv ~/.aws ~/a`):
    /// under its new name they are no longer recognised (`cat ~/a/credentials`), so a person
    /// decides. (A directory of files protected only against writes, `.venv`, keeps nothing
    /// secret; what is written into its old name later is judged there.)
    pub(super) fn judge_moved_protected_dir(
        &self,
        word: &Word,
        text: &str,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let Some(path) = searched_root(word, text, ctx) else {
            return;
        };
        let Some(entry) = self
            .policy()
            .protected_below_name(&path, ctx.home)
            .filter(|entry| entry.read != shellgate_rules::Decision::Approved)
        else {
            return;
        };
        judged.ask_unsaveable(
            ReasonKind::Path,
            Some(entry.id.clone()),
            format!(
                "moves `{}`, a directory of protected files, elsewhere: under its new name they are not recognised ({}: {})",
                display::escape(&path.to_string_lossy()),
                entry.id,
                entry.why
            ),
        );
    }

    /// Records where a link-making command puts its links (its write operands, and the
    /// directory one is created in): later clauses working there are in an unknown directory.
    pub(super) fn record_links(
        &self,
        target: Option<(&Word, &str)>,
        roles: &[ArgRole],
        words: &[Word],
        ctx: &MatchContext<'_>,
    ) {
        let Ok(mut links) = self.new_links.try_borrow_mut() else {
            return;
        };
        let mut add = |place: std::path::PathBuf, to: Option<std::path::PathBuf>| {
            // Many links (`ln -s a b c … dir/` over a brace expansion): every directory may be
            // below one.
            if links.len() >= MAX_LINKS {
                links.clear();
                links.push((std::path::PathBuf::from("/"), None));
            } else if !links.iter().any(|(p, t)| *p == place && *t == to) {
                links.push((place, to));
            }
        };
        let mut places = roles
            .iter()
            .filter(|r| matches!(r.role, Role::WritePath | Role::DeletePath))
            .peekable();
        // `ln -s TARGET` makes its link in the working directory.
        if places.peek().is_none() {
            let dir = ctx
                .cwd
                .map_or_else(|| std::path::PathBuf::from("/"), Path::to_path_buf);
            add(dir, None);
        }
        for place in places {
            let found = words
                .get(place.index)
                .and_then(|word| searched_root(word, &place.text, ctx));
            let Some(path) = found else {
                // Not known: every directory may be below a link.
                add(std::path::PathBuf::from("/"), None);
                return;
            };
            // Where a path through the link leads: an absolute target, or one relative to
            // the link's directory.
            let to = target.and_then(|(word, text)| {
                if text.starts_with('/') || (text.starts_with('~') && word.features.tilde) {
                    searched_root(word, text, ctx)
                } else if word.literal {
                    path.parent()
                        .and_then(|dir| crate::paths::normalize(&dir.join(text)))
                } else {
                    None
                }
            });
            add(path, to);
        }
    }

    /// A copy or move whose source is a symbolic link (`cp -P /proc/self/root r`, `cp -a lnk
    /// dir`, `mv lnk x`) may make its destination that link: it is judged as a link to the
    /// source's target, and a magic link of `/proc` (whose target depends on the process) as
    /// a link the gate cannot follow.
    pub(super) fn judge_copied_link(
        &self,
        word: &Word,
        text: &str,
        roles: &[ArgRole],
        words: &[Word],
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        // (Called only for a command that also writes.)
        if !word.literal {
            return;
        }
        // The path as written, before `/proc`'s magic links are followed.
        let tilde = text.starts_with('~') && word.features.tilde;
        let written = if tilde {
            crate::paths::expand(text, true, ctx.cwd, ctx.home)
        } else if text.starts_with('/') {
            Some(std::path::PathBuf::from(text))
        } else {
            ctx.cwd.map(|cwd| cwd.join(text))
        };
        let Some(written) = written.and_then(|p| crate::paths::normalize(&p)) else {
            return;
        };
        // A link an earlier clause made (not on disk yet), or one below such a link: where
        // the copy leads is not known (a relative target leads elsewhere from its new place).
        let made = self.links.try_borrow().map_or(true, |links| {
            links.iter().any(|(link, _)| written.starts_with(link))
        });
        if made {
            self.record_links(None, roles, words, ctx);
            return;
        }
        if magic_link(&written) {
            self.record_links(None, roles, words, ctx);
            judged.ask_unsaveable(
                ReasonKind::Path,
                None,
                format!(
                    "copies or moves `{}`, a link whose target the gate cannot follow: the copy may lead there too",
                    display::escape(&word.raw)
                ),
            );
            return;
        }
        if !ctx.symlinks {
            return;
        }
        let is_link = std::fs::symlink_metadata(&written).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return;
        }
        let Ok(target) = std::fs::read_link(&written) else {
            return;
        };
        let target = match written.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
        let shown = target.to_string_lossy().into_owned();
        let target_word = crate::expand::synthetic_word(shown.clone(), word.span);
        self.judge_link_target(&target_word, &shown, roles, words, ctx, judged);
        self.record_links(Some((&target_word, &shown)), roles, words, ctx);
    }
}

/// Whether `path` is a magic link of `/proc` (`/proc/self/root`, `/proc/1/cwd`,
/// `/proc/self/fd/3`, `/proc/self/task/7/exe`) or lies below one.
fn magic_link(path: &Path) -> bool {
    let mut parts = path.components().skip(1).map(|c| c.as_os_str().to_str());
    if parts.next() != Some(Some("proc")) {
        return false;
    }
    let mut previous = None;
    for part in parts {
        let Some(part) = part else { return true };
        if matches!(part, "root" | "cwd" | "exe") || matches!(previous, Some("fd" | "map_files")) {
            return true;
        }
        previous = Some(part);
    }
    false
}
