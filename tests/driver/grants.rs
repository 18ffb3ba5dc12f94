//! Runner for `tests/corpus/grants.toml`: each case checks one grant with the
//! [`GrantRule`] of the embedded default policy (plus the case's `policy`, an extra user layer)
//! and compares:
//!
//! * `expect`: `admitted` or `refused`;
//! * `message` (when given): the refusal's exact message;
//! * `help` (when given): the narrower grant it offers instead;
//! * `code` (when given): the refusal's code.
//!
//! A case names a `pattern` (as `shellgate approvals trust-verb` takes it) or a `zone` (as
//! `trust-zone` takes it; `~/` expands to `home`) with `access` (`write` by default). Defaults:
//! home `/home/u`.

use serde::Deserialize;
use shellgate_policy::{Access, GrantRule, Policy, VerbPattern, ZonePath};
use shellgate_rules::{Layer, PolicySource};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    pattern: Option<String>,
    zone: Option<String>,
    #[serde(default = "write")]
    access: String,
    #[serde(default = "home")]
    home: String,
    policy: Option<String>,
    expect: String,
    message: Option<String>,
    help: Option<String>,
    code: Option<String>,
}

fn write() -> String {
    "write".to_owned()
}

fn home() -> String {
    "/home/u".to_owned()
}

fn rule_for(case: &Case) -> Result<GrantRule, String> {
    let mut sources = vec![Policy::default_source()];
    if let Some(text) = &case.policy {
        sources.push(PolicySource::new("case.toml", text.clone(), Layer::User));
    }
    shellgate_policy::load_policy(&sources)
        .map(GrantRule::new)
        .map_err(|e| format!("policy: {e}"))
}

fn run_case(case: &Case) -> Result<(), String> {
    let rule = rule_for(case)?;
    let home = std::path::Path::new(&case.home);
    let outcome = match (&case.pattern, &case.zone) {
        (Some(text), None) => {
            let pattern: VerbPattern = text.parse().map_err(|e| format!("pattern: {e}"))?;
            rule.check_pattern(&pattern)
        }
        (None, Some(text)) => {
            let zone = ZonePath::new(text, Some(home)).map_err(|e| format!("zone: {e}"))?;
            let access = match case.access.as_str() {
                "read" => Access::Read,
                "write" => Access::Write,
                other => return Err(format!("unknown access `{other}`")),
            };
            rule.check_zone(zone.as_path(), access, Some(home))
        }
        _ => return Err("a case names exactly one of `pattern` and `zone`".to_owned()),
    };
    let mut problems = Vec::new();
    match (case.expect.as_str(), &outcome) {
        ("admitted", Ok(())) | ("refused", Err(_)) => {}
        ("admitted", Err(refusal)) => problems.push(format!("refused: {refusal}")),
        ("refused", Ok(())) => problems.push("admitted".to_owned()),
        (other, _) => problems.push(format!("unknown expect `{other}`")),
    }
    if let Err(refusal) = &outcome {
        let actual = [
            (&case.message, refusal.to_string(), "message"),
            (&case.help, refusal.alternative(), "help"),
            (&case.code, refusal.code_str().to_owned(), "code"),
        ];
        for (expected, actual, what) in actual {
            if let Some(expected) = expected
                && *expected != actual
            {
                problems.push(format!("{what}: expected {expected:?}, got {actual:?}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn grant_corpus() {
    crate::corpus::check_file(
        "grants.toml",
        |c: &Case| &c.name,
        |case| run_case(case).err(),
    );
}
