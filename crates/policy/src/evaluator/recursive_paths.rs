//! Recursive reads and deletes: what a command that walks a directory reaches below it.

use shellgate_parser::Word;
use shellgate_rules::{Access, Decision};

use std::path::Path;

use crate::display;
use crate::evaluation::ReasonKind;
use crate::matching::MatchContext;
use crate::paths;

use super::path_words::{literal_path, searched_root};
use super::run::Run;
use super::secrets_inside::Inside;
use super::verdict::Judged;

impl Run<'_> {
    /// A recursive read of a directory that holds a protected path (`grep -r AKIA ~` reaches
    /// `~/.aws/credentials`, `rg -uu secret ~` reaches `~/.ssh`) touches that path: it needs a
    /// person every time, like naming it would (never a hard deny: the command does not name
    /// the secret).
    ///
    /// A recursive read filtered by file name to a protected name (`grep -r KEY
    /// --include='*.env' .`, `rg -g '*.env'`, `find . -name '.env*' -exec cat {} +`) reads those
    /// files wherever it runs: it needs a person too. A filter is an option's value (the word
    /// after a word starting with `-`, or the value of `--flag=VALUE`) that selects protected
    /// names and not ordinary ones ([`GrantRule::protected_filter`](crate::GrantRule::protected_filter)).
    pub(super) fn judge_recursive_read(
        &self,
        word: &Word,
        text: &str,
        words: &[Word],
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let Some(dir) = searched_root(word, text, ctx) else {
            return;
        };
        let rule = self.gate.grant_rule();
        // (A filter that leaves names out selects nothing: `--exclude=.env`, `--ignore .env`,
        // `rg -g '!.env'`.)
        let excludes = |flag: &str| flag.contains("exclude") || flag.contains("ignore");
        let option_values = words.windows(2).filter_map(|pair| match pair {
            [flag, value] if flag.cooked.starts_with('-') && !excludes(&flag.cooked) => {
                Some(value.cooked.as_str())
            }
            _ => None,
        });
        let joined_values = words.iter().filter_map(|w| {
            w.cooked
                .split_once('=')
                .filter(|(flag, _)| flag.starts_with('-') && !excludes(flag))
                .map(|(_, value)| value)
        });
        let filtered = option_values
            .chain(joined_values)
            .filter(|v| !v.starts_with('!'))
            .find_map(|filter| {
                if let Ok(cache) = self.filter_cache.try_borrow()
                    && let Some(found) = cache.get(filter)
                {
                    return *found;
                }
                let found = rule.protected_filter(filter);
                if let Ok(mut cache) = self.filter_cache.try_borrow_mut() {
                    cache.insert(filter.to_owned(), found);
                }
                found
            });
        let (entry, what) = if let Some((entry, name)) = filtered {
            let name = display::escape(name);
            (
                entry,
                format!("filtered to names such as `{name}` reads them"),
            )
        } else if let Some((entry, base)) =
            rule.protected_below(&dir, ctx.home, |entry| entry.read != Decision::Approved)
        {
            let base = display::escape(&base.to_string_lossy());
            (entry, format!("reaches `{base}`"))
        } else {
            // (A glob reads what it matches, not its whole directory: `cp -r ./*.md docs/`; a
            // listing of names reads no file's content: `rg --files`.)
            if !word.features.glob && !self.policy().lists_names(words) {
                self.judge_protected_inside(&dir, words, judged);
            }
            return;
        };
        judged.ask_unsaveable(
            ReasonKind::Path,
            Some(entry.id.clone()),
            format!(
                "a recursive read of `{}` {what} ({}: {})",
                display::escape(&dir.to_string_lossy()),
                entry.id,
                entry.why
            ),
        );
    }

    /// On the file system, a recursive read of a directory that holds a file protected for
    /// reading (a project's `.env`, a `.git/config` with a token) reaches it: it needs a person
    /// every time, as naming the file would. A directory too large to walk is not known.
    fn judge_protected_inside(&self, dir: &Path, words: &[Word], judged: &mut Judged) {
        if !self.state.resolve_symlinks() || !dir.is_dir() {
            return;
        }
        let shown = display::escape(&dir.to_string_lossy());
        let only = self.policy().include_filter(words);
        match self.protected_inside(dir, self.policy().reads_hidden(words), only.as_ref()) {
            Inside::Nothing => {}
            Inside::Protected { path, id, why } => judged.ask_unsaveable(
                ReasonKind::Path,
                Some(id.clone()),
                format!(
                    "a recursive read of `{shown}` reaches `{}` ({id}: {why})",
                    display::escape(&path.to_string_lossy())
                ),
            ),
            Inside::TooLarge => judged.ask_unsaveable(
                ReasonKind::Path,
                None,
                format!(
                    "a recursive read of `{shown}` reaches more files than the gate walks to look for protected ones (such as a `.env`)"
                ),
            ),
        }
    }

    /// A recursive delete runs silently only for a project's disposable outputs: a path at
    /// or below a directory named in `settings.disposable` (`target`, `node_modules`…), inside
    /// a write zone (the write itself is judged like any other). Any other recursive delete
    /// needs a person.
    pub(super) fn judge_recursive_delete(
        &self,
        word: &Word,
        text: &str,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let resolved = literal_path(word, text, ctx);
        // A directory that holds the project or the working directory is no project's output,
        // whatever its name (a project at `/tmp/x/build/app`: `rm -rf ../../build`).
        let holds_work = |path: &Path| {
            [self.state.project(), Some(self.state.cwd()), ctx.cwd]
                .into_iter()
                .flatten()
                .any(|work| work.starts_with(path))
        };
        let disposable_at = |path: &Path| {
            if holds_work(path) {
                return None;
            }
            let zone = self.state.zone_for(path, Access::Write)?;
            let below = path.strip_prefix(zone.resolved()).ok()?;
            below.components().find_map(|c| {
                let name = c.as_os_str().to_str()?;
                self.policy()
                    .disposable()
                    .iter()
                    .any(|d| d == name)
                    .then(|| name.to_owned())
            })
        };
        // Through a link (`out -> .`, `build -> src`: `rm -rf out/` deletes the project), the
        // tree deleted is where the link leads: both must be disposable outputs.
        // A link the command made or carried (`mv lself target && rm -rf target/`) leads
        // where the gate cannot see: not disposable.
        let through_made_link = |path: &Path| {
            self.links.try_borrow().map_or(true, |links| {
                links.iter().any(|(place, _)| path.starts_with(place))
            })
        };
        let disposable = resolved.as_deref().and_then(|path| {
            if through_made_link(path) {
                return None;
            }
            let name = disposable_at(path)?;
            // (`rm -rf dist` removes a link named `dist`, not what it leads to; `rm -rf dist/`
            // and a link above it lead on.)
            let through_itself = text.ends_with('/') || text.ends_with("/.");
            let followed = |path: &Path| match (path.parent(), path.file_name()) {
                (Some(parent), Some(file)) if !through_itself => {
                    paths::resolve_symlinks(parent).map(|p| p.join(file))
                }
                _ => paths::resolve_symlinks(path),
            };
            match ctx.symlinks.then(|| followed(path)).flatten() {
                Some(target) if target != path => disposable_at(&target).map(|_| name),
                _ => Some(name),
            }
        });
        let shown = display::escape(
            &resolved
                .as_deref()
                .map_or_else(|| word.raw.clone(), |p| p.to_string_lossy().into_owned()),
        );
        match disposable {
            Some(name) => judged.reason(
                ReasonKind::Path,
                None,
                format!("recursive delete of `{shown}`: `{name}` holds disposable outputs"),
            ),
            // A person decides every time: no grant covers it (whatever names the program:
            // `/rm -fr x` is not saved as `/rm -fr *` either).
            None => {
                judged.ask_unsaveable(
                    ReasonKind::Path,
                    None,
                    format!(
                        "recursive delete of `{shown}`, which is not a disposable output (`settings.disposable`)"
                    ),
                );
            }
        }
    }
}
