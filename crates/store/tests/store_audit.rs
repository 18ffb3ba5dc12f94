//! The append-only JSONL audit log.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::io::Write as _;

use shellgate_store::{AuditLog, AuditRecord, StoreError};

fn record(n: usize, writer: usize) -> AuditRecord {
    AuditRecord {
        timestamp: shellgate_store::timestamp_now(),
        command: format!("echo {writer} {n} && printf 'two\\nlines'\n"),
        cwd: format!("/tmp/w{writer}"),
        audience: "personal".to_owned(),
        decision: ["Approved", "NeedsPrompt", "HardDenied"][n % 3].to_owned(),
        rule_ids: vec![format!("rule.{n}"), "default".to_owned()],
        choice: n.is_multiple_of(2).then(|| "once".to_owned()),
        error: n
            .is_multiple_of(5)
            .then(|| format!("policy.toml:{n}:1: unknown field")),
        ..AuditRecord::default()
    }
}

/// A record of `command` at a fixed time in `/home/me/p` for `personal`, decided by `rule`.
fn fixed(command: &str, decision: &str, rule: &str) -> AuditRecord {
    AuditRecord {
        timestamp: "2026-01-02T03:04:05.678Z".to_owned(),
        command: command.to_owned(),
        cwd: "/home/me/p".to_owned(),
        audience: "personal".to_owned(),
        decision: decision.to_owned(),
        rule_ids: vec![rule.to_owned()],
        ..AuditRecord::default()
    }
}

/// Appends `rec` to a new log at `name` in a new directory (which `open` creates); checks it
/// reads back as written and returns the file's text.
fn append_one(name: &str, rec: &AuditRecord) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    AuditLog::open(&path).unwrap().append(rec).unwrap();
    let read: Vec<AuditRecord> = AuditLog::read(&path).unwrap().map(Result::unwrap).collect();
    assert_eq!(read, std::slice::from_ref(rec));
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn a_record_is_one_exact_json_line() {
    let rec = fixed("git push\nrm -rf /", "NeedsPrompt", "git.push");
    assert_eq!(
        append_one("logs/audit.jsonl", &rec),
        "{\"timestamp\":\"2026-01-02T03:04:05.678Z\",\"command\":\"git push\\nrm -rf /\",\
         \"cwd\":\"/home/me/p\",\"audience\":\"personal\",\"decision\":\"NeedsPrompt\",\
         \"rule_ids\":[\"git.push\"],\"choice\":null}\n"
    );
}

/// Issue 13: a decision taken on the default policy's floor (a user policy did not load)
/// carries the error; records without one keep the exact old line.
#[test]
fn a_record_with_an_error_carries_it_and_reads_back() {
    let rec = AuditRecord {
        error: Some("broken.toml:3:1: unknown field `dny`".to_owned()),
        ..fixed("rm -rf /", "HardDenied", "rm-recursive-root")
    };
    assert_eq!(
        append_one("audit.jsonl", &rec),
        "{\"timestamp\":\"2026-01-02T03:04:05.678Z\",\"command\":\"rm -rf /\",\
         \"cwd\":\"/home/me/p\",\"audience\":\"personal\",\"decision\":\"HardDenied\",\
         \"rule_ids\":[\"rm-recursive-root\"],\"choice\":null,\
         \"error\":\"broken.toml:3:1: unknown field `dny`\"}\n"
    );
}

#[test]
fn timestamps_are_rfc3339_utc_with_milliseconds() {
    let stamp = shellgate_store::timestamp_now();
    assert_eq!(stamp.len(), 24, "{stamp}");
    let bytes = stamp.as_bytes();
    for (index, byte) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (23, b'Z'),
    ] {
        assert_eq!(bytes[index], byte, "{stamp}");
    }
    assert!(stamp.starts_with("20"), "{stamp}");
}

#[test]
fn concurrent_writers_never_interleave() {
    const WRITERS: usize = 8;
    const RECORDS: usize = 200;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let path = path.clone();
            scope.spawn(move || {
                // Each writer has its own open file description, as separate processes would.
                let log = AuditLog::open(&path).unwrap();
                for n in 0..RECORDS {
                    log.append(&record(n, writer)).unwrap();
                }
            });
        }
    });
    let records: Vec<AuditRecord> = AuditLog::read(&path).unwrap().map(Result::unwrap).collect();
    assert_eq!(records.len(), WRITERS * RECORDS);
    for writer in 0..WRITERS {
        let mine: Vec<String> = records
            .iter()
            .filter(|r| r.cwd == format!("/tmp/w{writer}"))
            .map(|r| r.command.clone())
            .collect();
        let expected: Vec<String> = (0..RECORDS).map(|n| record(n, writer).command).collect();
        assert_eq!(mine, expected, "writer {writer}'s records, in order");
    }
}

#[test]
fn a_torn_line_is_reported_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path).unwrap();
    log.append(&record(0, 0)).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"timestamp\":\"2026-01-0\n\n")
        .unwrap();
    log.append(&record(1, 0)).unwrap();
    let items: Vec<Result<AuditRecord, StoreError>> = AuditLog::read(&path).unwrap().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(
        items[0].as_ref().unwrap(),
        &record(0, 0).with_timestamp_of(items[0].as_ref().unwrap())
    );
    let err = items[1].as_ref().unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "audit log `{}` line 2 is not a record: ",
            path.display()
        )),
        "{err}"
    );
    assert_eq!(items[2].as_ref().unwrap().command, record(1, 0).command);
}

#[test]
fn a_missing_log_has_no_records_and_an_unopenable_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        AuditLog::read(dir.path().join("none.jsonl"))
            .unwrap()
            .count(),
        0
    );
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let err = AuditLog::open(blocker.join("audit.jsonl")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot open audit log `{}`",
            blocker.join("audit.jsonl").display()
        )
    );
}

trait SameTime {
    fn with_timestamp_of(self, other: &AuditRecord) -> AuditRecord;
}

impl SameTime for AuditRecord {
    fn with_timestamp_of(mut self, other: &AuditRecord) -> AuditRecord {
        self.timestamp = other.timestamp.clone();
        self
    }
}

/// Issue 14: a hook's record names the agent, its session and the answer sent; an old record
/// without those keys still reads.
#[test]
fn a_hook_record_names_the_agent_and_the_answer_and_old_records_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path).unwrap();
    let rec = AuditRecord {
        timestamp: "2026-01-02T03:04:05.678Z".to_owned(),
        command: "git push".to_owned(),
        cwd: "/p".to_owned(),
        audience: "personal".to_owned(),
        decision: "NeedsPrompt".to_owned(),
        agent: Some("codex".to_owned()),
        session_id: Some("s-1".to_owned()),
        answer: Some("deny".to_owned()),
        reason: Some("shellgate: needs a person".to_owned()),
        ..AuditRecord::default()
    };
    log.append(&rec).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"timestamp\":\"2026-01-02T03:04:05.678Z\",\"command\":\"git push\",\"cwd\":\"/p\",\
         \"audience\":\"personal\",\"decision\":\"NeedsPrompt\",\"rule_ids\":[],\"choice\":null,\
         \"agent\":\"codex\",\"session_id\":\"s-1\",\"answer\":\"deny\",\
         \"reason\":\"shellgate: needs a person\"}\n"
    );
    let old = dir.path().join("old.jsonl");
    std::fs::write(
        &old,
        "{\"timestamp\":\"t\",\"command\":\"ls\",\"cwd\":\"/\",\"audience\":\"personal\",\
         \"decision\":\"Approved\",\"rule_ids\":[],\"choice\":null}\n",
    )
    .unwrap();
    let read: Vec<AuditRecord> = AuditLog::read(&old).unwrap().map(Result::unwrap).collect();
    assert_eq!(read[0].agent, None);
    assert_eq!(read[0].answer, None);
}
