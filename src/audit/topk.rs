//! A bounded heavy-hitters counter (a batched Space-Saving sketch).
//!
//! The summary counts prompting clauses, untrusted paths and deny rules over logs of any size.
//! An exact map would grow with the number of distinct keys (every distinct `/tmp/x123` path),
//! so each counter keeps at most `2 × capacity` keys: when it is full, it keeps the `capacity`
//! largest counts and drops the rest, remembering the largest dropped count as its *floor*. A
//! key seen for the first time after that starts at `floor + n` with an error bound of `floor`,
//! as in Space-Saving (Metwally et al., 2005): a reported count never underestimates, and it
//! overestimates by at most its error bound. Keys whose true count exceeds the floor are never
//! lost. Dropping half the keys at once makes each insertion amortised O(1).

use std::collections::HashMap;

/// Longest key kept, in bytes; longer keys are cut at a character boundary and marked with `…`.
const MAX_KEY_BYTES: usize = 256;

/// One counted key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slot<V> {
    /// Estimated count (an upper bound of the true count).
    pub count: u64,
    /// How much `count` may overestimate; 0 means exact.
    pub error: u64,
    /// Data remembered with the key when it was first inserted (an example, a category).
    pub value: V,
}

/// A bounded counter of string keys.
#[derive(Debug)]
pub(crate) struct TopK<V> {
    capacity: usize,
    floor: u64,
    map: HashMap<Box<str>, Slot<V>>,
}

impl<V> TopK<V> {
    /// A counter that keeps at least the `capacity` heaviest keys.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            floor: 0,
            map: HashMap::new(),
        }
    }

    /// Counts `n` occurrences of `key`; `value` is called only when the key is new.
    pub(crate) fn add(&mut self, key: &str, n: u64, value: impl FnOnce() -> V) {
        let key = clip(key);
        if let Some(slot) = self.map.get_mut(key) {
            slot.count = slot.count.saturating_add(n);
            return;
        }
        if self.map.len() >= self.capacity.saturating_mul(2) {
            self.compact();
        }
        self.map.insert(
            key.into(),
            Slot {
                count: self.floor.saturating_add(n),
                error: self.floor,
                value: value(),
            },
        );
    }

    /// Keeps the `capacity` largest counts (and ties of the smallest of them are dropped).
    fn compact(&mut self) {
        let mut counts: Vec<u64> = self.map.values().map(|slot| slot.count).collect();
        let index = self.capacity.saturating_sub(1);
        if index >= counts.len() {
            return;
        }
        let (_, threshold, _) = counts.select_nth_unstable_by(index, |a, b| b.cmp(a));
        let threshold = *threshold;
        self.map.retain(|_, slot| slot.count > threshold);
        self.floor = self.floor.max(threshold);
    }

    /// The `k` heaviest keys, by count descending, then key ascending.
    pub(crate) fn top(&self, k: usize) -> Vec<(&str, &Slot<V>)> {
        let mut all: Vec<(&str, &Slot<V>)> =
            self.map.iter().map(|(key, slot)| (&**key, slot)).collect();
        all.sort_unstable_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
        all.truncate(k);
        all
    }

    /// Mutable access to a key's slot, if it is still held.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Slot<V>> {
        self.map.get_mut(clip(key))
    }

    /// Number of keys currently held (never more than twice the capacity).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

/// `key` cut to at most [`MAX_KEY_BYTES`] at a character boundary.
fn clip(key: &str) -> &str {
    if key.len() <= MAX_KEY_BYTES {
        return key;
    }
    let end = key
        .char_indices()
        .map(|(index, _)| index)
        .take_while(|&index| index <= MAX_KEY_BYTES)
        .last()
        .unwrap_or(0);
    key.get(..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_while_under_capacity() {
        let mut top = TopK::new(4);
        for key in ["a", "b", "a", "c", "a", "b"] {
            top.add(key, 1, || ());
        }
        let got: Vec<(&str, u64, u64)> = top
            .top(10)
            .into_iter()
            .map(|(key, slot)| (key, slot.count, slot.error))
            .collect();
        assert_eq!(got, vec![("a", 3, 0), ("b", 2, 0), ("c", 1, 0)]);
    }

    #[test]
    fn heavy_keys_survive_a_flood_of_distinct_keys() {
        let mut top = TopK::new(8);
        for i in 0..100_000u64 {
            top.add("heavy", 1, || ());
            top.add(&format!("noise-{i}"), 1, || ());
            if i % 3 == 0 {
                top.add("medium", 1, || ());
            }
        }
        assert!(top.len() <= 16);
        let best = top.top(2);
        assert_eq!(best[0].0, "heavy");
        assert_eq!(best[1].0, "medium");
        // Counts never underestimate and overestimate by at most the error bound.
        assert!(best[0].1.count >= 100_000);
        assert!(best[0].1.count - best[0].1.error <= 100_000);
        assert!(best[1].1.count >= 33_334);
        assert!(best[1].1.count - best[1].1.error <= 33_334);
    }

    #[test]
    fn value_is_kept_from_first_insertion() {
        let mut top = TopK::new(2);
        top.add("k", 1, || "first");
        top.add("k", 1, || "second");
        assert_eq!(top.top(1)[0].1.value, "first");
    }

    #[test]
    fn long_keys_are_clipped_at_char_boundaries() {
        let long = "é".repeat(300);
        assert!(clip(&long).len() <= MAX_KEY_BYTES);
        assert!(long.starts_with(clip(&long)));
        let mut top = TopK::new(2);
        top.add(&long, 1, || ());
        top.add(&format!("{long}tail"), 1, || ());
        assert_eq!(top.top(1)[0].1.count, 2);
    }
}
