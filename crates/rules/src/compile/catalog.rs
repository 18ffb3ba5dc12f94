//! The command catalog tables: `[[safe]]`, `[[wrapper]]`, `[[shell]]`, `[[interpreter]]`,
//! `[[verb]]` (argument roles) and `[classify]` (value tokens).

use super::*;

impl Builder {
    pub(super) fn add_safe(
        &mut self,
        cx: &mut FileCx<'_>,
        safe: &mut Spanned<RawSafe>,
        seen: &mut HashMap<Vec<String>, Location>,
    ) {
        let span = safe.span();
        let raw = safe.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[safe]]",
        );
        let why = cx.nonempty(&mut raw.why, "why");
        let mut os = Vec::new();
        if let Some(list) = &raw.os {
            for name in list.get_ref() {
                if OS_NAMES.contains(&name.get_ref().as_str()) {
                    os.push(name.get_ref().clone());
                } else {
                    cx.error(
                        PolicyError::UnknownValue,
                        name.span(),
                        format!("unknown operating system `{}`", name.get_ref()),
                        "unknown os",
                        Some(
                            did_you_mean(name.get_ref(), OS_NAMES)
                                .unwrap_or_else(|| format!("known names: {}", OS_NAMES.join(", "))),
                        ),
                    );
                }
            }
        }
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let mut unless_flags = Vec::new();
        for entry in &mut raw.unless_flags {
            let entry_span = entry.span();
            let e = entry.get_mut();
            if e.flags.is_empty() {
                cx.error(
                    PolicyError::EmptyValue,
                    entry_span,
                    "an `unless_flags` entry has no flags".into(),
                    "no flags",
                    Some("list the spellings, such as `flags = [\"-o\", \"--output\"]`".into()),
                );
            }
            let flags = cx
                .spellings(&mut e.flags, "unless_flags")
                .unwrap_or_default();
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            unless_flags.push(UnlessFlag { flags, why });
        }
        let mut unless_args = Vec::new();
        let mut unless_globs = Vec::new();
        for entry in &mut raw.unless_args {
            let e = entry.get_mut();
            let glob = cx.glob(&mut e.pattern, "unless_args");
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            let pattern = match glob {
                Some(glob) => {
                    unless_globs.push(glob.clone());
                    glob
                }
                None => e.pattern.get_ref().clone(),
            };
            unless_args.push(UnlessArg { pattern, why });
        }
        let unless_globs = if cx.errors.len() > before {
            None
        } else {
            cx.glob_matcher(unless_globs, span.clone(), "unless_args")
        };
        let location = cx.file.location(span.clone().start);
        if let Some(verbs) = &verbs {
            for verb in verbs {
                if let Some(previous) = seen.get(verb) {
                    cx.error(
                        PolicyError::DuplicateId,
                        span.clone(),
                        format!("duplicate `[[safe]]` entry for `{}`", verb.join(" ")),
                        "duplicate entry",
                        Some(format!(
                            "`{}` is already catalogued at {previous}; merge the two entries",
                            verb.join(" ")
                        )),
                    );
                }
                seen.insert(verb.clone(), location.clone());
            }
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why), Some(unless_globs)) = (verbs, why, unless_globs) else {
            return;
        };
        let entry = SafeEntry {
            verb: Vec::new(),
            why,
            os,
            pure: raw.pure,
            value_flags,
            unless_flags,
            unless_args,
            unless_globs,
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.safe);
    }

    pub(super) fn add_wrapper(&mut self, cx: &mut FileCx<'_>, wrapper: &mut Spanned<RawWrapper>) {
        let span = wrapper.span();
        let raw = wrapper.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[wrapper]]",
        );
        let mode = match &raw.mode {
            None => Some(if raw.exec_options.is_empty() {
                WrapperMode::Prefix
            } else {
                WrapperMode::ExecOption
            }),
            Some(m) => match m.get_ref().as_str() {
                "prefix" => Some(WrapperMode::Prefix),
                "exec-option" => Some(WrapperMode::ExecOption),
                "strip" => Some(WrapperMode::Strip),
                other => {
                    cx.error(
                        PolicyError::UnknownValue,
                        m.span(),
                        format!("unknown wrapper mode `{other}`"),
                        "unknown mode",
                        Some(
                            did_you_mean(other, ["prefix", "exec-option", "strip"]).unwrap_or_else(
                                || "a mode is `prefix`, `exec-option` or `strip`".into(),
                            ),
                        ),
                    );
                    None
                }
            },
        };
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let exec_options = cx
            .spellings(&mut raw.exec_options, "exec_options")
            .unwrap_or_default();
        let cwd_flags = cx
            .spellings(&mut raw.cwd_flags, "cwd_flags")
            .unwrap_or_default();
        let query_flags = cx
            .spellings(&mut raw.query_flags, "query_flags")
            .unwrap_or_default();
        let judged_flags = cx
            .spellings(&mut raw.judged_flags, "judged_flags")
            .unwrap_or_default();
        let positionals = count(cx, raw.positionals.as_ref(), "positionals");
        match mode {
            Some(WrapperMode::ExecOption)
                if exec_options.is_empty() || raw.terminators.is_empty() =>
            {
                cx.error(
                    PolicyError::Inconsistent,
                    span.clone(),
                    "an `exec-option` wrapper needs `exec_options` and `terminators`".into(),
                    "incomplete wrapper",
                    Some(
                        "such as `exec_options = [\"-exec\"]` and `terminators = [\";\", \"+\"]`"
                            .into(),
                    ),
                );
            }
            Some(WrapperMode::Strip) if value_flags.is_empty() => {
                cx.error(
                    PolicyError::Inconsistent,
                    span.clone(),
                    "a `strip` wrapper needs `value_flags`".into(),
                    "incomplete wrapper",
                    Some("list the options to strip, such as `value_flags = [\"-C\"]`".into()),
                );
            }
            _ => {}
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(mode)) = (verbs, mode) else {
            return;
        };
        let entry = Wrapper {
            verb: Vec::new(),
            privileged: raw.privileged,
            mode,
            value_flags,
            assignments: raw.assignments,
            positionals,
            stop_at: raw.stop_at.iter().map(|s| s.get_ref().clone()).collect(),
            exec_options,
            terminators: raw
                .terminators
                .iter()
                .map(|s| s.get_ref().clone())
                .collect(),
            appends_args: raw.appends_args,
            cwd_flags,
            query_flags,
            judged_flags,
            why: raw.why.as_ref().map(|w| w.get_ref().clone()),
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.wrappers);
    }

    pub(super) fn add_shell(&mut self, cx: &mut FileCx<'_>, shell: &mut Spanned<RawShell>) {
        let span = shell.span();
        let raw = shell.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[shell]]",
        );
        let code_flags = cx
            .spellings(&mut raw.code_flags, "code_flags")
            .unwrap_or_default();
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let skip = count(cx, raw.skip_positionals.as_ref(), "skip_positionals");
        if code_flags.is_empty()
            && !raw.code_operand
            && !raw.stdin
            && !raw.script_operand
            && !raw.join_args
        {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "this `[[shell]]` entry never finds code".into(),
                "no code source",
                Some(
                    "set `code_flags`, `code_operand`, `stdin`, `script_operand` or `join_args`"
                        .into(),
                ),
            );
        }
        if cx.errors.len() > before {
            return;
        }
        let Some(verbs) = verbs else { return };
        let entry = Shell {
            verb: Vec::new(),
            code_flags,
            code_operand: raw.code_operand,
            stdin: raw.stdin,
            script_operand: raw.script_operand,
            join_args: raw.join_args,
            skip_positionals: skip,
            value_flags,
            remote: raw.remote,
            split_only: raw.split_only,
            privileged: raw.privileged,
            why: raw.why.as_ref().map(|w| w.get_ref().clone()),
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.shells);
    }

    pub(super) fn add_interpreter(
        &mut self,
        cx: &mut FileCx<'_>,
        interpreter: &mut Spanned<RawInterpreter>,
    ) {
        let span = interpreter.span();
        let raw = interpreter.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[interpreter]]",
        );
        let code_flags = cx
            .spellings(&mut raw.code_flags, "code_flags")
            .unwrap_or_default();
        let script_flags = cx
            .spellings(&mut raw.script_flags, "script_flags")
            .unwrap_or_default();
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        let query_flags = cx
            .spellings(&mut raw.query_flags, "query_flags")
            .unwrap_or_default();
        let why = cx.nonempty(&mut raw.why, "why");
        let patterns: Vec<String> = raw
            .unsafe_program
            .iter()
            .map(|p| p.get_ref().clone())
            .collect();
        let unsafe_set = if raw.unsafe_program.is_empty() {
            None
        } else if cx.trusted {
            Some(LazyRegexSet::new(patterns.clone()))
        } else {
            cx.regex_set(
                &raw.unsafe_program.iter().collect::<Vec<_>>(),
                "unsafe_program",
            )
            .map(|set| LazyRegexSet::compiled(patterns.clone(), set))
        };
        if raw.program_operand && raw.unsafe_program.is_empty() {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "`program_operand` needs `unsafe_program` patterns".into(),
                "no patterns",
                Some("list regexes that make a program unsafe, such as `unsafe_program = ['system\\s*\\(']`".into()),
            );
        }
        if code_flags.is_empty()
            && script_flags.is_empty()
            && !raw.stdin
            && !raw.script_operand
            && !raw.program_operand
        {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "this `[[interpreter]]` entry never finds code".into(),
                "no code source",
                Some("set `code_flags`, `script_flags`, `stdin`, `script_operand` or `program_operand`".into()),
            );
        }
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why)) = (verbs, why) else {
            return;
        };
        let entry = Interpreter {
            verb: Vec::new(),
            code_flags,
            script_flags,
            value_flags,
            query_flags,
            stdin: raw.stdin,
            script_operand: raw.script_operand,
            program_operand: raw.program_operand,
            unsafe_program: patterns,
            why,
            unsafe_set,
        };
        per_verb(
            verbs,
            entry,
            |e, verb| e.verb = verb,
            &mut self.interpreters,
        );
    }

    pub(super) fn add_verb(&mut self, cx: &mut FileCx<'_>, verb: &mut Spanned<RawVerb>) {
        let span = verb.span();
        let raw = verb.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(
            raw.verb.as_mut(),
            raw.verbs.as_mut(),
            span.clone(),
            "[[verb]]",
        );
        let operands = raw.operands.as_ref().and_then(|r| cx.role(r, "operands"));
        let last = raw.last.as_ref().and_then(|r| cx.role(r, "last"));
        let mut options = Vec::new();
        for (flag, role) in &raw.options {
            if let Some(problem) = spelling_problem(flag.get_ref()) {
                cx.error(
                    PolicyError::BadValue,
                    flag.span(),
                    format!("`{}` in `options` is not a flag", flag.get_ref()),
                    "not a flag",
                    Some(problem.into()),
                );
            }
            if let Some(role) = cx.role(role, "options") {
                options.push((flag.get_ref().clone(), role));
            }
        }
        let mut assign = Vec::new();
        for (key, role) in &raw.assign {
            if key.get_ref().is_empty() || key.get_ref().contains(['=', ' ']) {
                cx.error(
                    PolicyError::BadValue,
                    key.span(),
                    format!("`{}` in `assign` is not a key", key.get_ref()),
                    "not a key",
                    Some("write the key before `=`, such as `of = \"write\"`".into()),
                );
            }
            if let Some(role) = cx.role(role, "assign") {
                assign.push((key.get_ref().clone(), role));
            }
        }
        let value_flags = cx
            .spellings(&mut raw.value_flags, "value_flags")
            .unwrap_or_default();
        if cx.errors.len() > before {
            return;
        }
        let Some(verbs) = verbs else { return };
        let entry = VerbRoles {
            verb: Vec::new(),
            operands,
            last,
            options,
            assign,
            value_flags,
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.verbs);
    }

    pub(super) fn add_classify(&mut self, cx: &mut FileCx<'_>, classify: &Spanned<RawClassify>) {
        let raw: &RawClassify = classify.get_ref();
        let class = |cx: &mut FileCx<'_>, name: &Text| -> Option<TokenClass> {
            let found = TokenClass::from_name(name.get_ref());
            if found.is_none() {
                cx.error(
                    PolicyError::UnknownValue,
                    name.span(),
                    format!("unknown token class `{}`", name.get_ref()),
                    "unknown class",
                    Some(
                        did_you_mean(name.get_ref(), TokenClass::ALL.iter().map(|c| c.as_str()))
                            .unwrap_or_else(|| {
                                "classes are `flag`, `url`, `env-ref`, `path`, `glob`, `value`, `word`".into()
                            }),
                    ),
                );
            }
            found
        };
        if !cx.trusted {
            self.classify_eager = true;
        }
        if let Some(order) = &raw.order {
            let mut out = Vec::new();
            for name in order.get_ref() {
                if let Some(c) = class(cx, name) {
                    if out.contains(&c) {
                        cx.error(
                            PolicyError::DuplicateId,
                            name.span(),
                            format!("token class `{c}` appears twice in `order`"),
                            "repeated",
                            Some("list each class once".into()),
                        );
                    }
                    out.push(c);
                }
            }
            self.classify_order = out;
        }
        let patterns: Vec<&Text> = raw.patterns.values().collect();
        if !cx.trusted
            && !patterns.is_empty()
            && cx.regex_set(&patterns, "classify.patterns").is_none()
        {
            return;
        }
        for (name, pattern) in &raw.patterns {
            if let Some(c) = class(cx, name) {
                self.classify_patterns.insert(c, pattern.get_ref().clone());
            }
        }
    }
}
