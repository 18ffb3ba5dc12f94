//! The command catalog tables: `[[safe]]`, `[[wrapper]]`, `[[shell]]`, `[[interpreter]]`,
//! `[[verb]]` (argument roles) and `[classify]` (value tokens).

use super::*;
use crate::OperandCount;
use crate::glob::WordGlob;
use crate::model::Setting;

impl Builder {
    /// Adds a catalog entry of `[[safe]]` (`class` `None`: read-only or, with `pure = true`,
    /// pure) or of the table of `class`.
    pub(super) fn add_safe(
        &mut self,
        cx: &mut FileCx<'_>,
        safe: &mut Spanned<RawSafe>,
        class: Option<EffectClass>,
    ) {
        let span = safe.span();
        let raw = safe.get_mut();
        let before = cx.errors.len();
        let table = format!("[[{}]]", class.map_or("safe", EffectClass::table));
        let verbs = cx.verb_list(raw, span.clone(), &table);
        if raw.pure && class.is_some() {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                format!("`pure` belongs to `[[safe]]` entries, not to `{table}`"),
                "not a `[[safe]]` entry",
                Some("move the entry to `[[safe]]` or remove `pure`".into()),
            );
        }
        if raw.hooks && class != Some(EffectClass::Repository) {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                format!("`hooks` belongs to `[[repository]]` entries, not to `{table}`"),
                "not a `[[repository]]` entry",
                Some("remove `hooks`: only version-control commands run hooks".into()),
            );
        }
        if raw.imports_cwd && class.is_some() {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                format!("`imports_cwd` belongs to `[[safe]]` entries, not to `{table}`"),
                "not a `[[safe]]` entry",
                Some("move the entry to `[[safe]]` or remove `imports_cwd`".into()),
            );
        }
        let class = class.unwrap_or(if raw.pure {
            EffectClass::Pure
        } else {
            EffectClass::ReadOnly
        });
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
        let value_flags = cx.flags(&mut raw.value_flags, "value_flags");
        let known_flags = cx.flags(&mut raw.known_flags, "known_flags");
        let mut unless_flags = Vec::new();
        for entry in &mut raw.unless_flags {
            let entry_span = entry.span();
            let e = entry.get_mut();
            if e.flags.is_empty() {
                cx.error(
                    PolicyError::EmptyValue,
                    entry_span.clone(),
                    "an `unless_flags` entry has no flags".into(),
                    "no flags",
                    Some("list the spellings, such as `flags = [\"-o\", \"--output\"]`".into()),
                );
            }
            let flags = cx.flags(&mut e.flags, "unless_flags");
            let values: Vec<String> = e
                .values
                .iter_mut()
                .map(|v| cx.glob(v, "unless_flags.values"))
                .collect();
            if let Some(flag) = flags
                .iter()
                .find(|f| !values.is_empty() && !value_flags.contains(f))
            {
                cx.error(
                    PolicyError::UnknownValue,
                    entry_span.clone(),
                    format!("`{flag}` has `values` but takes no value"),
                    "not a value flag",
                    Some(format!("list `{flag}` in this entry's `value_flags`")),
                );
            }
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            let value_globs =
                cx.word_glob_matcher(values.clone(), entry_span, "unless_flags.values");
            unless_flags.push(UnlessFlag {
                flags,
                values,
                value_globs,
                why,
            });
        }
        let mut unless_args = Vec::new();
        let mut unless_globs = Vec::new();
        for entry in &mut raw.unless_args {
            let e = entry.get_mut();
            let pattern = cx.glob(&mut e.pattern, "unless_args");
            let why = cx.nonempty(&mut e.why, "why").unwrap_or_default();
            unless_globs.push(pattern.clone());
            unless_args.push(UnlessArg {
                pattern,
                why,
                first_operand: e.first_operand,
                operands_only: e.operands_only,
            });
        }
        let unless_globs = cx.word_glob_matcher(unless_globs, span.clone(), "unless_args");
        let mut bound = |raw: Option<&mut Spanned<crate::raw::RawOperandCount>>,
                         key: &'static str| {
            raw.map(|bound| {
                let bound = bound.get_mut();
                let count = super::count(cx, Some(&bound.count), key);
                let why = cx.nonempty(&mut bound.why, "why").unwrap_or_default();
                OperandCount { count, why }
            })
        };
        let max_operands = bound(raw.max_operands.as_mut(), "max_operands.count");
        let min_operands = bound(raw.min_operands.as_mut(), "min_operands.count");
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why)) = (verbs, why) else {
            return;
        };
        let entry = SafeEntry {
            verb: Vec::new(),
            class,
            // A command that imports code from its working directory (`python3 -m json.tool`
            // imports `json` from there first) runs the project's code, as hooks do.
            hooks: raw.hooks || raw.imports_cwd,
            writes_cwd: raw.writes_cwd,
            updates_tree: raw.updates_tree,
            fetches: raw.fetches,
            tasks: raw.tasks,
            declares: raw.declares,
            unless_bare: raw.unless_bare.as_ref().map(|w| w.get_ref().clone()),
            input_names: raw.input_names.as_ref().map(|w| w.get_ref().clone()),
            absent_operands: raw.absent_operands.as_ref().map(|w| w.get_ref().clone()),
            absent_repository: raw.absent_repository.as_ref().map(|w| w.get_ref().clone()),
            why,
            os: os.into(),
            pure: raw.pure,
            value_flags: value_flags.into(),
            known_flags: known_flags.into(),
            unless_flags: unless_flags.into(),
            unless_args: unless_args.into(),
            unless_globs,
            max_operands,
            min_operands,
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.safe);
    }

    /// Reports every verb catalogued twice among the safe entries from `first` on, which one
    /// file added; `tables[i]` is the span of the table of entry `first + i`.
    pub(super) fn check_safe_duplicates(
        &self,
        cx: &mut FileCx<'_>,
        first: usize,
        tables: &[Range<usize>],
        table: &str,
    ) {
        let added = self.safe.get(first..).unwrap_or_default();
        // Each verb's latest entry so far: a later one is reported against it.
        let mut seen: HashMap<&[String], usize> = HashMap::with_capacity(added.len());
        for (later, b) in added.iter().enumerate() {
            let Some(earlier) = seen.insert(&b.verb, later) else {
                continue;
            };
            let (Some(previous), Some(span)) = (tables.get(earlier), tables.get(later)) else {
                continue;
            };
            let verb = b.verb.join(" ");
            let previous = cx.file.location(previous.start);
            cx.error(
                PolicyError::DuplicateId,
                span.clone(),
                format!("duplicate `{table}` entry for `{verb}`"),
                "duplicate entry",
                Some(format!(
                    "`{verb}` is already catalogued at {previous}; merge the two entries"
                )),
            );
        }
    }

    pub(super) fn add_wrapper(&mut self, cx: &mut FileCx<'_>, wrapper: &mut Spanned<RawWrapper>) {
        let span = wrapper.span();
        let raw = wrapper.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(raw, span.clone(), "[[wrapper]]");
        let mode = wrapper_mode(cx, raw, &span);
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
            why: raw.why.as_ref().map(|w| w.get_ref().clone()),
        };
        per_verb(verbs, entry, |e, verb| e.verb = verb, &mut self.wrappers);
    }

    pub(super) fn add_shell(&mut self, cx: &mut FileCx<'_>, shell: &mut Spanned<RawShell>) {
        let span = shell.span();
        let raw = shell.get_mut();
        let before = cx.errors.len();
        let verbs = cx.verb_list(raw, span.clone(), "[[shell]]");
        let code_flags = cx.flags(&mut raw.code_flags, "code_flags");
        let value_flags = cx.flags(&mut raw.value_flags, "value_flags");
        let query_flags = cx.flags(&mut raw.query_flags, "query_flags");
        let judged_flags = cx.flags(&mut raw.judged_flags, "judged_flags");
        let stdin_flags = cx.flags(&mut raw.stdin_flags, "stdin_flags");
        let judged_values: Vec<String> = raw
            .judged_values
            .iter_mut()
            .map(|v| cx.glob(v, "judged_values"))
            .collect();
        let judged_value_globs =
            cx.word_glob_matcher(judged_values.clone(), span.clone(), "judged_values");
        let env_flags = cx.flags(&mut raw.env_flags, "env_flags");
        let cwd_flags = cx.flags(&mut raw.cwd_flags, "cwd_flags");
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
            query_flags,
            env_flags,
            cwd_flags,
            judged_flags,
            stdin_flags,
            judged_values,
            judged_value_globs,
            later: raw.later,
            path_search: raw.path_search,
            posix_names: raw
                .posix_names
                .iter()
                .map(|n| n.get_ref().clone())
                .collect(),
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
        let verbs = cx.verb_list(raw, span.clone(), "[[interpreter]]");
        let code_flags = cx.flags(&mut raw.code_flags, "code_flags");
        let script_flags = cx.flags(&mut raw.script_flags, "script_flags");
        let value_flags = cx.flags(&mut raw.value_flags, "value_flags");
        let flags = cx.flags(&mut raw.flags, "flags");
        let query_flags = cx.flags(&mut raw.query_flags, "query_flags");
        let why = cx.nonempty(&mut raw.why, "why");
        let patterns: Vec<String> = raw
            .unsafe_program
            .iter()
            .map(|p| p.get_ref().clone())
            .collect();
        let unsafe_set = if raw.unsafe_program.is_empty() {
            None
        } else {
            cx.check_regexes(
                &raw.unsafe_program.iter().collect::<Vec<_>>(),
                "unsafe_program",
            );
            Some(LazyRegexSet::new(patterns.clone()))
        };
        let program = raw
            .program
            .as_ref()
            .and_then(|program| program_reader(cx, program));
        if raw.program_operand && raw.unsafe_program.is_empty() && raw.program.is_none() {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "`program_operand` needs `unsafe_program` patterns or an `[interpreter.program]` reader".into(),
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
        let inline = raw
            .inline
            .as_ref()
            .and_then(|inline| inline_reader(cx, inline));
        if cx.errors.len() > before {
            return;
        }
        let (Some(verbs), Some(why)) = (verbs, why) else {
            return;
        };
        // A project layer's entry would take the place of what earlier layers know about the
        // command (its shell or wrapper unwrapping, its `unsafe_program` patterns, its query
        // flags, its catalog entry, and the name it folds to: `Bash` is judged as `bash`): it may
        // only declare commands no earlier layer knows by any spelling. Its operand is never
        // the project's own script: that would admit any operand as code the project runs.
        if cx.layer == Layer::Project && raw.script_operand {
            cx.error(
                PolicyError::LayerNotAllowed,
                span,
                "a project layer cannot declare `script_operand`: the operand would run as the \
                 project's own code"
                    .into(),
                "not allowed in a project layer",
                Some(
                    "declare `stdin`, `code_flags` or `script_flags`, which only add a need, or \
                     list the interpreter in your user policy"
                        .into(),
                ),
            );
            return;
        }
        if cx.layer == Layer::Project
            && let Some(known) = verbs.iter().find_map(|verb| {
                let name = verb.first()?;
                let folded = crate::folded_name(name);
                let earlier = self
                    .interpreters
                    .iter()
                    .map(|e| &e.verb)
                    .chain(self.shells.iter().map(|e| &e.verb))
                    .chain(self.wrappers.iter().map(|e| &e.verb))
                    .chain(self.safe.iter().map(|e| &e.verb))
                    .chain(self.verbs.iter().map(|e| &e.verb))
                    .map(Vec::as_slice)
                    .chain(self.deny.iter().map(DenyRule::verb));
                earlier
                    .filter_map(<[String]>::first)
                    .any(|first| first == name || Some(first) == folded.as_ref())
                    .then(|| name.clone())
            })
        {
            cx.error(
                PolicyError::LayerNotAllowed,
                span,
                format!(
                    "a project layer cannot declare `{known}` as an interpreter: an earlier layer \
                     already knows the command (by this name or the one it folds to)"
                ),
                "not allowed in a project layer",
                Some(
                    "a project layer may add `[[interpreter]]` entries only for commands the \
                     default and user policies do not know; use an `[[ask]]` or `[[deny]]` rule \
                     to restrict this one"
                        .into(),
                ),
            );
            return;
        }
        let entry = Interpreter {
            verb: Vec::new(),
            code_flags,
            script_flags,
            value_flags,
            flags,
            query_flags,
            stdin: raw.stdin,
            script_operand: raw.script_operand,
            closed_options: raw.closed_options,
            complete_options: raw.complete_options,
            program_operand: raw.program_operand,
            imports_cwd: raw.imports_cwd,
            unsafe_program: patterns,
            why,
            inline,
            program,
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
        let verbs = cx.verb_list(raw, span.clone(), "[[verb]]");
        let operands = raw.operands.as_ref().and_then(|r| cx.role(r, "operands"));
        let first = raw.first.as_ref().and_then(|r| cx.role(r, "first"));
        let first_unless = cx.flags(&mut raw.first_unless, "first_unless");
        let recursive_flags = cx.flags(&mut raw.recursive_flags, "recursive_flags");
        let link_flags = cx.flags(&mut raw.link_flags, "link_flags");
        let backup_flags = cx.flags(&mut raw.backup_flags, "backup_flags");
        let hidden_flags = cx.flags(&mut raw.hidden_flags, "hidden_flags");
        let names_flags = cx.flags(&mut raw.names_flags, "names_flags");
        let include_flags = cx.flags(&mut raw.include_flags, "include_flags");
        let last = raw.last.as_ref().and_then(|r| cx.role(r, "last"));
        let mut options = Vec::new();
        for (flag, role) in &raw.options {
            cx.is_spelling(flag, "options");
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
        let together = raw.settings.is_empty() == raw.setting_flags.is_empty();
        let setting_flags = cx.flags(&mut raw.setting_flags, "setting_flags");
        let mut settings = Vec::new();
        for (key, role) in &raw.settings {
            let (glob, prefix) = key
                .get_ref()
                .split_once('=')
                .unwrap_or((key.get_ref().as_str(), ""));
            if glob.is_empty() || glob.contains(char::is_whitespace) {
                cx.error(
                    PolicyError::BadValue,
                    key.span(),
                    format!("`{}` in `settings` is not a key", key.get_ref()),
                    "not a key",
                    Some(
                        "write the key (a glob such as `alias.*`), optionally followed by `=` and \
                         the text the value must start with: `\"alias.*=!\" = \"exec\"`"
                            .into(),
                    ),
                );
                continue;
            }
            let mut text = key.clone();
            *text.get_mut() = glob.to_ascii_lowercase();
            let glob = cx.glob(&mut text, "settings");
            if let Some(role) = cx.role(role, "settings") {
                settings.push(Setting {
                    key: WordGlob::new(glob),
                    prefix: prefix.to_owned(),
                    role,
                });
            }
        }
        if !together {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "`setting_flags` and `settings` go together".into(),
                "one without the other",
                Some(
                    "name the options whose value is `KEY=VALUE` in `setting_flags`, and the roles \
                     of their keys in `settings`"
                        .into(),
                ),
            );
        }
        let value_flags = cx.flags(&mut raw.value_flags, "value_flags");
        let flags = cx.flags(&mut raw.flags, "flags");
        if cx.errors.len() > before {
            return;
        }
        let Some(verbs) = verbs else { return };
        let entry = VerbRoles {
            verb: Vec::new(),
            operands,
            first,
            first_unless: first_unless.into(),
            last,
            options: options.into(),
            assign: assign.into(),
            setting_flags: setting_flags.into(),
            settings: settings.into(),
            value_flags: value_flags.into(),
            flags: flags.into(),
            recursive_flags: recursive_flags.into(),
            link_flags: link_flags.into(),
            backup_flags: backup_flags.into(),
            recursive: raw.recursive,
            searches_cwd: raw.searches_cwd,
            hidden_flags: hidden_flags.into(),
            names_flags: names_flags.into(),
            include_flags: include_flags.into(),
            keeps_content: raw.keeps_content,
            entries: raw.entries,
            into_directory: raw.into_directory,
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
                    Some({
                        // The classes are fixed (each one means something to the gate); a
                        // custom name is refused with the list.
                        let list = "the token classes are `flag`, `url`, `env-ref`, `path`, `glob`, `value`, `word`";
                        match did_you_mean(
                            name.get_ref(),
                            TokenClass::ALL.iter().map(|c| c.as_str()),
                        ) {
                            Some(guess) => format!("{guess} ({list})"),
                            None => format!("{list}; a class cannot be added"),
                        }
                    }),
                );
            }
            found
        };
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
        if !patterns.is_empty() {
            cx.check_regexes(&patterns, "classify.patterns");
        }
        for (name, pattern) in &raw.patterns {
            if let Some(c) = class(cx, name) {
                self.classify_patterns.insert(c, pattern.get_ref().clone());
            }
        }
    }
}

/// The mode of a wrapper with what it needs; keys of another mode are refused.
fn wrapper_mode(
    cx: &mut FileCx<'_>,
    raw: &mut RawWrapper,
    span: &Range<usize>,
) -> Option<WrapperMode> {
    let name = match &raw.mode {
        None if raw.exec_options.is_some() => "exec-option",
        None => "prefix",
        Some(m) => match m.get_ref().as_str() {
            known @ ("prefix" | "exec-option" | "strip") => known,
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
                return None;
            }
        },
    };
    // The keys each mode takes beyond `verb`, `privileged`, `mode` and `why`.
    let prefix_only: [(&str, Option<Range<usize>>); 10] = [
        ("runs", raw.runs.as_ref().map(Spanned::span)),
        ("local_flags", raw.local_flags.as_ref().map(Spanned::span)),
        ("local_bins", raw.local_bins.as_ref().map(Spanned::span)),
        ("assignments", raw.assignments.as_ref().map(Spanned::span)),
        ("positionals", raw.positionals.as_ref().map(Spanned::span)),
        ("stop_at", raw.stop_at.as_ref().map(Spanned::span)),
        (
            "positionals_until",
            raw.positionals_until.as_ref().map(Spanned::span),
        ),
        (
            "options_anywhere",
            raw.options_anywhere.as_ref().map(Spanned::span),
        ),
        ("query_flags", raw.query_flags.as_ref().map(Spanned::span)),
        ("appends_args", raw.appends_args.as_ref().map(Spanned::span)),
    ];
    let options: [(&str, Option<Range<usize>>); 4] = [
        ("flags", raw.flags.as_ref().map(Spanned::span)),
        ("value_flags", raw.value_flags.as_ref().map(Spanned::span)),
        ("cwd_flags", raw.cwd_flags.as_ref().map(Spanned::span)),
        ("judged_flags", raw.judged_flags.as_ref().map(Spanned::span)),
    ];
    let exec_only: [(&str, Option<Range<usize>>); 3] = [
        ("exec_options", raw.exec_options.as_ref().map(Spanned::span)),
        ("terminators", raw.terminators.as_ref().map(Spanned::span)),
        ("list_flags", raw.list_flags.as_ref().map(Spanned::span)),
    ];
    let strip_only = (
        "plain_settings",
        raw.plain_settings.as_ref().map(Spanned::span),
    );
    let foreign: Vec<(&str, Option<Range<usize>>)> = match name {
        "prefix" => exec_only
            .iter()
            .chain(std::slice::from_ref(&strip_only))
            .cloned()
            .collect(),
        "strip" => prefix_only
            .iter()
            .chain(&exec_only)
            .chain(&[("null_flags", raw.null_flags.as_ref().map(Spanned::span))])
            .cloned()
            .collect(),
        _ => prefix_only
            .iter()
            .chain(&options)
            .chain(&[strip_only])
            .cloned()
            .collect(),
    };
    for (key, at) in foreign {
        if let Some(at) = at {
            cx.error(
                PolicyError::Inconsistent,
                at,
                format!("`{key}` does not apply to a `{name}` wrapper"),
                "not used by this mode",
                Some(format!(
                    "remove `{key}`, or give the wrapper the mode that uses it"
                )),
            );
        }
    }
    let plain_settings = raw
        .plain_settings
        .as_mut()
        .map(|keys| {
            keys.get_mut()
                .iter_mut()
                .map(|key| {
                    *key.get_mut() = key.get_ref().to_ascii_lowercase();
                    WordGlob::new(cx.glob(key, "plain_settings"))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut list = |field: &mut Option<Spanned<Vec<Text>>>, key: &str| -> Vec<String> {
        field
            .as_mut()
            .map(|f| cx.flags(f.get_mut(), key))
            .unwrap_or_default()
    };
    let value_flags = list(&mut raw.value_flags, "value_flags");
    let cwd_flags = list(&mut raw.cwd_flags, "cwd_flags");
    let judged_flags = list(&mut raw.judged_flags, "judged_flags");
    let flags = list(&mut raw.flags, "flags");
    let options = WrapperOptions {
        value_flags,
        cwd_flags,
        judged_flags,
        flags,
        plain_settings,
    };
    let exec_options = list(&mut raw.exec_options, "exec_options");
    let list_flags = list(&mut raw.list_flags, "list_flags");
    let null_flags = list(&mut raw.null_flags, "null_flags");
    let query_flags = list(&mut raw.query_flags, "query_flags");
    let local_flags = list(&mut raw.local_flags, "local_flags");
    let runs = match &raw.runs {
        None => None,
        Some(text) => match text.get_ref().as_str() {
            "project" => Some(Runs::Project),
            "elsewhere" => Some(Runs::Elsewhere),
            other => {
                cx.error(
                    PolicyError::UnknownValue,
                    text.span(),
                    format!("unknown value `{other}` for `runs`"),
                    "unknown value",
                    Some(
                        did_you_mean(other, ["project", "elsewhere"])
                            .unwrap_or_else(|| "`runs` is `project` or `elsewhere`".into()),
                    ),
                );
                None
            }
        },
    };
    let mut local_bins = Vec::new();
    for bin in raw.local_bins.iter().flat_map(|b| b.get_ref()) {
        let text = bin.get_ref();
        if text.is_empty() || text.starts_with('/') || text.split('/').any(|c| c == "..") {
            cx.error(
                PolicyError::BadValue,
                bin.span(),
                format!("`{text}` in `local_bins` is not a relative directory"),
                "not a relative directory",
                Some("give a directory below the project, such as `node_modules/.bin`".into()),
            );
        } else {
            local_bins.push(text.clone());
        }
    }
    let words = |field: &Option<Spanned<Vec<Text>>>| -> Vec<String> {
        field
            .iter()
            .flat_map(|f| f.get_ref())
            .map(|w| w.get_ref().clone())
            .collect()
    };
    match name {
        "prefix" => Some(WrapperMode::Prefix(PrefixMode {
            options,
            assignments: raw.assignments.as_ref().is_some_and(|b| *b.get_ref()),
            positionals: count(cx, raw.positionals.as_ref(), "positionals"),
            stop_at: words(&raw.stop_at),
            positionals_until: words(&raw.positionals_until),
            options_anywhere: raw.options_anywhere.as_ref().is_some_and(|b| *b.get_ref()),
            query_flags,
            appends_args: raw.appends_args.as_ref().is_some_and(|b| *b.get_ref()),
            null_flags,
            runs,
            local_flags,
            local_bins,
        })),
        "strip" if options.value_flags.is_empty() && options.flags.is_empty() => {
            cx.error(
                PolicyError::Inconsistent,
                span.clone(),
                "a `strip` wrapper needs `value_flags` or `flags`".into(),
                "incomplete wrapper",
                Some("list the options to strip, such as `value_flags = [\"-C\"]`".into()),
            );
            None
        }
        "strip" => Some(WrapperMode::Strip(options)),
        _ => {
            let terminators = words(&raw.terminators);
            if exec_options.is_empty() || terminators.is_empty() {
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
                return None;
            }
            Some(WrapperMode::ExecOption(ExecMode {
                exec_options,
                terminators,
                list_flags,
                null_flags,
            }))
        }
    }
}

/// Whether a reader table (`[interpreter.inline]`, `[interpreter.program]`) may stand: not in a
/// project layer, and in the one language the gate reads for it.
fn reader_allowed(
    cx: &mut FileCx<'_>,
    span: std::ops::Range<usize>,
    reads: &str,
    kind: &str,
    language: &Text,
    known: &str,
) -> bool {
    if cx.refused_in_project(
        span,
        &format!("let the gate read {reads}"),
        ONLY_RESTRICTIONS,
    ) {
        return false;
    }
    if language.get_ref() == known {
        return true;
    }
    cx.error(
        PolicyError::UnknownValue,
        language.span(),
        format!("unknown {kind} language `{}`", language.get_ref()),
        "unknown language",
        Some(format!(
            "the only {kind} language the gate reads is `{known}`"
        )),
    );
    false
}

/// `[interpreter.program]`: sed only, and never in a project layer (like `[interpreter.inline]`,
/// it lets programs the reader reads run).
fn program_reader(cx: &mut FileCx<'_>, program: &Spanned<RawProgram>) -> Option<ProgramReader> {
    let raw = program.get_ref();
    if !reader_allowed(
        cx,
        program.span(),
        "programs",
        "program",
        &raw.language,
        "sed",
    ) {
        return None;
    }
    let mut unsafe_commands = Vec::new();
    for command in &raw.unsafe_commands {
        let mut chars = command.get_ref().chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => unsafe_commands.push(c),
            _ => {
                cx.error(
                    PolicyError::BadValue,
                    command.span(),
                    format!("`{}` is not one sed command letter", command.get_ref()),
                    "not a command letter",
                    Some("give one letter per command, such as `\"w\"`".into()),
                );
                return None;
            }
        }
    }
    Some(ProgramReader { unsafe_commands })
}

/// `[interpreter.inline]`: Python only, and never in a project layer (the calls it lists are
/// code the gate lets run).
fn inline_reader(cx: &mut FileCx<'_>, inline: &Spanned<RawInline>) -> Option<InlineReader> {
    let raw = inline.get_ref();
    if !reader_allowed(
        cx,
        inline.span(),
        "inline code",
        "inline",
        &raw.language,
        "python",
    ) {
        return None;
    }
    let list = |texts: &[Text]| texts.iter().map(|t| t.get_ref().clone()).collect();
    Some(InlineReader {
        code_flags: list(&raw.code_flags),
        flags: list(&raw.flags),
        calls: list(&raw.calls),
        names: list(&raw.names),
        acting_modules: list(&raw.acting_modules),
    })
}
