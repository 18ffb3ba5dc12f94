//! Copies and moves of whole trees (`cp -r SRC DEST`, `cp -a SRC/. .`, `mv DIR DEST`): what
//! they write is every file of the source, below the destination. A file of a protected name
//! among them (`scaffold/.claude/settings.json` copied into the project root) is written as
//! surely as by `cp FILE .claude/settings.json`, and a symbolic link among them (`d/hl -> ~`)
//! makes a path through the copy (`d2/hl/.bashrc`) lead elsewhere.
//!
//! The source is read from the file system, as far as [`MAX_ENTRIES`] entries: each file's
//! destination path is judged as a write, each link's destination path is recorded as a link
//! the command makes (a later path through it is not known), and a source too large to read
//! makes the whole destination such a place. Without file-system access (symbolic links not
//! resolved) one name below the destination stands for its contents (`DEST/…`).

use std::path::{Path, PathBuf};

use shellgate_parser::Word;
use shellgate_rules::{Access, ArgRole, Role};

use crate::matching::MatchContext;

use super::path_effects::Certainty;
use super::path_words::{expand_glob, literal_path, only_glob, searched_root};
use super::run::Run;
use super::verdict::Judged;

/// How many entries of a copied tree are read before the rest is taken as unknown.
const MAX_ENTRIES: usize = 2_000;
/// How many entries of copied trees one command reads in all (a copy of a large tree to a
/// hundred brace-expanded destinations): the rest is taken as unknown.
pub(super) const MAX_COMMAND_ENTRIES: usize = 20_000;

impl Run<'_> {
    /// Judges the tree a copy or move writes below its destination (`role`, the word `word`),
    /// from the sources among `roles` (over `words`): recursive reads (`cp -r`) and moved
    /// operands (`mv`).
    pub(super) fn judge_tree_copy(
        &self,
        (word, role): (&Word, &ArgRole),
        (roles, words): (&[ArgRole], &[Word]),
        certainty: Certainty,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        if role.inside || !word.literal {
            return;
        }
        let sources: Vec<&ArgRole> = roles
            .iter()
            .filter(|r| {
                (matches!(r.role, Role::ReadPath | Role::Link) && r.recursive)
                    || (r.role == Role::DeletePath && r.operand)
            })
            .filter(|r| r.index != role.index)
            .collect();
        if sources.is_empty() {
            return;
        }
        let (destination, known) = destination_of(word, role, ctx);
        let destination = destination.as_str();
        let judge = |text: String, judged: &mut Judged| {
            let probe = crate::expand::synthetic_word(text.clone(), word.span);
            self.judge_path(&probe, &text, Access::Write, certainty, ctx, judged);
        };
        // (One an earlier clause wrote, moved or removed may not be there any more:
        // `mv ~/.config x && cp -r payload ~/.config`, `rm -rf build && mv sub build`.)
        // (Looked up by the destination's ancestors in the sets of written and touched paths:
        // a copy of a large tree to many destinations writes thousands.)
        let rewritten = self.changed_before(Path::new(destination));
        for source in sources {
            let recursive = source.role != Role::DeletePath;
            let Some(source_word) = words.get(source.index) else {
                continue;
            };
            // A glob copies what it matches below its directory (`cp -r public/* dest/`).
            let root = searched_root(source_word, &source.text, ctx);
            // The copy is the destination itself, or a directory of the source's name in it;
            // only the latter when the destination is a directory already (`cp -r dotfiles ~/`
            // writes `~/dotfiles/.bashrc`, not `~/.bashrc`).
            let name = source
                .text
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .filter(|n| source_word.literal && !matches!(*n, "" | "." | ".."));
            let existing_dir = ctx.symlinks
                && known
                && !rewritten
                && std::fs::metadata(destination).is_ok_and(|m| m.is_dir());
            let mut places = Vec::new();
            if !(existing_dir && name.is_some()) {
                places.push(destination.to_owned());
            }
            if let Some(name) = name {
                places.push(format!("{destination}/{name}"));
            }
            let kind = root
                .as_ref()
                .filter(|_| ctx.symlinks)
                .map(|path| std::fs::symlink_metadata(path).map(|m| m.file_type().is_dir()));
            match kind {
                // Read from disk below.
                Some(Ok(true)) => {}
                // A file moved or copied: nothing below it.
                Some(Ok(false)) => continue,
                // Not on disk (made earlier in the command, or through a link it made), or
                // not known: what it writes below the destination is not known.
                Some(Err(_)) | None if recursive && ctx.symlinks => {
                    self.dynamic_path(&source_word.raw, Access::Write, judged);
                    continue;
                }
                // Without file-system access, one name below stands for the contents.
                Some(Err(_)) | None => {
                    if recursive {
                        for place in &places {
                            judge(format!("{place}/…"), judged);
                        }
                    }
                    continue;
                }
            }
            let Some(tree) = root else { continue };
            // A glob copies each entry it matches under its own name: bash's `*` skips the
            // directory's dot entries (`mv *.log logs/` moves no `.git`); too many matches
            // are not known.
            let copied = match glob_matches(source_word, &source.text, &tree) {
                Some(Some(found)) => found
                    .into_iter()
                    .filter_map(|(path, is_link)| {
                        let name = path.file_name()?.to_string_lossy().into_owned();
                        Some((path, is_link, vec![format!("{destination}/{name}")]))
                    })
                    .collect(),
                Some(None) => {
                    self.dynamic_path(&source_word.raw, Access::Write, judged);
                    continue;
                }
                None => vec![(tree, false, places)],
            };
            let mut budget = MAX_ENTRIES.min(self.tree_budget.get());
            for (tree, is_link, places) in copied {
                if is_link {
                    for place in &places {
                        self.record_link_place(place, word, ctx);
                        judge(place.clone(), judged);
                    }
                    continue;
                }
                let is_dir = std::fs::symlink_metadata(&tree).is_ok_and(|m| m.is_dir());
                if !is_dir {
                    for place in &places {
                        judge(place.clone(), judged);
                    }
                    continue;
                }
                let (entries, complete) = read_tree(&tree, budget);
                budget = budget.saturating_sub(entries.len());
                self.tree_budget
                    .set(self.tree_budget.get().saturating_sub(entries.len()));
                for (relative, is_link) in &entries {
                    for place in &places {
                        let text = format!("{place}/{}", relative.to_string_lossy());
                        if *is_link {
                            self.record_link_place(&text, word, ctx);
                        }
                        judge(text, judged);
                    }
                }
                // A tree too large to read: what it writes below the destination is not known.
                if !complete {
                    for place in &places {
                        self.record_link_place(place, word, ctx);
                    }
                    self.dynamic_path(&source_word.raw, Access::Write, judged);
                    break;
                }
            }
        }
    }

    /// Judges the names a glob source lands under in a copy's, move's or link's destination
    /// directory (`cp examples/*.toml .` writes `./rust-toolchain.toml` when it matches one):
    /// each match of each glob operand among `roles` other than the destination `role`, as
    /// bash expands it; too many matches are not known.
    pub(super) fn judge_glob_names_into(
        &self,
        (word, role): (&Word, &ArgRole),
        (roles, words): (&[ArgRole], &[Word]),
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        if !ctx.symlinks || !word.literal {
            return;
        }
        let (destination, _) = destination_of(word, role, ctx);
        let destination = destination.as_str();
        for source in roles
            .iter()
            .filter(|r| r.operand && !r.inside && r.index != role.index)
        {
            let Some(source_word) = words.get(source.index) else {
                continue;
            };
            let Some(dir) = searched_root(source_word, &source.text, ctx) else {
                continue;
            };
            match glob_matches(source_word, &source.text, &dir) {
                Some(Some(found)) => {
                    for (path, _) in found {
                        let Some(name) = path.file_name() else {
                            continue;
                        };
                        let text = format!("{destination}/{}", name.to_string_lossy());
                        let probe = crate::expand::synthetic_word(text.clone(), word.span);
                        self.judge_path(
                            &probe,
                            &text,
                            Access::Write,
                            Certainty::Inside,
                            ctx,
                            judged,
                        );
                    }
                }
                Some(None) => self.dynamic_path(&source_word.raw, Access::Write, judged),
                None => {}
            }
        }
    }

    /// Records `text` (a path a copy writes) as a place the command may make a link.
    fn record_link_place(&self, text: &str, word: &Word, ctx: &MatchContext<'_>) {
        let probe = crate::expand::synthetic_word(text.to_owned(), word.span);
        let Some(path) = literal_path(&probe, text, ctx) else {
            return;
        };
        if let Ok(mut links) = self.new_links.try_borrow_mut()
            && !links.iter().any(|(p, to)| *p == path && to.is_none())
        {
            links.push((path, None));
        }
    }
}

/// Where a copy's destination really is (`~/` is the home directory), without a trailing `/`,
/// and whether it is known as a path (else the text as written).
fn destination_of(word: &Word, role: &ArgRole, ctx: &MatchContext<'_>) -> (String, bool) {
    match literal_path(word, &role.text, ctx) {
        Some(path) => (
            path.to_string_lossy().trim_end_matches('/').to_owned(),
            true,
        ),
        None => (role.text.trim_end_matches('/').to_owned(), false),
    }
}

/// The entries a glob source word (`*.log`, `public/*`) matches below its literal directory
/// `dir`, each with whether it is a symbolic link, as bash expands it (no dot entries unless
/// the pattern names them): `None` for a word that is not only a glob, `Some(None)` when
/// there are too many matches to judge or the pattern is one these rules do not cover (`.*`,
/// `[ab]*`, `!(…)`).
fn glob_matches(word: &Word, text: &str, dir: &Path) -> Option<Option<Vec<(PathBuf, bool)>>> {
    if !only_glob(word) {
        return None;
    }
    let Some(split) = crate::paths::split_glob(text) else {
        return Some(None);
    };
    let mut found = Vec::new();
    if !expand_glob(dir, &split.rest, &mut found) {
        return Some(None);
    }
    Some(Some(
        found
            .into_iter()
            .map(|path| {
                let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
                (path, is_link)
            })
            .collect(),
    ))
}

/// The entries below `root` (paths relative to it, and whether each is a symbolic link),
/// without following links, and whether all were read (at most `limit`).
fn read_tree(root: &Path, limit: usize) -> (Vec<(PathBuf, bool)>, bool) {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&relative)) else {
            continue;
        };
        for entry in entries.flatten() {
            if out.len() >= limit {
                return (out, false);
            }
            let Ok(kind) = entry.file_type() else {
                return (out, false);
            };
            let path = relative.join(entry.file_name());
            if kind.is_dir() {
                pending.push(path.clone());
            }
            out.push((path, kind.is_symlink()));
        }
    }
    (out, true)
}
