//! Several processes at once, and writers killed mid-write.
//!
//! The child processes are this test binary itself, re-run with `--exact <helper> --ignored`;
//! the helpers are `#[ignore]`d so they only run when a parent test starts them with the
//! `SHELLGATE_TEST_*` variables set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shellgate_store::{Access, TrustStore, VerbPattern, ZonePath};

const WRITERS: usize = 8;
const GRANTS_PER_WRITER: usize = 200;

fn open(path: &Path) -> TrustStore {
    let opened = TrustStore::open_with_home(path, None).unwrap();
    assert_eq!(
        opened.quarantined, None,
        "the file must never need quarantine"
    );
    opened.store
}

fn child(helper: &str, vars: &[(&str, String)]) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            helper,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    for (key, value) in vars {
        command.env(key, value);
    }
    command.spawn().unwrap()
}

fn env_path(name: &str) -> PathBuf {
    PathBuf::from(std::env::var_os(name).unwrap())
}

/// Child: waits for the start file, then adds 200 distinct grants (patterns and zones).
#[test]
#[ignore = "helper process for eight_processes_lose_nothing"]
fn helper_concurrent_writer() {
    let path = env_path("SHELLGATE_TEST_TRUST");
    let go = env_path("SHELLGATE_TEST_GO");
    let writer: usize = std::env::var("SHELLGATE_TEST_WRITER")
        .unwrap()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !go.exists() {
        assert!(Instant::now() < deadline, "start file never appeared");
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut store = open(&path);
    for n in 0..GRANTS_PER_WRITER {
        let outcome = if n % 2 == 0 {
            let pattern: VerbPattern = format!("tool{writer} run{n} *").parse().unwrap();
            store.add_pattern("personal", &pattern).unwrap()
        } else {
            let zone = ZonePath::new(&format!("/tmp/w{writer}/z{n}"), None).unwrap();
            store.add_zone("personal", &zone, Access::Write).unwrap()
        };
        assert!(outcome.changed);
        assert_eq!(outcome.quarantined, None);
    }
}

#[test]
fn eight_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let go = dir.path().join("go");
    let children: Vec<Child> = (0..WRITERS)
        .map(|writer| {
            child(
                "helper_concurrent_writer",
                &[
                    ("SHELLGATE_TEST_TRUST", path.display().to_string()),
                    ("SHELLGATE_TEST_GO", go.display().to_string()),
                    ("SHELLGATE_TEST_WRITER", writer.to_string()),
                ],
            )
        })
        .collect();
    std::fs::write(&go, "").unwrap();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(
        table.get("version").and_then(toml::Value::as_integer),
        Some(1)
    );
    let grants = open(&path).snapshot("personal");
    assert_eq!(
        grants.zones.len() + grants.patterns.len(),
        WRITERS * GRANTS_PER_WRITER
    );
    for writer in 0..WRITERS {
        for n in 0..GRANTS_PER_WRITER {
            if n % 2 == 0 {
                let pattern: VerbPattern = format!("tool{writer} run{n} *").parse().unwrap();
                assert!(grants.patterns.contains(&pattern), "lost {pattern}");
            } else {
                let zone = ZonePath::new(&format!("/tmp/w{writer}/z{n}"), None).unwrap();
                assert!(
                    grants
                        .zones
                        .iter()
                        .any(|z| z.path == zone && z.access == Access::Write),
                    "lost {zone}"
                );
            }
        }
    }
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// Child: adds `cN *` forever, continuing from what the file holds.
#[test]
#[ignore = "helper process for writers_killed_mid_write_leave_old_or_new_content"]
fn helper_endless_writer() {
    let path = env_path("SHELLGATE_TEST_TRUST");
    let mut store = open(&path);
    let mut next = store.snapshot("personal").patterns.len();
    loop {
        let pattern: VerbPattern = format!("c{next} *").parse().unwrap();
        assert!(store.add_pattern("personal", &pattern).unwrap().changed);
        next += 1;
    }
}

/// Temporary files left in `dir` (names starting with `.trust.toml.`).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".trust.toml."))
        .collect()
}

#[test]
fn writers_killed_mid_write_leave_old_or_new_content() {
    const KILLS: usize = 200;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    // The reference store replays the same sequence without interruption; its file after k
    // additions is the only acceptable content for a file that holds k patterns.
    let reference_dir = tempfile::tempdir().unwrap();
    let reference_path = reference_dir.path().join("trust.toml");
    let mut reference = open(&reference_path);
    let mut reference_count = 0;
    // A small deterministic generator for the kill delays.
    let mut seed: u64 = 0x5eed_cafe;
    let mut advanced = 0;
    let mut last = 0;
    for _ in 0..KILLS {
        let mut writer = child(
            "helper_endless_writer",
            &[("SHELLGATE_TEST_TRUST", path.display().to_string())],
        );
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_micros(2_000 + (seed >> 33) % 40_000);
        std::thread::sleep(delay);
        writer.kill().unwrap();
        writer.wait().unwrap();

        let count = if path.exists() {
            let text = std::fs::read_to_string(&path).unwrap();
            let _: toml::Table = toml::from_str(&text).unwrap();
            let patterns = open(&path).snapshot("personal").patterns;
            let expected: Vec<VerbPattern> = (0..patterns.len())
                .map(|n| format!("c{n} *").parse().unwrap())
                .collect();
            assert_eq!(patterns, expected);
            while reference_count < patterns.len() {
                let pattern: VerbPattern = format!("c{reference_count} *").parse().unwrap();
                assert!(reference.add_pattern("personal", &pattern).unwrap().changed);
                reference_count += 1;
            }
            assert_eq!(text, std::fs::read_to_string(&reference_path).unwrap());
            patterns.len()
        } else {
            0
        };
        assert!(
            count >= last,
            "the file went back from {last} to {count} patterns"
        );
        if count > last {
            advanced += 1;
        }
        last = count;
    }
    // The test is only meaningful if writers got to write between kills.
    assert!(
        advanced > KILLS / 2,
        "only {advanced} of {KILLS} writers wrote anything"
    );
    // Leftover temporary files from killed writers are removed by the next write.
    let mut store = open(&path);
    let pattern: VerbPattern = format!("c{last} *").parse().unwrap();
    assert!(store.add_pattern("personal", &pattern).unwrap().changed);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    eprintln!(
        "crash test: {KILLS} kills, {advanced} advanced the file, {last} patterns at the end"
    );
}
