//! One file's validation context: the checks every table's fields go through (non-empty
//! text, words, verbs, flag spellings, globs, regexes, decisions, roles, zones, ids, paths),
//! each recording a located error instead of failing.

use super::*;

/// Errors of one file, with the file at hand, and what is left to check once it is read.
pub(crate) struct FileCx<'a> {
    pub(crate) file: &'a SourceFile,
    pub(crate) layer: Layer,
    pub(crate) errors: Vec<PolicyError>,
    /// What to check once the file is read; `None` when its checks ran when it was built
    /// (the embedded default, see `checks.rs`).
    pub(crate) pending: Option<Pending>,
}

/// The load-time checks of one file.
#[derive(Default)]
pub(crate) struct Pending {
    /// Every glob and regex the file writes, to compile (see `checks.rs`).
    pub(crate) checks: Vec<Check>,
    /// Every `match`/`not_match` example, to run against the compiled policy.
    pub(crate) examples: Vec<RuleExample>,
}

/// The help of a setting a project layer may not change.
pub(super) const ONLY_RESTRICTIONS: &str =
    "project policies may only add restrictions; put this in your user policy";

impl FileCx<'_> {
    /// Records a load-time check.
    pub(crate) fn check(&mut self, check: impl FnOnce() -> Check) {
        if let Some(pending) = &mut self.pending {
            pending.checks.push(check());
        }
    }

    /// Records a `match`/`not_match` example to run.
    pub(crate) fn example(&mut self, example: impl FnOnce() -> RuleExample) {
        if let Some(pending) = &mut self.pending {
            pending.examples.push(example());
        }
    }

    /// Records an error made by `kind` (a variant of [`PolicyError`]).
    pub(crate) fn error(
        &mut self,
        kind: fn(Box<Located>) -> PolicyError,
        span: Range<usize>,
        message: String,
        label: &str,
        help: Option<String>,
    ) {
        self.errors
            .push(self.file.error(kind, span, message, label, help));
    }

    /// In a project layer: reports that the layer cannot `what` (`help` says where it goes
    /// instead) and returns true.
    pub(crate) fn refused_in_project(
        &mut self,
        span: Range<usize>,
        what: &str,
        help: &str,
    ) -> bool {
        if self.layer != Layer::Project {
            return false;
        }
        self.error(
            PolicyError::LayerNotAllowed,
            span,
            format!("a project layer cannot {what}"),
            "not allowed in a project layer",
            Some(help.to_owned()),
        );
        true
    }

    /// A non-empty string (moved out of `text`), or an error.
    pub(crate) fn nonempty(&mut self, text: &mut Text, key: &str) -> Option<String> {
        let value = text.get_ref().trim();
        if value.is_empty() {
            self.error(
                PolicyError::EmptyValue,
                text.span(),
                format!("`{key}` is empty"),
                "empty",
                Some(format!("write a short sentence for `{key}`")),
            );
            None
        } else {
            Some(text.take())
        }
    }

    /// A command prefix (moved out of `words`): non-empty words without whitespace.
    pub(crate) fn words(&mut self, words: &mut Spanned<Words>, key: &str) -> Option<Vec<String>> {
        let list = &words.get_ref().0;
        if list.is_empty() {
            self.error(
                PolicyError::EmptyValue,
                words.span(),
                format!("`{key}` is empty"),
                "no words",
                Some(format!(
                    "name the command, such as `{key} = [\"git\", \"log\"]`"
                )),
            );
            return None;
        }
        if let Some(bad) = list
            .iter()
            .find(|w| w.is_empty() || w.contains(char::is_whitespace))
        {
            self.error(
                PolicyError::BadValue,
                words.span(),
                format!("`{bad}` in `{key}` is not one word"),
                "not one word",
                Some("give each word separately, such as `[\"git\", \"log\"]`".to_owned()),
            );
            return None;
        }
        Some(std::mem::take(&mut words.get_mut().0))
    }

    /// The entry's `verb` or `verbs` (exactly one of them) → the prefixes.
    pub(crate) fn verb_list(
        &mut self,
        entry: &mut impl CatalogVerbs,
        header: Range<usize>,
        table: &str,
    ) -> Option<Vec<Vec<String>>> {
        let (verb, verbs) = entry.verb_fields();
        match (verb.as_mut(), verbs.as_mut()) {
            (Some(v), None) => self.words(v, "verb").map(|w| vec![w]),
            (None, Some(vs)) => {
                if vs.get_ref().is_empty() {
                    self.error(
                        PolicyError::EmptyValue,
                        vs.span(),
                        "`verbs` is empty".to_owned(),
                        "no verbs",
                        Some("list the commands, such as `verbs = [[\"bash\"], [\"sh\"]]`".into()),
                    );
                    return None;
                }
                let mut out = Vec::new();
                for v in vs.get_mut() {
                    out.push(self.words(v, "verbs")?);
                }
                Some(out)
            }
            (Some(_), Some(vs)) => {
                self.error(
                    PolicyError::Inconsistent,
                    vs.span(),
                    "`verb` and `verbs` are both given".to_owned(),
                    "second list",
                    Some("keep one: `verb` for one command or `verbs` for several".into()),
                );
                None
            }
            (None, None) => {
                self.errors.push(self.file.error(
                    PolicyError::MissingKey,
                    header,
                    "missing key `verb`",
                    format!("this `{table}` entry"),
                    Some("add `verb = [\"…\"]` (or `verbs = [[\"…\"], …]` for several)".into()),
                ));
                None
            }
        }
    }

    /// Flag spellings (`-x`, `--long`, `-single-dash-long`), moved out of `list`.
    pub(crate) fn spellings(&mut self, list: &mut [Text], key: &str) -> Option<Vec<String>> {
        let mut out = Vec::with_capacity(list.len());
        let mut ok = true;
        for flag in list {
            if self.is_spelling(flag, key) {
                out.push(flag.take());
            } else {
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// Whether `flag` (in `key`) is spelled as a flag; reports it when it is not.
    pub(crate) fn is_spelling(&mut self, flag: &Text, key: &str) -> bool {
        let Some(problem) = spelling_problem(flag.get_ref()) else {
            return true;
        };
        self.error(
            PolicyError::BadValue,
            flag.span(),
            format!("`{}` in `{key}` is not a flag", flag.get_ref()),
            "not a flag",
            Some(problem.to_owned()),
        );
        false
    }

    /// [`FileCx::spellings`] where a bad spelling has been reported and the entry will be
    /// dropped: an empty list then.
    pub(crate) fn flags(&mut self, list: &mut [Text], key: &str) -> Vec<String> {
        self.spellings(list, key).unwrap_or_default()
    }

    /// A glob of the policy dialect, moved out of `text` (its compilation is a check).
    pub(crate) fn glob(&mut self, text: &mut Text, key: &'static str) -> String {
        self.check(|| Check::Glob {
            span: text.span(),
            key,
            glob: text.get_ref().clone(),
        });
        text.take()
    }

    /// A non-empty list of globs (`None` on error).
    pub(crate) fn glob_list(
        &mut self,
        list: &mut TextList,
        key: &'static str,
    ) -> Option<Vec<String>> {
        if list.get_ref().is_empty() {
            self.error(
                PolicyError::EmptyValue,
                list.span(),
                format!("`{key}` is empty"),
                "empty list",
                Some(format!("list at least one glob or remove `{key}`")),
            );
            return None;
        }
        Some(
            list.get_mut()
                .iter_mut()
                .map(|t| self.glob(t, key))
                .collect(),
        )
    }

    /// Globs as one matcher, compiled on first use (compiling them together is a check).
    pub(crate) fn glob_matcher(
        &mut self,
        globs: Vec<String>,
        span: Range<usize>,
        key: &'static str,
    ) -> LazyGlobSet {
        LazyGlobSet::new(self.checked_globs(globs, span, key))
    }

    /// As [`FileCx::glob_matcher`], for globs over whole words (`unless_args`): `*` and `?`
    /// also match `/`.
    pub(crate) fn word_glob_matcher(
        &mut self,
        globs: Vec<String>,
        span: Range<usize>,
        key: &'static str,
    ) -> LazyGlobSet {
        LazyGlobSet::over_words(self.checked_globs(globs, span, key))
    }

    /// `globs`, recorded to be checked as one set.
    fn checked_globs(
        &mut self,
        globs: Vec<String>,
        span: Range<usize>,
        key: &'static str,
    ) -> Vec<String> {
        self.check(|| Check::GlobList {
            span,
            key,
            globs: globs.clone(),
        });
        globs
    }

    /// Records that `patterns` must compile together as one regex set.
    pub(crate) fn check_regexes(&mut self, patterns: &[&Text], key: &'static str) {
        self.check(|| Check::Regexes {
            key,
            regexes: patterns
                .iter()
                .map(|p| (p.span(), p.get_ref().clone()))
                .collect(),
        });
    }

    /// A decision name.
    pub(crate) fn decision(&mut self, text: &Text, key: &str) -> Option<Decision> {
        if let Ok(d) = text.get_ref().parse::<Decision>() {
            return Some(d);
        }
        self.error(
            PolicyError::UnknownValue,
            text.span(),
            format!("unknown decision `{}` in `{key}`", text.get_ref()),
            "unknown decision",
            Some(
                did_you_mean(text.get_ref(), Decision::ALL.iter().map(|d| d.as_str()))
                    .unwrap_or_else(|| {
                        "a decision is `Approved`, `NeedsPrompt` or `HardDenied`".into()
                    }),
            ),
        );
        None
    }

    /// A role name.
    pub(crate) fn role(&mut self, text: &Text, key: &str) -> Option<Role> {
        if let Some(r) = Role::from_name(text.get_ref()) {
            return Some(r);
        }
        self.error(
            PolicyError::UnknownValue,
            text.span(),
            format!("unknown role `{}` in `{key}`", text.get_ref()),
            "unknown role",
            Some(
                did_you_mean(text.get_ref(), Role::ALL.iter().map(|r| r.as_str())).unwrap_or_else(
                    || {
                        "a role is `read`, `write`, `delete`, `exec`, `url`, `upload`, `send`, \
                         `method`, `variable`, `pathspec` or `value`"
                            .into()
                    },
                ),
            ),
        );
        None
    }

    /// A zone template: known placeholders only, absolute after substitution.
    pub(crate) fn zone(&mut self, text: &Text) -> Option<ZoneTemplate> {
        let value = text.get_ref();
        let mut rest = value.as_str();
        while let Some(open) = rest.find('{') {
            let after = rest.get(open..).unwrap_or_default();
            let Some(close) = after.find('}') else {
                self.error(
                    PolicyError::BadValue,
                    text.span(),
                    format!("unclosed placeholder in zone `{value}`"),
                    "no closing `}`",
                    Some("placeholders are `{project}`, `{session}`, `{home}` and `{tmp}`".into()),
                );
                return None;
            };
            let placeholder = after.get(..=close).unwrap_or_default();
            if !PLACEHOLDERS.contains(&placeholder) {
                self.error(
                    PolicyError::UnknownValue,
                    text.span(),
                    format!("unknown placeholder `{placeholder}` in zone `{value}`"),
                    "unknown placeholder",
                    Some(did_you_mean(placeholder, PLACEHOLDERS).unwrap_or_else(|| {
                        "placeholders are `{project}`, `{session}`, `{home}` and `{tmp}`".into()
                    })),
                );
                return None;
            }
            rest = after.get(close + 1..).unwrap_or_default();
        }
        if !(value.starts_with('{') || value.starts_with('/') || value.starts_with('~')) {
            self.error(
                PolicyError::BadValue,
                text.span(),
                format!("zone `{value}` is not absolute"),
                "relative zone",
                Some(
                    "start a zone with a placeholder such as `{project}`, with `/` or with `~`"
                        .into(),
                ),
            );
            return None;
        }
        Some(ZoneTemplate {
            text: value.clone(),
        })
    }

    /// An id: lowercase kebab-case, and not one of `declared` (the ids of its kind so far).
    pub(crate) fn id(
        &mut self,
        text: &Text,
        what: &str,
        declared: &HashMap<String, Location>,
    ) -> Option<String> {
        let id = text.get_ref();
        if let Some(previous) = declared.get(id) {
            self.error(
                PolicyError::DuplicateId,
                text.span(),
                format!("duplicate {what} id `{id}`"),
                "duplicate id",
                Some(format!(
                    "`{id}` is already declared at {previous}; choose another id"
                )),
            );
        }
        let kebab = !id.is_empty()
            && id.split('-').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if kebab {
            Some(id.clone())
        } else {
            self.error(
                PolicyError::BadValue,
                text.span(),
                format!("{what} id `{id}` is not kebab-case"),
                "not kebab-case",
                Some(
                    "use lowercase letters, digits and single dashes, such as `rm-recursive-root`"
                        .into(),
                ),
            );
            None
        }
    }

    /// An absolute path from a test.
    pub(crate) fn abs_path(&mut self, text: Option<&Text>, key: &str) -> Option<PathBuf> {
        let text = text?;
        if text.get_ref().starts_with('/') {
            Some(PathBuf::from(paths::normalize(text.get_ref(), true)))
        } else {
            self.error(
                PolicyError::BadValue,
                text.span(),
                format!("`{key}` `{}` is not an absolute path", text.get_ref()),
                "relative path",
                Some(format!(
                    "give `{key}` as an absolute path such as `/home/u/proj`"
                )),
            );
            None
        }
    }

    /// Refuses a table the layer may not use; returns true when refused.
    pub(crate) fn forbid<T>(&mut self, entries: &[Spanned<T>], table: &str) -> bool {
        if self.layer != Layer::Project {
            return false;
        }
        if let Some(first) = entries.first() {
            self.error(
                PolicyError::LayerNotAllowed,
                first.span(),
                format!("a project layer cannot add `{table}` entries"),
                "not allowed in a project layer",
                Some(
                    "project policies may only add restrictions (`[[deny]]`, `[[protected]]`, \
                     `[[interpreter]]`, `[[test]]`); put this in your user policy"
                        .into(),
                ),
            );
            return true;
        }
        false
    }
}
