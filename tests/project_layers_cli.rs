//! Project layers at run time (issue 14): `eval`, `explain`, `hook` and `audit` load the
//! project's `.shellgate/policy.toml` (or `--project-policy FILE`) as a project layer, which may
//! only tighten; a file that does not load or tries to loosen is refused with its diagnostic,
//! and the default and user layers still apply with nothing running without a person.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step should fail the test loudly"
)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Adds a deny rule and an ask rule.
const TIGHTENING: &str = r#"version = 1

[[deny]]
id = "project-no-deploy"
category = "custom"
reason = "deploys from this repository go through CI; push a tag instead"
verb = ["make", "deploy"]
match = ["make deploy", "make -j4 deploy"]
not_match = ["make test"]

[[ask]]
id = "project-ask-migrate"
category = "custom"
reason = "migrations change the shared database; check with the team"
verb = ["make", "migrate"]
"#;

/// Tries to switch off a default deny rule (line 2, column 11).
const LOOSENING: &str = r#"version = 1
disable = ["rm-recursive-root"]
disable_reason = "trust me"
"#;

/// Tries to add a safe entry (line 3, column 1).
const WIDENING: &str = r#"version = 1

[[safe]]
verb = ["make"]
why = "it is only make"
"#;

/// A private home, trust file location and project directory.
struct Project {
    sandbox: common::Sandbox,
}

impl Project {
    /// A project whose `.shellgate/policy.toml` is `policy` (none when `None`).
    fn new(policy: Option<&str>) -> Self {
        let sandbox = common::Sandbox::new(&["home", "proj/.shellgate"]);
        if let Some(text) = policy {
            sandbox.write("proj/.shellgate/policy.toml", text);
        }
        Self { sandbox }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.sandbox.path(name)
    }

    fn project(&self) -> String {
        self.path("proj").display().to_string()
    }

    fn policy_file(&self) -> String {
        self.path("proj/.shellgate/policy.toml")
            .display()
            .to_string()
    }

    /// `shellgate ARGS` run in `cwd`; (exit code, stdout, stderr).
    fn run(&self, cwd: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
        let output = common::run(
            self.sandbox.shellgate(args).current_dir(cwd),
            stdin.as_bytes(),
        );
        common::outcome(output)
    }

    /// `shellgate eval --json` of `command` in the project directory; (exit code, JSON, stderr).
    fn eval(&self, extra: &[&str], command: &str) -> (i32, Value, String) {
        let mut args = vec!["eval", "--json"];
        args.extend_from_slice(extra);
        args.extend(["--", command]);
        let (code, stdout, stderr) = self.run(&self.path("proj"), &args, "");
        let value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        (code, value, stderr)
    }

    /// The Claude Code hook's answer to `command` run in the project (the payload's `cwd`);
    /// the process runs elsewhere, so the project comes from the payload.
    fn hook(&self, command: &str) -> Value {
        let payload = json!({
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "cwd": self.project(),
            "tool_name": "Bash",
            "tool_input": {"command": command},
        });
        let (code, stdout, stderr) = self.run(
            &self.path("home"),
            &[
                "hook",
                "claude-code",
                "--no-audit-log",
                "--deadline-ms",
                "600000",
            ],
            &payload.to_string(),
        );
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    }
}

fn claude(decision: &str, reason: &str) -> Value {
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }})
}

fn rules(value: &Value) -> Vec<String> {
    value["hard_deny"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_project_deny_rule_denies_through_eval() {
    let project = Project::new(Some(TIGHTENING));
    let (code, value, stderr) = project.eval(&[], "make -j4 deploy");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
    assert_eq!(rules(&value), ["project-no-deploy"]);
    assert_eq!(stderr, "");
    // Without the project file the same command only asks.
    let bare = Project::new(None);
    let (code, value, _) = bare.eval(&[], "make -j4 deploy");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
}

#[test]
fn a_project_deny_rule_denies_through_the_hook() {
    let project = Project::new(Some(TIGHTENING));
    assert_eq!(
        project.hook("make deploy"),
        claude(
            "deny",
            "shellgate: refused by `project-no-deploy` (custom): deploys from this repository go through CI; push a tag instead"
        )
    );
}

#[test]
fn a_project_ask_rule_asks_even_with_a_grant() {
    let project = Project::new(Some(TIGHTENING));
    let (code, value, _) = project.eval(&["--allow", "make migrate *"], "make migrate");
    assert_eq!(code, 2);
    assert_eq!(
        value["prompt"],
        json!({
            "paths": [],
            "hosts": [],
            "clauses": [{"text": "make migrate", "pattern": null}],
            "persistable": false,
            "display": "make migrate",
            "asked_by": [{
                "rule": "project-ask-migrate",
                "category": "custom",
                "reason": "migrations change the shared database; check with the team",
            }],
        })
    );
    assert_eq!(
        project.hook("make migrate"),
        claude(
            "ask",
            "shellgate: needs a person to decide per ask rule `project-ask-migrate` (custom): migrations change the shared database; check with the team; run `make migrate` (cannot be saved)"
        )
    );
}

#[test]
fn a_project_policy_that_disables_a_deny_rule_is_refused_and_the_default_still_denies() {
    let project = Project::new(Some(LOOSENING));
    let file = project.policy_file();
    let (code, value, stderr) = project.eval(&[], "rm -rf /");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
    assert_eq!(rules(&value), ["rm-recursive-root"]);
    assert!(
        stderr.contains("`disable` is not allowed in a project layer"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{file}:2:11")),
        "the diagnostic names file, line and column: {stderr}"
    );
    assert!(
        stderr.contains(
            "warning: the project policy was refused; only these layers apply: default policies/default.toml; and nothing runs without a person"
        ),
        "{stderr}"
    );
    let floor = format!(
        "the project policy was refused ({file}:2:11: `disable` is not allowed in a project layer (only a user policy may disable deny rules; a project policy may only add restrictions)), so only the default and user policies apply and nothing runs without a person; fix it (check it with `shellgate check --layer project FILE`)"
    );
    // What the default approves needs a person while the project file is broken.
    let (code, value, _) = project.eval(&[], "ls");
    assert_eq!(code, 2);
    assert_eq!(
        value["clauses"][1],
        json!({
            "verb": [], "argv": [], "origin": "policy", "decision": "NeedsPrompt",
            "reasons": [{"kind": "policy", "rule": null, "message": floor}],
        })
    );
    assert_eq!(
        value["prompt"],
        json!({"paths": [], "hosts": [], "clauses": [{"text": "ls", "pattern": null}], "persistable": false, "display": "ls"})
    );
    // The hook: deny where the default denies, ask otherwise, naming the file.
    let denied = project.hook("rm -rf /");
    let reason = denied["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(
        denied["hookSpecificOutput"]["permissionDecision"],
        json!("deny")
    );
    assert!(
        reason.starts_with(&format!(
            "shellgate: {floor}; refused by `rm-recursive-root`"
        )),
        "{reason}"
    );
    assert_eq!(
        project.hook("ls"),
        claude("ask", &format!("shellgate: {floor}"))
    );
}

#[test]
fn a_project_that_lowers_the_shell_depth_makes_nested_code_ask_and_hides_no_deny_rule() {
    let project = Project::new(Some("version = 1\n[settings]\nmax_shell_depth = 0\n"));
    for command in [r#"bash -c "rm -rf ~""#, r#"eval "rm -rf ~""#] {
        let (code, value, _) = project.eval(&[], command);
        assert_eq!(
            (code, value["decision"].as_str()),
            (3, Some("HardDenied")),
            "{command}"
        );
        assert_eq!(rules(&value), ["rm-recursive-root"], "{command}");
    }
    let (code, value, _) = project.eval(&[], r#"bash -c "echo hi""#);
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert_eq!(
        project.hook(r#"bash -c "rm -rf ~""#)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

#[test]
fn a_project_policy_that_adds_a_safe_entry_is_refused() {
    let project = Project::new(Some(WIDENING));
    let (code, value, stderr) = project.eval(&[], "make");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert_eq!(value["clauses"][1]["origin"], "policy");
    assert!(
        stderr.contains("a project layer cannot add `[[safe]]` entries"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:3:1", project.policy_file())),
        "{stderr}"
    );
}

#[test]
fn project_policy_flag_and_project_dir_pick_the_file() {
    let project = Project::new(None);
    let other = project.sandbox.write("elsewhere.toml", TIGHTENING);
    let (code, value, _) = project.eval(&["--project-policy", &other], "make deploy");
    assert_eq!(
        (code, rules(&value)),
        (3, vec!["project-no-deploy".to_owned()])
    );
    // `--project` names the project whose `.shellgate/policy.toml` applies.
    let tight = Project::new(Some(TIGHTENING));
    let (code, value, _) = project.eval(&["--project", &tight.project()], "make deploy");
    assert_eq!(
        (code, rules(&value)),
        (3, vec!["project-no-deploy".to_owned()])
    );
}

#[test]
fn an_unreadable_project_policy_is_refused_too() {
    let project = Project::new(None);
    let missing = project.path("missing.toml").display().to_string();
    let (code, value, stderr) = project.eval(&["--project-policy", &missing], "ls");
    assert_eq!(code, 2);
    assert_eq!(value["clauses"][1]["origin"], "policy");
    assert!(
        stderr.contains(&format!("error: cannot read `{missing}`")),
        "{stderr}"
    );
}

#[test]
fn explain_and_check_name_the_layers() {
    let project = Project::new(Some(TIGHTENING));
    let (code, stdout, _) =
        project.run(&project.path("proj"), &["explain", "--", "make deploy"], "");
    assert_eq!(code, 3);
    assert!(
        stdout.contains(&format!(
            "\npolicy: default policies/default.toml, project {}\n",
            project.policy_file()
        )),
        "{stdout}"
    );
    let file = project.policy_file();
    // The project layer adds one ask rule to the default policy's.
    let asks = shellgate_rules::Policy::embedded_default()
        .unwrap()
        .deny_rules()
        .iter()
        .filter(|r| r.is_ask())
        .count()
        + 1;
    let (code, stdout, stderr) = project.run(
        &project.path("home"),
        &["check", "--layer", "project", &file],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!("ok: {file} checked: "))
            && stdout.ends_with(&format!(
                "\n{asks} ask rules\nlayers: default policies/default.toml, project {file}\n"
            )),
        "{stdout}"
    );
    let (code, stdout, _) = project.run(
        &project.path("home"),
        &["check", "--json", "--layer", "project", &file],
        "",
    );
    assert_eq!(code, 0);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value["layers"],
        json!([
            {"layer": "default", "file": "policies/default.toml"},
            {"layer": "project", "file": file},
        ])
    );
    assert_eq!(value["summary"]["ask"], asks);
}

#[test]
fn audit_applies_the_project_layer() {
    let project = Project::new(Some(TIGHTENING));
    let log = project.sandbox.write("commands.txt", "make deploy\nls\n");
    let (code, stdout, stderr) = project.run(
        &project.path("proj"),
        &["audit", "--json", "--format", "lines", &log],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["decisions"]["HardDenied"], 1, "{value}");
}

#[test]
fn a_project_interpreter_entry_for_a_command_the_default_unwraps_is_refused() {
    // Taking `find`'s place would drop its `-exec` unwrapping, and with it the deny rules.
    let project = Project::new(Some(
        "version = 1\n[[interpreter]]\nverbs = [[\"find\"]]\ncode_flags = [\"--zz\"]\nwhy = \"stricter find\"\n",
    ));
    let (code, value, stderr) = project.eval(&[], "find . -exec rm -rf ~ \\;");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
    assert_eq!(rules(&value), ["rm-recursive-root"]);
    assert!(
        stderr.contains(
            "a project layer cannot declare `find` as an interpreter: an earlier layer already knows the command (by this name or the one it folds to)"
        ),
        "{stderr}"
    );
    // A command no earlier layer knows may be declared.
    let fresh = Project::new(Some(
        "version = 1\n[[interpreter]]\nverbs = [[\"mytool\"]]\ncode_flags = [\"-e\"]\nwhy = \"runs its -e code\"\n",
    ));
    let (code, value, stderr) = fresh.eval(&[], "mytool -e 'x'");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert_eq!(stderr, "");
}

#[test]
fn a_project_interpreter_entry_for_a_folded_or_known_name_or_with_a_script_operand_is_refused() {
    // `Bash` is judged as `bash` too; declaring it would stop that.
    let folded = Project::new(Some(
        "version = 1\n[[interpreter]]\nverbs = [[\"Bash\"]]\nstdin = true\nwhy = \"x\"\n",
    ));
    let (code, value, stderr) = folded.eval(&[], "Bash -c 'rm -rf /'");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
    assert!(
        stderr.contains("a project layer cannot declare `Bash` as an interpreter: an earlier layer already knows the command (by this name or the one it folds to)"),
        "{stderr}"
    );
    // A script operand would be the project's own code, whatever it names.
    let script = Project::new(Some(
        "version = 1\n[[interpreter]]\nverbs = [[\"perl5.36.0\"]]\nscript_operand = true\nwhy = \"x\"\n",
    ));
    let (code, value, stderr) = script.eval(&[], "perl5.36.0 -e 'system q(rm -rf ../x)'");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert!(
        stderr.contains("a project layer cannot declare `script_operand`: the operand would run as the project's own code"),
        "{stderr}"
    );
}

#[test]
fn a_project_protected_entry_strict_for_writes_does_not_decide_reads() {
    let project = Project::new(Some(
        "version = 1\n[[protected]]\nid = \"no-writing-secrets\"\npaths = [\"**/.env\"]\nread = \"Approved\"\nwrite = \"HardDenied\"\nwhy = \"x\"\n",
    ));
    let (code, value, stderr) = project.eval(&[], "cat .env");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert_eq!(stderr, "");
    let (code, value, _) = project.eval(&[], "echo x > .env");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
}

#[test]
fn a_project_policy_that_adds_module_path_variables_is_refused() {
    let project = Project::new(Some(
        "version = 1\n[settings]\nmodule_path_variables = [\"NODE_OPTIONS\"]\n",
    ));
    let (code, value, stderr) = project.eval(&[], "NODE_OPTIONS=--require=./x.js npm test");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert!(
        stderr.contains("a project layer cannot add `module_path_variables`"),
        "{stderr}"
    );
}

#[test]
fn a_project_policy_that_adds_system_dirs_or_harmless_devices_is_refused() {
    // A variable naming a path in a system directory does not ask: a repository must not make
    // `/opt` one, nor a file there a device with no one's content.
    for (key, value) in [("system_dirs", "/opt"), ("harmless_devices", "/opt/evil")] {
        let project = Project::new(Some(&format!(
            "version = 1\n[settings]\n{key} = [\"{value}\"]\n"
        )));
        let (code, value, stderr) = project.eval(&[], "PREFIX=/opt/evil npm test");
        assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
        assert!(
            stderr.contains(&format!("a project layer cannot add `{key}`")),
            "{stderr}"
        );
    }
}

#[test]
fn a_project_policy_that_is_no_regular_file_or_too_big_is_refused_and_the_default_still_denies() {
    // A repository can commit `.shellgate/policy.toml -> /dev/zero`: it must not stall the gate.
    let link = Project::new(None);
    std::os::unix::fs::symlink("/dev/zero", link.path("proj/.shellgate/policy.toml")).unwrap();
    let (code, value, stderr) = link.eval(&[], "rm -rf ~");
    assert_eq!((code, value["decision"].as_str()), (3, Some("HardDenied")));
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // A link that leads nowhere is a layer that cannot be read, not an absent one.
    let dangling = Project::new(None);
    std::os::unix::fs::symlink(
        dangling.path("missing.toml"),
        dangling.path("proj/.shellgate/policy.toml"),
    )
    .unwrap();
    let (code, value, stderr) = dangling.eval(&[], "git status");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert!(
        stderr.contains("the project policy was refused"),
        "{stderr}"
    );
    let big = Project::new(Some(&format!(
        "version = 1\n#{}\n",
        "x".repeat(1024 * 1024)
    )));
    let (code, value, stderr) = big.eval(&[], "git status");
    assert_eq!((code, value["decision"].as_str()), (2, Some("NeedsPrompt")));
    assert!(
        stderr.contains("more than the 1048576 a project policy may hold"),
        "{stderr}"
    );
}
