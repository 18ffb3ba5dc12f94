//! The conditions of a `[[deny]]` rule: one enum and one table of keys.
//!
//! Every key of `[[deny]]` that says what a rule matches is a [`Condition`], listed once in
//! [`ROWS`] with the way its value is written ([`Shape`]) and the matcher family it belongs to
//! ([`DenyKind`]). The table is what reads the keys (`raw.rs`), what compiles and validates
//! their values ([`compile`]), what names them in the "unknown key" and "no matcher"
//! diagnostics, and what the tests walk; [`Condition::holds`] matches them. A new condition is
//! a variant, its row and its arm in [`Condition::holds`].
//!
//! The conditions of a rule all hold for it to match (AND). `command` conditions are matched
//! against one command ([`crate::Policy::deny`]); `raw` matches whole command text and
//! `pipeline` the stages of a pipeline, each alone in its rule.

use std::cell::OnceCell;
use std::ops::Range;

use shellgate_parser::Redirect;
use shellgate_parser::path::{self, PathForms};

use crate::compile::FileCx;
use crate::error::PolicyError;
use crate::flags::{self, Scan, flag_is};
use crate::lazy::LazyGlobSet;
use crate::model::DenyKind;
use crate::policy::{CommandView, Policy};
use crate::raw::{FlagEntry, RawCondition, RawValue, Spanned};
use crate::read::Reader;
use crate::tree::At;

/// Builtins whose `NAME=value` operands set (exported) variables, for the `env` condition.
const EXPORTERS: [&str; 5] = ["export", "declare", "typeset", "local", "readonly"];

/// One compiled condition of a deny rule.
#[derive(Clone, Debug)]
pub(crate) enum Condition {
    /// `verb`: the command starts with this cooked prefix (options may stand between its
    /// words, see [`Policy::deny_prefix_end`]).
    Verb(Vec<String>),
    /// `flags_any`: one of these flags (each in any of its spellings) is present after the
    /// prefix.
    FlagsAny(Vec<Vec<String>>),
    /// `flags_all`: every one of these flags is present after the prefix.
    FlagsAll(Vec<Vec<String>>),
    /// `args_any`: an operand after the prefix matches, in a path form or as written.
    ArgsAny(LazyGlobSet),
    /// `args_set`: an operand after the prefix matches as written or in lower case, and another
    /// operand follows it — a setting given a value (`git config core.hooksPath DIR`, not a read
    /// of the key).
    ArgsSet(LazyGlobSet),
    /// `redirect_to`: a write redirection's target matches, in a path form or as written.
    RedirectTo(LazyGlobSet),
    /// `env`: an assigned variable's name matches.
    Env(LazyGlobSet),
    /// `cwd_under`: the command runs in a directory that matches, or below one, in its
    /// resolved or `~` form. An unknown directory (after `cd "$DIR"`) may be one of them, so
    /// it matches: a deny rule errs toward denying.
    CwdUnder(LazyGlobSet),
    /// `pipeline`: a stage starting with a `from` prefix is piped into a later stage starting
    /// with a `to` prefix.
    Pipeline {
        /// Command prefixes of the first stage.
        from: Vec<Vec<String>>,
        /// Command prefixes of the later stage.
        to: Vec<Vec<String>>,
    },
    /// `raw`: a regex over the whole command text.
    Raw(String),
}

/// How a condition's value is written, and which variant compiles from it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    /// A command prefix: `["git", "push"]`.
    Verb,
    /// Flag entries, each one spelling or a list of spellings of one flag.
    Flags(fn(Vec<Vec<String>>) -> Condition),
    /// Globs of the policy dialect (see `glob.rs`).
    Globs(fn(LazyGlobSet) -> Condition),
    /// `{ from = [[…]], to = [[…]] }`.
    Pipeline,
    /// A regex.
    Regex,
}

/// One key of `[[deny]]` that is a condition.
#[derive(Debug)]
pub(crate) struct Row {
    /// The key.
    pub(crate) key: &'static str,
    /// The matcher family.
    pub(crate) kind: DenyKind,
    /// How its value is written and compiled.
    pub(crate) shape: Shape,
}

/// Every condition key, in the order a rule's conditions are kept and matched (`verb` first:
/// it says where the arguments start).
pub(crate) const ROWS: [Row; 10] = [
    Row {
        key: "verb",
        kind: DenyKind::Command,
        shape: Shape::Verb,
    },
    Row {
        key: "flags_any",
        kind: DenyKind::Command,
        shape: Shape::Flags(Condition::FlagsAny),
    },
    Row {
        key: "flags_all",
        kind: DenyKind::Command,
        shape: Shape::Flags(Condition::FlagsAll),
    },
    Row {
        key: "args_any",
        kind: DenyKind::Command,
        shape: Shape::Globs(Condition::ArgsAny),
    },
    Row {
        key: "args_set",
        kind: DenyKind::Command,
        shape: Shape::Globs(Condition::ArgsSet),
    },
    Row {
        key: "redirect_to",
        kind: DenyKind::Command,
        shape: Shape::Globs(Condition::RedirectTo),
    },
    Row {
        key: "env",
        kind: DenyKind::Command,
        shape: Shape::Globs(Condition::Env),
    },
    Row {
        key: "cwd_under",
        kind: DenyKind::Command,
        shape: Shape::Globs(Condition::CwdUnder),
    },
    Row {
        key: "pipeline",
        kind: DenyKind::Pipeline,
        shape: Shape::Pipeline,
    },
    Row {
        key: "raw",
        kind: DenyKind::Raw,
        shape: Shape::Regex,
    },
];

/// The condition keys as a help text lists them: "`verb`, …, `pipeline` or `raw`".
pub(crate) fn key_list() -> String {
    let keys: Vec<String> = ROWS.iter().map(|row| format!("`{}`", row.key)).collect();
    match keys.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => keys.join(""),
    }
}

impl Shape {
    /// Reads a value written this way.
    pub(crate) fn read(self, node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<RawValue> {
        match self {
            Self::Verb => reader.read(node).map(RawValue::Words),
            Self::Flags(_) => reader.read(node).map(RawValue::Flags),
            Self::Globs(_) => reader.read(node).map(RawValue::Globs),
            Self::Pipeline => reader.read(node).map(RawValue::Pipeline),
            Self::Regex => reader.read(node).map(RawValue::Text),
        }
    }
}

/// The matcher family of a rule's written conditions, or `None` (with the error in `cx`)
/// when it has none or mixes a `raw` or `pipeline` condition with others.
pub(crate) fn kind_of(
    written: &[RawCondition],
    id: &str,
    header: Range<usize>,
    cx: &mut FileCx<'_>,
) -> Option<DenyKind> {
    let Some(first) = written.first() else {
        cx.error(
            PolicyError::Inconsistent,
            header,
            format!("deny rule `{id}` has no matcher"),
            "no matcher",
            Some(format!("add at least one of {}", key_list())),
        );
        return None;
    };
    if written.len() == 1 {
        return Some(first.row.kind);
    }
    // A rule of a family matched otherwise than against one command stands alone.
    for (kind, others, help) in [
        (
            DenyKind::Raw,
            "other matchers",
            "a `raw` rule matches the whole command text; move the other matchers to a \
             separate rule",
        ),
        (
            DenyKind::Pipeline,
            "command matchers",
            "a `pipeline` rule matches pipeline stages by verb; move the other matchers to a \
             separate rule",
        ),
    ] {
        if let Some(alone) = written.iter().find(|c| c.row.kind == kind) {
            cx.error(
                PolicyError::Inconsistent,
                alone.span.clone(),
                format!("`{}` cannot be combined with {others}", alone.row.key),
                "combined with other matchers",
                Some(help.to_owned()),
            );
            return None;
        }
    }
    Some(DenyKind::Command)
}

/// Validates the value of `row` and compiles it; errors go to `cx`.
pub(crate) fn compile(row: &Row, value: RawValue, cx: &mut FileCx<'_>) -> Option<Condition> {
    let key = row.key;
    match (row.shape, value) {
        (Shape::Verb, RawValue::Words(mut words)) => cx.words(&mut words, key).map(Condition::Verb),
        (Shape::Flags(make), RawValue::Flags(list)) => flags(list, key, cx).map(make),
        (Shape::Globs(make), RawValue::Globs(mut list)) => {
            let span = list.span();
            let globs = cx.glob_list(&mut list, key)?;
            Some(make(cx.glob_matcher(globs, span, key)))
        }
        (Shape::Pipeline, RawValue::Pipeline(pipe)) => {
            let span = pipe.span();
            let pipe = pipe.get_ref();
            let mut sides = [Vec::new(), Vec::new()];
            for ((list, out), side) in [&pipe.from, &pipe.to]
                .into_iter()
                .zip(&mut sides)
                .zip(["from", "to"])
            {
                if list.is_empty() {
                    cx.error(
                        PolicyError::EmptyValue,
                        span.clone(),
                        format!("`pipeline.{side}` is empty"),
                        "empty list",
                        Some(format!(
                            "list at least one command prefix in `{side}`, such as `[[\"curl\"]]`"
                        )),
                    );
                }
                for words in list {
                    if let Some(w) = cx.words(&mut words.clone(), side) {
                        out.push(w);
                    }
                }
            }
            let [from, to] = sides;
            Some(Condition::Pipeline { from, to })
        }
        (Shape::Regex, RawValue::Text(regex)) => {
            cx.check_regexes(&[&regex], key);
            Some(Condition::Raw(regex.get_ref().clone()))
        }
        // The reader reads each shape into its own value.
        (Shape::Verb | Shape::Flags(_) | Shape::Globs(_) | Shape::Pipeline | Shape::Regex, _) => {
            None
        }
    }
}

/// Flag entries: each one spelling, or a non-empty list of spellings.
fn flags(
    mut list: Spanned<Vec<Spanned<FlagEntry>>>,
    key: &'static str,
    cx: &mut FileCx<'_>,
) -> Option<Vec<Vec<String>>> {
    let mut ok = true;
    if list.get_ref().is_empty() {
        cx.error(
            PolicyError::EmptyValue,
            list.span(),
            format!("`{key}` is empty"),
            "empty list",
            Some(format!("list at least one flag or remove `{key}`")),
        );
        ok = false;
    }
    let mut out = Vec::new();
    for entry in list.get_mut() {
        let entry_span = entry.span();
        let spellings = match entry.get_mut() {
            FlagEntry::One(flag) => {
                let mut text = Spanned::new(entry_span, std::mem::take(flag));
                cx.spellings(std::slice::from_mut(&mut text), key)
            }
            FlagEntry::Alternatives(all) if all.is_empty() => {
                cx.error(
                    PolicyError::EmptyValue,
                    entry_span,
                    format!("an entry of `{key}` is empty"),
                    "empty list",
                    Some("list the spellings of one flag, such as `[\"-f\", \"--force\"]`".into()),
                );
                None
            }
            FlagEntry::Alternatives(all) => cx.spellings(all, key),
        };
        match spellings {
            Some(s) => out.push(s),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

impl Condition {
    /// Whether this condition of a `command` rule holds for `view`. `start` is where the
    /// arguments begin: after the command word, or after the prefix once `verb` has matched.
    pub(crate) fn holds(
        &self,
        policy: &Policy,
        view: &CommandView<'_>,
        facts: &Facts,
        start: &mut usize,
    ) -> bool {
        let from = *start;
        let has = |spellings: &Vec<String>| {
            facts
                .scan(view)
                .flags
                .iter()
                .filter(|hit| hit.index >= from)
                .any(|hit| spellings.iter().any(|s| flag_is(&hit.name, s)))
        };
        match self {
            Self::Verb(verb) => match policy.deny_prefix_end(view.words, verb) {
                Some(end) => {
                    *start = end;
                    true
                }
                None => false,
            },
            Self::FlagsAny(list) => list.iter().any(has),
            Self::FlagsAll(list) => list.iter().all(has),
            Self::ArgsAny(globs) => facts.operands(view).iter().any(|(index, forms)| {
                *index >= from
                    && (forms.iter().any(|form| globs.is_match(form))
                        || view
                            .words
                            .get(*index)
                            .is_some_and(|word| globs.is_match(&word.cooked)))
            }),
            Self::ArgsSet(globs) => {
                let operands: Vec<usize> = facts
                    .operands(view)
                    .iter()
                    .map(|(index, _)| *index)
                    .filter(|index| *index >= from)
                    .collect();
                // (Setting names such as git's are case-insensitive: `Core.FSMonitor` is
                // `core.fsmonitor`. The patterns are written in lower case.)
                operands.iter().rev().skip(1).any(|index| {
                    view.words.get(*index).is_some_and(|word| {
                        globs.is_match(&word.cooked)
                            || globs.is_match(&word.cooked.to_ascii_lowercase())
                    })
                })
            }
            Self::RedirectTo(globs) => facts
                .redirects(view)
                .iter()
                .any(|target| globs.is_match(target)),
            Self::Env(globs) => facts
                .env(policy, view)
                .iter()
                .any(|name| globs.is_match(name)),
            Self::CwdUnder(globs) => view.cwd.is_none_or(|cwd| {
                let Some(mut dir) = cwd.to_str().map(|d| path::normalize(d, d.starts_with('/')))
                else {
                    return true;
                };
                // The directory, then each directory it is in.
                loop {
                    if path::forms(&dir, None, view.home)
                        .iter()
                        .any(|f| globs.is_match(f))
                    {
                        return true;
                    }
                    match dir.rsplit_once('/') {
                        Some((parent, _)) if !parent.is_empty() => dir = parent.to_owned(),
                        Some(_) if dir != "/" => dir = "/".to_owned(),
                        _ => return false,
                    }
                }
            }),
            // Alone in their rules, which are not matched against one command.
            Self::Pipeline { .. } | Self::Raw(_) => false,
        }
    }
}

#[cfg(test)]
impl Condition {
    /// The values as written in a policy file (a verb and flag entries as lists of words,
    /// globs, a pipeline's prefixes, a regex), for tests that compare them with the file.
    pub(crate) fn written(&self) -> Vec<Vec<String>> {
        match self {
            Self::Verb(verb) => vec![verb.clone()],
            Self::FlagsAny(list) | Self::FlagsAll(list) => list.clone(),
            Self::ArgsAny(globs)
            | Self::ArgsSet(globs)
            | Self::RedirectTo(globs)
            | Self::Env(globs)
            | Self::CwdUnder(globs) => vec![globs.patterns().to_vec()],
            Self::Pipeline { from, to } => from.iter().chain(to).cloned().collect(),
            Self::Raw(regex) => vec![vec![regex.clone()]],
        }
    }

    /// The glob set, for a glob condition.
    pub(crate) const fn globs(&self) -> Option<&LazyGlobSet> {
        match self {
            Self::ArgsAny(globs)
            | Self::ArgsSet(globs)
            | Self::RedirectTo(globs)
            | Self::Env(globs)
            | Self::CwdUnder(globs) => Some(globs),
            Self::Verb(_)
            | Self::FlagsAny(_)
            | Self::FlagsAll(_)
            | Self::Pipeline { .. }
            | Self::Raw(_) => None,
        }
    }
}

/// What the conditions need from a view, each part computed once and only when a condition
/// asks for it (most commands meet only rules that never look at path forms).
#[derive(Default)]
pub(crate) struct Facts {
    /// Flags and operands after the command word (no value flags: the strict reading; one
    /// table of value flags per command cannot tell `git fetch -n` from `git log -n 5`).
    scan: OnceCell<Scan>,
    /// Each operand's word index and path forms: `args_any` globs are matched against the
    /// forms and the cooked word.
    operands: OnceCell<Vec<(usize, PathForms)>>,
    /// What `redirect_to` globs are matched against: each write target's path forms and
    /// cooked text.
    redirects: OnceCell<Vec<String>>,
    /// What `env` globs are matched against: assigned names, and the names an exporter
    /// builtin (`export A=1`) sets.
    env: OnceCell<Vec<String>>,
}

impl Facts {
    fn scan(&self, view: &CommandView<'_>) -> &Scan {
        self.scan
            .get_or_init(|| flags::scan(view.words, 1, &|_| false))
    }

    fn operands(&self, view: &CommandView<'_>) -> &[(usize, PathForms)] {
        self.operands.get_or_init(|| {
            self.scan(view)
                .operands
                .iter()
                .filter_map(|index| {
                    let word = view.words.get(*index)?;
                    Some((*index, path::forms(&word.cooked, view.cwd, view.home)))
                })
                .collect()
        })
    }

    fn redirects(&self, view: &CommandView<'_>) -> &[String] {
        self.redirects.get_or_init(|| {
            let mut redirects = Vec::new();
            for target in view.redirects.iter().filter_map(Redirect::write_target) {
                let forms = path::forms(&target.cooked, view.cwd, view.home);
                redirects.extend(forms.iter().map(str::to_owned));
                redirects.push(target.cooked.clone());
            }
            redirects
        })
    }

    fn env(&self, policy: &Policy, view: &CommandView<'_>) -> &[String] {
        self.env.get_or_init(|| {
            let mut env: Vec<String> = view.assignments.iter().map(|a| a.name.clone()).collect();
            let exporter = view
                .words
                .first()
                .and_then(|w| policy.command_name(w))
                .is_some_and(|(name, _)| EXPORTERS.contains(&name));
            if exporter {
                for word in view.words.iter().skip(1) {
                    let (name, _) = shellgate_parser::declared_variable(&word.cooked);
                    env.push(name.to_owned());
                }
            }
            env
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_list_names_every_row_in_order() {
        assert_eq!(
            key_list(),
            "`verb`, `flags_any`, `flags_all`, `args_any`, `args_set`, `redirect_to`, `env`, \
             `cwd_under`, `pipeline` or `raw`"
        );
    }
}
