//! A bounded memo of outcomes: agent logs repeat the same commands (`cargo test`, `git
//! status`) thousands of times, and with symbolic-link resolution off an evaluation depends
//! only on the command, its working directory and its audience, so each distinct record is
//! judged once.
//!
//! The memo is sharded (one lock per shard, so rayon workers rarely wait on each other) and
//! keeps the first records it sees until it is full, then stops inserting. Keeping the first
//! ones, rather than evicting the least recently used, never thrashes on a log that cycles
//! through more distinct commands than fit: the records kept still hit.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

use super::judge::{Judge, Outcome, Record};

const SHARDS: usize = 16;

/// Memoised outcomes of a judge.
#[derive(Debug)]
pub(crate) struct Memo {
    shards: Vec<Mutex<HashMap<Box<str>, Outcome>>>,
    per_shard: usize,
    hasher: RandomState,
}

impl Memo {
    /// A memo of at most `capacity` outcomes.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            per_shard: capacity.div_ceil(SHARDS),
            hasher: RandomState::new(),
        }
    }

    /// The outcome of `record`, judged by `judge` unless it was judged before. `key` is a
    /// scratch buffer.
    pub(crate) fn judge<J: Judge>(
        &self,
        judge: &J,
        record: &Record<'_>,
        key: &mut String,
    ) -> Outcome {
        key.clear();
        // Length-prefixed, so no audience, cwd or command can be mistaken for another.
        let audience = record.audience.as_deref().unwrap_or("");
        let cwd = record.cwd.as_deref().unwrap_or("");
        let _ = write!(key, "{}:{audience}{}:{cwd}", audience.len(), cwd.len());
        key.push_str(&record.command);
        let index = usize::try_from(self.hasher.hash_one(key.as_str())).unwrap_or(0) % SHARDS;
        let Some(shard) = self.shards.get(index) else {
            return judge.judge(record, &[]);
        };
        if let Some(outcome) = shard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key.as_str())
        {
            return outcome.clone();
        }
        let outcome = judge.judge(record, &[]);
        let mut map = shard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() < self.per_shard {
            map.insert(key.as_str().into(), outcome.clone());
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::audit::judge::{Decision, Grant};

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
        let memo = Memo::new(SHARDS * 2);
        let mut key = String::new();
        let record = |command: &'static str, cwd: Option<&'static str>| Record {
            line: 1,
            command: Cow::Borrowed(command),
            cwd: cwd.map(Cow::Borrowed),
            audience: None,
        };
        for _ in 0..3 {
            assert_eq!(
                memo.judge(&judge, &record("ls", None), &mut key).decision,
                Decision::Approved
            );
            assert_eq!(
                memo.judge(&judge, &record("rm x", None), &mut key).decision,
                Decision::NeedsPrompt
            );
            assert_eq!(
                memo.judge(&judge, &record("ls", Some("/p")), &mut key)
                    .decision,
                Decision::Approved
            );
        }
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        // Full: later records are judged every time, and still judged right.
        for i in 0..(SHARDS * 4) {
            let command = format!("echo {i}");
            let record = Record {
                line: 1,
                command: Cow::Owned(command),
                cwd: None,
                audience: None,
            };
            memo.judge(&judge, &record, &mut key);
        }
        let total: usize = memo
            .shards
            .iter()
            .map(|shard| shard.lock().unwrap().len())
            .sum();
        assert!(total <= SHARDS * 2);
    }
}
