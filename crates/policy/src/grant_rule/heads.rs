//! Heads that run other code ([`CodeHead`]) and tools that need a subcommand: what a pattern
//! grant may not start with.

use std::collections::{HashMap, HashSet};

use shellgate_rules::{Policy, VerbPattern, WrapperMode, folded_name};

use super::{CodeHead, GrantRefusal, GrantRule};

/// A head that needs a subcommand, with (at most two) of its subcommands from the policy.
#[derive(Clone, Debug)]
pub(super) struct MultiPurpose {
    pub(super) head: String,
    examples: Vec<String>,
}

/// The verb prefixes of `policy` that run other code, longest first.
pub(super) fn code_heads(policy: &Policy) -> Vec<(Vec<String>, CodeHead)> {
    let runners = policy.package_runners();
    let runner = |verb: &[String]| runners.iter().any(|known| known.as_slice() == verb);
    let mut code_heads: Vec<(Vec<String>, CodeHead)> = Vec::new();
    let mut known: HashSet<&[String]> = HashSet::new();
    let mut add = |verb: &[String], kind: CodeHead| {
        if !verb.is_empty() {
            code_heads.push((verb.to_vec(), kind));
        }
    };
    // Wrappers first: `env` and `flock` are wrappers that also take shell code.
    for wrapper in policy.wrappers() {
        if matches!(wrapper.mode, WrapperMode::Prefix(_)) && known.insert(&wrapper.verb) {
            let kind = if wrapper.privileged {
                CodeHead::Privileged
            } else if runner(&wrapper.verb) {
                CodeHead::RunnerWrapper
            } else {
                CodeHead::Wrapper
            };
            add(&wrapper.verb, kind);
        }
    }
    for shell in policy.shells() {
        if known.insert(&shell.verb) {
            add(&shell.verb, CodeHead::Shell);
        }
    }
    for interpreter in policy.interpreters() {
        if known.insert(&interpreter.verb) {
            add(&interpreter.verb, CodeHead::Interpreter);
        }
    }
    for verb in runners {
        if !known.contains(verb.as_slice()) {
            add(verb, CodeHead::PackageRunner);
        }
    }
    // A longer prefix (`docker exec`) is more specific than a shorter one.
    code_heads.sort_by_key(|(verb, _)| std::cmp::Reverse(verb.len()));
    code_heads
}

/// The verbs of `policy`'s catalog entries and deny rules, in the policy's order.
fn catalogued_verbs(policy: &Policy) -> impl Iterator<Item = &[String]> {
    policy
        .safe_entries()
        .iter()
        .map(|entry| entry.verb.as_slice())
        .chain(policy.deny_rules().iter().map(|rule| rule.verb()))
        .chain(
            policy
                .verb_roles()
                .iter()
                .map(|roles| roles.verb.as_slice()),
        )
        .chain(policy.wrappers().iter().map(|w| w.verb.as_slice()))
        .chain(policy.shells().iter().map(|s| s.verb.as_slice()))
        .chain(policy.interpreters().iter().map(|i| i.verb.as_slice()))
}

/// The tools of `policy` that need a subcommand, each with (at most two of) its subcommands,
/// in the policy's order.
pub(super) fn multi_purpose(policy: &Policy) -> Vec<MultiPurpose> {
    let verbs = catalogued_verbs(policy);
    // Each head with (at most two of) its subcommands, in the policy's order.
    let mut heads: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for verb in verbs {
        let [head, sub, ..] = verb else { continue };
        if sub.starts_with('-') {
            continue;
        }
        match index.get(head.as_str()) {
            Some(&at) => {
                if let Some((_, subs)) = heads.get_mut(at)
                    && subs.len() < 2
                    && !subs.contains(&sub.as_str())
                {
                    subs.push(sub);
                }
            }
            None => {
                index.insert(head, heads.len());
                heads.push((head, vec![sub]));
            }
        }
    }
    heads
        .into_iter()
        .map(|(head, subs)| MultiPurpose {
            head: head.to_owned(),
            examples: subs.into_iter().map(str::to_owned).collect(),
        })
        .collect()
}

/// For each command of `settings.alias_commands` (`git`), the subcommands the policy's entries
/// name (`status`, `push`, …): any other may be an alias its user defined.
pub(super) fn alias_subcommands(policy: &Policy) -> Vec<(Vec<String>, HashSet<String>)> {
    let verbs: Vec<&[String]> = catalogued_verbs(policy)
        .chain(policy.narrow_commands().iter().map(Vec::as_slice))
        .chain(policy.package_runners().iter().map(Vec::as_slice))
        .collect();
    policy
        .alias_commands()
        .iter()
        .map(|head| {
            let known = verbs
                .iter()
                .filter(|verb| verb.starts_with(head))
                .filter_map(|verb| verb.get(head.len()))
                .cloned()
                .collect();
            (head.clone(), known)
        })
        .collect()
}

impl GrantRule {
    /// Whether `hint` names a subcommand of an alias command (`settings.alias_commands`) that
    /// no entry of the policy names (`git p`): it may be an alias for any command.
    pub(super) fn may_be_alias(&self, hint: &[&str]) -> bool {
        self.alias_subcommands.iter().any(|(head, known)| {
            head.len() < hint.len()
                && head.iter().zip(hint).all(|(a, b)| a == b)
                && hint
                    .get(head.len())
                    .is_some_and(|sub| !sub.starts_with('-') && !known.contains(*sub))
        })
    }

    /// The kind of code-running head `tokens` start with, and its length, if any.
    #[must_use]
    pub fn code_head(&self, tokens: &[&str]) -> Option<(&[String], CodeHead)> {
        self.code_heads_by_word
            .get(*tokens.first()?)?
            .iter()
            .filter_map(|&at| self.code_heads.get(at))
            .find(|(verb, _)| {
                verb.len() <= tokens.len() && verb.iter().zip(tokens).all(|(a, b)| a == b)
            })
            .map(|(verb, kind)| (verb.as_slice(), *kind))
    }

    /// Checks a pattern for persisting (see the [module docs](crate::grant_rule)).
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::RunsCode`] or [`GrantRefusal::NeedsSubcommand`].
    pub fn check_pattern(&self, pattern: &VerbPattern) -> Result<(), GrantRefusal> {
        let prefix: Vec<&str> = pattern.prefix().iter().map(String::as_str).collect();
        // A stem (`npm run test* *`) is judged as the wider pattern without it (`npm run *`),
        // and an interpreter's grant must be its exact command, which a stem never is.
        if pattern.stem().is_some()
            && let Some((verb, kind @ CodeHead::Interpreter)) = self.code_head(&prefix)
        {
            return Err(GrantRefusal::RunsCode {
                pattern: pattern.as_str().to_owned(),
                head: verb.join(" "),
                kind,
            });
        }
        let hint = shellgate_parser::verb_hint(&prefix);
        self.check_tokens(pattern.as_str(), &prefix, hint.len())
    }

    /// Checks a pattern's literal `prefix` (without its glob), of which the first `hint_len`
    /// words are the verb hint (the command and its subcommands). `text` is the pattern as
    /// shown in a refusal.
    ///
    /// # Errors
    ///
    /// As [`check_pattern`](Self::check_pattern).
    pub fn check_tokens(
        &self,
        text: &str,
        prefix: &[&str],
        hint_len: usize,
    ) -> Result<(), GrantRefusal> {
        // A head spelled with capitals or `.exe` is the same program on a case-insensitive file
        // system or Windows (`GIT`, `Bash`, `git.exe`): it is refused as that program would be.
        if let Some(normal) = prefix.first().and_then(|head| folded_name(head)) {
            let mut alt: Vec<&str> = prefix.to_vec();
            if let Some(first) = alt.first_mut() {
                *first = &normal;
            }
            self.check_tokens(text, &alt, hint_len)?;
        }
        if let Some((verb, kind)) = self.code_head(prefix) {
            let refused = match kind {
                // They run whatever follows them, whatever the pattern names.
                CodeHead::Shell
                | CodeHead::Wrapper
                | CodeHead::Privileged
                | CodeHead::RunnerWrapper => true,
                // Admitted once the pattern names more than the interpreter: a prompt's exact
                // command, which matching holds to that command exactly.
                CodeHead::Interpreter => prefix.len() <= verb.len(),
                // Admitted once the verb hint names the package (`npx prettier`, not
                // `npx -y cowsay`).
                CodeHead::PackageRunner => hint_len <= verb.len(),
            };
            if refused {
                return Err(GrantRefusal::RunsCode {
                    pattern: text.to_owned(),
                    head: verb.join(" "),
                    kind,
                });
            }
            return Ok(());
        }
        let Some(head) = prefix.first() else {
            return Ok(());
        };
        if let Some(tool) = self
            .multi_purpose_by_head
            .get(*head)
            .and_then(|&at| self.multi_purpose.get(at))
            && hint_len <= 1
        {
            return Err(GrantRefusal::NeedsSubcommand {
                pattern: text.to_owned(),
                head: tool.head.clone(),
                examples: tool
                    .examples
                    .iter()
                    .map(|sub| format!("{} {sub} *", tool.head))
                    .collect(),
            });
        }
        Ok(())
    }
}
