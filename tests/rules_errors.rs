//! Malformed policies: every error names the problem, the fix and the file, line and column.
//! Fixtures live in `tests/data/policies/bad/`.

use miette::Diagnostic as _;
use shellgate_rules::{Layer, PolicyError, PolicySource};

/// A small default layer the fixtures build on.
const BASE: &str = include_str!("data/policies/errors-base.toml");

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
    match shellgate_policy::load_policy(&[base, file]) {
        Ok(_) => panic!("{name} loaded"),
        Err(e) => e,
    }
}

/// What a test expects of a single error.
struct Expected<'a> {
    /// The variant, as its name.
    kind: &'a str,
    message: &'a str,
    help: &'a str,
    /// The label drawn under the offending source.
    label: &'a str,
    /// "file:line:column" of the start.
    at: &'a str,
    /// The source text the label spans (so its end too).
    spans: &'a str,
}

/// The variant of an error, by name.
fn kind(error: &PolicyError) -> String {
    format!("{error:?}")
        .split(['(', ' '])
        .next()
        .unwrap_or_default()
        .to_owned()
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

/// Loads fixture `name` as `layer` and compares its one error with `expected` whole.
fn check(name: &str, layer: Layer, expected: &Expected<'_>) {
    assert_error(&load(name, layer), &fixture(name).text, expected);
}

/// Compares one error (pointing into `text`) with `expected` whole.
fn assert_error(error: &PolicyError, text: &str, expected: &Expected<'_>) {
    let located = error.located();
    let actual = (
        kind(error),
        parts(error),
        located.map(|l| l.label().to_owned()),
        located.and_then(|l| text.get(l.span())).map(str::to_owned),
    );
    let wanted = (
        expected.kind.to_owned(),
        (
            expected.message.to_owned(),
            Some(expected.help.to_owned()),
            expected.at.to_owned(),
        ),
        Some(expected.label.to_owned()),
        Some(expected.spans.to_owned()),
    );
    assert_eq!(actual, wanted);
}

#[test]
fn unknown_key_suggests_the_key() {
    check(
        "unknown_key.toml",
        Layer::User,
        &Expected {
            kind: "UnknownKey",
            message: "unknown key `verbs`",
            help: "did you mean `verb`?",
            label: "unknown key",
            at: "bad/unknown_key.toml:7:1",
            spans: "verbs",
        },
    );
}

#[test]
fn unknown_table_suggests_the_table() {
    check(
        "unknown_table.toml",
        Layer::User,
        &Expected {
            kind: "UnknownKey",
            message: "unknown key `denny`",
            help: "did you mean `deny`?",
            label: "unknown key",
            at: "bad/unknown_table.toml:3:3",
            spans: "denny",
        },
    );
}

#[test]
fn unknown_category_suggests_the_category() {
    check(
        "unknown_category.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown category `destrutive`",
            help: "did you mean `destructive`?",
            label: "unknown category",
            at: "bad/unknown_category.toml:5:12",
            spans: r#""destrutive""#,
        },
    );
}

#[test]
fn bad_glob_keeps_the_authors_text() {
    check(
        "bad_glob.toml",
        Layer::User,
        &Expected {
            kind: "BadGlob",
            message: "invalid glob `/[a` in `args_any`: unclosed character class; missing ']'",
            help: "globs use `*` (within one path segment), `**` (any depth), `?` and `[…]`; write `[*]` for a literal `*`",
            label: "invalid glob",
            at: "bad/bad_glob.toml:8:21",
            spans: r#""/[a""#,
        },
    );
}

#[test]
fn bad_regex_keeps_the_authors_text() {
    check(
        "bad_regex.toml",
        Layer::User,
        &Expected {
            kind: "BadRegex",
            message: r"invalid regex `:\(\)\s*\{(` in `raw`",
            help: "regex parse error:\n    :\\(\\)\\s*\\{(\n              ^\nerror: unclosed group",
            label: "invalid regex",
            at: "bad/bad_regex.toml:7:7",
            spans: r#"':\(\)\s*\{('"#,
        },
    );
}

#[test]
fn duplicate_id_points_at_both() {
    check(
        "duplicate_id.toml",
        Layer::User,
        &Expected {
            kind: "DuplicateId",
            message: "duplicate deny rule id `no-rm`",
            help: "`no-rm` is already declared at bad/duplicate_id.toml:3:1; choose another id",
            label: "duplicate id",
            at: "bad/duplicate_id.toml:10:6",
            spans: r#""no-rm""#,
        },
    );
}

#[test]
fn duplicate_id_across_layers() {
    let base = PolicySource::new("base.toml", BASE, Layer::Default);
    let text = "version = 1\n[[deny]]\nid = \"rm-rf-root\"\ncategory = \"custom\"\nreason = \"x; y\"\nverb = [\"rm\"]\n";
    let user = PolicySource::new("user.toml", text, Layer::User);
    let error = shellgate_policy::load_policy(&[base, user]).unwrap_err();
    assert_error(
        &error,
        text,
        &Expected {
            kind: "DuplicateId",
            message: "duplicate deny rule id `rm-rf-root`",
            help: "`rm-rf-root` is already declared at base.toml:7:1; choose another id",
            label: "duplicate id",
            at: "user.toml:3:6",
            spans: "\"rm-rf-root\"",
        },
    );
}

#[test]
fn rule_without_matcher() {
    check(
        "no_matcher.toml",
        Layer::User,
        &Expected {
            kind: "Inconsistent",
            message: "deny rule `no-rm` has no matcher",
            help: "add at least one of `verb`, `flags_any`, `flags_all`, `args_any`, `args_set`, `redirect_to`, `env`, `cwd_under`, `pipeline` or `raw`",
            label: "no matcher",
            at: "bad/no_matcher.toml:3:1",
            spans: "[[deny]]",
        },
    );
}

#[test]
fn disable_only_in_a_user_layer() {
    check(
        "disable_in_project.toml",
        Layer::Project,
        &Expected {
            kind: "LayerNotAllowed",
            message: "`disable` is not allowed in a project layer",
            help: "only a user policy may disable deny rules; a project policy may only add restrictions",
            label: "not allowed here",
            at: "bad/disable_in_project.toml:2:11",
            spans: r#"["rm-rf-root"]"#,
        },
    );
    check(
        "disable_in_project.toml",
        Layer::Default,
        &Expected {
            kind: "LayerNotAllowed",
            message: "`disable` is not allowed in a default layer",
            help: "the default policy removes a rule by deleting it",
            label: "not allowed here",
            at: "bad/disable_in_project.toml:2:11",
            spans: r#"["rm-rf-root"]"#,
        },
    );
}

#[test]
fn disable_needs_a_reason() {
    check(
        "disable_without_reason.toml",
        Layer::User,
        &Expected {
            kind: "Inconsistent",
            message: "`disable` needs a `disable_reason`",
            help: "say why, such as `disable_reason = \"I run my own backups\"`",
            label: "no reason given",
            at: "bad/disable_without_reason.toml:2:11",
            spans: r#"["rm-rf-root"]"#,
        },
    );
}

#[test]
fn disable_unknown_rule_suggests_the_id() {
    check(
        "disable_unknown_id.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown deny rule id `rm-rf-rot`",
            help: "did you mean `rm-rf-root`?",
            label: "unknown rule",
            at: "bad/disable_unknown_id.toml:2:12",
            spans: r#""rm-rf-rot""#,
        },
    );
}

#[test]
fn project_layer_cannot_loosen() {
    check(
        "project_adds_safe.toml",
        Layer::Project,
        &Expected {
            kind: "LayerNotAllowed",
            message: "a project layer cannot add `[[safe]]` entries",
            help: "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, `[[interpreter]]`, `[[test]]`); put this in your user policy",
            label: "not allowed in a project layer",
            at: "bad/project_adds_safe.toml:9:1",
            spans: "[[safe]]",
        },
    );
    check(
        "unknown_wrapper_mode.toml",
        Layer::Project,
        &Expected {
            kind: "LayerNotAllowed",
            message: "a project layer cannot add `[[wrapper]]` entries",
            help: "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, `[[interpreter]]`, `[[test]]`); put this in your user policy",
            label: "not allowed in a project layer",
            at: "bad/unknown_wrapper_mode.toml:3:1",
            spans: "[[wrapper]]",
        },
    );
}

#[test]
fn inline_code_reading_is_python_only_and_never_from_a_project() {
    check(
        "project_reads_inline.toml",
        Layer::Project,
        &Expected {
            kind: "LayerNotAllowed",
            message: "a project layer cannot let the gate read inline code",
            help: "project policies may only add restrictions; put this in your user policy",
            label: "not allowed in a project layer",
            at: "bad/project_reads_inline.toml:8:1",
            spans: "[interpreter.inline]",
        },
    );
    check(
        "inline_unknown_language.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown inline language `javascript`",
            help: "the only inline language the gate reads is `python`",
            label: "unknown language",
            at: "bad/inline_unknown_language.toml:8:12",
            spans: r#""javascript""#,
        },
    );
}

#[test]
fn later_layer_cannot_raise_the_depth() {
    check(
        "project_raises_depth.toml",
        Layer::Project,
        &Expected {
            kind: "LayerNotAllowed",
            message: "a later layer cannot raise `max_shell_depth` above 8",
            help: "later layers may only tighten settings; use a smaller depth",
            label: "raises the limit",
            at: "bad/project_raises_depth.toml:4:19",
            spans: "12",
        },
    );
}

#[test]
fn unsupported_version() {
    check(
        "unsupported_version.toml",
        Layer::User,
        &Expected {
            kind: "BadValue",
            message: "unsupported policy version `2`",
            help: "this shellgate understands `version = 1`",
            label: "unsupported version",
            at: "bad/unsupported_version.toml:1:11",
            spans: "2",
        },
    );
}

#[test]
fn missing_version() {
    check(
        "missing_version.toml",
        Layer::User,
        &Expected {
            kind: "MissingKey",
            message: "missing key `version`",
            help: "add `version = 1` at the top of the file",
            label: "in this file",
            at: "bad/missing_version.toml:1:1",
            spans: "",
        },
    );
}

#[test]
fn failing_match_example_names_rule_and_example() {
    check(
        "failing_match.toml",
        Layer::User,
        &Expected {
            kind: "ExampleFailed",
            message: "deny rule `git-force-push` does not match its example `git push -f`",
            help: "shellgate sees `git push -f`; fix the rule's matchers or move the example to `not_match`",
            label: "not matched",
            at: "bad/failing_match.toml:9:30",
            spans: r#""git push -f""#,
        },
    );
}

#[test]
fn failing_not_match_example_names_rule_and_example() {
    check(
        "failing_not_match.toml",
        Layer::Project,
        &Expected {
            kind: "ExampleFailed",
            message: "deny rule `rm-recursive` matches its `not_match` example `rm -rf ./build`",
            help: "shellgate sees `rm -rf ./build`; narrow the rule's matchers or move the example to `match`",
            label: "matched",
            at: "bad/failing_not_match.toml:11:3",
            spans: r#""rm -rf ./build""#,
        },
    );
}

#[test]
fn unknown_placeholder_suggests_the_placeholder() {
    check(
        "unknown_placeholder.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown placeholder `{projcet}` in zone `{projcet}/out`",
            help: "did you mean `{project}`?",
            label: "unknown placeholder",
            at: "bad/unknown_placeholder.toml:5:10",
            spans: r#""{projcet}/out""#,
        },
    );
}

#[test]
fn toml_syntax_error() {
    check(
        "syntax_error.toml",
        Layer::User,
        &Expected {
            kind: "Syntax",
            message: "unclosed array table, expected `]`",
            help: "this is not valid TOML; see https://toml.io for the syntax",
            label: "here",
            at: "bad/syntax_error.toml:3:8",
            spans: "",
        },
    );
}

#[test]
fn wrong_type() {
    check(
        "wrong_type.toml",
        Layer::User,
        &Expected {
            kind: "WrongType",
            message: "invalid type: integer `3`, expected a string",
            help: "write a string here",
            label: "wrong type",
            at: "bad/wrong_type.toml:4:6",
            spans: "3",
        },
    );
}

#[test]
fn unless_flag_values_need_a_value_flag() {
    check(
        "values_without_value_flag.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "`-R` has `values` but takes no value",
            help: "list `-R` in this entry's `value_flags`",
            label: "not a value flag",
            at: "bad/values_without_value_flag.toml:6:17",
            spans: r#"{ flags = ["-R"], values = ["*/*/*"], why = "names another host" }"#,
        },
    );
}

#[test]
fn raw_is_not_combined() {
    check(
        "raw_combined.toml",
        Layer::User,
        &Expected {
            kind: "Inconsistent",
            message: "`raw` cannot be combined with other matchers",
            help: "a `raw` rule matches the whole command text; move the other matchers to a separate rule",
            label: "combined with other matchers",
            at: "bad/raw_combined.toml:8:7",
            spans: r#"':\(\)'"#,
        },
    );
}

#[test]
fn test_names_unknown_rule() {
    check(
        "test_unknown_rule.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "test `root is protected` names unknown deny rule `rm-rf-rot`",
            help: "did you mean `rm-rf-root`?",
            label: "unknown rule",
            at: "bad/test_unknown_rule.toml:7:8",
            spans: r#""rm-rf-rot""#,
        },
    );
}

#[test]
fn test_names_unknown_audience() {
    check(
        "unknown_test_audience.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "test `status` names unknown audience `persnal`",
            help: "did you mean `personal`?",
            label: "unknown audience",
            at: "bad/unknown_test_audience.toml:11:12",
            spans: r#""persnal""#,
        },
    );
}

#[test]
fn flag_spelling_without_dash() {
    check(
        "not_a_flag.toml",
        Layer::User,
        &Expected {
            kind: "BadValue",
            message: "`recursive` in `flags_any` is not a flag",
            help: "a flag starts with `-`",
            label: "not a flag",
            at: "bad/not_a_flag.toml:8:21",
            spans: r#""recursive""#,
        },
    );
}

#[test]
fn unknown_decision_suggests_the_decision() {
    check(
        "unknown_decision.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown decision `HardDeny` in `write`",
            help: "did you mean `HardDenied`?",
            label: "unknown decision",
            at: "bad/unknown_decision.toml:7:9",
            spans: r#""HardDeny""#,
        },
    );
}

#[test]
fn id_must_be_kebab_case() {
    check(
        "not_kebab_id.toml",
        Layer::User,
        &Expected {
            kind: "BadValue",
            message: "deny rule id `No_Rm` is not kebab-case",
            help: "use lowercase letters, digits and single dashes, such as `rm-recursive-root`",
            label: "not kebab-case",
            at: "bad/not_kebab_id.toml:4:6",
            spans: r#""No_Rm""#,
        },
    );
}

#[test]
fn unknown_wrapper_mode_suggests_the_mode() {
    check(
        "unknown_wrapper_mode.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown wrapper mode `exec-options`",
            help: "did you mean `exec-option`?",
            label: "unknown mode",
            at: "bad/unknown_wrapper_mode.toml:5:8",
            spans: r#""exec-options""#,
        },
    );
}

#[test]
fn every_error_of_a_file_is_reported() {
    let error = load("two_errors.toml", Layer::User);
    assert!(matches!(error, PolicyError::Several(_)));
    assert_eq!(error.to_string(), "2 errors in the policy");
    let text = fixture("two_errors.toml").text;
    let all = error.errors();
    assert_eq!(all.len(), 2);
    assert_error(
        all[0],
        &text,
        &Expected {
            kind: "EmptyValue",
            message: "`reason` is empty",
            help: "write a short sentence for `reason`",
            label: "empty",
            at: "bad/two_errors.toml:6:10",
            spans: "\"\"",
        },
    );
    assert_error(
        all[1],
        &text,
        &Expected {
            kind: "EmptyValue",
            message: "`verb` is empty",
            help: "name the command, such as `verb = [\"git\", \"log\"]`",
            label: "no words",
            at: "bad/two_errors.toml:13:8",
            spans: "[]",
        },
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
    let error = shellgate_policy::load_policy(&[PolicySource::new("p.toml", text, Layer::User)])
        .unwrap_err();
    assert_eq!(
        error.location().map(ToString::to_string).as_deref(),
        Some("p.toml:11:13")
    );
}

#[test]
fn layers_must_come_in_order() {
    let user = PolicySource::new("user.toml", "version = 1\n", Layer::User);
    let default = PolicySource::new("default.toml", "version = 1\n", Layer::Default);
    let error = shellgate_policy::load_policy(&[user, default]).unwrap_err();
    assert_error(
        &error,
        "version = 1\n",
        &Expected {
            kind: "LayerNotAllowed",
            message: "a default layer cannot follow a user layer",
            help: "load the default layer first, then user layers, then project layers",
            label: "out of order",
            at: "default.toml:1:1",
            spans: "",
        },
    );
}

#[test]
fn unknown_layer_name_suggests_the_layer() {
    let error = "projcet".parse::<Layer>().unwrap_err();
    assert_eq!(error.to_string(), "unknown layer `projcet`");
    assert_eq!(error.help_text(), Some("did you mean `project`?"));
    assert_eq!(error.location(), None);
}

/// Every fixture in the directory is loaded by a test of this file, and every fixture a test
/// names exists.
#[test]
fn every_fixture_is_checked() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/policies/bad");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let source = include_str!("rules_errors.rs");
    // Fixtures are named as `check("NAME", …` or `load("NAME", …`.
    let mut named: Vec<String> = source
        .split('"')
        .filter(|s| s.ends_with(".toml") && !s.contains(['/', ' ']))
        .filter(|s| {
            source.contains(&format!("\n        \"{s}\",\n        Layer::"))
                || source.contains(&format!("load(\"{s}\""))
        })
        .map(str::to_owned)
        .collect();
    named.sort();
    named.dedup();
    assert_eq!(files, named);
}

/// Loads each text as the user file `p.toml` and compares its one error with the expectation.
#[expect(
    clippy::panic,
    reason = "a test helper: a text that loads fails the test"
)]
fn check_inline(cases: &[(&str, Expected<'_>)]) {
    for (text, expected) in cases {
        match shellgate_policy::load_policy(&[PolicySource::new("p.toml", *text, Layer::User)]) {
            Ok(_) => panic!("{text:?} loaded"),
            Err(error) => assert_error(&error, text, expected),
        }
    }
}

/// Schema errors inside nested tables and lists point at the offending key or value.
#[test]
fn schema_errors_in_nested_tables_and_lists() {
    let cases = [
        (
            "version = 1\n[[safe]]\nverb = [\"ls\"]\nwhy = \"lists\"\nunless_flags = [{ flags = [\"-R\"], why = \"deep\", when = 1 }]\n",
            Expected {
                kind: "UnknownKey",
                message: "unknown key `when`",
                help: "expected one of `flags`, `values`, `why`",
                label: "unknown key",
                at: "p.toml:5:49",
                spans: "when",
            },
        ),
        (
            "version = 1\n[[deny]]\nid = \"x\"\ncategory = \"custom\"\nreason = \"a; b\"\nargs_any = [\"/\", 7]\n",
            Expected {
                kind: "WrongType",
                message: "invalid type: integer `7`, expected a string",
                help: "write a string here",
                label: "wrong type",
                at: "p.toml:6:18",
                spans: "7",
            },
        ),
        (
            "version = 1\n[[protected]]\nid = \"keys\"\npaths = [\"~/.ssh/**\"]\nread = \"NeedsPrompt\"\nwhy = \"keys\"\n",
            Expected {
                kind: "MissingKey",
                message: "missing key `write`",
                help: "add `write = …` to this table",
                label: "in this table",
                at: "p.toml:2:1",
                spans: "[[protected]]",
            },
        ),
    ];
    check_inline(&cases);
}

/// A verb catalogued twice, a wrapper key its mode does not use, and a `strip` wrapper with
/// nothing to strip are refused.
#[test]
fn catalog_entries_that_contradict_themselves() {
    let cases = [
        (
            "version = 1\n[[safe]]\nverb = [\"ls\"]\nwhy = \"lists\"\n\n[[safe]]\nverbs = [[\"cat\"], [\"ls\"]]\nwhy = \"reads\"\n",
            Expected {
                kind: "DuplicateId",
                message: "duplicate `[[safe]]` entry for `ls`",
                help: "`ls` is already catalogued at p.toml:2:1; merge the two entries",
                label: "duplicate entry",
                at: "p.toml:6:1",
                spans: "[[safe]]",
            },
        ),
        (
            "version = 1\n[[wrapper]]\nverb = [\"git\"]\nmode = \"strip\"\nvalue_flags = [\"-C\"]\nstop_at = [\"--\"]\n",
            Expected {
                kind: "Inconsistent",
                message: "`stop_at` does not apply to a `strip` wrapper",
                help: "remove `stop_at`, or give the wrapper the mode that uses it",
                label: "not used by this mode",
                at: "p.toml:6:11",
                spans: "[\"--\"]",
            },
        ),
        (
            "version = 1\n[[wrapper]]\nverb = [\"env\"]\nplain_settings = [\"user.name\"]\n",
            Expected {
                kind: "Inconsistent",
                message: "`plain_settings` does not apply to a `prefix` wrapper",
                help: "remove `plain_settings`, or give the wrapper the mode that uses it",
                label: "not used by this mode",
                at: "p.toml:4:18",
                spans: "[\"user.name\"]",
            },
        ),
        (
            "version = 1\n[[wrapper]]\nverb = [\"mvn\"]\nmode = \"strip\"\ncwd_flags = [\"-C\"]\n",
            Expected {
                kind: "Inconsistent",
                message: "a `strip` wrapper needs `value_flags` or `flags`",
                help: "list the options to strip, such as `value_flags = [\"-C\"]`",
                label: "incomplete wrapper",
                at: "p.toml:2:1",
                spans: "[[wrapper]]",
            },
        ),
    ];
    check_inline(&cases);
}

#[test]
fn a_custom_token_class_is_refused_with_the_list() {
    check(
        "classify_custom_class.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown token class `ticket`",
            help: "the token classes are `flag`, `url`, `env-ref`, `path`, `glob`, `value`, `word`; a class cannot be added",
            label: "unknown class",
            at: "bad/classify_custom_class.toml:4:1",
            spans: "ticket",
        },
    );
}

#[test]
fn a_misspelt_token_class_is_refused_with_a_suggestion_and_the_list() {
    check(
        "classify_misspelt_class.toml",
        Layer::User,
        &Expected {
            kind: "UnknownValue",
            message: "unknown token class `valeu`",
            help: "did you mean `value`? (the token classes are `flag`, `url`, `env-ref`, `path`, `glob`, `value`, `word`)",
            label: "unknown class",
            at: "bad/classify_misspelt_class.toml:4:18",
            spans: "\"valeu\"",
        },
    );
}

/// `settings.system_dirs` takes absolute directories and `settings.package_runners` commands.
#[test]
fn settings_lists_of_directories_and_commands_are_checked() {
    let cases = [
        (
            "version = 1\n[settings]\nsystem_dirs = [\"opt/corp\"]\n",
            Expected {
                kind: "BadValue",
                message: "system directory `opt/corp` is not absolute",
                help: "give an absolute directory such as `/etc`",
                label: "relative directory",
                at: "p.toml:3:16",
                spans: "\"opt/corp\"",
            },
        ),
        (
            "version = 1\n[settings]\npackage_runners = [\"npx\", \" \"]\n",
            Expected {
                kind: "BadValue",
                message: "an empty command in `package_runners`",
                help: "give a command name such as `docker run`",
                label: "empty",
                at: "p.toml:3:27",
                spans: "\" \"",
            },
        ),
    ];
    check_inline(&cases);
}

#[test]
fn max_operands_is_a_small_count_with_a_reason() {
    let cases = [
        (
            "version = 1\n[[safe]]\nverb = [\"git\", \"config\"]\nwhy = \"reads\"\nmax_operands = { count = 99, why = \"sets\" }\n",
            Expected {
                kind: "BadValue",
                message: "`max_operands.count` `99` is out of range",
                help: "`max_operands.count` is a count from 0 to 16",
                label: "out of range",
                at: "p.toml:5:26",
                spans: "99",
            },
        ),
        (
            "version = 1\n[[safe]]\nverb = [\"git\", \"config\"]\nwhy = \"reads\"\nmax_operands = { count = 1, why = \" \" }\n",
            Expected {
                kind: "EmptyValue",
                message: "`why` is empty",
                help: "write a short sentence for `why`",
                label: "empty",
                at: "p.toml:5:35",
                spans: "\" \"",
            },
        ),
    ];
    check_inline(&cases);
}

#[test]
fn settings_need_their_options_and_real_keys() {
    let cases = [
        (
            "version = 1\n[[verb]]\nverb = [\"git\"]\nsettings = { \"core.pager\" = \"exec\" }\n",
            Expected {
                kind: "Inconsistent",
                message: "`setting_flags` and `settings` go together",
                help: "name the options whose value is `KEY=VALUE` in `setting_flags`, and the roles of their keys in `settings`",
                label: "one without the other",
                at: "p.toml:2:1",
                spans: "[[verb]]",
            },
        ),
        (
            "version = 1\n[[verb]]\nverb = [\"git\"]\nsetting_flags = [\"-c\"]\nsettings = { \"=!\" = \"exec\" }\n",
            Expected {
                kind: "BadValue",
                message: "`=!` in `settings` is not a key",
                help: "write the key (a glob such as `alias.*`), optionally followed by `=` and the text the value must start with: `\"alias.*=!\" = \"exec\"`",
                label: "not a key",
                at: "p.toml:5:15",
                spans: "=!",
            },
        ),
        (
            "version = 1\n[[verb]]\nverb = [\"ssh\"]\nsetting_flags = [\"-o\"]\nsettings = { ProxyCommand = \"exe\" }\n",
            Expected {
                kind: "UnknownValue",
                message: "unknown role `exe` in `settings`",
                help: "did you mean `exec`?",
                label: "unknown role",
                at: "p.toml:5:29",
                spans: "\"exe\"",
            },
        ),
    ];
    check_inline(&cases);
}
