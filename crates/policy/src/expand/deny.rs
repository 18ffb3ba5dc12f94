//! Every deny rule an expansion hits: the language's matchers (`shellgate-rules`) applied to
//! every command the walk found.

use shellgate_rules::{DenyRule, Policy, SafeVerdict};

use super::Expansion;

/// Where an unknown command may start another command: its first operand (`valgrind rm -rf
/// /`, after options; a long option's value, if it takes one, starts a command line whose own
/// first operand is followed in turn: `mpirun --np 1 sudo id`) and the word after each `--`
/// (`chamber exec svc -- rm -rf /`). A command named by a relative path or a file name
/// (`./run.sh`, `train.py`) is a program or script whose arguments are its own (`python
/// train.py --mode init --seed 0` is not `init 0`); one named by an absolute path is the
/// program of its name (`/usr/bin/heaptrack`).
fn launched_starts(words: &[shellgate_parser::Word]) -> Vec<usize> {
    let plain = |w: &shellgate_parser::Word| w.literal && !w.cooked.is_empty();
    let launcher = words.first().is_some_and(|w| {
        let name = match w.cooked.starts_with('/') {
            true => w.cooked.rsplit('/').next().unwrap_or_default(),
            false => w.cooked.as_str(),
        };
        // (A Windows program's suffix is not a script's: `wsl.exe -e sh -c …`.)
        let name = shellgate_rules::folded_name(name).unwrap_or_else(|| name.to_owned());
        !name.is_empty() && !name.contains('/') && !name.contains('.')
    });
    if !launcher {
        return Vec::new();
    }
    let mut starts = Vec::new();
    for (i, word) in words.iter().enumerate().skip(1) {
        let text = word.cooked.as_str();
        if !plain(word) || text == "--" {
            break;
        }
        if text.starts_with('-') {
            continue;
        }
        starts.push(i);
        break;
    }
    starts.extend(
        words
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, w)| w.literal && w.cooked == "--")
            .map(|(i, _)| i + 1)
            .filter(|i| words.get(*i).is_some_and(plain)),
    );
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// How many unknown commands deep the commands they may launch are followed (each operand
/// of an unknown command is one level: `mytool a b c d sudo id` is five).
const LAUNCH_DEPTH: usize = 16;

/// The longest launched command text that is read again.
const LAUNCH_BYTES: usize = 16 * 1024;

/// How many launched command lines of one invocation are read again.
const LAUNCH_WALKS: usize = 16;

/// The deny rules a command an unknown invocation may launch hits: the words from its first
/// operand (and after each `--`) are read again as a command line and expanded like any other
/// — wrappers, shells and git's options included (`heaptrack env git -C . push -f origin
/// main`, `heaptrack sh -c "rm -rf /"`). Each comes with whether it only asks (see
/// [`launched_hit`]): no grant of the launcher covers it (`heaptrack sudo id` after a saved
/// `heaptrack *`).
fn launched_hits<'p>(
    policy: &'p Policy,
    inv: &super::Invocation,
    depth: usize,
    budget: &mut usize,
) -> Vec<(&'p DenyRule, bool)> {
    let mut found = Vec::new();
    for start in launched_starts(&inv.words) {
        // (Launchers nested in launchers, a hundred deep through a brace expansion, would
        // take minutes: the walks from one invocation are bounded.)
        let Some(left) = budget.checked_sub(1) else {
            break;
        };
        *budget = left;
        let text = inv
            .words
            .get(start..)
            .unwrap_or_default()
            .iter()
            .map(|w| w.raw.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if text.len() > LAUNCH_BYTES {
            continue;
        }
        let (_, launched) = super::walk(policy, &text, inv.cwd.clone(), inv.home.clone());
        for sub in &launched.invocations {
            let view = sub.view();
            found.extend(policy.deny(&view).into_iter().filter_map(launched_hit));
            if depth > 1 && matches!(policy.safe_anywhere(&view), SafeVerdict::NotCatalogued) {
                found.extend(launched_hits(policy, sub, depth - 1, budget));
            }
        }
        for source in &launched.sources {
            found.extend(
                policy
                    .deny_raw(&source.text)
                    .into_iter()
                    .filter_map(launched_hit),
            );
        }
    }
    found
}

/// A rule hit on a command an unknown command may launch, with whether it only asks: a rule
/// that names more than its verb (`rm -rf /`) or an ask rule stands as declared; one that names
/// only its verb may have met the unknown command's own subcommand or operand (`vagrant halt`,
/// `tldr terraform destroy`), so it asks when its verb has several words or it changes
/// privilege (`heaptrack sudo id`), and a single word of another kind is the command's own.
fn launched_hit(rule: &DenyRule) -> Option<(&DenyRule, bool)> {
    if rule.is_ask() || rule.names_more_than_a_verb() {
        Some((rule, rule.is_ask()))
    } else if rule.verb().len() > 1 || rule.category == shellgate_rules::Category::Privilege {
        Some((rule, true))
    } else {
        None
    }
}

/// A deny rule hit found by [`deny_hits`].
#[derive(Clone, Copy, Debug)]
pub struct RuleHit<'p> {
    /// The rule.
    pub rule: &'p DenyRule,
    /// The invocation it hit (for `raw` rules over nested code, the shell whose code it was;
    /// `None` for the top-level text; for `pipeline` rules, the first invocation of the
    /// receiving stage).
    pub invocation: Option<usize>,
    /// Whether the hit only asks: an `[[ask]]` rule, or a deny rule naming only its verb that
    /// met a command an unknown command may launch, where it only asks (a privilege or a
    /// several-word verb).
    pub asks: bool,
}

/// Every deny rule hit by an expansion: command rules on every invocation, `raw` rules on
/// `command` (the top-level text) and on every nested code string, `pipeline` rules on
/// every pipeline. Each rule is reported once per invocation, in invocation order.
#[must_use]
pub fn deny_hits<'p>(policy: &'p Policy, command: &str, ex: &Expansion) -> Vec<RuleHit<'p>> {
    let mut hits: Vec<RuleHit<'_>> = Vec::new();
    fn push<'p>(
        hits: &mut Vec<RuleHit<'p>>,
        rule: &'p DenyRule,
        invocation: Option<usize>,
        asks: bool,
    ) {
        match hits
            .iter_mut()
            .find(|h| std::ptr::eq(h.rule, rule) && h.invocation == invocation)
        {
            Some(seen) => seen.asks &= asks,
            None => hits.push(RuleHit {
                rule,
                invocation,
                asks,
            }),
        }
    }
    for rule in policy.deny_raw(command) {
        push(&mut hits, rule, None, rule.is_ask());
    }
    for (i, inv) in ex.invocations.iter().enumerate() {
        let view = inv.view();
        let mut budget = LAUNCH_WALKS;
        for rule in policy.deny(&view) {
            push(&mut hits, rule, Some(i), rule.is_ask());
        }
        // A command the policy does not know may run its arguments as a command (a profiler,
        // a launcher, a secrets injector: `valgrind rm -rf /`, `heaptrack git push -f origin
        // main`), and a grant of its name would otherwise carry them past every deny rule:
        // its first operand, and the word after a `--`, start a command the deny rules are
        // matched against. (A rule naming a single word only asks: `vagrant halt` is not
        // `halt`.)
        // A wrapper, shell or interpreter the policy knows runs the command it was given (its
        // invocations are judged already: `parallel bash -c 'rm -rf {}' ::: /` is read again
        // for the rules that name more than a verb) or no single-word command at all
        // (`command -v sudo` runs nothing).
        if matches!(policy.safe_anywhere(&view), SafeVerdict::NotCatalogued) {
            let known = matches!(inv.kind, super::InvocationKind::Wrapper { .. })
                || policy.wrapper(&inv.words).is_some()
                || policy.shell(&inv.words).is_some()
                || policy.interpreter(&inv.words).is_some();
            for (rule, asks) in launched_hits(policy, inv, LAUNCH_DEPTH, &mut budget) {
                if !known || rule.names_more_than_a_verb() {
                    push(&mut hits, rule, Some(i), asks);
                }
            }
        }
    }
    for source in &ex.sources {
        for rule in policy.deny_raw(&source.text) {
            push(&mut hits, rule, Some(source.invocation), rule.is_ask());
        }
    }
    for pipeline in &ex.pipelines {
        let runs = |stage: usize, verb: &[String]| {
            pipeline.stages.get(stage).is_some_and(|members| {
                members.iter().any(|i| {
                    ex.invocations
                        .get(*i)
                        .is_some_and(|inv| policy.deny_prefix_end(&inv.words, verb).is_some())
                })
            })
        };
        for rule in policy.pipeline_hits(pipeline.stages.len(), &runs) {
            let Some((_, to)) = rule.pipeline() else {
                continue;
            };
            let receiving = (1..pipeline.stages.len())
                .find(|j| to.iter().any(|v| runs(*j, v)))
                .and_then(|j| pipeline.stages.get(j))
                .and_then(|members| members.first().copied());
            push(&mut hits, rule, receiving, rule.is_ask());
        }
    }
    hits
}
