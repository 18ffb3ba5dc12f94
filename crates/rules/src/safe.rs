//! What the safe catalog says about a command, and the roles of its arguments.

use shellgate_parser::Word;

use crate::classify::TokenClass;
use crate::flags::{self, flag_is};
use crate::model::{ArgRole, Role, SafeEntry};
use crate::policy::{CommandView, Policy};

/// Why a dynamic argument makes an option-aware safe verb unsafe.
const DYNAMIC_WHY: &str = "a dynamic argument could expand to an unsafe option";

/// What the safe catalog says about one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SafeVerdict<'p> {
    /// A catalogued read-only verb with no unsafe flag or argument.
    Safe {
        /// Why it is safe (from the catalog).
        why: &'p str,
    },
    /// A pure side-effect verb (`echo`, `true`): safe unless it writes through a redirect,
    /// which the caller checks.
    Pure,
    /// A catalogued verb made unsafe by a flag or argument.
    Unsafe {
        /// The cooked word that made it unsafe.
        token: String,
        /// Why (from the catalog).
        why: &'p str,
    },
    /// Not in the catalog (or its verb is dynamic, or a binary outside the trusted dirs).
    NotCatalogued,
}

impl Policy {
    /// What the safe catalog says about `view`'s words (redirections are the caller's: a
    /// [`SafeVerdict::Pure`] or [`SafeVerdict::Safe`] verb that writes through a redirect is
    /// not read-only). Option-aware: unsafe flags are found in every spelling (bundled,
    /// `--x=v`, unambiguous long prefixes), values of `value_flags` are skipped, and a dynamic
    /// word before `--` makes a verb with unsafe flags unsafe. Only bare names and binaries in
    /// trusted bin dirs are catalogued; entries with an `os` list apply on those systems only.
    #[must_use]
    pub fn safe(&self, view: &CommandView<'_>) -> SafeVerdict<'_> {
        let os = std::env::consts::OS;
        let Some(entry) = self.lookup(&self.safe, view.words, false, &|e: &SafeEntry| {
            e.os.is_empty() || e.os.iter().any(|o| o == os)
        }) else {
            return SafeVerdict::NotCatalogued;
        };
        let start = entry.verb.len();
        let scan = flags::scan(view.words, start, &|name| {
            entry.value_flags.iter().any(|v| v == name)
        });
        for hit in &scan.flags {
            for unless in &entry.unless_flags {
                if unless.flags.iter().any(|s| flag_is(&hit.name, s)) {
                    return SafeVerdict::Unsafe {
                        token: cooked(view.words, hit.index),
                        why: &unless.why,
                    };
                }
            }
        }
        let option_aware = !entry.unless_flags.is_empty() || !entry.unless_args.is_empty();
        if option_aware && let Some(index) = scan.dynamic.first() {
            return SafeVerdict::Unsafe {
                token: cooked(view.words, *index),
                why: DYNAMIC_WHY,
            };
        }
        if !entry.unless_args.is_empty() {
            let mut found = Vec::new();
            for word in view.words.iter().skip(start) {
                entry.unless_globs.matches_into(&word.cooked, &mut found);
                let hit = found.iter().find_map(|arg| entry.unless_args.get(*arg));
                if let Some(unless) = hit {
                    return SafeVerdict::Unsafe {
                        token: word.cooked.clone(),
                        why: &unless.why,
                    };
                }
            }
        }
        if entry.pure {
            SafeVerdict::Pure
        } else {
            SafeVerdict::Safe { why: &entry.why }
        }
    }
    /// The roles of `view`'s arguments, by word index: option values and `key=value` operands
    /// included. For a verb without a `[[verb]]` entry, path-shaped operands (class `path`) are
    /// writes.
    #[must_use]
    pub fn roles(&self, view: &CommandView<'_>) -> Vec<ArgRole> {
        let words = view.words;
        let entry = self.lookup(&self.verbs, words, true, &|_| true);
        let Some(entry) = entry else {
            let scan = flags::scan(words, 1, &|_| false);
            return scan
                .operands
                .iter()
                .filter_map(|i| words.get(*i).map(|w| (*i, w)))
                .filter(|(_, w)| self.classify(&w.cooked) == TokenClass::Path)
                .map(|(index, w)| ArgRole {
                    index,
                    role: Role::WritePath,
                    text: w.cooked.clone(),
                })
                .collect();
        };
        let option_role = |name: &str| -> Option<Role> {
            entry
                .options
                .iter()
                .find(|(o, _)| flag_is(name, o))
                .map(|(_, r)| *r)
        };
        let scan = flags::scan(words, entry.verb.len(), &|name| {
            option_role(name).is_some() || entry.value_flags.iter().any(|v| v == name)
        });
        let mut out: Vec<ArgRole> = scan
            .values
            .iter()
            .map(|v| ArgRole {
                index: v.index,
                role: option_role(&v.flag).unwrap_or(Role::Value),
                text: v.text.clone(),
            })
            .collect();
        let count = scan.operands.len();
        for (n, index) in scan.operands.iter().enumerate() {
            let Some(word) = words.get(*index) else {
                continue;
            };
            let assigned = word.cooked.split_once('=').and_then(|(key, value)| {
                entry
                    .assign
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, role)| (*role, value))
            });
            if let Some((role, value)) = assigned {
                out.push(ArgRole {
                    index: *index,
                    role,
                    text: value.to_owned(),
                });
                continue;
            }
            let role = match entry.last {
                Some(last) if count >= 2 && n + 1 == count => Some(last),
                _ => entry.operands,
            };
            if let Some(role) = role {
                out.push(ArgRole {
                    index: *index,
                    role,
                    text: word.cooked.clone(),
                });
            }
        }
        out.sort_by_key(|r| r.index);
        out
    }
}

/// The cooked text of word `index`.
fn cooked(words: &[Word], index: usize) -> String {
    words
        .get(index)
        .map(|w| w.cooked.clone())
        .unwrap_or_default()
}
