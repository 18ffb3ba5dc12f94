//! Proposed patterns: what a person is offered to approve, narrow by default.
//!
//! For a command that needs a person, the gate proposes a [`VerbPattern`] built from the
//! command's own words (after unwrapping wrappers):
//!
//! 1. the **verb hint** (the parser's greedy walk over verb-like words, seed 000), located in
//!    the actual words so that transparent flag/value pairs (`git -C /repo status`) stay in the
//!    prefix — security matching compares the first N words, so a pattern must be a real prefix;
//! 2. **trailing value tokens trimmed** from the hint (seed 002): a word the policy's
//!    `[classify]` puts in the class `value` is a call-specific value — with the default
//!    classifier, a word that is not a flag, not path-shaped and contains a digit
//!    ([`is_value_token`]), so `git tag v0.4.2` and `git tag 0.4.2` both give `git tag`; the
//!    command word itself is always kept;
//! 3. for a **narrow** command only — one a deny rule or `settings.narrow` names
//!    ([`GrantRule::keeps_narrow`]: `rm`, `git push`, `docker run`, `curl`), or a program named
//!    by its path — every remaining word; when one cannot be spelled in a pattern (a
//!    multi-line argument (seed 004), or a word that is not literal, empty, with whitespace, a
//!    glob character or an invisible character), nothing is proposed; any other command is
//!    proposed by its name alone (issue 11);
//! 4. then ` *`, which also matches no further word.
//!
//! `cargo test -p api price` gives `cargo test *`; `freshdesk ticket reply --message "Hi,\n…"`
//! gives `freshdesk ticket reply *`; the narrow `git push origin main` gives `git push origin
//! main *` and `docker run --name test123 --port=8080` gives `docker run --name test123
//! --port=8080 *`.
//!
//! A path-qualified executable outside the trusted bin directories is proposed by its resolved
//! absolute path (`./run.sh` in `/w/proj` gives `/w/proj/run.sh *`), so approving it in one
//! directory does not approve a file of the same name elsewhere.
//!
//! **Banned widenings** are never proposed: what [`GrantRule`] refuses to persist — a pattern
//! headed by a shell or a wrapper (`env`, `sudo`, `xargs`, `timeout`…), an interpreter or a
//! package runner alone (`npx`, `pipx run`, `npm exec`…), or a multi-purpose tool without a
//! subcommand from the hint (`git *`, `git -c x=y *`, `docker *`). `git push *` and
//! `npx prettier *` are proposed. When no pattern can be proposed, the prompt is not
//! persistable.
//!
//! Embedded code (an interpreter call the gate cannot read), and a catalogued command that asks
//! because of its words (an entry's `unless_args` or `unless_flags`: `npm run deploy:prod`,
//! `make -f build.mk`, `cargo test --config …`), are only ever proposed as the exact command —
//! every word, then ` *` — and matching enforces that the glob matches nothing: a grant by a
//! shorter prefix would approve what the policy singled out (`make -f *` would approve `make -f
//! /tmp/evil.mk`, `cargo test *` would approve `cargo test --config build.rustc-wrapper=…`).

use shellgate_rules::{TokenClass, VerbPattern};

use crate::display;
use crate::grant_rule::{CodeHead, GrantRule, Narrowness};
use crate::matching::{Executable, Token};

/// Whether a word is a call-specific value under the default `[classify]` (seed 002): not a
/// flag, not path-shaped, and contains a digit. Path-shaped: contains `/`, starts with `~`, or
/// is `.` or `..`. Proposals ask the policy ([`Policy::classify`](shellgate_rules::Policy::classify)),
/// so a policy's own `[classify]` decides.
///
/// ```
/// use shellgate_policy::proposal::is_value_token;
///
/// for value in ["v0.4.2", "0.4.2", "605", "aa211dc", "v0.4.1..dev", "test123"] {
///     assert!(is_value_token(value), "{value}");
/// }
/// for word in ["main", "-3", "--max-count=10", "./v1", "src/a1.rs", "push"] {
///     assert!(!is_value_token(word), "{word}");
/// }
/// ```
#[must_use]
pub fn is_value_token(word: &str) -> bool {
    !word.starts_with('-') && !is_path_shaped(word) && word.chars().any(|c| c.is_ascii_digit())
}

/// Whether a word looks like a path: contains `/`, starts with `~`, or is `.` or `..`.
#[must_use]
pub fn is_path_shaped(word: &str) -> bool {
    word.contains('/') || word.starts_with('~') || word == "." || word == ".."
}

/// Whether a word can be written as a pattern token: literal, non-empty, no whitespace, no
/// glob character, nothing invisible.
#[must_use]
pub fn is_representable(token: &Token<'_>) -> bool {
    token.literal
        && !token.text.is_empty()
        && !token
            .text
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '*' | '?' | '[') || display::is_hidden(c))
}

/// What the proposal needs to know besides the words.
#[derive(Clone, Copy, Debug)]
pub struct ProposalInput<'a> {
    /// The command's words (after unwrapping).
    pub words: &'a [Token<'a>],
    /// The parser's verb hint for those words.
    pub hint: &'a [String],
    /// What the first word executes.
    pub executable: &'a Executable,
    /// What may be granted for good: a pattern it refuses is never proposed.
    pub rule: &'a GrantRule,
}

/// The command's name: the executable's pattern text and the positions of its verb-chain
/// words in `input.words`, trailing value tokens trimmed (the command word always kept).
fn command_name(input: &ProposalInput<'_>) -> Option<(String, Vec<usize>)> {
    let head = head_text(input.executable)?;
    let policy = input.rule.policy();
    let is_value = |word: &str| policy.classify(word) == TokenClass::Value;
    let words = input.words;
    // Where each hint token is in the words (the hint's first token is the executable).
    let mut positions = vec![0_usize];
    let mut from = 1_usize;
    for token in input.hint.iter().skip(1) {
        let Some(offset) = words
            .get(from..)
            .unwrap_or_default()
            .iter()
            .position(|w| w.literal && w.text == token.as_str())
        else {
            break;
        };
        positions.push(from + offset);
        from += offset + 1;
    }
    // Trim trailing value tokens from the hint, always keeping the command word.
    while positions.len() > 1 {
        let Some(&last) = positions.last() else { break };
        if words.get(last).is_some_and(|w| is_value(w.text)) {
            positions.pop();
        } else {
            break;
        }
    }
    Some((head, positions))
}

/// How narrowly the command is proposed and granted: a program named by its path (code the
/// policy does not know) is narrow like the commands the grant rule keeps narrow; a command
/// proposed with every word is covered only by a pattern that spells every word.
#[must_use]
pub fn narrowness(input: &ProposalInput<'_>) -> Narrowness {
    if matches!(input.executable, Executable::Path(_)) {
        return Narrowness::Every;
    }
    let Some((head, positions)) = command_name(input) else {
        return Narrowness::Name;
    };
    let name: Vec<&str> = std::iter::once(head.as_str())
        .chain(
            positions
                .iter()
                .skip(1)
                .filter_map(|&p| input.words.get(p))
                .map(|w| w.text),
        )
        .collect();
    let narrowness = input.rule.narrowness(&name);
    // A versioned name (`perl5.36.0`, `ruby3.1`, `pip3.11`, `gcc-12`, `g++-12`, `node20`) is
    // another installation of a program the policy may know by its name only (an interpreter,
    // an installer, a compiler whose options run programs): proposed word for word. A version
    // is set off by `-`, `_` or a dot within it, or follows a name that runs code or is kept
    // narrow (`node20`, `gpg2`); `mpg123` is a name.
    let unversioned =
        head.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'));
    let version = head.get(unversioned.len()..).unwrap_or_default();
    let set_off = version.starts_with(['-', '_']) || version.contains('.');
    let known = || {
        let mut alias = name.clone();
        if let Some(first) = alias.first_mut() {
            *first = unversioned;
        }
        input.rule.code_head(&alias).is_some() || input.rule.narrowness(&alias) != Narrowness::Name
    };
    let named = unversioned.len() >= 2 && unversioned.chars().any(|c| c.is_ascii_alphabetic());
    if narrowness == Narrowness::Name && named && !version.is_empty() && (set_off || known()) {
        return Narrowness::Every;
    }
    narrowness
}

/// Words that ask a tool about itself.
const QUERY_WORDS: &[&str] = &[
    "--version",
    "-V",
    "-v",
    "-version",
    "--help",
    "-h",
    "-help",
    "version",
    "help",
];

/// Proposes a narrow pattern for a command (see the module docs), or `None` when no pattern
/// can be proposed.
#[must_use]
pub fn propose(input: &ProposalInput<'_>) -> Option<VerbPattern> {
    let (head, positions) = command_name(input)?;
    let policy = input.rule.policy();
    let is_value = |word: &str| policy.classify(word) == TokenClass::Value;
    let words = input.words;
    let hint_len = positions.len();
    let mut end = positions.last().map_or(1, |last| last + 1);
    let narrow = narrowness(input);
    match narrow {
        Narrowness::Every => {
            // Every word, those among the verb chain's too (`git c-pga erh -c '- x' log`).
            let rest = words.get(1..).unwrap_or_default();
            if rest
                .iter()
                .any(|w| !is_representable(w) || display::is_multiline(w.text))
            {
                return None;
            }
            end = words.len().max(end);
        }
        Narrowness::Literal => {
            while let Some(word) = words.get(end) {
                if !is_representable(word)
                    || is_value(word.text)
                    || display::is_multiline(word.text)
                {
                    break;
                }
                end += 1;
            }
        }
        Narrowness::Name => {}
    }
    // A question about the tool (`bw --version`, `gopass --help`) is no sample of its work:
    // the grant is the question, not every command of the tool's name (`bw *` would approve
    // `bw export --raw`).
    let rest = words.get(end..).unwrap_or_default();
    if !rest.is_empty() && rest.iter().all(|w| QUERY_WORDS.contains(&w.text)) {
        end = words.len();
    }
    // Every word in the prefix must be spellable (a transparent flag value may not be).
    let spellable = words
        .get(1..end)
        .unwrap_or_default()
        .iter()
        .take_while(|w| is_representable(w))
        .count();
    end = 1 + spellable;
    let hint_in_prefix = positions.iter().filter(|&&p| p < end).count().min(hint_len);
    let mut tokens: Vec<&str> = Vec::with_capacity(end + 1);
    tokens.push(&head);
    tokens.extend(words.get(1..end).unwrap_or_default().iter().map(|w| w.text));
    // An interpreter is only ever proposed as the exact command (`propose_exact`).
    if let Some((_, CodeHead::Interpreter)) = input.rule.code_head(&tokens) {
        return None;
    }
    let text = format!("{} *", tokens.join(" "));
    if input
        .rule
        .check_tokens(&text, &tokens, hint_in_prefix)
        .is_err()
    {
        return None;
    }
    let pattern = VerbPattern::new(&text).ok()?;
    // Saving judges the pattern by its own words, whose verb hint may differ from the
    // command's (`git -c coren3 -c *`: `coren3` was the value of `-c`): a proposal that saving
    // would refuse is none.
    input.rule.check_pattern(&pattern).ok()?;
    Some(pattern)
}

/// Proposes the exact command (for embedded code): every word, then ` *`; `None` when a word
/// cannot be spelled in a pattern, or `rule` refuses it (an interpreter alone).
#[must_use]
pub fn propose_exact(
    words: &[Token<'_>],
    executable: &Executable,
    rule: &GrantRule,
) -> Option<VerbPattern> {
    let head = head_text(executable)?;
    let mut tokens: Vec<&str> = Vec::with_capacity(words.len() + 1);
    tokens.push(&head);
    for word in words.get(1..).unwrap_or_default() {
        if !is_representable(word) || display::is_multiline(word.text) {
            return None;
        }
        tokens.push(word.text);
    }
    let text = format!("{} *", tokens.join(" "));
    if rule.check_tokens(&text, &tokens, tokens.len()).is_err() {
        return None;
    }
    let pattern = VerbPattern::new(&text).ok()?;
    // Saving judges a pattern by its own words: a multi-purpose tool's command must name its
    // subcommand as saving reads it (`mvn -v clean` does not), or it cannot be saved.
    if !matches!(rule.code_head(&tokens), Some((_, CodeHead::Interpreter)))
        && rule.check_pattern(&pattern).is_err()
    {
        return None;
    }
    Some(pattern)
}

/// The pattern text of the executable: its name, or its resolved path.
fn head_text(executable: &Executable) -> Option<String> {
    let text = match executable {
        Executable::Name(name) => name.clone(),
        Executable::Path(path) => path.to_str()?.to_owned(),
        Executable::Unknown => return None,
    };
    let token = Token::literal(&text);
    is_representable(&token).then_some(text)
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use shellgate_rules::Policy;

    use super::*;

    static RULE: LazyLock<GrantRule> =
        LazyLock::new(|| GrantRule::new(Policy::embedded_default().unwrap()));

    /// A rough stand-in for the parser's verb hint, enough for these unit tests: consecutive
    /// lowercase words, `-C DIR` transparent after `git`.
    fn hint(words: &[Token<'_>]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(w) = words.get(i) {
            if i > 0 && out.first().is_some_and(|f: &String| f == "git") && w.text == "-C" {
                i += 2;
                continue;
            }
            let verb_like = w.literal
                && w.text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase())
                && w.text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
                && !w.text.contains('/');
            if !verb_like || (i > 0 && w.text.chars().next().is_some_and(|c| c.is_ascii_digit())) {
                break;
            }
            out.push(w.text.to_owned());
            i += 1;
        }
        if out.is_empty()
            && let Some(w) = words.first()
        {
            out.push(w.text.to_owned());
        }
        out
    }

    fn proposal(command: &str) -> Option<String> {
        proposal_with(command, &RULE)
    }

    fn proposal_with(command: &str, rule: &GrantRule) -> Option<String> {
        let words: Vec<Token<'_>> = command
            .split(' ')
            .map(|w| Token {
                text: w,
                literal: !w.starts_with('$'),
                tilde: false,
            })
            .collect();
        let hint = hint(&words);
        let first = words.first().unwrap();
        let executable = if !first.literal {
            Executable::Unknown
        } else if first.text.contains('/') {
            Executable::Path(std::path::PathBuf::from(first.text))
        } else {
            Executable::Name(first.text.to_owned())
        };
        propose(&ProposalInput {
            words: &words,
            hint: &hint,
            executable: &executable,
            rule,
        })
        .map(|p| p.as_str().to_owned())
    }

    /// Asserts the pattern `rule` proposes for each command.
    fn assert_proposals(rule: &GrantRule, cases: &[(&str, Option<&str>)]) {
        for &(command, expected) in cases {
            assert_eq!(
                proposal_with(command, rule).as_deref(),
                expected,
                "{command}"
            );
        }
    }

    /// Asserts the pattern the default policy proposes for each command of `table` in
    /// `tests/cases/proposal.toml`.
    fn assert_proposal_cases(table: &str) {
        let corpus = include_str!("../tests/cases/proposal.toml");
        shellgate_testkit::check_pairs(corpus, table, proposal);
    }

    /// The grant rule of the default policy with `toml` as the user's policy file.
    fn rule_with_user(toml: &str) -> GrantRule {
        let user =
            shellgate_rules::PolicySource::new("user.toml", toml, shellgate_rules::Layer::User);
        GrantRule::new(crate::load_policy(&[Policy::default_source(), user]).unwrap())
    }

    #[test]
    fn the_policys_classify_decides_which_tokens_are_values() {
        // Only hexadecimal ids of seven or more digits are values; a `v`-version is a word.
        let rule = rule_with_user("version = 1\n[classify.patterns]\nvalue = '^[0-9a-f]{7,}$'\n");
        assert_proposals(
            &rule,
            &[
                ("git show aa211dc", Some("git show *")),
                ("git checkout v2", Some("git checkout v2 *")),
                ("git push origin main", Some("git push origin main *")),
            ],
        );
        // Without `value` in the order nothing is trimmed.
        let rule = rule_with_user(
            "version = 1\n[classify]\norder = [\"flag\", \"url\", \"env-ref\", \"path\", \"glob\", \"word\"]\n",
        );
        assert_eq!(
            proposal_with("git tag v0.4.2", &rule).as_deref(),
            Some("git tag v0.4.2 *")
        );
    }

    #[test]
    fn seed_002_value_tokens_are_trimmed() {
        assert_proposal_cases("value_tokens_are_trimmed");
    }

    #[test]
    fn seed_004_multi_line_arguments_end_the_pattern() {
        assert_eq!(
            proposal("freshdesk ticket reply --message Hi,\nthere").as_deref(),
            Some("freshdesk ticket reply *")
        );
        assert_eq!(
            proposal("freshdesk ticket reply 605 --message Hi,\nthere").as_deref(),
            Some("freshdesk ticket reply *")
        );
        assert_eq!(proposal("tool --x a\rb").as_deref(), Some("tool *"));
    }

    #[test]
    fn banned_widenings_are_never_proposed() {
        assert_proposal_cases("banned_widenings");
    }

    #[test]
    fn unspellable_words_end_the_pattern() {
        assert_proposal_cases("unspellable_words");
    }

    #[test]
    fn exact_proposals_cover_every_word() {
        let words = [
            Token::literal("python3"),
            Token::literal("-c"),
            Token::literal("print(1)"),
        ];
        let exe = Executable::Name("python3".into());
        assert_eq!(
            propose_exact(&words, &exe, &RULE).unwrap().as_str(),
            "python3 -c print(1) *"
        );
        let words = [
            Token::literal("python3"),
            Token::literal("-c"),
            Token::literal("import os; os.getcwd()"),
        ];
        assert_eq!(propose_exact(&words, &exe, &RULE), None);
        // The interpreter alone is never proposed, not even as its exact command.
        assert_eq!(
            propose_exact(&[Token::literal("python3")], &exe, &RULE),
            None
        );
    }
}
