//! Protected paths: the `[[protected]]` entries of every layer and one glob set of their paths.

use std::path::Path;

use shellgate_parser::path;

use crate::lazy::LazyGlobSet;
use crate::model::Protected;

/// The protected entries, in declaration order, and every glob of theirs as one set.
#[derive(Clone, Debug)]
pub(crate) struct ProtectedPaths {
    entries: Vec<Protected>,
    /// Every glob; glob `i` belongs to entry `owner[i]`.
    pub(crate) set: LazyGlobSet,
    /// Every glob in lower case, matched against paths in lower case: on a case-insensitive
    /// file system (macOS, Windows) `~/.SSH/config` is `~/.ssh/config`.
    lower: LazyGlobSet,
    owner: Vec<usize>,
    /// The directories above the globs of entries that guard writes (`**/.vscode` for
    /// `**/.vscode/tasks.json`), in lower case; glob `i` belongs to entry `ancestor_owner[i]`.
    ancestors: LazyGlobSet,
    ancestor_owner: Vec<usize>,
    /// Every entry's `templates`, in lower case.
    templates: LazyGlobSet,
}

/// The directories above `glob` that a link could stand for: each proper prefix whose last
/// component names something (not `**`, `*`, `~` or `/`).
fn ancestor_globs(glob: &str) -> Vec<String> {
    let parts: Vec<&str> = glob.split('/').collect();
    (1..parts.len())
        .filter_map(|k| {
            let last = parts.get(k - 1)?;
            let prefix = parts.get(..k)?.join("/");
            let named = last.chars().any(char::is_alphanumeric) && *last != "~";
            named.then_some(prefix)
        })
        .collect()
}

impl ProtectedPaths {
    /// The entries with their globs.
    pub(crate) fn new(entries: Vec<(Protected, Vec<String>)>) -> Self {
        let mut globs = Vec::new();
        let mut owner = Vec::new();
        let mut kept = Vec::with_capacity(entries.len());
        for (index, (entry, patterns)) in entries.into_iter().enumerate() {
            owner.extend(std::iter::repeat_n(index, patterns.len()));
            globs.extend(patterns);
            kept.push(entry);
        }
        let lower = globs.iter().map(|g| g.to_ascii_lowercase()).collect();
        let templates = kept
            .iter()
            .flat_map(|e: &Protected| &e.templates)
            .map(|g| g.to_ascii_lowercase())
            .collect();
        let mut ancestors = Vec::new();
        let mut ancestor_owner = Vec::new();
        for (glob, index) in globs.iter().zip(&owner) {
            if kept
                .get(*index)
                .is_some_and(|e| e.write != crate::Decision::Approved)
            {
                for above in ancestor_globs(glob) {
                    ancestors.push(above.to_ascii_lowercase());
                    ancestor_owner.push(*index);
                }
            }
        }
        Self {
            entries: kept,
            set: LazyGlobSet::new(globs),
            lower: LazyGlobSet::new(lower),
            owner,
            ancestors: LazyGlobSet::new(ancestors),
            ancestor_owner,
            templates: LazyGlobSet::new(templates),
        }
    }

    /// Every entry.
    pub(crate) fn entries(&self) -> &[Protected] {
        &self.entries
    }

    /// The first entry guarding writes to a path below `path` by a name a link at `path`
    /// would give it (`.vscode` for `**/.vscode/tasks.json`, in any letter case).
    pub(crate) fn guarded_below(&self, path: &Path, home: Option<&Path>) -> Option<&Protected> {
        let text = path.to_string_lossy();
        let mut found = Vec::new();
        for form in path::forms(&text, None, home).iter() {
            self.ancestors
                .matches_into(&form.to_ascii_lowercase(), &mut found);
            if let Some(entry) = found
                .iter()
                .filter_map(|i| self.ancestor_owner.get(*i))
                .min()
                .and_then(|i| self.entries.get(*i))
            {
                return Some(entry);
            }
        }
        None
    }

    /// Whether `path` (in its resolved and `~` forms, in any letter case) is a committed
    /// template one of the entries lists.
    pub(crate) fn is_template(&self, path: &Path, home: Option<&Path>) -> bool {
        let text = path.to_string_lossy();
        path::forms(&text, None, home)
            .iter()
            .any(|form| self.templates.is_match(&form.to_ascii_lowercase()))
    }

    /// Every entry covering `path` (in its resolved and `~` forms, in any letter case), in
    /// declaration order.
    pub(crate) fn covering(&self, path: &Path, home: Option<&Path>) -> Vec<&Protected> {
        let text = path.to_string_lossy();
        let forms = path::forms(&text, None, home);
        let mut found = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        for form in forms.iter() {
            self.set.matches_into(form, &mut found);
            owners.extend(found.iter().filter_map(|i| self.owner.get(*i).copied()));
            self.lower
                .matches_into(&form.to_ascii_lowercase(), &mut found);
            owners.extend(found.iter().filter_map(|i| self.owner.get(*i).copied()));
        }
        owners.sort_unstable();
        owners.dedup();
        owners
            .into_iter()
            .filter_map(|i| self.entries.get(i))
            .collect()
    }
}
