//! A finder piped into a command that appends its input to its arguments
//! (`find src -name '*.rs' -print0 | xargs -0 wc -l`): the command receives the files the
//! finder found, as with `find … -exec wc -l {} +`, when nothing else can reach the pipe and
//! the names are NUL-separated on both sides. Split on blanks, a found name can carry another
//! path (`./x /etc/shadow` from a directory named `x ` holding `etc/shadow`).

use shellgate_parser::{ClauseGraph, Operator, RedirectOp};
use shellgate_rules::flags;
use shellgate_rules::{ExecMode, PrefixMode, WrapperMode};

use super::{InvocationKind, Via, Walker};

impl Walker<'_> {
    /// Called with the invocations of two neighbouring pipeline stages, the first piped into
    /// the second by the clause `second_clause` of `graph`.
    pub(super) fn feed_found_files(
        &mut self,
        graph: &ClauseGraph,
        second_clause: usize,
        finder: usize,
        stage: &[usize],
    ) {
        if graph.get(second_clause).and_then(|c| c.operator) != Some(Operator::Pipe) {
            return; // `|&` mixes in the finder's error messages
        }
        let Some(&appender) = stage.first() else {
            return;
        };
        let (Some(f), Some(a)) = (
            self.ex.invocations.get(finder),
            self.ex.invocations.get(appender),
        ) else {
            return;
        };
        let policy = self.policy;
        let Some(exec) = policy.wrapper(&f.words).and_then(|w| match &w.mode {
            WrapperMode::ExecOption(exec) => Some(exec),
            _ => None,
        }) else {
            return;
        };
        // The appender's own words: before the command it runs (`xargs -0 grep -0 x`: the
        // second `-0` is grep's).
        let inner_len = stage
            .iter()
            .filter_map(|&i| self.ex.invocations.get(i))
            .find(|inv| {
                inv.origin
                    .last()
                    .is_some_and(|s| s.invocation == appender && s.via == Via::Wrapper)
            })
            .map_or(0, |inv| inv.words.len());
        let own = a
            .words
            .get(..a.words.len().saturating_sub(inner_len))
            .unwrap_or_default();
        let null_input = appender_mode(policy, &a.words).is_some_and(|p| splits_on_nul(p, own));
        // Both ends are NUL-separated, the appender is transparent (`xargs -I{}`/`-a FILE` are
        // judged by themselves), both run in one known directory, and the finder prints only
        // what it found.
        if !null_input
            || !prints_nul(exec, &f.words)
            || !matches!(a.kind, InvocationKind::Wrapper { .. })
            || a.opaque.is_some()
            || f.opaque.is_some()
            || f.cwd.is_none()
            || f.cwd != a.cwd
            || f.redirects.iter().any(|r| r.op == RedirectOp::DupOut)
            || !only_listing(exec, &f.words)
        {
            return;
        }
        let (words, cwd, home) = (f.words.clone(), f.cwd.clone(), f.home.clone());
        let roots = self.finder_roots(exec, &words, cwd.as_deref(), home.as_deref());
        // The appender's inner command and the wrappers inside it (`xargs timeout 5 wc -l`).
        let mut fed = vec![appender];
        for &index in stage {
            let Some(inv) = self.ex.invocations.get(index) else {
                continue;
            };
            let through_wrapper = inv
                .origin
                .last()
                .is_some_and(|step| step.via == Via::Wrapper && fed.contains(&step.invocation));
            let appends_again = fed.len() > 1
                && inv.parent.is_some_and(|p| {
                    p != appender
                        && self
                            .ex
                            .invocations
                            .get(p)
                            .and_then(|p| appender_mode(policy, &p.words))
                            .is_some()
                });
            if through_wrapper && !appends_again && inv.found_below.is_none() {
                fed.push(index);
            }
        }
        for &index in fed.iter().skip(1) {
            if let Some(inv) = self.ex.invocations.get_mut(index) {
                inv.found_below = Some(roots.clone());
                inv.found_by = Some(finder);
            }
        }
    }
}

/// The prefix wrapper entry of `words` when it appends its input to its arguments (`xargs`).
fn appender_mode<'p>(
    policy: &'p shellgate_rules::Policy,
    words: &[shellgate_parser::Word],
) -> Option<&'p PrefixMode> {
    policy.wrapper(words).and_then(|w| match &w.mode {
        WrapperMode::Prefix(prefix) if prefix.appends_args => Some(prefix),
        _ => None,
    })
}

/// Whether every option of a finder is one of its `list_flags` (an option is a word `-x…` or
/// `--x…`; values such as `-5` in `-mtime -5` are not options).
fn only_listing(exec: &ExecMode, words: &[shellgate_parser::Word]) -> bool {
    !exec.list_flags.is_empty()
        && words.iter().skip(1).all(|w| {
            let name = w.cooked.split('=').next().unwrap_or_default();
            let option = name
                .trim_start_matches('-')
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && name.starts_with('-');
            w.literal && (!option || exec.list_flags.iter().any(|f| f == name))
        })
}

/// Whether the appender's own options (`xargs -r0`, `xargs -n 1 --null`) include one of its
/// `null_flags`, read as the catalog reads options: bundles split, option values skipped.
fn splits_on_nul(prefix: &PrefixMode, own: &[shellgate_parser::Word]) -> bool {
    let takes = |name: &str| prefix.options.value_flags.iter().any(|v| v == name);
    flags::scan(own, 1, &takes).flags.iter().any(|hit| {
        prefix
            .null_flags
            .iter()
            .any(|f| flags::flag_is(&hit.name, f))
    })
}

/// Whether the finder's words include one of its `null_flags` that is not the value of the
/// option before it (`find . -name -print0` prints lines): the word before is the verb or a
/// word that is not an option.
fn prints_nul(exec: &ExecMode, words: &[shellgate_parser::Word]) -> bool {
    words.iter().enumerate().skip(1).any(|(i, w)| {
        let after_an_option = i > 1
            && words
                .get(i - 1)
                .is_some_and(|prev| prev.cooked.starts_with('-'));
        w.literal
            && !after_an_option
            && exec.null_flags.iter().any(|f| flags::flag_is(&w.cooked, f))
    })
}
