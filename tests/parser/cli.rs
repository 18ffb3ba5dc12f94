//! `shellgate parse`: the seed 000 verb hints through the library and the binary, the exact
//! `--json` shape, the readable view and the exit codes.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use shellgate_parser::{ParseOptions, parse};

/// Seed 000's ten suggested cases: input and expected verb.
const SEED_000: &[(&str, &[&str])] = &[
    (
        "freshdesk ticket list --status open",
        &["freshdesk", "ticket", "list"],
    ),
    (
        "git -C /repo worktree list --porcelain",
        &["git", "worktree", "list"],
    ),
    ("kubectl get pods", &["kubectl", "get", "pods"]),
    (
        "kubectl get pods my-pod",
        &["kubectl", "get", "pods", "my-pod"],
    ),
    ("aws s3 cp src dst", &["aws", "s3", "cp", "src", "dst"]),
    ("git push origin main", &["git", "push", "origin", "main"]),
    ("cat /etc/passwd", &["cat"]),
    ("chmod 755 file", &["chmod"]),
    ("echo --version", &["echo"]),
    ("ls -la /tmp", &["ls"]),
];

fn shellgate(args: &[&str], stdin: Option<&str>) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn parse_json(command: &str) -> (i32, Value) {
    let (code, stdout) = shellgate(
        &[
            "parse", "--json", "--cwd", "/work", "--home", "/home/me", "--", command,
        ],
        None,
    );
    (code, serde_json::from_str(&stdout).unwrap())
}

#[test]
fn seed_000_through_the_library() {
    for (input, verb) in SEED_000 {
        let out = parse(input, &ParseOptions::default());
        assert!(out.complete, "{input}");
        assert_eq!(out.graph.len(), 1, "{input}");
        assert_eq!(out.graph.get(0).unwrap().verb, *verb, "{input}");
    }
}

#[test]
fn seed_000_through_the_binary() {
    for (input, verb) in SEED_000 {
        let (code, value) = parse_json(input);
        assert_eq!(code, 0, "{input}");
        assert_eq!(value["clauses"][0]["verb"], json!(verb), "{input}");
        assert_eq!(value["clauses"].as_array().unwrap().len(), 1, "{input}");
    }
}

#[test]
fn json_shape_is_exact() {
    let (code, value) = parse_json("cd src && make 2>&1 | tee \"build log\"");
    assert_eq!(code, 0);
    assert_eq!(
        value,
        json!({
            "complete": true,
            "reason": null,
            "clauses": [
                {"verb": ["cd", "src"], "argv": ["cd", "src"], "context": "top", "operator": null,
                 "redirects": [], "cwd": "/work", "literal_verb": true, "span": [0, 6]},
                {"verb": ["make"], "argv": ["make"], "context": "pipeline", "operator": "&&",
                 "redirects": [{"op": ">&", "target": "1"}], "cwd": "/work/src",
                 "literal_verb": true, "span": [10, 19]},
                {"verb": ["tee"], "argv": ["tee", "build log"], "context": "pipeline",
                 "operator": "|", "redirects": [], "cwd": "/work/src", "literal_verb": true,
                 "span": [22, 37]}
            ]
        })
    );
}

#[test]
fn incomplete_exits_2_with_reason() {
    let (code, value) = parse_json("echo \"unterminated; rm -rf /");
    assert_eq!(code, 2);
    assert_eq!(value["complete"], json!(false));
    assert_eq!(value["reason"], json!("unterminated double quote"));
    assert_eq!(
        value["clauses"][0]["argv"],
        json!(["echo", "unterminated; rm -rf /"])
    );
    assert_eq!(value["clauses"][0]["cwd"], Value::Null);
}

#[test]
fn readable_view_and_stdin() {
    let (code, stdout) = shellgate(
        &["parse", "--cwd", "/w", "--home", "/h", "--", "-"],
        Some("ls > out; (cd /tmp && echo $(date))"),
    );
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "complete\n\
         \x20 [0] top `ls` verb=ls >out cwd=/w\n\
         \x20   [1] subshell ; `cd /tmp` verb=cd cwd=/w\n\
         \x20   [2] subshell && `echo $(date)` verb=echo cwd=/tmp\n\
         \x20     [3] substitution `date` verb=date cwd=/tmp in=[2]\n"
    );
}

#[test]
fn several_arguments_are_joined() {
    let (code, value) = parse_json("git");
    assert_eq!(code, 0);
    assert_eq!(value["clauses"][0]["argv"], json!(["git"]));
    let (code, stdout) = shellgate(&["parse", "--json", "--", "git", "status"], None);
    assert_eq!(code, 0);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["clauses"][0]["argv"], json!(["git", "status"]));
}

#[test]
fn usage_errors_exit_1() {
    let (code, _) = shellgate(&["parse", "--json"], None);
    assert_eq!(code, 1);
    let (code, _) = shellgate(&["parse", "--cwd"], None);
    assert_eq!(code, 1);
}
