//! Tables that scope the rest: `[audience.*]`, `[[protected]]`, `[[test]]` and `disable`.

use super::*;

impl Builder {
    pub(super) fn add_audience(
        &mut self,
        cx: &mut FileCx<'_>,
        name: &Text,
        audience: &Spanned<RawAudience>,
    ) {
        let raw = audience.get_ref();
        if cx.layer == Layer::Project && self.audiences.contains_key(name.get_ref()) {
            cx.error(
                PolicyError::LayerNotAllowed,
                audience.span(),
                format!(
                    "a project layer cannot redefine audience `{}`",
                    name.get_ref()
                ),
                "redefines an audience",
                Some(
                    "project policies may only add restrictions; define a new audience name or \
                     change this one in your user policy"
                        .into(),
                ),
            );
            return;
        }
        let read = match raw.read.get_ref() {
            crate::raw::ReadZones::Word(word) if word == "all" => Some(ReadZones::All),
            crate::raw::ReadZones::Word(word) => {
                cx.error(
                    PolicyError::BadValue,
                    raw.read.span(),
                    format!("`read` is `\"{word}\"`"),
                    "not `all` or a list",
                    Some("`read` is `\"all\"` or a list of zones such as `[\"{project}\"]`".into()),
                );
                None
            }
            crate::raw::ReadZones::List(list) => {
                let zones: Vec<_> = list.iter().filter_map(|z| cx.zone(z)).collect();
                (zones.len() == list.len()).then_some(ReadZones::Templates(zones))
            }
        };
        let write: Vec<_> = raw.write.iter().filter_map(|z| cx.zone(z)).collect();
        let run: Vec<_> = raw.run.iter().filter_map(|z| cx.zone(z)).collect();
        for (zone, raw_zone) in run.iter().zip(&raw.run) {
            if !write.contains(zone) {
                cx.error(
                    PolicyError::Inconsistent,
                    raw_zone.span(),
                    format!(
                        "run zone `{}` is not one of the audience's write zones",
                        zone.text
                    ),
                    "not a write zone",
                    Some(
                        "code runs where it may write: list the directory in `write` too, or \
                         remove it from `run`"
                            .into(),
                    ),
                );
            }
        }
        if let Some(read) = read
            && write.len() == raw.write.len()
            && run.len() == raw.run.len()
        {
            self.audiences.insert(
                name.get_ref().clone(),
                Audience {
                    name: name.get_ref().clone(),
                    read,
                    write,
                    run,
                },
            );
        }
    }

    pub(super) fn add_protected(
        &mut self,
        cx: &mut FileCx<'_>,
        protected: &mut Spanned<RawProtected>,
    ) {
        let span = protected.span();
        let raw = protected.get_mut();
        let before = cx.errors.len();
        let id = cx.id(&raw.id, "protected", &self.protected_ids);
        if raw.paths.get_ref().is_empty() {
            cx.error(
                PolicyError::EmptyValue,
                raw.paths.span(),
                "`paths` is empty".into(),
                "empty list",
                Some("list at least one path glob, such as `[\"~/.ssh/**\"]`".into()),
            );
        }
        let globs: Vec<String> = raw
            .paths
            .get_mut()
            .iter_mut()
            .map(|p| cx.glob(p, "paths"))
            .collect();
        // (Templates a recursive read passes over loosen: a user layer's.)
        let templates: Vec<String> = if raw.templates.is_empty()
            || cx.refused_in_project(
                span.clone(),
                "declare protected `templates`",
                "a recursive read of a directory holding one no longer asks; list them in your user \
                 policy",
            ) {
            Vec::new()
        } else {
            raw.templates
                .iter_mut()
                .map(|p| cx.glob(p, "templates"))
                .collect()
        };
        let read = cx.decision(&raw.read, "read");
        let write = cx.decision(&raw.write, "write");
        let why = cx.nonempty(&mut raw.why, "why");
        if cx.errors.len() > before {
            return;
        }
        let (Some(id), Some(read), Some(write), Some(why)) = (id, read, write, why) else {
            return;
        };
        self.protected_ids
            .insert(id.clone(), cx.file.location(span.clone().start));
        self.protected.push((
            Protected {
                id,
                // Every path is a checked glob here (any error returned above).
                paths: globs.clone(),
                templates,
                read,
                write,
                why,
                layer: cx.layer,
            },
            globs,
        ));
    }

    pub(super) fn add_test(&mut self, cx: &mut FileCx<'_>, test: &mut Spanned<RawTest>) {
        let span = test.span();
        let raw = test.get_mut();
        let before = cx.errors.len();
        let name = cx.nonempty(&mut raw.name, "name");
        let command = cx.nonempty(&mut raw.command, "command");
        let expect = cx.decision(&raw.expect, "expect");
        let cwd = cx.abs_path(raw.cwd.as_ref(), "cwd");
        let project = cx.abs_path(raw.project.as_ref(), "project");
        let home = cx.abs_path(raw.home.as_ref(), "home");
        let mut grants = Vec::new();
        for grant in &raw.grants {
            match VerbPattern::new(grant.get_ref()) {
                Ok(p) => grants.push(p.as_str().to_owned()),
                Err(e) => {
                    use miette::Diagnostic as _;
                    let help = e.help().map(|h| h.to_string());
                    cx.error(
                        PolicyError::BadValue,
                        grant.span(),
                        format!("invalid grant: {e}"),
                        "invalid grant",
                        help,
                    );
                }
            }
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(name), Some(command), Some(expect)) = (name, command, expect) else {
            return;
        };
        self.tests.push(PendingTest {
            test: PolicyTest {
                name,
                command,
                cwd,
                project,
                home,
                audience: raw.audience.as_ref().map(|a| a.get_ref().clone()),
                zones: raw.zones.iter().map(|z| z.get_ref().clone()).collect(),
                grants,
                expect,
                rule: raw.rule.as_ref().map(|r| r.get_ref().clone()),
                layer: cx.layer,
                location: cx.file.location(span.clone().start),
            },
            file: cx.file.clone(),
            rule_span: raw.rule.as_ref().map(Spanned::span),
            audience_span: raw.audience.as_ref().map(Spanned::span),
        });
    }

    pub(super) fn add_disable(&mut self, cx: &mut FileCx<'_>, raw: &RawFile) {
        let Some(disable) = &raw.disable else {
            if let Some(reason) = &raw.disable_reason {
                cx.error(
                    PolicyError::Inconsistent,
                    reason.span(),
                    "`disable_reason` without `disable`".into(),
                    "nothing disabled",
                    Some("add `disable = [\"rule-id\"]` or remove `disable_reason`".into()),
                );
            }
            return;
        };
        if cx.layer != Layer::User {
            cx.error(
                PolicyError::LayerNotAllowed,
                disable.span(),
                format!("`disable` is not allowed in a {} layer", cx.layer),
                "not allowed here",
                Some(match cx.layer {
                    Layer::Default => "the default policy removes a rule by deleting it".into(),
                    Layer::User | Layer::Project => {
                        "only a user policy may disable deny rules; a project policy may only add restrictions".into()
                    }
                }),
            );
            return;
        }
        let reason = match &raw.disable_reason {
            Some(r) if !r.get_ref().trim().is_empty() => r.get_ref().clone(),
            _ => {
                cx.error(
                    PolicyError::Inconsistent,
                    disable.span(),
                    "`disable` needs a `disable_reason`".into(),
                    "no reason given",
                    Some("say why, such as `disable_reason = \"I run my own backups\"`".into()),
                );
                return;
            }
        };
        for id in disable.get_ref() {
            let name = id.get_ref();
            let Some(position) = self.deny.iter().position(|r| &r.id == name) else {
                let help = if self.disabled.iter().any(|d| &d.id == name) {
                    "this rule is already disabled".to_owned()
                } else {
                    did_you_mean(name, self.deny.iter().map(|r| r.id.as_str())).unwrap_or_else(
                        || "`shellgate check` lists no such rule in earlier layers".into(),
                    )
                };
                cx.error(
                    PolicyError::UnknownValue,
                    id.span(),
                    format!("unknown deny rule id `{name}`"),
                    "unknown rule",
                    Some(help),
                );
                continue;
            };
            self.deny.remove(position);
            self.disabled.push(DisabledRule {
                id: name.clone(),
                reason: reason.clone(),
                location: cx.file.location(id.span().start),
            });
        }
    }
}
