//! The value-token classifier: ordered classes, first match wins.

use regex::RegexSet;

crate::named_enum! {
    /// The class of an argument token (see `[classify]` in the policy language). `ALL` is the
    /// default order.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum TokenClass {
        /// `-x`, `--long`, `--long=value`.
        Flag = "flag",
        /// `scheme://…`.
        Url = "url",
        /// `$NAME`, `${…}`.
        EnvRef = "env-ref",
        /// Path-shaped: has a `/`, starts with `~`, or is `.`/`..`.
        Path = "path",
        /// Contains `*`, `?` or `[`.
        Glob = "glob",
        /// A call-specific value: not a flag, not path-shaped, contains a digit (versions, SHAs,
        /// ids, ports). Trailing value tokens are trimmed from approval patterns.
        Value = "value",
        /// Anything else: subcommands, branch names, package names.
        Word = "word",
    }
}

impl TokenClass {
    /// The built-in pattern for this class (used when a policy does not give one).
    ///
    /// The `value` pattern is the call-specific-value rule: classes earlier in the order have
    /// already taken flags and path-shaped tokens, so a remaining token with a digit is a value.
    #[must_use]
    pub const fn default_pattern(self) -> &'static str {
        match self {
            Self::Flag => r"^-",
            Self::Url => r"^[A-Za-z][A-Za-z0-9+.-]*://",
            Self::EnvRef => r"^\$",
            Self::Path => r"(^[~.]?/)|(/)|(^\.\.?$)|(^~)",
            Self::Glob => r"[*?\[]",
            Self::Value => r"[0-9]",
            Self::Word => r".",
        }
    }
}

/// The compiled classifier: one regex set, tried in order.
#[derive(Clone, Debug)]
pub(crate) struct Classifier {
    /// The classes, in order; `set` pattern `i` belongs to `order[i]`.
    order: Vec<TokenClass>,
    set: RegexSet,
}

impl Classifier {
    /// Compiles `(class, pattern)` pairs in order.
    pub(crate) fn new(pairs: Vec<(TokenClass, String)>) -> Result<Self, regex::Error> {
        let set = RegexSet::new(pairs.iter().map(|(_, p)| p.as_str()))?;
        let order = pairs.into_iter().map(|(c, _)| c).collect();
        Ok(Self { order, set })
    }

    /// The built-in classifier (every class, default order and patterns).
    #[cfg(test)]
    pub(crate) fn builtin() -> Result<Self, regex::Error> {
        Self::new(
            TokenClass::ALL
                .into_iter()
                .map(|c| (c, c.default_pattern().to_owned()))
                .collect(),
        )
    }

    /// The first class whose pattern matches; [`TokenClass::Word`] when none does.
    pub(crate) fn classify(&self, token: &str) -> TokenClass {
        let matches = self.set.matches(token);
        self.order
            .iter()
            .enumerate()
            .find(|(i, _)| matches.matched(*i))
            .map_or(TokenClass::Word, |(_, c)| *c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_002_value_rule() {
        let c = Classifier::builtin().unwrap();
        let corpus = include_str!("../tests/cases/classify.toml");
        shellgate_testkit::check_pairs(corpus, "builtin", |token| {
            Some(c.classify(token).as_str().to_owned())
        });
    }
}
