//! A bounded memo of outcomes: agent logs repeat the same commands (`cargo test`, `git
//! status`) thousands of times, and with symbolic-link resolution off an evaluation depends
//! only on the command, its working directory and its audience, so each distinct record is
//! judged once.
//!
//! The memo is sharded (one lock per shard, so rayon workers rarely wait on each other) and
//! keeps the first records it sees until it is full, then stops inserting. Its capacity is one
//! count over every shard (a slot is reserved before a record is stored), so exactly the first
//! `capacity` distinct records are kept whatever shards their hashes choose. Keeping the first
//! ones, rather than evicting the least recently used, never thrashes on a log that cycles
//! through more distinct commands than fit: the records kept still hit. A key is hashed once
//! (keyed SipHash) and compared whole on a hit, so a hash collision is only ever a miss.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::judge::{Judge, Outcome, Record};

const SHARDS: usize = 16;

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Shard = HashMap<u64, (Box<[u8]>, Arc<Outcome>), BuildHasherDefault<Prehashed>>;

/// One record's outcome, with the hash of its key and whether it was judged just now.
#[derive(Debug)]
pub(crate) struct Judgement {
    /// The outcome.
    pub outcome: Arc<Outcome>,
    /// The keyed hash of (audience, cwd, command): equal records have equal hashes.
    pub hash: u64,
    /// The judge ran for this record (it was not in the memo): the first occurrence of a
    /// record is always fresh.
    pub fresh: bool,
}

/// Memoised outcomes of a judge.
#[derive(Debug)]
pub(crate) struct Memo {
    shards: Vec<Mutex<Shard>>,
    /// Most outcomes kept, over every shard.
    capacity: usize,
    /// Outcomes kept (or reserved) so far; never above `capacity`.
    stored: AtomicUsize,
    hasher: RandomState,
    misses: AtomicU64,
}

impl Memo {
    /// A memo of at most `capacity` outcomes (0: none; every record is then judged, and
    /// fresh).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            capacity,
            stored: AtomicUsize::new(0),
            hasher: RandomState::new(),
            misses: AtomicU64::new(0),
        }
    }

    /// How many records were judged (not found in the memo).
    pub(crate) fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// The outcome of `record`, judged by `judge` unless it was judged before. `key` is a
    /// scratch buffer.
    pub(crate) fn judge<J: Judge>(
        &self,
        judge: &J,
        record: &Record<'_>,
        key: &mut Vec<u8>,
    ) -> Judgement {
        key.clear();
        // Length-prefixed, so no audience, cwd or command can be mistaken for another.
        for part in [record.audience.as_deref(), record.cwd.as_deref()] {
            let part = part.unwrap_or("");
            key.extend_from_slice(&(part.len() as u64).to_le_bytes());
            key.extend_from_slice(part.as_bytes());
        }
        key.extend_from_slice(record.command.as_bytes());
        let hash = self.hasher.hash_one(key.as_slice());
        let index = usize::try_from(hash % SHARDS as u64).unwrap_or(0);
        let fresh = |outcome: Outcome| Judgement {
            outcome: Arc::new(outcome),
            hash,
            fresh: true,
        };
        self.misses.fetch_add(1, Ordering::Relaxed);
        let Some(shard) = self.shards.get(index) else {
            return fresh(judge.judge(record, &[]));
        };
        if let Some((stored, outcome)) = shard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&hash)
            && **stored == **key
        {
            self.misses.fetch_sub(1, Ordering::Relaxed);
            return Judgement {
                outcome: Arc::clone(outcome),
                hash,
                fresh: false,
            };
        }
        let judged = fresh(judge.judge(record, &[]));
        let mut map = shard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !map.contains_key(&hash) && self.reserve() {
            map.insert(hash, (key.as_slice().into(), Arc::clone(&judged.outcome)));
        }
        judged
    }

    /// Takes one of the `capacity` slots; false when the memo is full.
    fn reserve(&self) -> bool {
        self.stored
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |stored| {
                (stored < self.capacity).then_some(stored + 1)
            })
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::audit::judge::{Decision, Grant};

    fn record(
        command: &str,
        cwd: Option<&'static str>,
        audience: Option<&'static str>,
    ) -> Record<'static> {
        Record {
            line: 1,
            command: Cow::Owned(command.to_owned()),
            cwd: cwd.map(Cow::Borrowed),
            audience: audience.map(Cow::Borrowed),
        }
    }

    /// Regression (issue 13): the capacity used to be split evenly between the shards, so
    /// whether the first records were all kept depended on the shards the randomly keyed
    /// hasher chose for them; the test failed about once in a few hundred runs.
    #[test]
    fn judges_each_distinct_record_once_until_full() {
        let calls = AtomicUsize::new(0);
        let judge = |record: &Record<'_>, _: &[Grant]| {
            calls.fetch_add(1, Ordering::Relaxed);
            Outcome::bare(if record.command == "ls" {
                Decision::Approved
            } else {
                Decision::NeedsPrompt
            })
        };
        // Room for the five records below and one more, whatever their hashes.
        let memo = Memo::new(6);
        let mut key = Vec::new();
        for round in 0..3 {
            for (command, cwd, audience, decision) in [
                ("ls", None, None, Decision::Approved),
                ("rm x", None, None, Decision::NeedsPrompt),
                ("ls", Some("/p"), None, Decision::Approved),
                // The same bytes split differently between the parts are different records.
                ("ls", Some("a"), Some("b"), Decision::Approved),
                ("ls", Some(""), Some("ba"), Decision::Approved),
            ] {
                let got = memo.judge(&judge, &record(command, cwd, audience), &mut key);
                assert_eq!(got.outcome.decision, decision);
                assert_eq!(got.fresh, round == 0, "{command} {cwd:?} {audience:?}");
            }
        }
        assert_eq!(calls.load(Ordering::Relaxed), 5);
        assert_eq!(memo.misses(), 5);
        // `echo 0` takes the last slot; every later record is judged every time, and still
        // judged right, while the kept ones keep hitting.
        for round in 0..2 {
            for i in 0..(SHARDS * 4) {
                let got = memo.judge(&judge, &record(&format!("echo {i}"), None, None), &mut key);
                assert_eq!(got.outcome.decision, Decision::NeedsPrompt);
                assert_eq!(got.fresh, round == 0 || i > 0, "round {round}, echo {i}");
            }
        }
        assert!(
            !memo
                .judge(&judge, &record("ls", None, None), &mut key)
                .fresh
        );
        let total: usize = memo
            .shards
            .iter()
            .map(|shard| shard.lock().unwrap().len())
            .sum();
        assert_eq!(total, 6);
        // 5, then 64 fresh `echo` records, then 63 again (`echo 0` hit).
        assert_eq!(memo.misses(), 5 + 64 + 63);
    }

    #[test]
    fn a_memo_of_capacity_zero_keeps_nothing() {
        let judge = |_: &Record<'_>, _: &[Grant]| Outcome::bare(Decision::Approved);
        let memo = Memo::new(0);
        let mut key = Vec::new();
        for _ in 0..3 {
            assert!(
                memo.judge(&judge, &record("ls", None, None), &mut key)
                    .fresh
            );
        }
        assert_eq!(memo.misses(), 3);
    }
}
