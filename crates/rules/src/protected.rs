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
        Self {
            entries: kept,
            set: LazyGlobSet::new(globs),
            lower: LazyGlobSet::new(lower),
            owner,
        }
    }

    /// Every entry.
    pub(crate) fn entries(&self) -> &[Protected] {
        &self.entries
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
