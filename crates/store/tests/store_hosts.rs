//! Host grants in the trust file: written exactly, read back, removed keeping comments, an old
//! file without `hosts` still loads, and a bad or too broad host quarantines the file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::path::{Path, PathBuf};

use shellgate_store::{HostGrant, SessionGrants, TrustStore, VerbPattern};

fn host(text: &str) -> HostGrant {
    text.parse().unwrap()
}

fn open(path: &Path) -> TrustStore {
    let opened = TrustStore::open_with_home(path, Some(PathBuf::from("/home/u"))).unwrap();
    assert_eq!(opened.quarantined, None);
    opened.store
}

#[test]
fn hosts_round_trip_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    let mut store = open(&path);
    assert!(
        store
            .add_host("personal", &host("api.github.com"))
            .unwrap()
            .changed
    );
    assert!(
        store
            .add_host("personal", &host("*.Example.com."))
            .unwrap()
            .changed
    );
    assert!(
        !store
            .add_host("personal", &host("API.github.com"))
            .unwrap()
            .changed
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# shellgate trust file: what this person approved with \"Always\".\n\
         # Edit it by hand or with `shellgate approvals`; comments and order are kept.\n\
         version = 1\n\n\
         [audience.personal]\n\
         hosts = [\n    \"api.github.com\",\n    \"*.example.com\",\n]\n"
    );
    let reopened = open(&path);
    assert_eq!(
        reopened.snapshot("personal").hosts,
        vec![host("api.github.com"), host("*.example.com")]
    );
}

#[test]
fn removing_a_host_keeps_the_other_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::write(
        &path,
        "version = 1\n\n# mine\n[audience.personal]\npatterns = [\"cargo test *\"] # tests\n\
         hosts = [\n    \"api.github.com\", # the API\n    \"pypi.org\",\n]\n",
    )
    .unwrap();
    let mut store = open(&path);
    assert!(
        store
            .revoke_host("personal", &host("PYPI.org"))
            .unwrap()
            .changed
    );
    assert!(
        !store
            .revoke_host("personal", &host("pypi.org"))
            .unwrap()
            .changed
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "version = 1\n\n# mine\n[audience.personal]\npatterns = [\"cargo test *\"] # tests\n\
         hosts = [\n    \"api.github.com\", # the API\n]\n"
    );
    let grants = store.snapshot("personal");
    assert_eq!(grants.hosts, vec![host("api.github.com")]);
    assert_eq!(
        grants.patterns,
        vec!["cargo test *".parse::<VerbPattern>().unwrap()]
    );
}

#[test]
fn a_file_without_hosts_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::write(
        &path,
        "version = 1\n[audience.personal]\npatterns = [\"a *\"]\n",
    )
    .unwrap();
    let store = open(&path);
    assert!(store.snapshot("personal").hosts.is_empty());
    assert_eq!(store.snapshot("personal").patterns.len(), 1);
}

#[test]
fn a_too_broad_host_quarantines_the_file_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trust.toml");
    std::fs::write(
        &path,
        "version = 1\n[audience.personal]\nhosts = [\"*.com\"]\n",
    )
    .unwrap();
    let opened = TrustStore::open_with_home(&path, None).unwrap();
    let quarantine = opened.quarantined.unwrap();
    assert_eq!(
        quarantine.reason,
        "line 3, column 10: `*.com` would trust too many hosts: it covers a whole top-level domain"
    );
    assert!(opened.store.snapshot("personal").is_empty());
}

#[test]
fn session_hosts_live_in_memory() {
    let mut sessions = SessionGrants::new();
    assert!(sessions.add_host("s1", &host("pypi.org")));
    assert!(!sessions.add_host("s1", &host("pypi.org")));
    assert_eq!(sessions.snapshot("s1").hosts, vec![host("pypi.org")]);
    assert!(sessions.revoke_host("s1", &host("pypi.org")));
    assert!(sessions.snapshot("s1").is_empty());
}
