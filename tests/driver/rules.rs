//! Runner for `tests/corpus/rules.toml`: each case parses `command`, expands it with a policy
//! (an inline policy from the file's `[policy.NAME]` tables, `core` by default, or `default`
//! for the embedded default policy) and compares:
//!
//! * `deny`: the exact set of deny rule ids hit anywhere (sorted; default none), via
//!   `shellgate_policy::expand::deny_hits` over the gate's walk;
//! * `expand` (when given): every invocation as `"KIND TEXT[ +args][ [OPAQUE]]"`, KIND being
//!   `plain`, `wrapper`, `wrapper!` (privileged) or `inner`, TEXT the invocation's raw text,
//!   OPAQUE the snake_case opaque kind;
//! * `safe` (when given): the safe verdict of every non-wrapper invocation, in order:
//!   `safe`, `pure`, `unsafe TOKEN` or `not-catalogued`;
//! * `roles` (when given): the argument roles of the first invocation as `"INDEX ROLE TEXT"`;
//! * `complete` (default true): `Expansion::complete`.
//!
//! Defaults: cwd `/home/u/proj`, home `/home/u`; `""` means unknown.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Deserialize;
use shellgate_policy::expand::{Invocation, InvocationKind, Opaque, deny_hits, walk};
use shellgate_rules::{EffectClass, Layer, Policy, PolicySource, Role, SafeVerdict};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    policy: BTreeMap<String, Inline>,
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inline {
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    command: String,
    #[serde(default = "core")]
    policy: String,
    cwd: Option<String>,
    home: Option<String>,
    #[serde(default)]
    deny: Vec<String>,
    expand: Option<Vec<String>>,
    safe: Option<Vec<String>>,
    roles: Option<Vec<String>>,
    #[serde(default = "yes")]
    complete: bool,
}

fn core() -> String {
    "core".to_owned()
}

fn yes() -> bool {
    true
}

fn dir(value: Option<&String>, default: &str) -> Option<PathBuf> {
    match value.map(String::as_str) {
        None => Some(PathBuf::from(default)),
        Some("") => None,
        Some(other) => Some(PathBuf::from(other)),
    }
}

fn kind(inv: &Invocation) -> &'static str {
    match inv.kind {
        InvocationKind::Plain => "plain",
        InvocationKind::Wrapper { privileged: false } => "wrapper",
        InvocationKind::Wrapper { privileged: true } => "wrapper!",
        InvocationKind::Inner => "inner",
    }
}

fn opaque(o: &Opaque) -> &'static str {
    match o {
        Opaque::Interpreter { .. } => "interpreter",
        Opaque::ScriptFile { .. } => "script_file",
        Opaque::Remote { .. } => "remote",
        Opaque::DynamicCode { .. } => "dynamic_code",
        Opaque::DepthLimit => "depth_limit",
        Opaque::NestedIncomplete => "nested_incomplete",
        Opaque::UnknownOption { .. } => "unknown_option",
    }
}

fn describe(inv: &Invocation) -> String {
    let mut out = format!("{} {}", kind(inv), inv.text);
    if inv.appended_args {
        out.push_str(" +args");
    }
    if let Some(o) = &inv.opaque {
        let _ = write!(out, " [{}]", opaque(o));
    }
    out
}

fn verdict(v: &SafeVerdict<'_>) -> String {
    match v {
        SafeVerdict::Admitted {
            class: EffectClass::ReadOnly,
            ..
        } => "safe".to_owned(),
        SafeVerdict::Admitted {
            class: EffectClass::Pure,
            ..
        } => "pure".to_owned(),
        SafeVerdict::Admitted { class, .. } => class.table().to_owned(),
        SafeVerdict::Unsafe { token, .. } => format!("unsafe {token}"),
        SafeVerdict::NotCatalogued => "not-catalogued".to_owned(),
    }
}

fn role(r: Role) -> &'static str {
    r.as_str()
}

fn run_case(case: &Case, policy: &Policy) -> Option<String> {
    let cwd = dir(case.cwd.as_ref(), "/home/u/proj");
    let home = dir(case.home.as_ref(), "/home/u");
    let (_, ex) = walk(policy, &case.command, cwd, home);
    let mut problems = String::new();
    let mut deny: Vec<String> = deny_hits(policy, &case.command, &ex)
        .iter()
        .map(|h| h.rule.id.clone())
        .collect();
    deny.sort();
    deny.dedup();
    let mut expected_deny = case.deny.clone();
    expected_deny.sort();
    if deny != expected_deny {
        let _ = write!(
            problems,
            "\n    deny: expected {expected_deny:?}, got {deny:?}"
        );
    }
    let described: Vec<String> = ex.invocations.iter().map(describe).collect();
    if let Some(expand) = &case.expand
        && *expand != described
    {
        let _ = write!(
            problems,
            "\n    expand: expected {expand:?}\n            got      {described:?}"
        );
    }
    if let Some(safe) = &case.safe {
        let got: Vec<String> = ex
            .invocations
            .iter()
            .filter(|i| !matches!(i.kind, InvocationKind::Wrapper { .. }))
            .map(|i| verdict(&policy.safe(&i.view())))
            .collect();
        if *safe != got {
            let _ = write!(problems, "\n    safe: expected {safe:?}, got {got:?}");
        }
    }
    if let Some(roles) = &case.roles {
        let got: Vec<String> = ex
            .invocations
            .first()
            .map(|i| {
                policy
                    .roles(&i.view())
                    .iter()
                    .map(|r| format!("{} {} {}", r.index, role(r.role), r.text))
                    .collect()
            })
            .unwrap_or_default();
        if *roles != got {
            let _ = write!(problems, "\n    roles: expected {roles:?}, got {got:?}");
        }
    }
    if ex.complete != case.complete {
        let _ = write!(
            problems,
            "\n    complete: expected {}, got {} ({:?})",
            case.complete, ex.complete, ex.notes
        );
    }
    if problems.is_empty() {
        None
    } else {
        Some(format!(
            "\n  case `{}`: {:?}{problems}\n    invocations: {described:?}",
            case.name, case.command
        ))
    }
}

#[test]
fn rules_corpus() {
    let (file, text): (File, _) = crate::corpus::read("rules.toml");
    let mut policies: BTreeMap<String, Policy> = BTreeMap::new();
    for (name, inline) in &file.policy {
        let source = PolicySource::new(
            format!("rules.toml [policy.{name}]"),
            inline.text.clone(),
            Layer::Default,
        );
        let policy = shellgate_policy::load_policy(&[source]).unwrap_or_else(|e| {
            let all: Vec<String> = e
                .errors()
                .iter()
                .map(|e| format!("{e} at {:?}: {:?}", e.location(), e.help_text()))
                .collect();
            panic!("policy `{name}` does not load:\n{}", all.join("\n"))
        });
        policies.insert(name.clone(), policy);
    }
    let default = Policy::embedded_default()
        .unwrap_or_else(|e| panic!("the default policy does not load: {e}"));
    policies.insert("default".to_owned(), default);
    crate::corpus::check_all(
        "rules.toml",
        &file.case,
        |c| &c.name,
        |case| {
            let policy = policies.get(&case.policy).unwrap_or_else(|| {
                panic!("case `{}`: unknown policy `{}`", case.name, case.policy)
            });
            run_case(case, policy)
        },
    );
    // Every `[[case]]` of the file ran.
    assert_eq!(file.case.len(), text.matches("\n[[case]]\n").count());
}
