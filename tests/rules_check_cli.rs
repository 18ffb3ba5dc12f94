//! `shellgate check`: exit codes, diagnostics and the `--json` contract.

use std::process::Command;

#[expect(
    clippy::panic,
    reason = "a test helper: a binary that cannot run fails the test"
)]
fn check(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .arg("check")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run shellgate: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_default_policy_is_clean() {
    let (code, stdout, stderr) = check(&["policies/default.toml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("ok: policies/default.toml checked: "),
        "{stdout}"
    );
    assert_eq!(stderr, "");
}

#[test]
fn the_default_policy_is_clean_as_json() {
    let (code, stdout, _) = check(&["--json", "policies/default.toml"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(
        report["files"],
        serde_json::json!(["policies/default.toml"])
    );
    assert_eq!(report["errors"], serde_json::json!([]));
    // Every `match` and `not_match` example of the file, counted independently.
    let file: toml::Table = toml::from_str(shellgate_rules::DEFAULT_POLICY).unwrap();
    // (Ask rules' examples count with the deny rules'.)
    let written: usize = ["deny", "ask"]
        .iter()
        .flat_map(|table| file[*table].as_array().unwrap())
        .flat_map(|rule| {
            ["match", "not_match"].map(|k| {
                rule.get(k)
                    .and_then(toml::Value::as_array)
                    .map_or(0, Vec::len)
            })
        })
        .sum();
    assert_eq!(report["summary"]["examples"].as_u64(), Some(written as u64));
}

#[test]
fn a_bad_file_prints_a_located_diagnostic() {
    let (code, stdout, stderr) = check(&["tests/data/policies/bad/unknown_category.toml"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("× unknown category `destrutive`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[tests/data/policies/bad/unknown_category.toml:5:12]"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: did you mean `destructive`?"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("1 error found; the policy was not loaded\n"),
        "{stderr}"
    );
}

#[test]
fn a_bad_file_as_json() {
    let (code, stdout, _) = check(&["--json", "tests/data/policies/bad/two_errors.toml"]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report,
        serde_json::json!({
            "ok": false,
            "files": ["tests/data/policies/bad/two_errors.toml"],
            "errors": [
                {"file": "tests/data/policies/bad/two_errors.toml", "line": 6, "column": 10,
                 "code": "shellgate::policy::invalid", "message": "`reason` is empty",
                 "help": "write a short sentence for `reason`"},
                {"file": "tests/data/policies/bad/two_errors.toml", "line": 13, "column": 8,
                 "code": "shellgate::policy::invalid", "message": "`verb` is empty",
                 "help": "name the command, such as `verb = [\"git\", \"log\"]`"}
            ],
            "summary": null
        })
    );
}

#[test]
fn a_project_layer_may_not_loosen() {
    let (code, stdout, _) = check(&[
        "--json",
        "--layer",
        "project",
        "tests/data/policies/bad/project_adds_safe.toml",
    ]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["errors"][0]["message"],
        "a project layer cannot add `[[safe]]` entries"
    );
    // The same file is fine as a user layer.
    let (code, _, stderr) = check(&["tests/data/policies/bad/project_adds_safe.toml"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_unknown_layer_suggests_one() {
    let (code, stdout, _) = check(&["--json", "--layer", "projcet", "x.toml"]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["errors"],
        serde_json::json!([{"file": null, "line": null, "column": null,
            "code": "shellgate::policy::unknown_name", "message": "unknown layer `projcet`",
            "help": "did you mean `project`?"}])
    );
}

#[test]
fn an_unreadable_file_is_an_error() {
    let (code, stdout, _) = check(&["--json", "no/such/file.toml"]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["errors"][0]["code"], "shellgate::policy::io");
    assert_eq!(report["errors"][0]["file"], "no/such/file.toml");
}
