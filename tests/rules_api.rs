//! The public matching API of shellgate-rules on hand-made policies and views.

use std::path::{Path, PathBuf};

use shellgate_policy::expand::{Expansion, deny_hits, walk};
use shellgate_rules::{
    Access, CommandView, Decision, Examples, Layer, Policy, PolicySource, ReadZones, SafeVerdict,
    TokenClass, ZoneVars,
};

const BASE: &str = include_str!("data/policies/api-base.toml");

fn base() -> PolicySource {
    PolicySource::new("base.toml", BASE, Layer::Default)
}

/// The test base with `text` as the user's policy file.
#[expect(
    clippy::unwrap_used,
    reason = "a test helper: a policy that does not load fails the test"
)]
fn base_with_user(text: &str) -> Policy {
    let user = PolicySource::new("user.toml", text, Layer::User);
    shellgate_policy::load_policy(&[base(), user]).unwrap()
}

fn expand(policy: &Policy, command: &str) -> Expansion {
    let (_, ex) = walk(
        policy,
        command,
        Some(PathBuf::from("/home/u/proj")),
        Some(PathBuf::from("/home/u")),
    );
    ex
}

fn denied(policy: &Policy, command: &str) -> Vec<String> {
    let ex = expand(policy, command);
    let mut ids: Vec<String> = deny_hits(policy, command, &ex)
        .iter()
        .map(|h| h.rule.id.clone())
        .collect();
    ids.dedup();
    ids
}

#[test]
fn policy_is_send_and_sync() {
    fn assert<T: Send + Sync>() {}
    assert::<Policy>();
}

#[test]
fn a_user_layer_disables_a_rule_with_a_reason() {
    let policy = base_with_user(
        "version = 1\ndisable = [\"rm-rf-root\"]\ndisable_reason = \"I run throwaway VMs\"\n",
    );
    assert!(policy.deny_rule("rm-rf-root").is_none());
    assert_eq!(denied(&policy, "rm -rf /"), Vec::<String>::new());
    let disabled = policy.disabled();
    assert_eq!(disabled.len(), 1);
    assert_eq!(disabled[0].id, "rm-rf-root");
    assert_eq!(disabled[0].reason, "I run throwaway VMs");
    assert_eq!(disabled[0].location.to_string(), "user.toml:2:12");
    // The raw rule after it still works (raw indices were renumbered).
    assert_eq!(denied(&policy, ":(){ :|:& };:"), ["fork-bomb"]);
}

#[test]
fn a_project_layer_adds_restrictions() {
    let project = PolicySource::new(
        "project.toml",
        r#"
version = 1
[[deny]]
id = "no-terraform-destroy"
category = "custom"
reason = "destroys infrastructure; run terraform plan -destroy and ask a person"
verb = ["terraform", "destroy"]
match = ["terraform destroy -auto-approve"]
not_match = ["terraform plan"]

[[protected]]
id = "infra-state"
paths = ["**/*.tfstate"]
read = "NeedsPrompt"
write = "HardDenied"
why = "terraform state"
"#,
        Layer::Project,
    );
    let policy = shellgate_policy::load_policy(&[base(), project]).unwrap();
    assert_eq!(
        denied(&policy, "terraform destroy"),
        ["no-terraform-destroy"]
    );
    let rule = policy.deny_rule("no-terraform-destroy").unwrap();
    assert_eq!(rule.layer, Layer::Project);
    assert_eq!(rule.location.to_string(), "project.toml:3:1");
    let state = policy
        .protected(Path::new("/home/u/proj/prod.tfstate"), None, Access::Write)
        .unwrap();
    assert_eq!(
        (state.id.as_str(), state.write),
        ("infra-state", Decision::HardDenied)
    );
}

#[test]
fn a_user_layer_adds_code_loading_variables_and_keeps_the_default_ones() {
    let user = PolicySource::new(
        "user.toml",
        "version = 1\n[settings]\ncode_loading_variables = [\"MY_PLUGIN_*\", \"PATH\"]\n",
        Layer::User,
    );
    let policy = shellgate_policy::load_policy(&[Policy::default_source(), user]).unwrap();
    let loading = |name: &str| policy.is_code_loading_variable(name);
    assert_eq!(
        [
            "MY_PLUGIN_DIR",
            "PATH",
            "LD_PRELOAD",
            "GIT_PAGER",
            "a/KUBECONFIG",
            // Compared as written: neither `PATH` nor zsh's `path` array.
            "Path",
            "MY_PLUGIN",
            "LANG"
        ]
        .map(loading),
        [true, true, true, true, true, false, false, false]
    );
    // A hand-made policy without the list has none.
    let base = shellgate_policy::load_policy(&[base()]).unwrap();
    assert!(!base.is_code_loading_variable("PATH"));
}

#[test]
fn a_user_layer_can_override_the_safe_catalog() {
    let policy = base_with_user(
        "version = 1\n[[safe]]\nverb = [\"cat\"]\nwhy = \"reads\"\nunless_flags = [{ flags = [\"-v\"], why = \"shows control characters\" }]\n",
    );
    let ex = expand(&policy, "cat -v x");
    let verdict = policy.safe(&ex.invocations[0].view());
    assert_eq!(
        verdict,
        SafeVerdict::Unsafe {
            token: "-v".to_owned(),
            why: "shows control characters",
            saveable: true,
            exact: true,
        }
    );
}

#[test]
fn settings_come_from_the_policy() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    assert_eq!(policy.settings().max_shell_depth, 4);
    assert_eq!(
        policy.trusted_bin_dirs(),
        [PathBuf::from("/usr/bin"), PathBuf::from("/bin")]
    );
    // A later layer may lower the depth.
    let policy = base_with_user(
        "version = 1\n[settings]\nmax_shell_depth = 1\n[[shell]]\nverb = [\"bash\"]\ncode_flags = [\"-c\"]\n",
    );
    assert_eq!(policy.settings().max_shell_depth, 1);
    assert!(expand(&policy, "bash -c ls").complete);
    let ex = expand(&policy, "bash -c \"bash -c ls\"");
    assert!(!ex.complete);
    assert_eq!(
        ex.notes,
        ["`bash -c ls`: shell code nested more than 1 levels deep"]
    );
}

#[test]
fn protected_paths_force_decisions() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let home = Some(Path::new("/home/u"));
    let ssh = policy
        .protected(Path::new("/home/u/.ssh/id_ed25519"), home, Access::Write)
        .unwrap();
    assert_eq!(
        (ssh.id.as_str(), ssh.read, ssh.write),
        ("ssh", Decision::NeedsPrompt, Decision::HardDenied)
    );
    let ssh = policy
        .protected(Path::new("~/.ssh/../.ssh"), home, Access::Read)
        .unwrap();
    assert_eq!(ssh.id, "ssh");
    let env = policy
        .protected(Path::new("/srv/app/.env"), home, Access::Read)
        .unwrap();
    assert_eq!(env.id, "dotenv");
    assert!(
        policy
            .protected(Path::new("/home/u/proj/src/main.rs"), home, Access::Write)
            .is_none()
    );
    assert!(
        policy
            .protected(Path::new("/home/u/.sshx"), home, Access::Read)
            .is_none()
    );
}

#[test]
fn audiences_resolve_their_zones() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let personal = policy.audience("personal").unwrap();
    assert_eq!(personal.read, ReadZones::All);
    let vars = ZoneVars {
        project: Some(Path::new("/home/u/proj")),
        session: None,
        home: Some(Path::new("/home/u")),
        tmp: Some(Path::new("/tmp")),
    };
    let writes: Vec<Option<PathBuf>> = personal.write.iter().map(|z| z.resolve(&vars)).collect();
    assert_eq!(
        writes,
        [
            Some(PathBuf::from("/home/u/proj")),
            Some(PathBuf::from("/tmp/shellgate"))
        ]
    );
    let team = policy.audience("team").unwrap();
    // `{session}` is unknown here, so that zone does not resolve.
    assert_eq!(team.write[0].resolve(&vars), None);
    assert!(policy.audience("public").is_none());
}

#[test]
fn tests_are_kept_for_the_evaluator() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let tests = policy.tests();
    assert_eq!(tests.len(), 1);
    assert_eq!(tests[0].name, "cat is silent");
    assert_eq!(tests[0].expect, Decision::Approved);
    assert_eq!(tests[0].location.to_string(), "base.toml:54:1");
}

#[test]
fn classify_uses_the_default_classes() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    assert_eq!(policy.classify("v1.2.3"), TokenClass::Value);
    assert_eq!(policy.classify("main"), TokenClass::Word);
    assert_eq!(policy.classify("./x"), TokenClass::Path);
    assert_eq!(policy.classify("--force"), TokenClass::Flag);
}

#[test]
fn classify_order_and_patterns_can_change() {
    let policy = base_with_user(
        "version = 1\n[classify]\norder = [\"flag\", \"value\", \"word\"]\n[classify.patterns]\nvalue = '^[0-9]+$'\n",
    );
    assert_eq!(policy.classify("42"), TokenClass::Value);
    assert_eq!(policy.classify("v1.2"), TokenClass::Word);
    assert_eq!(policy.classify("/tmp/1"), TokenClass::Word);
}

#[test]
fn deny_raw_and_pipeline_work_on_their_own() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let ids = |rules: Vec<&shellgate_rules::DenyRule>| -> Vec<String> {
        rules.iter().map(|r| r.id.clone()).collect()
    };
    assert_eq!(ids(policy.deny_raw("x; :(){ :|:& };:")), ["fork-bomb"]);
    assert_eq!(ids(policy.deny_raw("echo ok")), Vec::<String>::new());
    let a = expand(&policy, "curl x");
    let b = expand(&policy, "sh");
    let stages = [a.invocations[0].view(), b.invocations[0].view()];
    assert_eq!(ids(policy.deny_pipeline(&stages)), ["curl-sh"]);
    let reversed = [b.invocations[0].view(), a.invocations[0].view()];
    assert_eq!(ids(policy.deny_pipeline(&reversed)), Vec::<String>::new());
}

#[test]
fn deny_works_on_a_hand_made_view() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let ex = expand(&policy, "rm -rf ../../..");
    let inv = &ex.invocations[0];
    // The same words in another directory do not reach `/`.
    let view = CommandView {
        cwd: Some(Path::new("/a/b/c/d/e")),
        ..inv.view()
    };
    assert!(policy.deny(&view).is_empty());
    assert_eq!(policy.deny(&inv.view()).len(), 1);
}

#[test]
fn roles_without_an_entry_write_path_shaped_operands() {
    let policy = shellgate_policy::load_policy(&[base()]).unwrap();
    let ex = expand(&policy, "frob --out=x ./a b/c d 1.2");
    let roles: Vec<(usize, String)> = policy
        .roles(&ex.invocations[0].view())
        .into_iter()
        .map(|r| (r.index, r.text))
        .collect();
    assert_eq!(roles, [(2, "./a".to_owned()), (3, "b/c".to_owned())]);
}

#[test]
fn examples_of_a_later_layer_are_checked_against_everything() {
    // The user's example goes through the base's shells? The base has none: `bash -c` is an
    // unknown command, so this example does not match and the load fails.
    let user = PolicySource::new(
        "user.toml",
        "version = 1\n[[deny]]\nid = \"no-make\"\ncategory = \"custom\"\nreason = \"a; b\"\nverb = [\"make\"]\nmatch = [\"bash -c make\"]\n",
        Layer::User,
    );
    let error = shellgate_policy::load_policy(&[base(), user.clone()]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "deny rule `no-make` does not match its example `bash -c make`"
    );
    // With a shell entry in the same layer it does.
    let with_shell = PolicySource::new(
        "user.toml",
        format!(
            "{}\n[[shell]]\nverb = [\"bash\"]\ncode_flags = [\"-c\"]\n",
            user.text
        ),
        Layer::User,
    );
    assert!(shellgate_policy::load_policy_with(&[base(), with_shell], Examples::All).is_ok());
}
