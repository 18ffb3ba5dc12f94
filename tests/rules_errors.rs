//! Malformed policies: every error names the problem, the fix and the file, line and column.
//! Fixtures live in `tests/data/policies/bad/`.

use miette::Diagnostic as _;
use shellgate_rules::{Layer, Policy, PolicyError, PolicySource};

/// A small default layer the fixtures build on.
const BASE: &str = r#"
version = 1

[settings]
max_shell_depth = 8

[[deny]]
id = "rm-rf-root"
category = "destructive"
reason = "recursive delete of /; delete the build directory instead"
verb = ["rm"]
flags_all = [["-r", "--recursive"], ["-f", "--force"]]
args_any = ["/"]
match = ["rm -rf /"]
"#;

#[expect(
    clippy::panic,
    reason = "a test helper: a missing fixture fails the test"
)]
fn fixture(name: &str) -> PolicySource {
    let path = format!(
        "{}/tests/data/policies/bad/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    PolicySource::new(format!("bad/{name}"), text, Layer::User)
}

/// Loads the fixture as `layer` on top of the base layer.
#[expect(
    clippy::panic,
    reason = "a test helper: a fixture that loads fails the test"
)]
fn load(name: &str, layer: Layer) -> PolicyError {
    let base = PolicySource::new("base.toml", BASE, Layer::Default);
    let mut file = fixture(name);
    file.layer = layer;
    match Policy::load(&[base, file]) {
        Ok(_) => panic!("{name} loaded"),
        Err(e) => e,
    }
}

/// (message, help, "file:line:column") of a single error.
fn parts(error: &PolicyError) -> (String, Option<String>, String) {
    (
        error.to_string(),
        error.help_text().map(str::to_owned),
        error
            .location()
            .map(ToString::to_string)
            .unwrap_or_default(),
    )
}

fn check(name: &str, layer: Layer, message: &str, help: &str, at: &str) {
    let error = load(name, layer);
    assert_eq!(
        parts(&error),
        (message.to_owned(), Some(help.to_owned()), at.to_owned()),
        "{name}"
    );
}

#[test]
fn unknown_key_suggests_the_key() {
    check(
        "unknown_key.toml",
        Layer::User,
        "unknown key `verbs`",
        "did you mean `verb`?",
        "bad/unknown_key.toml:7:1",
    );
}

#[test]
fn unknown_table_suggests_the_table() {
    check(
        "unknown_table.toml",
        Layer::User,
        "unknown key `denny`",
        "did you mean `deny`?",
        "bad/unknown_table.toml:3:3",
    );
}

#[test]
fn unknown_category_suggests_the_category() {
    check(
        "unknown_category.toml",
        Layer::User,
        "unknown category `destrutive`",
        "did you mean `destructive`?",
        "bad/unknown_category.toml:5:12",
    );
}

#[test]
fn bad_glob_keeps_the_authors_text() {
    check(
        "bad_glob.toml",
        Layer::User,
        "invalid glob `/[a` in `args_any`: unclosed character class; missing ']'",
        "globs use `*` (within one path segment), `**` (any depth), `?` and `[…]`; write `[*]` for a literal `*`",
        "bad/bad_glob.toml:8:21",
    );
}

#[test]
fn bad_regex_keeps_the_authors_text() {
    check(
        "bad_regex.toml",
        Layer::User,
        r"invalid regex `:\(\)\s*\{(` in `raw`",
        "regex parse error:\n    :\\(\\)\\s*\\{(\n              ^\nerror: unclosed group",
        "bad/bad_regex.toml:7:7",
    );
}

#[test]
fn duplicate_id_points_at_both() {
    check(
        "duplicate_id.toml",
        Layer::User,
        "duplicate deny rule id `no-rm`",
        "`no-rm` is already declared at bad/duplicate_id.toml:3:1; choose another id",
        "bad/duplicate_id.toml:10:6",
    );
}

#[test]
fn duplicate_id_across_layers() {
    let base = PolicySource::new("base.toml", BASE, Layer::Default);
    let user = PolicySource::new(
        "user.toml",
        "version = 1\n[[deny]]\nid = \"rm-rf-root\"\ncategory = \"custom\"\nreason = \"x; y\"\nverb = [\"rm\"]\n",
        Layer::User,
    );
    let error = Policy::load(&[base, user]).unwrap_err();
    assert_eq!(
        parts(&error),
        (
            "duplicate deny rule id `rm-rf-root`".to_owned(),
            Some("`rm-rf-root` is already declared at base.toml:7:1; choose another id".to_owned()),
            "user.toml:3:6".to_owned()
        )
    );
}

#[test]
fn rule_without_matcher() {
    check(
        "no_matcher.toml",
        Layer::User,
        "deny rule `no-rm` has no matcher",
        "add at least one of `verb`, `flags_any`, `flags_all`, `args_any`, `redirect_to`, `env`, `pipeline` or `raw`",
        "bad/no_matcher.toml:3:1",
    );
}

#[test]
fn disable_only_in_a_user_layer() {
    check(
        "disable_in_project.toml",
        Layer::Project,
        "`disable` is not allowed in a project layer",
        "only a user policy may disable deny rules; a project policy may only add restrictions",
        "bad/disable_in_project.toml:2:11",
    );
    check(
        "disable_in_project.toml",
        Layer::Default,
        "`disable` is not allowed in a default layer",
        "the default policy removes a rule by deleting it",
        "bad/disable_in_project.toml:2:11",
    );
}

#[test]
fn disable_needs_a_reason() {
    check(
        "disable_without_reason.toml",
        Layer::User,
        "`disable` needs a `disable_reason`",
        "say why, such as `disable_reason = \"I run my own backups\"`",
        "bad/disable_without_reason.toml:2:11",
    );
}

#[test]
fn disable_unknown_rule_suggests_the_id() {
    check(
        "disable_unknown_id.toml",
        Layer::User,
        "unknown deny rule id `rm-rf-rot`",
        "did you mean `rm-rf-root`?",
        "bad/disable_unknown_id.toml:2:12",
    );
}

#[test]
fn project_layer_cannot_loosen() {
    check(
        "project_adds_safe.toml",
        Layer::Project,
        "a project layer cannot add `[[safe]]` entries",
        "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, `[[interpreter]]`, `[[test]]`); put this in your user policy",
        "bad/project_adds_safe.toml:9:1",
    );
    check(
        "unknown_wrapper_mode.toml",
        Layer::Project,
        "a project layer cannot add `[[wrapper]]` entries",
        "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, `[[interpreter]]`, `[[test]]`); put this in your user policy",
        "bad/unknown_wrapper_mode.toml:3:1",
    );
}

#[test]
fn later_layer_cannot_raise_the_depth() {
    check(
        "project_raises_depth.toml",
        Layer::Project,
        "a later layer cannot raise `max_shell_depth` above 8",
        "later layers may only tighten settings; use a smaller depth",
        "bad/project_raises_depth.toml:4:19",
    );
}

#[test]
fn unsupported_version() {
    check(
        "unsupported_version.toml",
        Layer::User,
        "unsupported policy version `2`",
        "this shellgate understands `version = 1`",
        "bad/unsupported_version.toml:1:11",
    );
}

#[test]
fn missing_version() {
    check(
        "missing_version.toml",
        Layer::User,
        "missing key `version`",
        "add `version = 1` at the top of the file",
        "bad/missing_version.toml:1:1",
    );
}

#[test]
fn failing_match_example_names_rule_and_example() {
    check(
        "failing_match.toml",
        Layer::User,
        "deny rule `git-force-push` does not match its example `git push -f`",
        "shellgate sees `git push -f`; fix the rule's matchers or move the example to `not_match`",
        "bad/failing_match.toml:9:30",
    );
}

#[test]
fn failing_not_match_example_names_rule_and_example() {
    check(
        "failing_not_match.toml",
        Layer::Project,
        "deny rule `rm-recursive` matches its `not_match` example `rm -rf ./build`",
        "shellgate sees `rm -rf ./build`; narrow the rule's matchers or move the example to `match`",
        "bad/failing_not_match.toml:11:3",
    );
}

#[test]
fn unknown_placeholder_suggests_the_placeholder() {
    check(
        "unknown_placeholder.toml",
        Layer::User,
        "unknown placeholder `{projcet}` in zone `{projcet}/out`",
        "did you mean `{project}`?",
        "bad/unknown_placeholder.toml:5:10",
    );
}

#[test]
fn toml_syntax_error() {
    check(
        "syntax_error.toml",
        Layer::User,
        "unclosed array table, expected `]`",
        "this is not valid TOML; see https://toml.io for the syntax",
        "bad/syntax_error.toml:3:8",
    );
}

#[test]
fn wrong_type() {
    check(
        "wrong_type.toml",
        Layer::User,
        "invalid type: integer `3`, expected a string",
        "write a string here",
        "bad/wrong_type.toml:4:6",
    );
}

#[test]
fn raw_is_not_combined() {
    check(
        "raw_combined.toml",
        Layer::User,
        "`raw` cannot be combined with other matchers",
        "a `raw` rule matches the whole command text; move the other matchers to a separate rule",
        "bad/raw_combined.toml:8:7",
    );
}

#[test]
fn test_names_unknown_rule() {
    check(
        "test_unknown_rule.toml",
        Layer::User,
        "test `root is protected` names unknown deny rule `rm-rf-rot`",
        "did you mean `rm-rf-root`?",
        "bad/test_unknown_rule.toml:7:8",
    );
}

#[test]
fn test_names_unknown_audience() {
    check(
        "unknown_test_audience.toml",
        Layer::User,
        "test `status` names unknown audience `persnal`",
        "did you mean `personal`?",
        "bad/unknown_test_audience.toml:11:12",
    );
}

#[test]
fn flag_spelling_without_dash() {
    check(
        "not_a_flag.toml",
        Layer::User,
        "`recursive` in `flags_any` is not a flag",
        "a flag starts with `-`",
        "bad/not_a_flag.toml:8:21",
    );
}

#[test]
fn unknown_decision_suggests_the_decision() {
    check(
        "unknown_decision.toml",
        Layer::User,
        "unknown decision `HardDeny` in `write`",
        "did you mean `HardDenied`?",
        "bad/unknown_decision.toml:7:9",
    );
}

#[test]
fn id_must_be_kebab_case() {
    check(
        "not_kebab_id.toml",
        Layer::User,
        "deny rule id `No_Rm` is not kebab-case",
        "use lowercase letters, digits and single dashes, such as `rm-recursive-root`",
        "bad/not_kebab_id.toml:4:6",
    );
}

#[test]
fn unknown_wrapper_mode_suggests_the_mode() {
    check(
        "unknown_wrapper_mode.toml",
        Layer::User,
        "unknown wrapper mode `exec-options`",
        "did you mean `exec-option`?",
        "bad/unknown_wrapper_mode.toml:5:8",
    );
}

#[test]
fn every_error_of_a_file_is_reported() {
    let error = load("two_errors.toml", Layer::User);
    assert!(matches!(error, PolicyError::Several(_)));
    assert_eq!(error.to_string(), "2 errors in the policy");
    let all: Vec<_> = error.errors().into_iter().map(parts).collect();
    assert_eq!(
        all,
        [
            (
                "`reason` is empty".to_owned(),
                Some("write a short sentence for `reason`".to_owned()),
                "bad/two_errors.toml:6:10".to_owned()
            ),
            (
                "`verb` is empty".to_owned(),
                Some("name the command, such as `verb = [\"git\", \"log\"]`".to_owned()),
                "bad/two_errors.toml:13:8".to_owned()
            ),
        ]
    );
    assert_eq!(error.related().map(Iterator::count), Some(2));
}

#[test]
fn diagnostics_render_with_file_line_and_label() {
    let error = load("unknown_category.toml", Layer::User);
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, &error)
        .unwrap();
    assert!(out.contains("unknown category `destrutive`"), "{out}");
    assert!(out.contains("[bad/unknown_category.toml:5:12]"), "{out}");
    assert!(out.contains("category = \"destrutive\""), "{out}");
    assert!(out.contains("unknown category"), "{out}");
    assert!(out.contains("help: did you mean `destructive`?"), "{out}");
    assert_eq!(
        error.code().map(|c| c.to_string()).as_deref(),
        Some("shellgate::policy::invalid")
    );
}

#[test]
fn an_invalid_file_is_refused_whole() {
    // One valid rule and one invalid rule: nothing loads.
    let text = "version = 1\n[[deny]]\nid = \"ok\"\ncategory = \"custom\"\nreason = \"a; b\"\nverb = [\"x\"]\n[[deny]]\nid = \"bad\"\ncategory = \"custom\"\nreason = \"a; b\"\nargs_any = [\"[\"]\n";
    let error = Policy::load(&[PolicySource::new("p.toml", text, Layer::User)]).unwrap_err();
    assert_eq!(
        error.location().map(ToString::to_string).as_deref(),
        Some("p.toml:11:13")
    );
}

#[test]
fn layers_must_come_in_order() {
    let user = PolicySource::new("user.toml", "version = 1\n", Layer::User);
    let default = PolicySource::new("default.toml", "version = 1\n", Layer::Default);
    let error = Policy::load(&[user, default]).unwrap_err();
    assert_eq!(
        parts(&error),
        (
            "a default layer cannot follow a user layer".to_owned(),
            Some("load the default layer first, then user layers, then project layers".to_owned()),
            "default.toml:1:1".to_owned()
        )
    );
}

#[test]
fn unknown_layer_name_suggests_the_layer() {
    let error = "projcet".parse::<Layer>().unwrap_err();
    assert_eq!(error.to_string(), "unknown layer `projcet`");
    assert_eq!(error.help_text(), Some("did you mean `project`?"));
    assert_eq!(error.location(), None);
}

#[test]
fn at_least_fifteen_fixtures() {
    let count = std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/policies/bad"
    ))
    .unwrap()
    .count();
    assert!(count >= 15, "{count} fixtures");
}
