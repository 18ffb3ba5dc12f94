//! Entries keyed by a command prefix (`["git", "push"]`), found by the command's first word.

/// An entry keyed by a command prefix.
pub(crate) trait Keyed {
    /// The cooked command prefix; an entry with none is never a candidate.
    fn verb(&self) -> &[String];
}

/// The entries of one table and an index of them by the first word of their prefix.
///
/// [`VerbTable::candidates`] gives the entries whose prefix starts with a word, longest prefix
/// first and, among equal lengths, later entries (later layers) first: the first candidate
/// that fits a command is its most specific, most recent entry.
#[derive(Clone, Debug)]
pub(crate) struct VerbTable<T> {
    entries: Vec<T>,
    /// Indices of the entries with a prefix, sorted by first word, then longest prefix, then
    /// latest entry.
    order: Vec<usize>,
}

impl<T> Default for VerbTable<T> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            order: Vec::new(),
        }
    }
}

impl<T: Keyed> VerbTable<T> {
    /// The table of `entries`, in declaration order.
    pub(crate) fn new(entries: Vec<T>) -> Self {
        let mut keys: Vec<(&str, std::cmp::Reverse<(usize, usize)>)> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let verb = e.verb();
                Some((verb.first()?.as_str(), std::cmp::Reverse((verb.len(), i))))
            })
            .collect();
        keys.sort_unstable();
        let order = keys
            .into_iter()
            .map(|(_, std::cmp::Reverse((_, i)))| i)
            .collect();
        Self { entries, order }
    }

    /// Every entry, in declaration order.
    pub(crate) fn entries(&self) -> &[T] {
        &self.entries
    }

    /// The entries whose prefix starts with `first` (see the type docs), with their indices.
    pub(crate) fn candidates<'s>(&'s self, first: &str) -> impl Iterator<Item = (usize, &'s T)> {
        let word = |i: &usize| {
            self.entries
                .get(*i)
                .and_then(|e| e.verb().first())
                .map_or("", String::as_str)
        };
        let start = self.order.partition_point(|i| word(i) < first);
        self.order
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(move |i| word(i) == first)
            .filter_map(|i| self.entries.get(*i).map(|entry| (*i, entry)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Keyed for Vec<String> {
        fn verb(&self) -> &[String] {
            self
        }
    }

    fn table(verbs: &[&[&str]]) -> VerbTable<Vec<String>> {
        VerbTable::new(
            verbs
                .iter()
                .map(|v| v.iter().map(|w| (*w).to_owned()).collect())
                .collect(),
        )
    }

    #[test]
    fn candidates_are_longest_then_latest_first() {
        let t = table(&[
            &["git"],
            &["git", "log"],
            &["ls"],
            &[],
            &["git", "log"],
            &["gitk"],
        ]);
        let found: Vec<usize> = t.candidates("git").map(|(i, _)| i).collect();
        assert_eq!(found, [4, 1, 0]);
        assert_eq!(t.candidates("ls").map(|(i, _)| i).collect::<Vec<_>>(), [2]);
        assert_eq!(t.candidates("gi").count(), 0);
        assert_eq!(t.candidates("").count(), 0);
        assert_eq!(t.entries().len(), 6);
    }
}
