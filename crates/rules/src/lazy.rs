//! Matchers compiled on first use.
//!
//! Building a regex or a glob set costs far more than matching with it, and one command
//! touches few of a policy's matchers, so every matcher is compiled when first needed (behind
//! a [`OnceLock`], so a [`crate::Policy`] stays immutable and `Send + Sync`). Whether the
//! globs and regexes of a file compile is checked when the file loads (`compile/checks.rs`),
//! so a file whose matchers cannot be built is refused.
//!
//! Laziness never changes what matches. A matcher that cannot be built anyway fails closed:
//! it reports a match, which only ever raises a decision.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use globset::{GlobSet, GlobSetBuilder};
use regex::{Regex, RegexSet};

use crate::classify::{Classifier, TokenClass};
use crate::glob;

/// Compiles globs of the policy dialect (see `glob.rs`) into one set: over paths, or over
/// whole words (`words`: `*` and `?` also match `/`).
pub(crate) fn glob_set(patterns: &[String], words: bool) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(if words {
            glob::word_glob(pattern)?
        } else {
            glob::path_glob(pattern)?
        });
    }
    builder.build()
}

/// A set of globs, compiled on first use.
///
/// On first use, the globs are grouped by a literal every path they match contains (see
/// [`glob_guard`]); one automaton finds which literals a text contains, and only the groups
/// of those literals (and the globs without one) are compiled and matched. The indices found
/// are exactly those one `GlobSet` of every glob finds.
#[derive(Clone)]
pub(crate) struct LazyGlobSet {
    patterns: Vec<String>,
    /// Matched against whole words: `*` and `?` also match `/`.
    words: bool,
    /// Grouped by guard on first use (boxed: most sets are never used).
    groups: OnceLock<Box<GlobGroups>>,
}

/// How many texts [`Literals`] scans literal by literal before it builds its automaton.
/// Building one for a hundred literals costs about as much as that many scans, and a
/// process that checks one command never needs it.
const AUTOMATON_AFTER: usize = 64;

/// Literals to find in texts: the first texts are scanned literal by literal, later ones
/// through one automaton. Both find exactly the literals a text contains.
pub(crate) struct Literals {
    literals: Vec<String>,
    scans: AtomicUsize,
    automaton: OnceLock<Option<AhoCorasick>>,
}

impl Clone for Literals {
    fn clone(&self) -> Self {
        Self {
            literals: self.literals.clone(),
            scans: AtomicUsize::new(self.scans.load(Ordering::Relaxed)),
            automaton: self.automaton.clone(),
        }
    }
}

impl Literals {
    /// Literals to find (none of them empty).
    pub(crate) const fn new(literals: Vec<String>) -> Self {
        Self {
            literals,
            scans: AtomicUsize::new(0),
            automaton: OnceLock::new(),
        }
    }

    fn automaton(&self) -> Option<&AhoCorasick> {
        if let Some(built) = self.automaton.get() {
            return built.as_ref();
        }
        if self.scans.fetch_add(1, Ordering::Relaxed) < AUTOMATON_AFTER {
            return None;
        }
        self.automaton
            .get_or_init(|| {
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(&self.literals)
                    .ok()
            })
            .as_ref()
    }

    /// Builds the automaton now; the error says it cannot be built.
    #[cfg(test)]
    fn force(&self) -> Result<(), String> {
        self.scans.store(AUTOMATON_AFTER, Ordering::Relaxed);
        self.automaton()
            .map(|_| ())
            .ok_or_else(|| "the literal automaton cannot be built".to_owned())
    }

    /// The indices of the literals `text` contains, ascending.
    pub(crate) fn found_in(&self, text: &str) -> Vec<usize> {
        let mut found: Vec<usize> = match self
            .automaton()
            .and_then(|ac| ac.try_find_overlapping_iter(text).ok())
        {
            Some(matches) => matches.map(|m| m.pattern().as_usize()).collect(),
            None => self
                .literals
                .iter()
                .enumerate()
                .filter(|(_, literal)| text.contains(literal.as_str()))
                .map(|(i, _)| i)
                .collect(),
        };
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// Globs grouped by guard literal.
#[derive(Clone)]
struct GlobGroups {
    /// The guard literals: literal `i` is that of `guarded[i]`.
    literals: Literals,
    guarded: Vec<GlobGroup>,
    /// Globs without a guard: always tried.
    unguarded: Option<GlobGroup>,
}

/// Some globs of a [`LazyGlobSet`], compiled together on first use.
#[derive(Clone)]
struct GlobGroup {
    /// Indices into the set's patterns, ascending.
    members: Vec<usize>,
    set: OnceLock<Option<GlobSet>>,
}

impl GlobGroup {
    fn new(members: Vec<usize>) -> Self {
        Self {
            members,
            set: OnceLock::new(),
        }
    }

    fn set(&self, patterns: &[String], words: bool) -> Option<&GlobSet> {
        self.set
            .get_or_init(|| {
                let mine: Vec<String> = self
                    .members
                    .iter()
                    .filter_map(|i| patterns.get(*i).cloned())
                    .collect();
                glob_set(&mine, words).ok()
            })
            .as_ref()
    }

    /// Whether one of the group's globs matches (true when they cannot be compiled).
    fn is_match(&self, patterns: &[String], words: bool, text: &str) -> bool {
        self.set(patterns, words)
            .is_none_or(|set| set.is_match(text))
    }

    /// Appends the set indices of the group's globs matching `text` (all of them when they
    /// cannot be compiled).
    fn matches_into(&self, patterns: &[String], words: bool, text: &str, out: &mut Vec<usize>) {
        match self.set(patterns, words) {
            Some(set) => out.extend(
                set.matches(text)
                    .into_iter()
                    .filter_map(|i| self.members.get(i).copied()),
            ),
            None => out.extend(self.members.iter().copied()),
        }
    }
}

impl GlobGroups {
    fn new(patterns: &[String]) -> Self {
        let mut by_literal: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut unguarded = Vec::new();
        for (index, pattern) in patterns.iter().enumerate() {
            match glob_guard(pattern) {
                Some(literal) => by_literal.entry(literal).or_default().push(index),
                None => unguarded.push(index),
            }
        }
        let (literals, guarded) = by_literal.into_iter().unzip::<_, _, Vec<_>, Vec<_>>();
        Self {
            literals: Literals::new(literals),
            guarded: guarded.into_iter().map(GlobGroup::new).collect(),
            unguarded: (!unguarded.is_empty()).then(|| GlobGroup::new(unguarded)),
        }
    }

    /// The groups that may match `text`: those whose literal it contains, then the
    /// unguarded one.
    fn candidates(&self, text: &str) -> Vec<&GlobGroup> {
        self.literals
            .found_in(text)
            .iter()
            .filter_map(|i| self.guarded.get(*i))
            .chain(self.unguarded.as_ref())
            .collect()
    }
}

impl LazyGlobSet {
    /// A set of path globs, compiled when first matched.
    pub(crate) const fn new(patterns: Vec<String>) -> Self {
        Self {
            patterns,
            words: false,
            groups: OnceLock::new(),
        }
    }

    /// A set of globs over whole words (`*` and `?` also match `/`), compiled when first
    /// matched.
    pub(crate) const fn over_words(patterns: Vec<String>) -> Self {
        Self {
            patterns,
            words: true,
            groups: OnceLock::new(),
        }
    }

    /// Whether the globs are matched against whole words.
    #[cfg(test)]
    pub(crate) const fn is_over_words(&self) -> bool {
        self.words
    }

    fn groups(&self) -> &GlobGroups {
        self.groups
            .get_or_init(|| Box::new(GlobGroups::new(&self.patterns)))
    }

    /// The globs, as written.
    #[cfg(test)]
    pub(crate) fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether anything was compiled yet.
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.groups.get().is_some()
    }

    /// Whether any glob matches `text` (true when the globs that might cannot be built).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        !self.patterns.is_empty()
            && self
                .groups()
                .candidates(text)
                .iter()
                .any(|g| g.is_match(&self.patterns, self.words, text))
    }

    /// The indices of the globs matching `text`, ascending, into `out` (cleared first);
    /// those that cannot be built count as matching.
    pub(crate) fn matches_into(&self, text: &str, out: &mut Vec<usize>) {
        out.clear();
        if self.patterns.is_empty() {
            return;
        }
        for group in self.groups().candidates(text) {
            group.matches_into(&self.patterns, self.words, text, out);
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Builds every part now; the error says why one cannot be built.
    #[cfg(test)]
    pub(crate) fn force(&self) -> Result<(), String> {
        glob_set(&self.patterns, self.words).map_err(|e| e.to_string())?;
        let groups = self.groups();
        groups.literals.force()?;
        for group in groups.guarded.iter().chain(&groups.unguarded) {
            group
                .set(&self.patterns, self.words)
                .ok_or("a glob group cannot be built")?;
        }
        Ok(())
    }
}

/// The longest run of literal characters that every text a glob (over paths or words)
/// matches contains, or `None` (then the glob is always tried).
///
/// Sound by construction: reading left to right, literal characters match themselves, `*`
/// and `?` only end a run, `**` also drops the `/` next to it (in `**/x`, `x/**` and
/// `x/**/y` that `/` may match nothing), and the first `[`, `{`, `\`, `]`, `}` or `,` ends
/// the reading (the runs before it stay required).
pub(crate) fn glob_guard(glob: &str) -> Option<String> {
    let mut best = String::new();
    let mut run = String::new();
    let mut chars = glob.chars().peekable();
    let end_run = |run: &mut String, best: &mut String| {
        if run.chars().count() > best.chars().count() {
            *best = std::mem::take(run);
        } else {
            run.clear();
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if run.ends_with('/') {
                    run.pop();
                }
                end_run(&mut run, &mut best);
                if chars.peek() == Some(&'/') {
                    chars.next();
                }
            }
            '*' | '?' => end_run(&mut run, &mut best),
            '[' | '{' | '\\' | ']' | '}' | ',' => break,
            _ => run.push(c),
        }
    }
    end_run(&mut run, &mut best);
    (!best.is_empty()).then_some(best)
}

/// A set of regexes compiled on first use.
#[derive(Clone)]
pub(crate) struct LazyRegexSet {
    patterns: Vec<String>,
    set: OnceLock<Option<RegexSet>>,
}

impl LazyRegexSet {
    /// A set compiled when first matched.
    pub(crate) const fn new(patterns: Vec<String>) -> Self {
        Self {
            patterns,
            set: OnceLock::new(),
        }
    }

    fn set(&self) -> Option<&RegexSet> {
        self.set
            .get_or_init(|| RegexSet::new(&self.patterns).ok())
            .as_ref()
    }

    /// Whether any regex matches anywhere in `text` (true when the set cannot be built).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        self.set().is_none_or(|set| set.is_match(text))
    }

    /// Builds the set now; the error says why it cannot be built.
    #[cfg(test)]
    pub(crate) fn force(&self) -> Result<(), String> {
        if self.set().is_some() {
            Ok(())
        } else {
            RegexSet::new(&self.patterns)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

/// One `raw` regex: compiled on first use, and tried only when the text contains one of its
/// required literals (when it has a list of them).
#[derive(Clone)]
pub(crate) struct RawRegex {
    pattern: String,
    /// Strings one of which occurs in every match (see `guard.rs`); `None`: always try it.
    guard: Option<Vec<String>>,
    regex: OnceLock<Option<Regex>>,
}

impl RawRegex {
    /// A regex compiled when first needed, with an optional guard.
    pub(crate) const fn new(pattern: String, guard: Option<Vec<String>>) -> Self {
        Self {
            pattern,
            guard,
            regex: OnceLock::new(),
        }
    }

    /// Whether it matches anywhere in `text` (true when it cannot be built).
    fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| Regex::new(&self.pattern).ok())
            .as_ref()
            .is_none_or(|regex| regex.is_match(text))
    }
}

/// The `raw` regexes of a policy. Matching them one by one finds exactly what one
/// `RegexSet` of them finds; the guards only skip regexes that cannot match.
#[derive(Clone)]
pub(crate) struct RawMatcher {
    regexes: Vec<RawRegex>,
    /// Every guard literal; literal `i` belongs to regex `owners[i]`.
    literals: Literals,
    owners: Vec<usize>,
}

impl RawMatcher {
    /// The matcher of `regexes`, in raw-rule order.
    pub(crate) fn new(regexes: Vec<RawRegex>) -> Self {
        let mut literals = Vec::new();
        let mut owners = Vec::new();
        for (index, regex) in regexes.iter().enumerate() {
            for literal in regex.guard.iter().flatten() {
                literals.push(literal.clone());
                owners.push(index);
            }
        }
        Self {
            regexes,
            literals: Literals::new(literals),
            owners,
        }
    }

    /// Whether there are no raw regexes.
    pub(crate) fn is_empty(&self) -> bool {
        self.regexes.is_empty()
    }

    /// The indices of the regexes matching anywhere in `text`, ascending.
    pub(crate) fn matches(&self, text: &str) -> Vec<usize> {
        // A regex is tried when it has no guard or the text contains one of its literals.
        let mut candidate: Vec<bool> = self.regexes.iter().map(|r| r.guard.is_none()).collect();
        for literal in self.literals.found_in(text) {
            if let Some(slot) = self.owners.get(literal).and_then(|i| candidate.get_mut(*i)) {
                *slot = true;
            }
        }
        self.regexes
            .iter()
            .enumerate()
            .filter(|(i, regex)| candidate.get(*i).copied().unwrap_or(true) && regex.is_match(text))
            .map(|(i, _)| i)
            .collect()
    }

    /// Builds every regex and the guard automaton now; the error names what cannot be built.
    #[cfg(test)]
    pub(crate) fn force(&self) -> Result<(), String> {
        for regex in &self.regexes {
            Regex::new(&regex.pattern).map_err(|e| format!("`{}`: {e}", regex.pattern))?;
        }
        self.literals.force()
    }

    /// Whether any regex was compiled yet.
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.regexes.iter().any(|r| r.regex.get().is_some())
    }

    /// Each regex with its guard, for tests.
    #[cfg(test)]
    pub(crate) fn guarded(&self) -> Vec<(&str, Option<&[String]>)> {
        self.regexes
            .iter()
            .map(|r| (r.pattern.as_str(), r.guard.as_deref()))
            .collect()
    }
}

/// The token classifier, compiled on first use.
#[derive(Clone)]
pub(crate) struct LazyClassifier {
    pairs: Vec<(TokenClass, String)>,
    classifier: OnceLock<Option<Classifier>>,
}

impl LazyClassifier {
    /// A classifier compiled when first used.
    pub(crate) const fn new(pairs: Vec<(TokenClass, String)>) -> Self {
        Self {
            pairs,
            classifier: OnceLock::new(),
        }
    }

    fn classifier(&self) -> Option<&Classifier> {
        self.classifier
            .get_or_init(|| Classifier::new(self.pairs.clone()).ok())
            .as_ref()
    }

    /// The class of `token`. When the classifier cannot be built, every token is a
    /// [`TokenClass::Path`]: the class that makes an operand of an unknown verb a write and
    /// keeps a token in an approval pattern.
    pub(crate) fn classify(&self, token: &str) -> TokenClass {
        self.classifier()
            .map_or(TokenClass::Path, |c| c.classify(token))
    }

    /// Whether the classifier was compiled yet.
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.classifier.get().is_some()
    }

    /// Builds the classifier now; the error says why it cannot be built.
    #[cfg(test)]
    pub(crate) fn force(&self) -> Result<(), String> {
        if self.classifier().is_some() {
            Ok(())
        } else {
            Classifier::new(self.pairs.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

// Debug shows what a matcher matches, never whether it is compiled yet: a policy prints the
// same whichever way it was loaded.

impl fmt::Debug for LazyGlobSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Globs").field(&self.patterns).finish()
    }
}

impl fmt::Debug for LazyRegexSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Regexes").field(&self.patterns).finish()
    }
}

impl fmt::Debug for RawRegex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Regex").field(&self.pattern).finish()
    }
}

impl fmt::Debug for RawMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.regexes).finish()
    }
}

impl fmt::Debug for LazyClassifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Classifier").field(&self.pairs).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_that_cannot_be_built_fail_closed() {
        // `a[` cannot be compiled: it counts as matching any text that has its literal `a`.
        let globs = LazyGlobSet::new(vec!["a[".to_owned(), "b".to_owned()]);
        assert!(globs.is_match("a"));
        assert!(!globs.is_match("zzz"));
        let mut found = Vec::new();
        globs.matches_into("a", &mut found);
        assert_eq!(found, vec![0]);
        globs.matches_into("b", &mut found);
        assert_eq!(found, vec![1]);
        assert!(globs.force().is_err());
        let unguarded = LazyGlobSet::new(vec!["[".to_owned()]);
        assert!(unguarded.is_match("zzz"));
        assert!(!LazyGlobSet::new(Vec::new()).is_match("x"));

        let regexes = LazyRegexSet::new(vec!["(".to_owned()]);
        assert!(regexes.is_match("zzz"));
        assert!(regexes.force().is_err());

        let raw = RawMatcher::new(vec![
            RawRegex::new("(".to_owned(), Some(vec!["never".to_owned()])),
            RawRegex::new("abc".to_owned(), Some(vec!["abc".to_owned()])),
            RawRegex::new("(".to_owned(), None),
        ]);
        // The first is skipped by its guard; the third cannot be built and counts as a match.
        assert_eq!(raw.matches("zzz"), vec![2]);
        assert_eq!(raw.matches("abc never"), vec![0, 1, 2]);
        assert!(raw.force().is_err());

        let classifier = LazyClassifier::new(vec![(TokenClass::Word, "(".to_owned())]);
        assert_eq!(classifier.classify("main"), TokenClass::Path);
        assert!(classifier.force().is_err());
    }

    #[test]
    fn literal_scans_and_the_automaton_find_the_same() {
        let words = ["etc", "/etc", "ssh", "a", "ss", "hs"];
        let literals = Literals::new(words.iter().map(|w| (*w).to_owned()).collect());
        let texts = ["/etc/ssh", "", "hss", "aaa", "x/ss/hs", "\u{e9}tc"];
        let scanned: Vec<Vec<usize>> = texts.iter().map(|t| literals.found_in(t)).collect();
        assert!(literals.automaton.get().is_none());
        literals.force().unwrap();
        let automaton: Vec<Vec<usize>> = texts.iter().map(|t| literals.found_in(t)).collect();
        assert_eq!(scanned, automaton);
        assert_eq!(scanned[0], vec![0, 1, 2, 4]);
        assert_eq!(scanned[2], vec![4, 5]);
    }

    #[test]
    fn glob_guards() {
        let corpus = include_str!("../tests/cases/lazy.toml");
        shellgate_testkit::check_pairs(corpus, "glob_guard", glob_guard);
    }

    #[test]
    fn lazy_and_compiled_matchers_agree() {
        let patterns = vec![
            "/etc/**".to_owned(),
            "~/.ssh/*".to_owned(),
            "*.pem".to_owned(),
        ];
        let lazy = LazyGlobSet::new(patterns.clone());
        let compiled = glob_set(&patterns, false).unwrap();
        for text in [
            "/etc/passwd",
            "~/.ssh/id_rsa",
            "~/.ssh/a/b",
            "key.pem",
            "a/key.pem",
            "x",
        ] {
            assert_eq!(lazy.is_match(text), compiled.is_match(text), "{text}");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            lazy.matches_into(text, &mut a);
            compiled.matches_into(text, &mut b);
            assert_eq!(a, b, "{text}");
            b.clear();
        }
    }
}
