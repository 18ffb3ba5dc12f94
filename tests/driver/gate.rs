//! Runner for `tests/corpus/gate.toml`: each case evaluates `command` with the embedded default
//! policy (plus an optional `policy` layer) in a trust state, and compares the decision, the
//! hard-deny rules, the prompt and, optionally, the evidence and a workflow transition.
//!
//! Defaults: audience `personal`, project and cwd `/home/u/proj`, home `/home/u`, no session
//! directory, tmp `/tmp` (`{root}/tmp` in a file-system case), symbolic links not resolved. `zones` are extra write zones and `read_zones` extra
//! read zones (session grants), `allow` session patterns, `stored` persisted patterns,
//! `stored_zones` persisted zones (`"write /x"`), `allow_hosts` session host grants and
//! `stored_hosts` persisted ones (`"api.github.com"`, `"*.example.com"`).
//!
//! A case with `dirs`, `files`, `contents` or `symlinks` runs in a fresh temporary directory:
//! `{root}` in any field stands for it, the listed directories and empty files are created,
//! each `contents` file (`"path" = "text"`) is written with its text (`{root}` substituted), each symlink
//! `"link" = "target"` is made (relative link paths are under the root; targets are used as
//! written after `{root}` substitution), and symbolic links are resolved.
//!
//! Checked exactly: `expect`; `deny` (hard-deny rule ids in order, default none); for
//! `NeedsPrompt` the prompt's `paths` (`"access path"`), `hosts` (the proposed host grants),
//! `clauses` (`"text => pattern"`, `-` for
//! no pattern) and `persistable` (default true). Checked when given: `display`, `verbs`,
//! `argv`, `origins`, `reasons` (one string per clause verdict: `kind` or `kind(rule)` joined by
//! `"; "`). A workflow step: `choice` with either `effects` (`"add-session-zone write /x"`,
//! `"add-session-pattern P"`, `"persist-zone …"`, `"persist-pattern P"`, `"add-session-host H"`,
//! `"persist-host H"`, `"complete D"`) or
//! `error` (the exact message); `then` is the decision after the effects are applied to the
//! state and the command is evaluated again.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use shellgate_policy::{
    Access, Choice, Decision, Effect, Evaluation, GateEvaluator, GrantSource, HostGrant, Policy,
    TrustState, VerbPattern,
};
use shellgate_rules::{Layer, PolicySource};

use crate::corpus::check;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    command: String,
    cwd: Option<String>,
    project: Option<String>,
    session: Option<String>,
    home: Option<String>,
    tmp: Option<String>,
    audience: Option<String>,
    #[serde(default)]
    zones: Vec<String>,
    #[serde(default)]
    read_zones: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    stored: Vec<String>,
    #[serde(default)]
    stored_zones: Vec<String>,
    #[serde(default)]
    allow_hosts: Vec<String>,
    #[serde(default)]
    stored_hosts: Vec<String>,
    policy: Option<String>,
    #[serde(default)]
    dirs: Vec<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    contents: BTreeMap<String, String>,
    #[serde(default)]
    symlinks: BTreeMap<String, String>,
    expect: String,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    hosts: Vec<String>,
    #[serde(default)]
    clauses: Vec<String>,
    persistable: Option<bool>,
    display: Option<String>,
    verbs: Option<Vec<Vec<String>>>,
    argv: Option<Vec<Vec<String>>>,
    origins: Option<Vec<String>>,
    reasons: Option<Vec<String>>,
    choice: Option<String>,
    effects: Option<Vec<String>>,
    error: Option<String>,
    then: Option<String>,
}

/// The default policy's evaluator, built once.
fn default_gate() -> &'static GateEvaluator {
    static GATE: OnceLock<GateEvaluator> = OnceLock::new();
    GATE.get_or_init(|| GateEvaluator::new(Policy::embedded_default().unwrap()))
}

/// The evaluator for a case: the default one, or the default plus the case's layer.
fn gate_for(case: &Case) -> Result<GateEvaluator, String> {
    let Some(text) = &case.policy else {
        return Ok(default_gate().clone());
    };
    let sources = [
        PolicySource::new(
            shellgate_rules::DEFAULT_POLICY_NAME,
            shellgate_rules::DEFAULT_POLICY,
            Layer::Default,
        ),
        PolicySource::new("case.toml", text.clone(), Layer::User),
    ];
    shellgate_policy::load_policy(&sources)
        .map(GateEvaluator::new)
        .map_err(|e| format!("the case policy does not load: {e}"))
}

fn sub(text: &str, root: &str) -> String {
    text.replace("{root}", root)
}

/// Builds the trust state; `root` is the temporary directory of a file-system case.
fn state_for(gate: &GateEvaluator, case: &Case, root: &str) -> Result<TrustState, String> {
    let s = |t: &str| sub(t, root);
    let project = case
        .project
        .as_deref()
        .map_or_else(|| "/home/u/proj".to_owned(), s);
    let cwd = case.cwd.as_deref().map_or_else(|| project.clone(), s);
    let home = case.home.as_deref().map_or_else(|| "/home/u".to_owned(), s);
    let mut state = TrustState::new(case.audience.as_deref().unwrap_or("personal"), &cwd);
    state.set_resolve_symlinks(!root.is_empty());
    state.set_home(&home);
    state.set_project(&project);
    let default_tmp = if root.is_empty() {
        "/tmp"
    } else {
        "{root}/tmp"
    };
    state.set_tmp(s(case.tmp.as_deref().unwrap_or(default_tmp)));
    if let Some(session) = &case.session {
        state.set_session(s(session));
    }
    gate.apply_profile(&mut state).map_err(|e| e.to_string())?;
    for zone in &case.zones {
        state.add_zone(s(zone), Access::Write, GrantSource::Session);
    }
    for zone in &case.read_zones {
        state.add_zone(s(zone), Access::Read, GrantSource::Session);
    }
    for zone in &case.stored_zones {
        let (access, path) = zone
            .split_once(' ')
            .ok_or_else(|| format!("bad stored zone `{zone}`"))?;
        let access = access.parse::<Access>().map_err(|e| e.to_string())?;
        state.add_zone(s(path), access, GrantSource::Store);
    }
    for (list, source) in [
        (&case.allow, GrantSource::Session),
        (&case.stored, GrantSource::Store),
    ] {
        for pattern in list {
            let pattern: VerbPattern = s(pattern)
                .parse()
                .map_err(|e| format!("pattern `{pattern}`: {e}"))?;
            state.add_pattern(pattern, source);
        }
    }
    for (list, source) in [
        (&case.allow_hosts, GrantSource::Session),
        (&case.stored_hosts, GrantSource::Store),
    ] {
        for host in list {
            let host: HostGrant = host.parse().map_err(|e| format!("host `{host}`: {e}"))?;
            state.add_host(host, source);
        }
    }
    Ok(state)
}

fn effect_text(effect: &Effect) -> String {
    match effect {
        Effect::AddSessionZone { path, access } => {
            format!("add-session-zone {access} {}", path.display())
        }
        Effect::AddSessionPattern(p) => format!("add-session-pattern {p}"),
        Effect::PersistZone { path, access } => format!("persist-zone {access} {path}"),
        Effect::PersistPattern(p) => format!("persist-pattern {p}"),
        Effect::AddSessionHost(h) => format!("add-session-host {h}"),
        Effect::PersistHost(h) => format!("persist-host {h}"),
        Effect::Complete(d) => format!("complete {d}"),
    }
}

fn prompt_paths(evaluation: &Evaluation) -> Vec<String> {
    evaluation
        .prompt
        .iter()
        .flat_map(|p| &p.paths)
        .map(|p| format!("{} {}", p.access, p.path))
        .collect()
}

fn prompt_clauses(evaluation: &Evaluation) -> Vec<String> {
    evaluation
        .prompt
        .iter()
        .flat_map(|p| &p.clauses)
        .map(|c| {
            format!(
                "{} => {}",
                c.text,
                c.pattern.as_ref().map_or("-", |p| p.as_str())
            )
        })
        .collect()
}

fn reasons(evaluation: &Evaluation) -> Vec<String> {
    evaluation
        .clauses
        .iter()
        .map(|c| {
            c.reasons
                .iter()
                .map(|r| match &r.rule {
                    Some(rule) => format!("{}({rule})", r.kind),
                    None => r.kind.to_string(),
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect()
}

/// Records a difference.
/// Runs one case; `None` when it passes, else what differed.
fn run_case(case: &Case) -> Option<String> {
    let gate = match gate_for(case) {
        Ok(gate) => gate,
        Err(e) => return Some(e),
    };
    let temp = (!case.dirs.is_empty()
        || !case.files.is_empty()
        || !case.contents.is_empty()
        || !case.symlinks.is_empty())
    .then(|| tempfile::tempdir().unwrap());
    let root = temp
        .as_ref()
        .map(|t| {
            t.path()
                .canonicalize()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if let Some(temp) = &temp {
        let base = temp.path().canonicalize().unwrap();
        for dir in &case.dirs {
            std::fs::create_dir_all(base.join(sub(dir, &root))).unwrap();
        }
        for file in &case.files {
            let path = base.join(sub(file, &root));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        for (file, text) in &case.contents {
            let path = base.join(sub(file, &root));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, sub(text, &root)).unwrap();
        }
        for (link, target) in &case.symlinks {
            let path = base.join(sub(link, &root));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(sub(target, &root), &path).unwrap();
        }
    }
    let mut state = match state_for(&gate, case, &root) {
        Ok(state) => state,
        Err(e) => return Some(e),
    };
    let command = sub(&case.command, &root);
    let evaluation = gate.evaluate(&command, &state);
    let s = |t: &String| sub(t, &root);
    let mut problems: Vec<String> = Vec::new();
    let p = &mut problems;
    check(p, "decision", &case.expect, evaluation.decision.to_string());
    let deny: Vec<String> = evaluation
        .hard_deny
        .iter()
        .map(|h| h.rule.clone())
        .collect();
    check(p, "deny", &case.deny, deny);
    let expected_paths: Vec<String> = case.paths.iter().map(s).collect();
    check(p, "paths", expected_paths, prompt_paths(&evaluation));
    let prompt_hosts: Vec<String> = evaluation
        .prompt
        .iter()
        .flat_map(|p| &p.hosts)
        .map(ToString::to_string)
        .collect();
    check(p, "hosts", &case.hosts, prompt_hosts);
    let expected_clauses: Vec<String> = case.clauses.iter().map(s).collect();
    check(p, "clauses", expected_clauses, prompt_clauses(&evaluation));
    match &evaluation.prompt {
        Some(prompt) => {
            check(
                p,
                "persistable",
                case.persistable.unwrap_or(true),
                prompt.persistable,
            );
            if let Some(display) = &case.display {
                check(p, "display", s(display), &prompt.display);
            }
        }
        None => {
            if case.persistable.is_some() || case.display.is_some() {
                p.push("persistable/display given but there is no prompt".to_owned());
            }
        }
    }
    if evaluation.decision == Decision::Approved && !evaluation.all_clauses_passed() {
        p.push("Approved but not every clause passed".to_owned());
    }
    if let Some(verbs) = &case.verbs {
        let actual: Vec<Vec<String>> = evaluation.clauses.iter().map(|c| c.verb.clone()).collect();
        check(p, "verbs", verbs, actual);
    }
    if let Some(argv) = &case.argv {
        let expected: Vec<Vec<String>> = argv.iter().map(|a| a.iter().map(s).collect()).collect();
        let actual: Vec<Vec<String>> = evaluation.clauses.iter().map(|c| c.argv.clone()).collect();
        check(p, "argv", expected, actual);
    }
    if let Some(origins) = &case.origins {
        let actual: Vec<String> = evaluation
            .clauses
            .iter()
            .map(|c| c.origin.clone())
            .collect();
        check(p, "origins", origins, actual);
    }
    if let Some(expected) = &case.reasons {
        let expected: Vec<String> = expected.iter().map(s).collect();
        check(p, "reasons", expected, reasons(&evaluation));
    }
    if let Some(choice) = &case.choice {
        let choice: Choice = choice.parse().unwrap();
        match gate.respond(&evaluation, choice, &state) {
            Ok(effects) => {
                let actual: Vec<String> = effects.iter().map(effect_text).collect();
                let expected: Vec<String> = case.effects.iter().flatten().map(s).collect();
                check(p, "effects", expected, actual);
                if case.error.is_some() {
                    p.push("expected a workflow error".to_owned());
                }
                state.apply_effects(&effects);
                if let Some(then) = &case.then {
                    let again = gate.evaluate(&command, &state);
                    check(p, "then", then, again.decision.to_string());
                }
            }
            Err(e) => {
                check(
                    p,
                    "error",
                    case.error.clone().unwrap_or_default(),
                    e.to_string(),
                );
            }
        }
    }
    (!problems.is_empty()).then(|| problems.join("\n  "))
}

/// Runs every case of `tests/corpus/NAME` and fails with each case that does not hold.
fn run_file(name: &str) {
    crate::corpus::check_file(
        name,
        |c: &Case| &c.name,
        |case| {
            run_case(case).map(|problem| format!("\n  command: {:?}\n  {problem}", case.command))
        },
    );
}

#[test]
fn gate_corpus() {
    run_file("gate.toml");
}

/// The effects model (issue 11): each class's routine commands with their unsafe neighbours.
#[test]
fn effects_corpus() {
    run_file("effects.toml");
}
