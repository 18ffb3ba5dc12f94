//! The one rule for what a person may trust for good: [`GrantRule`].
//!
//! A saved grant widens every later decision, so some grants are refused whoever asks for them
//! — `shellgate approvals trust-verb` and `trust-zone`, the workflow's "Always"
//! ([`GateEvaluator::respond`](crate::GateEvaluator::respond)), `shellgate audit`'s grant
//! suggestions — and the gate never proposes them ([`crate::proposal`]). Each refusal says why
//! and what narrower grant to give instead ([`GrantRefusal`]).
//!
//! **Patterns** (`shellgate approvals trust-verb`):
//!
//! | refused | why | instead |
//! | --- | --- | --- |
//! | headed by a shell (`bash *`, `ssh host *`, `docker exec *`) | it runs whatever code it is given | one pattern per command the code runs |
//! | headed by a wrapper (`sudo *`, `env *`, `xargs *`, `timeout *`) | it runs whatever command follows | a pattern for the command it wraps |
//! | an interpreter alone (`python3 *`, `node *`) | it runs whatever code it is given | the exact command a prompt offers (it matches only that command) |
//! | a package runner alone (`npx *`, `pipx run *`, `pnpm dlx *`) | it downloads and runs any package | a pattern naming the package (`npx prettier *`) |
//! | a multi-purpose tool without its subcommand (`git *`, `docker *`, `kubectl *`, `npm *`, `git --no-pager *`) | it reads, writes, publishes and runs hooks alike | a pattern naming the subcommand (`git status *`) |
//!
//! The heads come from the policy: its `[[shell]]` and `[[interpreter]]` verbs, its `[[wrapper]]`
//! verbs that run the rest of the command line (mode `prefix`), and — for "multi-purpose" — the
//! first word of every multi-word entry of its tables whose second word is not an option (`git
//! status`, `docker ps`, `npm audit`). Package runners are the policy's `settings.package_runners` until the policy
//! declares them as wrappers (then the wrapper row refuses them, with or without a package).
//!
//! **Zones** (`shellgate approvals trust-zone`): refused when the zone is or contains `/`, the
//! home directory, a system directory (the policy's `settings.system_dirs` and
//! `settings.trusted_bin_dirs`) or a protected path (an anchored `[[protected]]` glob whose
//! decision for that access is forced); a zone inside a protected path is refused too (it
//! would change nothing), and so is a *write* zone inside a system directory (it would let a
//! command plant programs every user runs).
//!
//! **Hosts** (`shellgate approvals trust-host`): a host grant names one host (`api.github.com`,
//! `10.0.0.5`) or the subdomains of one domain (`*.example.com`). Refused: anything with a
//! scheme, user, port or path (a URL is not a host); `*`; a wildcard over a top-level domain
//! (`*.com`), a public suffix (`*.co.uk`, `*.com.au`: one of
//! [`PUBLIC_SECOND_LEVEL`](shellgate_rules::PUBLIC_SECOND_LEVEL) before a two-letter country
//! code) or an IP range (`*.0.10`) — see [`HostGrant`].

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use shellgate_rules::{Decision, HostGrant, Policy, folded_name};

mod heads;
mod refusal;
mod zones;

use heads::MultiPurpose;
pub use refusal::{CodeHead, GrantRefusal};
use zones::ProtectedBases;

/// The rule over one policy (see the module docs). Cheap to clone; built once per evaluator.
#[derive(Clone, Debug)]
pub struct GrantRule {
    policy: Arc<Policy>,
    /// Verb prefixes that run other code, longest first.
    code_heads: Vec<(Vec<String>, CodeHead)>,
    /// The positions in `code_heads` of each first word's prefixes, in order.
    code_heads_by_word: HashMap<String, Vec<usize>>,
    /// Tools that need a subcommand.
    multi_purpose: Vec<MultiPurpose>,
    /// The position in `multi_purpose` of each head.
    multi_purpose_by_head: HashMap<String, usize>,
    /// The verbs proposed narrowly (see [`GrantRule::keeps_narrow`]) by first word: the
    /// deny rules' verbs (`false`: a hint that is a prefix of one is narrow too) and
    /// `settings.narrow` (`true`: the hint must cover the whole verb).
    narrow_by_word: HashMap<String, Vec<(Vec<String>, bool)>>,
    /// For each command of `settings.alias_commands`, the subcommands the policy names.
    alias_subcommands: Vec<(Vec<String>, HashSet<String>)>,
    /// System directories, normalised.
    system_dirs: Vec<PathBuf>,
    /// For each unanchored one-segment protected glob whose reads are forced (`**/.env`,
    /// `**/*.ppk`): its entry's position and a name it matches (`.env`, `x.ppk`).
    protected_names: Vec<(usize, String)>,
    /// The literal bases of the protected globs (`zones::literal_base`, per entry and glob)
    /// for the first home directory asked about: nearly every call gives the same one.
    bases: Arc<OnceLock<ProtectedBases>>,
}

/// How narrowly a command is proposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrowness {
    /// By its name, then ` *` (`cargo test *`).
    Name,
    /// Its literal arguments up to the first value (a subcommand of a multi-purpose tool a
    /// deny rule names by its name alone: `git show aa211dc` gives `git show *`).
    Literal,
    /// Every word (a command that can destroy, leak or run any code: `kill 1234` gives `kill
    /// 1234 *`), or nothing when one cannot be spelled.
    Every,
}

impl GrantRule {
    /// The policy the rule reads (its `[classify]` also drives proposals).
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The rule over `policy`.
    #[must_use]
    pub fn new(policy: impl Into<Arc<Policy>>) -> Self {
        let policy = policy.into();
        let code_heads = heads::code_heads(&policy);
        let multi_purpose = heads::multi_purpose(&policy);
        let mut code_heads_by_word: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (verb, _)) in code_heads.iter().enumerate() {
            if let Some(first) = verb.first() {
                code_heads_by_word
                    .entry(first.clone())
                    .or_default()
                    .push(at);
            }
        }
        let multi_purpose_by_head = multi_purpose
            .iter()
            .enumerate()
            .map(|(at, tool)| (tool.head.clone(), at))
            .collect();
        let mut narrow_by_word: HashMap<String, Vec<(Vec<String>, bool)>> = HashMap::new();
        // (An `[[ask]]` rule needs a person whatever a grant says: its head is not narrowed.)
        let narrow = policy
            .deny_rules()
            .iter()
            .filter(|rule| rule.decision == Decision::HardDenied)
            .map(|rule| (rule.verb(), false))
            .chain(
                policy
                    .narrow_commands()
                    .iter()
                    .map(|v| (v.as_slice(), true)),
            );
        for (verb, whole) in narrow {
            if let Some(first) = verb.first() {
                let entry = narrow_by_word.entry(first.clone()).or_default();
                if !entry.iter().any(|(v, w)| v == verb && *w == whole) {
                    entry.push((verb.to_vec(), whole));
                }
            }
        }
        Self {
            alias_subcommands: heads::alias_subcommands(&policy),
            code_heads,
            code_heads_by_word,
            protected_names: zones::protected_names(&policy),
            multi_purpose,
            multi_purpose_by_head,
            narrow_by_word,
            system_dirs: zones::system_dirs(&policy),
            bases: Arc::new(OnceLock::new()),
            policy,
        }
    }

    /// Whether a command named `hint` (its verb chain) is proposed narrowly, with its literal
    /// arguments: a command that a deny rule names (`rm`, `dd`, `git push`, `kubectl delete`,
    /// `curl`) or that `settings.narrow` lists (`docker run`) can destroy, leak or run any
    /// code, so a grant stays as close to what was asked as it can; so is a subcommand that
    /// may be a user's alias (`git p`, `settings.alias_commands`). Other commands are proposed
    /// by their name (`cargo test *`).
    #[must_use]
    pub fn keeps_narrow(&self, hint: &[&str]) -> bool {
        self.narrowness(hint) != Narrowness::Name
    }

    /// How narrowly a command named `hint` is proposed (see [`Narrowness`]).
    #[must_use]
    pub fn narrowness(&self, hint: &[&str]) -> Narrowness {
        // A head spelled with capitals or a Windows suffix is the same program on a
        // case-insensitive file system or Windows (`RM`, `curl.exe`): as narrow as it is.
        if let Some(first) = hint.first()
            && let Some(normal) = folded_name(first)
        {
            let mut alt: Vec<&str> = hint.to_vec();
            if let Some(slot) = alt.first_mut() {
                *slot = &normal;
            }
            return self.narrowness(&alt);
        }
        let Some(first) = hint.first() else {
            // No words: every verb "starts with" nothing.
            let any = self
                .narrow_by_word
                .values()
                .flatten()
                .any(|(_, whole)| !*whole);
            return if any {
                Narrowness::Every
            } else {
                Narrowness::Name
            };
        };
        if self.may_be_alias(hint) {
            return Narrowness::Every;
        }
        let Some(verbs) = self.narrow_by_word.get(*first) else {
            return Narrowness::Name;
        };
        let matching = verbs.iter().filter(|(verb, whole)| {
            (!*whole || verb.len() <= hint.len())
                && verb
                    .iter()
                    .zip(hint)
                    .all(|(named, word)| named.as_str() == *word)
        });
        let mut found = Narrowness::Name;
        for (verb, whole) in matching {
            // A deny rule on a multi-purpose tool's name alone (`git` with `--upload-pack`)
            // names an option, not the subcommands: they stay literal, not exact.
            let head_only = !*whole
                && verb.len() == 1
                && self.multi_purpose_by_head.contains_key(first.to_owned());
            if !head_only {
                return Narrowness::Every;
            }
            found = Narrowness::Literal;
        }
        found
    }

    /// Checks a host grant for persisting (see the module docs) and returns it normalised.
    ///
    /// # Errors
    ///
    /// [`GrantRefusal::Host`] when it is not a host or covers too many hosts.
    pub fn check_host(&self, host: &str) -> Result<HostGrant, GrantRefusal> {
        HostGrant::new(host).map_err(|error| GrantRefusal::Host { error })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::zones::literal_base;
    use super::*;

    fn rule() -> GrantRule {
        GrantRule::new(Policy::embedded_default().unwrap())
    }

    #[test]
    fn literal_bases_of_protected_globs() {
        let home = Some(Path::new("/home/u"));
        let corpus = include_str!("../tests/cases/grant_rule.toml");
        shellgate_testkit::check_pairs(corpus, "literal_base", |glob| {
            literal_base(glob, home).map(|base| base.display().to_string())
        });
        assert_eq!(literal_base("~/.ssh/**", None), None);
    }

    #[test]
    fn heads_come_from_the_policy() {
        let rule = rule();
        let kind = |text: &str| {
            let tokens: Vec<&str> = text.split(' ').collect();
            rule.code_head(&tokens)
                .map(|(verb, kind)| (verb.join(" "), kind))
        };
        let cases = [
            ("bash -c", Some(("bash", CodeHead::Shell))),
            ("docker exec c", Some(("docker exec", CodeHead::Shell))),
            ("sudo apt", Some(("sudo", CodeHead::Privileged))),
            ("timeout 5", Some(("timeout", CodeHead::Wrapper))),
            ("python3 -c", Some(("python3", CodeHead::Interpreter))),
            ("csh -c", Some(("csh", CodeHead::Interpreter))),
            ("git status", None),
            ("find .", None),
            ("docker ps", None),
        ];
        for (text, expected) in cases {
            let expected = expected.map(|(verb, head)| (verb.to_owned(), head));
            assert_eq!(kind(text), expected, "{text}");
        }
    }
}
