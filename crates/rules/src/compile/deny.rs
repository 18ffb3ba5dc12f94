//! `[[deny]]` entries: validation and the compiled command matcher.

use super::*;

impl Builder {
    pub(super) fn add_deny(&mut self, cx: &mut FileCx<'_>, deny: &mut Spanned<RawDeny>) {
        let header = deny.span();
        let raw = deny.get_mut();
        let errors_before = cx.errors.len();
        let id = cx.id(&raw.id, "deny rule");
        if let Some(id) = &id
            && let Some(previous) = self.declared.get(id)
        {
            cx.error(
                PolicyError::DuplicateId,
                raw.id.span(),
                format!("duplicate deny rule id `{id}`"),
                "duplicate id",
                Some(format!(
                    "`{id}` is already declared at {previous}; choose another id"
                )),
            );
        }
        let category = Category::from_name(raw.category.get_ref());
        if category.is_none() {
            cx.error(
                PolicyError::UnknownValue,
                raw.category.span(),
                format!("unknown category `{}`", raw.category.get_ref()),
                "unknown category",
                Some(
                    did_you_mean(
                        raw.category.get_ref(),
                        Category::ALL.iter().map(|c| c.as_str()),
                    )
                    .unwrap_or_else(|| {
                        "a category is one of `destructive`, `privilege`, `exfiltration`, \
                             `persistence`, `self-protection`, `custom`"
                            .into()
                    }),
                ),
            );
        }
        let reason = cx.nonempty(&mut raw.reason, "reason");

        let view_keys: Vec<(&str, Range<usize>)> = [
            raw.verb.as_ref().map(|v| ("verb", v.span())),
            raw.flags_any.as_ref().map(|v| ("flags_any", v.span())),
            raw.flags_all.as_ref().map(|v| ("flags_all", v.span())),
            raw.args_any.as_ref().map(|v| ("args_any", v.span())),
            raw.redirect_to.as_ref().map(|v| ("redirect_to", v.span())),
            raw.env.as_ref().map(|v| ("env", v.span())),
        ]
        .into_iter()
        .flatten()
        .collect();
        let id_text = raw.id.get_ref().clone();
        let mut view = false;
        let matcher = match (&raw.raw, &raw.pipeline, view_keys.first()) {
            (None, None, None) => {
                cx.error(
                    PolicyError::Inconsistent,
                    header.clone(),
                    format!("deny rule `{id_text}` has no matcher"),
                    "no matcher",
                    Some(format!("add at least one of {DENY_MATCHERS}")),
                );
                None
            }
            (Some(r), None, None) => {
                // Compiled (and checked) with every other raw rule in one set at the end.
                let index = self.raw_patterns.len();
                self.raw_patterns.push(RawPattern {
                    rule: self.deny.len(),
                    pattern: r.get_ref().clone(),
                    trusted: cx.trusted,
                    file: cx.file.clone(),
                    span: r.span(),
                });
                Some(DenyMatcher::Raw { index })
            }
            (None, Some(p), None) => {
                let mut from = Vec::new();
                let mut to = Vec::new();
                let pipe = p.get_ref();
                for (list, out, key) in [(&pipe.from, &mut from, "from"), (&pipe.to, &mut to, "to")]
                {
                    if list.is_empty() {
                        cx.error(
                            PolicyError::EmptyValue,
                            p.span(),
                            format!("`pipeline.{key}` is empty"),
                            "empty list",
                            Some(format!("list at least one command prefix in `{key}`, such as `[[\"curl\"]]`")),
                        );
                    }
                    for words in list {
                        if let Some(w) = cx.words(&mut words.clone(), key) {
                            out.push(w);
                        }
                    }
                }
                Some(DenyMatcher::Pipeline(PipelineMatcher { from, to }))
            }
            (Some(r), _, _) => {
                cx.error(
                    PolicyError::Inconsistent,
                    r.span(),
                    "`raw` cannot be combined with other matchers".into(),
                    "combined with other matchers",
                    Some(
                        "a `raw` rule matches the whole command text; move the other matchers to \
                         a separate rule"
                            .into(),
                    ),
                );
                None
            }
            (None, Some(p), Some(_)) => {
                cx.error(
                    PolicyError::Inconsistent,
                    p.span(),
                    "`pipeline` cannot be combined with command matchers".into(),
                    "combined with other matchers",
                    Some(
                        "a `pipeline` rule matches pipeline stages by verb; move the other \
                         matchers to a separate rule"
                            .into(),
                    ),
                );
                None
            }
            (None, None, Some(_)) => {
                view = true;
                None
            }
        };
        let matcher = if view {
            self.view_matcher(cx, raw).map(DenyMatcher::View)
        } else {
            matcher
        };
        for example in raw.match_.iter().filter(|_| cx.keep_examples) {
            self.examples.push(PendingExample {
                rule: id_text.clone(),
                command: example.get_ref().clone(),
                must_match: true,
                file: cx.file.clone(),
                span: example.span(),
            });
        }
        for example in raw.not_match.iter().filter(|_| cx.keep_examples) {
            self.examples.push(PendingExample {
                rule: id_text.clone(),
                command: example.get_ref().clone(),
                must_match: false,
                file: cx.file.clone(),
                span: example.span(),
            });
        }
        let location = cx.file.location(header.start);
        if let Some(id) = &id {
            self.declared
                .entry(id.clone())
                .or_insert_with(|| location.clone());
        }
        if cx.errors.len() > errors_before {
            return;
        }
        if let (Some(id), Some(category), Some(reason), Some(matcher)) =
            (id, category, reason, matcher)
        {
            self.deny.push(DenyRule {
                id,
                category,
                reason,
                layer: cx.layer,
                location,
                examples: raw.match_.iter_mut().map(Spanned::take).collect(),
                counter_examples: raw.not_match.iter_mut().map(Spanned::take).collect(),
                matcher,
            });
        }
    }

    pub(super) fn view_matcher(
        &mut self,
        cx: &mut FileCx<'_>,
        raw: &mut RawDeny,
    ) -> Option<ViewMatcher> {
        let mut ok = true;
        let mut matcher = ViewMatcher::default();
        if let Some(verb) = &mut raw.verb {
            match cx.words(verb, "verb") {
                Some(v) => matcher.verb = v,
                None => ok = false,
            }
        }
        for (list, out, key) in [
            (&mut raw.flags_any, &mut matcher.flags_any, "flags_any"),
            (&mut raw.flags_all, &mut matcher.flags_all, "flags_all"),
        ] {
            let Some(list) = list else { continue };
            if list.get_ref().is_empty() {
                cx.error(
                    PolicyError::EmptyValue,
                    list.span(),
                    format!("`{key}` is empty"),
                    "empty list",
                    Some(format!("list at least one flag or remove `{key}`")),
                );
                ok = false;
            }
            for entry in list.get_mut() {
                let entry_span = entry.span();
                let spellings = match entry.get_mut() {
                    FlagEntry::One(flag) => {
                        let mut text = Spanned::new(entry_span, std::mem::take(flag));
                        cx.spellings(std::slice::from_mut(&mut text), key)
                    }
                    FlagEntry::Alternatives(all) if all.is_empty() => {
                        cx.error(
                            PolicyError::EmptyValue,
                            entry_span,
                            format!("an entry of `{key}` is empty"),
                            "empty list",
                            Some(
                                "list the spellings of one flag, such as `[\"-f\", \"--force\"]`"
                                    .into(),
                            ),
                        );
                        None
                    }
                    FlagEntry::Alternatives(all) => cx.spellings(all, key),
                };
                match spellings {
                    Some(s) => out.push(s),
                    None => ok = false,
                }
            }
        }
        for (list, out, key) in [
            (&mut raw.args_any, &mut matcher.args_any, "args_any"),
            (
                &mut raw.redirect_to,
                &mut matcher.redirect_to,
                "redirect_to",
            ),
            (&mut raw.env, &mut matcher.env, "env"),
        ] {
            let Some(list) = list else { continue };
            let span = list.span();
            match cx
                .glob_list(list, key)
                .and_then(|globs| cx.glob_matcher(globs, span, key))
            {
                Some(globs) => *out = Some(globs),
                None => ok = false,
            }
        }
        ok.then_some(matcher)
    }
}
