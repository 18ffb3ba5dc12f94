//! Claude Code `permissions` rules turned into shellgate grants and rules
//! (`shellgate import claude-settings`).
//!
//! Claude Code writes a Bash rule as `Bash(SPECIFIER)` in `permissions.allow`, `.ask` or
//! `.deny` of a `settings.json`, and evaluates deny, then ask, then allow (the first list that
//! matches decides). Its documented specifier forms, and what each becomes:
//!
//! | form | Claude Code matches | `allow` becomes | `deny` / `ask` becomes |
//! | --- | --- | --- | --- |
//! | `npm run build` (exact) | that command | not imported: a pattern always covers further arguments, which would be wider | a rule on the verb `npm run build` (it also meets longer commands: stricter) |
//! | `npm run test:*`, `npm run test*` (text prefix) | commands whose text starts with `npm run test`: `npm run test`, `npm run test:unit --coverage` | the stem pattern `npm run test* *` | a rule on the verb `npm run` with an operand `test*` (stricter: the operand may stand anywhere) |
//! | `ls:*`, `ls*` (a prefix of the command name) | `ls`, `ls -la`, also `lsof` | the pattern `ls *`, listed as narrower (a pattern names its command exactly) | a rule on the verb `ls` and a `raw` rule on the text `ls…` at a command position |
//! | `npm run *` (one trailing ` *`) | `npm run` and `npm run …` | the pattern `npm run *` | a rule on the verb `npm run` |
//! | `git * main`, `* install` (other wildcards) | `*` is any text | not imported: a pattern is whole words and one trailing glob | a `raw` rule: the text at a command position |
//! | `Bash`, `Bash(*)` | every command | not imported: nothing trusts every command | not imported |
//!
//! The prefix form (`:*`, or `*` right after a word) is read as Claude Code reads it, on the
//! text: `npm run test:*` covers `npm run test:unit`. A stem pattern the [`GrantRule`] refuses
//! (`git comm* *` names no subcommand) comes over as the word pattern (`git commit *`), listed as
//! narrower; anything the rule refuses even then (`git *`, `bash *`, `npx *`) is listed with
//! the refusal, and so is an allow rule that a deny or ask rule of the same file covers (Claude
//! Code never uses it). Nothing is ever widened. A rule with shell syntax in it (quotes, `$`,
//! `;`, `|`, `&`, redirections, parentheses) is listed: a pattern compares words, not text.
//! Rules for other tools (`Read(…)`, `WebFetch(…)`) are listed too: shellgate judges shell
//! commands only.

use std::fmt::Write as _;

use serde_json::Value;
use shellgate_policy::{GrantRule, VerbPattern};

shellgate_rules::named_enum! {
    /// The three lists of `permissions`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub enum List {
        /// `permissions.allow`.
        Allow = "allow",
        /// `permissions.ask`.
        Ask = "ask",
        /// `permissions.deny`.
        Deny = "deny",
    }
}

/// What one Claude Code rule became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A trust-file pattern (from `allow`).
    Pattern(VerbPattern),
    /// A trust-file pattern that covers less than the rule did, and what it leaves out.
    Narrowed {
        /// The pattern.
        pattern: VerbPattern,
        /// What Claude Code matched that the pattern does not.
        why: String,
    },
    /// A `[[deny]]` or `[[ask]]` rule of the written policy, by id.
    Rule {
        /// Its id.
        id: String,
        /// What it matches, for the summary (`verb `npm run``, `raw `…``).
        matches: String,
    },
    /// Not imported, and why.
    Skipped(String),
}

/// One Claude Code rule and what it became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The list it was in.
    pub list: List,
    /// The rule as written, such as `Bash(npm run test:*)`.
    pub rule: String,
    /// What it became.
    pub outcome: Outcome,
}

/// Everything a settings file gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Import {
    /// Every rule, in file order (allow, then ask, then deny).
    pub entries: Vec<Entry>,
    /// The policy file holding the deny and ask rules (`version = 1` and nothing else when
    /// there are none).
    pub policy: String,
}

impl Import {
    /// The patterns to add to the trust file, in order.
    pub fn patterns(&self) -> impl Iterator<Item = &VerbPattern> {
        self.entries.iter().filter_map(|e| match &e.outcome {
            Outcome::Pattern(p) | Outcome::Narrowed { pattern: p, .. } => Some(p),
            _ => None,
        })
    }

    /// How many rules of `list` became a rule of the policy.
    #[must_use]
    pub fn rules(&self, list: List) -> usize {
        self.entries
            .iter()
            .filter(|e| e.list == list && matches!(e.outcome, Outcome::Rule { .. }))
            .count()
    }

    /// The rules not imported.
    pub fn skipped(&self) -> impl Iterator<Item = (&Entry, &str)> {
        self.entries.iter().filter_map(|e| match &e.outcome {
            Outcome::Skipped(why) => Some((e, why.as_str())),
            _ => None,
        })
    }
}

/// Why a settings file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImportError {
    /// Not JSON.
    #[error("the settings file is not JSON: {0}")]
    Json(String),
    /// `permissions.allow`, `.ask` or `.deny` is not a list of strings.
    #[error("`permissions.{0}` is not a list of strings")]
    Shape(&'static str),
}

/// A Bash specifier, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Specifier {
    /// Every command (`Bash`, `Bash(*)`).
    All,
    /// Exactly these words.
    Exact(Vec<String>),
    /// These words, alone or followed by more (`P *`).
    Prefix(Vec<String>),
    /// Text that starts with these words, the last of which may go on (`P:*`, `P*`).
    Stem(Vec<String>),
    /// Text with `*` wildcards elsewhere.
    Wildcard(String),
}

/// Characters that make a specifier shell syntax rather than words.
const SHELL_SYNTAX: &[char] = &[
    '\'', '"', '\\', '$', '`', ';', '&', '|', '<', '>', '(', ')', '{', '}', '\n',
];

/// Parses one rule: `Ok(None)` for a rule of another tool.
fn specifier(rule: &str) -> Result<Option<Specifier>, String> {
    let rule = rule.trim();
    if rule == "Bash" {
        return Ok(Some(Specifier::All));
    }
    let Some(inner) = rule
        .strip_prefix("Bash(")
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return Ok(None);
    };
    // Bash splits words on spaces and tabs only: a rule with any other blank or control
    // character (`\r`, a no-break space) names no command shellgate could match as Claude
    // Code does.
    if inner
        .chars()
        .any(|c| c.is_control() && c != '\t' || (c.is_whitespace() && c != ' ' && c != '\t'))
    {
        return Err(
            "it holds a control character or a blank other than a space or tab: Claude Code compares the text, which names no command shellgate could match"
                .to_owned(),
        );
    }
    let inner = inner.trim();
    if inner.is_empty() || inner == "*" {
        return Ok(Some(Specifier::All));
    }
    if inner.contains(SHELL_SYNTAX) {
        return Err(
            "it holds shell syntax (quotes, `$`, `;`, `|`, `&`, redirections or parentheses): shellgate compares words, not text"
                .to_owned(),
        );
    }
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    if let Some(prefix) = inner.strip_suffix(":*") {
        if prefix.contains('*') || prefix.trim().is_empty() {
            return Err("a `:*` prefix that holds a wildcard of its own".to_owned());
        }
        return Ok(Some(Specifier::Stem(words(prefix))));
    }
    let stars = inner.matches('*').count();
    if stars == 0 {
        return Ok(Some(Specifier::Exact(words(inner))));
    }
    if stars == 1
        && let Some(prefix) = inner.strip_suffix('*')
        && !prefix.trim().is_empty()
    {
        return Ok(Some(if prefix.ends_with(char::is_whitespace) {
            Specifier::Prefix(words(prefix))
        } else {
            Specifier::Stem(words(prefix))
        }));
    }
    Ok(Some(Specifier::Wildcard(inner.to_owned())))
}

/// The `permissions.LIST` strings of a settings value.
fn list<'v>(settings: &'v Value, name: &'static str) -> Result<Vec<&'v str>, ImportError> {
    match settings.get("permissions").and_then(|p| p.get(name)) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().ok_or(ImportError::Shape(name)))
            .collect(),
        Some(_) => Err(ImportError::Shape(name)),
    }
}

/// Whether `words` start with `prefix`.
fn starts_with(words: &[String], prefix: &[String]) -> bool {
    prefix.len() <= words.len() && prefix.iter().zip(words).all(|(a, b)| a == b)
}

/// Whether `words` start with `stem`'s words, the last of which may go on in the command.
fn starts_with_stem(words: &[String], stem: &[String]) -> bool {
    let Some((last, before)) = stem.split_last() else {
        return true;
    };
    starts_with(words, before)
        && words
            .get(before.len())
            .is_some_and(|word| word.starts_with(last.as_str()))
}

/// A glob (policy dialect) matching the words that start with `stem`.
fn stem_glob(stem: &str) -> String {
    let mut glob = String::new();
    for c in stem.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            glob.push('\\');
        }
        glob.push(c);
    }
    glob.push('*');
    glob
}

/// A regex matching Claude Code's wildcard text at a command position of the command text
/// (no end anchor: a deny or ask rule may only match more).
fn wildcard_regex(text: &str) -> String {
    let mut out = String::from(r"(?s)(?:^|[;&|(\n])\s*");
    for (i, part) in text.split('*').enumerate() {
        if i > 0 {
            out.push_str(".*");
        }
        for c in part.chars() {
            if c.is_whitespace() {
                out.push_str(r"\s+");
            } else {
                if r"\.+*?()|[]{}^$#&-~".contains(c) {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    }
    out
}

/// A TOML basic string (JSON's string escapes are TOML's).
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A TOML array of strings.
fn toml_words(words: &[String]) -> String {
    let items: Vec<String> = words.iter().map(|w| toml_string(w)).collect();
    format!("[{}]", items.join(", "))
}

/// Reads a Claude Code settings file (`settings.json`) and turns its Bash rules into trust
/// patterns (allow, each checked by `rule`) and the text of a policy file with `[[deny]]` and
/// `[[ask]]` rules (see the module docs).
///
/// # Errors
///
/// [`ImportError`] when the text is not JSON or a permissions list is not a list of strings.
pub fn import(settings: &str, rule: &GrantRule) -> Result<Import, ImportError> {
    let value: Value =
        serde_json::from_str(settings).map_err(|e| ImportError::Json(e.to_string()))?;
    let lists = [
        (List::Allow, list(&value, "allow")?),
        (List::Ask, list(&value, "ask")?),
        (List::Deny, list(&value, "deny")?),
    ];
    // What the deny and ask lists cover, to find the allow rules Claude Code never reaches.
    let mut covering: Vec<(List, &str, Specifier)> = Vec::new();
    for (list, rules) in &lists {
        if *list == List::Allow {
            continue;
        }
        for text in rules {
            if let Ok(Some(spec)) = specifier(text) {
                covering.push((*list, text, spec));
            }
        }
    }
    let mut import = Import::default();
    let mut policy = String::from(
        "# Imported from Claude Code settings by `shellgate import claude-settings`.\nversion = 1\n",
    );
    let mut seen: Vec<(List, String)> = Vec::new();
    let mut counters = [0_usize; 2];
    for (list, rules) in &lists {
        for text in rules {
            let outcome = if seen.contains(&(*list, (*text).to_owned())) {
                Outcome::Skipped("a duplicate of an earlier rule".to_owned())
            } else {
                seen.push((*list, (*text).to_owned()));
                match specifier(text) {
                    Ok(None) => Outcome::Skipped(
                        "not a Bash rule: shellgate judges shell commands only".to_owned(),
                    ),
                    Err(why) => Outcome::Skipped(why),
                    Ok(Some(spec)) if *list == List::Allow => allow(&spec, &covering, rule),
                    Ok(Some(spec)) => {
                        let slot = usize::from(*list == List::Deny);
                        let n = counters.get(slot).copied().unwrap_or_default() + 1;
                        if let Some(c) = counters.get_mut(slot) {
                            *c = n;
                        }
                        restrict(*list, text, &spec, n, &mut policy)
                    }
                }
            };
            import.entries.push(Entry {
                list: *list,
                rule: (*text).to_owned(),
                outcome,
            });
        }
    }
    import.policy = policy;
    Ok(import)
}

/// What an allow rule becomes.
fn allow(spec: &Specifier, covering: &[(List, &str, Specifier)], rule: &GrantRule) -> Outcome {
    let words = match spec {
        Specifier::All => {
            return Outcome::Skipped(
                "it allows every command: shellgate never trusts every command".to_owned(),
            );
        }
        Specifier::Exact(words) => {
            return Outcome::Skipped(format!(
                "an exact command: a shellgate pattern also covers further arguments, so `{} *` would be wider; approve it with `shellgate approvals trust-verb` if that is what you mean",
                words.join(" ")
            ));
        }
        Specifier::Wildcard(_) => {
            return Outcome::Skipped(
                "a wildcard inside the text: a shellgate pattern is whole words and one trailing glob, so any pattern would be wider or narrower"
                    .to_owned(),
            );
        }
        Specifier::Prefix(words) | Specifier::Stem(words) => words,
    };
    for (list, text, cover) in covering {
        let covered = match cover {
            Specifier::All => true,
            Specifier::Prefix(prefix) => starts_with(words, prefix),
            // A stem covers an allowed stem only when it is no longer (`a:*` covers `ab:*`).
            Specifier::Stem(stem) => starts_with_stem(words, stem),
            Specifier::Exact(_) | Specifier::Wildcard(_) => false,
        };
        if covered {
            return Outcome::Skipped(format!(
                "ineffective: the {list} rule `{text}` covers it, and Claude Code checks deny and ask rules first"
            ));
        }
    }
    let joined = words.join(" ");
    let word_pattern = format!("{joined} *");
    let narrowed = match spec {
        Specifier::Stem(words) if words.len() > 1 => {
            let text = format!("{joined}* *");
            match VerbPattern::new(&text).map(|p| (rule.check_pattern(&p), p)) {
                Ok((Ok(()), pattern)) => return Outcome::Pattern(pattern),
                _ => Some(format!(
                    "Claude Code also matches longer words (`{joined}…`), but `{text}` would name no subcommand"
                )),
            }
        }
        Specifier::Stem(_) => Some(format!(
            "a pattern names its command exactly, so commands whose names only start with `{joined}` do not come over"
        )),
        _ => None,
    };
    let pattern = match VerbPattern::new(&word_pattern) {
        Ok(pattern) => pattern,
        Err(e) => return Outcome::Skipped(format!("`{word_pattern}` is not a pattern: {e}")),
    };
    match (rule.check_pattern(&pattern), narrowed) {
        (Ok(()), None) => Outcome::Pattern(pattern),
        (Ok(()), Some(why)) => Outcome::Narrowed { pattern, why },
        (Err(refusal), _) => Outcome::Skipped(format!("too broad: {refusal}")),
    }
}

/// What a deny or ask rule becomes: a table appended to `policy`.
fn restrict(list: List, text: &str, spec: &Specifier, n: usize, policy: &mut String) -> Outcome {
    let table = if list == List::Deny { "deny" } else { "ask" };
    let id = format!("claude-{table}-{n}");
    let (key, value, matches) = match spec {
        Specifier::All => {
            return Outcome::Skipped(format!(
                "it {}s every command: remove the agent's Bash tool instead",
                list.as_str()
            ));
        }
        Specifier::Exact(words) | Specifier::Prefix(words) => (
            "verb",
            toml_words(words),
            format!("verb `{}`", words.join(" ")),
        ),
        Specifier::Stem(words) => match words.split_last() {
            // `make deploy:*`: the verb `make` with an operand `deploy*` anywhere after it, or
            // one below it (`cat /srv/keys:*` covers `cat /srv/keys/id`: the text goes on
            // across `/`). (Not a flag, `rm -rf:*`: `args_any` sees operands only, so it is
            // matched as text.)
            Some((last, before)) if !before.is_empty() && !last.starts_with('-') => {
                let glob = stem_glob(last);
                let below = format!("{glob}/**");
                (
                    "verb",
                    format!(
                        "{}\nargs_any = [{}, {}]",
                        toml_words(before),
                        toml_string(&glob),
                        toml_string(&below)
                    ),
                    format!(
                        "verb `{}` with an operand `{glob}` or `{below}`",
                        before.join(" ")
                    ),
                )
            }
            // `rm -rf:*`: the text `rm -rf…` at a command position, as Claude Code matches it.
            Some((_, before)) if !before.is_empty() => {
                let regex = wildcard_regex(&format!("{}*", words.join(" ")));
                ("raw", toml_string(&regex), format!("raw `{regex}`"))
            }
            // `rm:*`: the verb `rm` (wherever it is run from) and the text `rm…` at a command
            // position (`rmdir`).
            _ => {
                let joined = words.join(" ");
                let regex = wildcard_regex(&format!("{joined}*"));
                let extra = format!("{id}-text");
                let _ = write!(
                    policy,
                    "\n[[{table}]]\nid = {}\ncategory = \"custom\"\nreason = {}\nraw = {}\n",
                    toml_string(&extra),
                    toml_string(&reason(list, text)),
                    toml_string(&regex)
                );
                (
                    "verb",
                    toml_words(words),
                    format!("verb `{joined}`; `{extra}`: raw `{regex}`"),
                )
            }
        },
        Specifier::Wildcard(text) => {
            let regex = wildcard_regex(text);
            let shown = format!("raw `{regex}`");
            ("raw", toml_string(&regex), shown)
        }
    };
    let _ = write!(
        policy,
        "\n[[{table}]]\nid = {}\ncategory = \"custom\"\nreason = {}\n{key} = {value}\n",
        toml_string(&id),
        toml_string(&reason(list, text))
    );
    Outcome::Rule { id, matches }
}

/// The reason a deny or ask rule imported from `text` gives.
fn reason(list: List, text: &str) -> String {
    if list == List::Deny {
        format!("denied by the Claude Code rule `{text}`; run it yourself if it is really needed")
    } else {
        format!("the Claude Code rule `{text}` asks a person first")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifier_forms() {
        let words = |t: &str| t.split(' ').map(str::to_owned).collect::<Vec<_>>();
        for (rule, expected) in [
            ("Bash", Ok(Some(Specifier::All))),
            ("Bash(*)", Ok(Some(Specifier::All))),
            (
                "Bash(npm run build)",
                Ok(Some(Specifier::Exact(words("npm run build")))),
            ),
            (
                "Bash(npm run test:*)",
                Ok(Some(Specifier::Stem(words("npm run test")))),
            ),
            (
                "Bash(npm run test*)",
                Ok(Some(Specifier::Stem(words("npm run test")))),
            ),
            (
                "Bash(npm run *)",
                Ok(Some(Specifier::Prefix(words("npm run")))),
            ),
            ("Bash(ls*)", Ok(Some(Specifier::Stem(words("ls"))))),
            ("Bash(ls *)", Ok(Some(Specifier::Prefix(words("ls"))))),
            ("Bash(*ls)", Ok(Some(Specifier::Wildcard("*ls".to_owned())))),
            (
                "Bash(git * main)",
                Ok(Some(Specifier::Wildcard("git * main".to_owned()))),
            ),
            ("Read(./.env)", Ok(None)),
        ] {
            assert_eq!(specifier(rule), expected, "{rule}");
        }
        assert!(specifier("Bash(git commit -m \"x\")").is_err());
        assert!(specifier("Bash(a*:*)").is_err());
        assert_eq!(
            specifier("Bash(\rrm:*)"),
            Err("it holds a control character or a blank other than a space or tab: Claude Code compares the text, which names no command shellgate could match".to_owned())
        );
        assert!(specifier("Bash(git\u{a0}push:*)").is_err());
        assert_eq!(
            specifier("Bash(git\tpush:*)"),
            Ok(Some(Specifier::Stem(words("git push"))))
        );
    }

    #[test]
    fn stems_cover_longer_words_and_become_escaped_globs() {
        let words = |t: &str| t.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert!(starts_with_stem(
            &words("npm run test:unit"),
            &words("npm run test")
        ));
        assert!(starts_with_stem(
            &words("npm run test"),
            &words("npm run test")
        ));
        assert!(!starts_with_stem(
            &words("npm run lint"),
            &words("npm run test")
        ));
        assert!(!starts_with_stem(&words("npm run"), &words("npm run test")));
        assert_eq!(stem_glob("deploy"), "deploy*");
        assert_eq!(stem_glob("a?[b]"), r"a\?\[b\]*");
    }

    #[test]
    fn wildcard_regexes_anchor_at_a_command_position() {
        assert_eq!(
            wildcard_regex("git * main"),
            r"(?s)(?:^|[;&|(\n])\s*git\s+.*\s+main"
        );
        assert_eq!(wildcard_regex("ls*"), r"(?s)(?:^|[;&|(\n])\s*ls.*");
        assert_eq!(
            wildcard_regex("rm -rf /tmp/*"),
            r"(?s)(?:^|[;&|(\n])\s*rm\s+\-rf\s+/tmp/.*"
        );
    }
}
