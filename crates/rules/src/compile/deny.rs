//! `[[deny]]` and `[[ask]]` entries: the rule's own keys; its conditions are compiled by
//! `condition.rs`. An ask rule is a deny rule whose hit forces `NeedsPrompt`.

use super::*;

impl Builder {
    pub(super) fn add_deny(
        &mut self,
        cx: &mut FileCx<'_>,
        deny: &mut Spanned<RawDeny>,
        decision: Decision,
    ) {
        let header = deny.span();
        let raw = deny.get_mut();
        let errors_before = cx.errors.len();
        let id = cx.id(&raw.id, "deny rule", &self.declared);
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
        let id_text = raw.id.get_ref().clone();
        let written = std::mem::take(&mut raw.conditions);
        let kind = condition::kind_of(&written, &id_text, header.clone(), cx);
        let conditions: Vec<(&Row, Condition)> = written
            .into_iter()
            .filter_map(|c| Some((c.row, condition::compile(c.row, c.value, cx)?)))
            .collect();
        let examples = raw.match_.iter().map(|e| (e, true));
        for (example, must_match) in examples.chain(raw.not_match.iter().map(|e| (e, false))) {
            let file = cx.file.clone();
            cx.example(|| RuleExample {
                rule: id_text.clone(),
                command: example.get_ref().clone(),
                must_match,
                file,
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
        if let (Some(id), Some(category), Some(reason), Some(kind)) = (id, category, reason, kind) {
            self.deny.push(DenyRule {
                id,
                decision,
                category,
                reason,
                layer: cx.layer,
                location,
                examples: raw.match_.iter_mut().map(Spanned::take).collect(),
                counter_examples: raw.not_match.iter_mut().map(Spanned::take).collect(),
                conditions,
                kind,
            });
        }
    }
}
