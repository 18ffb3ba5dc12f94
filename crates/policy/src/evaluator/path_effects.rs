//! The paths an invocation reads and writes, judged against protected paths and zones.

use std::path::{Path, PathBuf};

use shellgate_parser::Word;
use shellgate_rules::{
    Access, Decision, EffectClass, Protected, Role, SafeVerdict, WrapperMode, ZonePath,
};

use crate::display;
use crate::evaluation::{DenyHit, ReasonKind};
use crate::expand::Invocation;
use crate::matching::MatchContext;
use crate::paths;

use super::network;
use super::path_words::{
    expand_glob, is_assignment_value, literal_path, only_glob, only_home_variable,
};
use super::run::Run;
use super::verdict::{Judged, Untrusted};

/// Whether an access is known (the policy gives the argument its role) or only possible (the
/// command's roles are not known, so a path-shaped operand might be read or written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Certainty {
    /// The policy says so.
    Certain,
    /// A guess about an unknown command's operand.
    Possible,
    /// A path a copy or move may create inside its destination (`cp x.sh .git/hooks`):
    /// judged against the protected paths as certain, and not against the zones (its
    /// destination is).
    Inside,
}

/// A path operand: its word, the path part of it (see [`Run::judge_path`]), and how it is
/// accessed.
#[derive(Clone, Copy)]
struct Operand<'a> {
    word: &'a Word,
    text: &'a str,
    access: Access,
    certainty: Certainty,
    /// It names a directory entry the command removes or renames (`rm LINK`, `mv LINK NEW`),
    /// not what a link there points to: its last component is not followed.
    entry: bool,
}

/// The word `.`: the working directory, as a path operand the command did not write.
fn working_directory_word() -> Word {
    crate::expand::synthetic_word(".".to_owned(), shellgate_parser::Span { start: 0, end: 0 })
}

/// The devices an access of `access` may name without touching a file (`/dev/null`, …).
fn exempt(access: Access) -> &'static [&'static str] {
    match access {
        Access::Write => &paths::WRITE_EXEMPT,
        Access::Read => &paths::READ_EXEMPT,
    }
}

/// How many links made by the command one path is followed through (the kernel's own limit
/// is 40; a loop needs far fewer to show).
pub(super) const MAX_FOLLOWED: usize = 8;

/// How many times, in all, paths are followed through links the command made: nested links
/// can branch (`a`, `a/a`, `a/a/a` all leading to one another).
const MAX_FOLLOWS: usize = 4_096;

/// The most argument roles (paths, option values) of one command that are judged.
const MAX_JUDGED_ROLES: usize = 2_048;

impl<'a> Run<'a> {
    /// Judges every redirection of an invocation: write targets as writes, read targets as
    /// reads.
    pub(super) fn judge_redirects(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        for redirect in &inv.redirects {
            if let Some(target) = redirect.write_target() {
                self.judge_redirect(target, Access::Write, ctx, judged);
            }
            if let Some(target) = redirect.read_target() {
                self.judge_redirect(target, Access::Read, ctx, judged);
            }
        }
    }

    /// Judges every path of an invocation: the operands and option values its roles name
    /// (`class` is what the command catalog admitted it as, if anything), `cd` targets,
    /// arguments appended at run time, redirections, and the working directory as the class
    /// uses it.
    pub(super) fn judge_paths(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        safe: &SafeVerdict<'_>,
        judged: &mut Judged,
    ) {
        let (class, hooks) = match safe {
            SafeVerdict::Admitted { class, hooks, .. } => (Some(*class), *hooks),
            SafeVerdict::Unsafe { .. } | SafeVerdict::NotCatalogued => (None, false),
        };
        let leaf = !inv.words.is_empty();
        // What it prints comes from another machine: written into the project (by its own
        // redirection or a later stage of its pipeline), it is content from elsewhere (`gh api
        // …/contents/x --jq .content | base64 -d > m.js`).
        if leaf && self.policy().fetches(&inv.view()) {
            judged.fetches = true;
        }
        if leaf {
            if class == Some(EffectClass::Toolchain) {
                self.start_build(ctx.cwd);
                judged.runs_below = ctx.cwd.map(Path::to_path_buf);
                judged.toolchain = true;
            }
            // The project's copy of a toolchain (`./gradlew test`, `./mvnw package`) reads the
            // same build files as the toolchain of its name.
            let path_program = inv.words.first().is_some_and(|w| w.cooked.contains('/'));
            if class.is_none()
                && path_program
                && matches!(
                    self.policy().safe_anywhere(&inv.view()),
                    SafeVerdict::Admitted {
                        class: EffectClass::Toolchain,
                        ..
                    }
                )
            {
                judged.runs_below = ctx.cwd.map(Path::to_path_buf);
                judged.toolchain = true;
            }
            // The repository's hooks run the project's hook manager (husky, lefthook,
            // pre-commit), which reads its configuration like any toolchain.
            if hooks {
                judged.runs_below = ctx.cwd.map(Path::to_path_buf);
            }
            if self.policy().is_repository_program(&inv.words) {
                judged.repository = ctx.cwd.map(Path::to_path_buf);
                // A repository outside the project and the run zones (`git -C /tmp/x status`)
                // runs what its own configuration names (`core.fsmonitor`, a pager, an ssh
                // command): someone else's code.
                if let Some(cwd) = self.foreign_directory(ctx) {
                    let cwd = cwd.as_path();
                    // (Never saved: a grant of the command would not cover another repository.)
                    judged.ask_unsaveable(
                        ReasonKind::Code,
                        None,
                        format!(
                            "runs in `{}`, a repository outside the project, as its own configuration says: it can name programs that run (`core.fsmonitor`, a pager) or a host that receives credentials",
                            display::escape(&cwd.to_string_lossy())
                        ),
                    );
                } else if let Some(cwd) = ctx.cwd
                    && self.below_rewritten_tree(cwd)
                {
                    // (`git merge x && git -C vendor status`: the merge may have made `vendor`
                    // a repository of its own, or a link to one.)
                    judged.ask_unsaveable(
                        ReasonKind::Code,
                        None,
                        format!(
                            "runs in `{}`, below a work tree an earlier clause rewrote: it may now be another repository, whose configuration can name programs that run (`core.fsmonitor`, a pager)",
                            display::escape(&cwd.to_string_lossy())
                        ),
                    );
                } else if let Some(cwd) = ctx.cwd
                    && ctx.symlinks
                    && let Some(bare) = super::foreign_repository::bare_repository_from(cwd)
                {
                    judged.ask_unsaveable(
                        ReasonKind::Code,
                        None,
                        format!(
                            "runs in `{}`, a directory shaped like a bare repository: git takes it for the repository, and its `config`, an ordinary file, can name programs that run (`core.fsmonitor`, a pager)",
                            display::escape(&bare.to_string_lossy())
                        ),
                    );
                }
                // A token in a remote's URL, or a CI checkout's extra header, printed.
                if let Some(cwd) = ctx.cwd
                    && ctx.symlinks
                    && inv.words.first().is_some_and(|w| {
                        self.policy()
                            .command_name(w)
                            .is_some_and(|(name, _)| name == "git")
                    })
                    && let Some(file) = super::repository_secrets::configs_with_credentials(
                        cwd,
                        ctx.home,
                        super::repository_secrets::prints_configuration(&inv.words),
                    )
                    .first()
                {
                    judged.ask_unsaveable(
                        ReasonKind::Exposure,
                        None,
                        format!(
                            "prints git configuration, and `{}` holds a credential (a token in a remote's URL, an extra HTTP header): it would enter the agent's transcript",
                            display::escape(&file.to_string_lossy())
                        ),
                    );
                }
                if ctx.cwd.is_none() {
                    judged.ask_unsaveable(
                        ReasonKind::Code,
                        None,
                        "runs in a directory the gate cannot know (a `cd` that may fail, a directory stack): the repository there may be another one, whose own configuration can name programs that run (`core.fsmonitor`, a pager)".to_owned(),
                    );
                }
            }
            // (A toolchain such as `python -m pytest` runs the project's modules by design.)
            if let Some(crate::expand::Opaque::Interpreter { script: None, .. }) = &inv.opaque
                && class != Some(EffectClass::Toolchain)
                && self
                    .policy()
                    .interpreter(&inv.words)
                    .is_some_and(|entry| entry.imports_cwd)
            {
                judged.imports_from.extend(ctx.cwd.map(Path::to_path_buf));
                // `PYTHONPATH=lib python3 -c …` imports from `lib` first too.
                for (name, value) in super::assignments::assigned_values(inv) {
                    if self.policy().is_module_path_variable(name) {
                        judged
                            .imports_from
                            .extend(value.split(':').filter_map(|dir| {
                                paths::expand(dir, false, ctx.cwd, ctx.home)
                                    .and_then(|p| paths::normalize(&p))
                            }));
                    }
                }
            }
            self.judge_cwd(inv, ctx, safe, judged);
            // A finder's roles are those of its own words, not of the commands it carries.
            let own = self
                .policy()
                .wrapper(&inv.words)
                .and_then(|w| match &w.mode {
                    WrapperMode::ExecOption(exec) => {
                        Some(crate::expand::finder_own_words(exec, &inv.words))
                    }
                    _ => None,
                });
            let words: &[Word] = own.as_deref().unwrap_or(&inv.words);
            let view = shellgate_rules::CommandView {
                words,
                ..inv.view()
            };
            // Without a `[[verb]]` entry the roles are a guess (path-shaped operands), so the
            // paths are only *possible* reads or writes: a catalogued read-only command reads
            // them, anything else may write them.
            let certainty = if self.policy().knows_roles(&view) {
                Certainty::Certain
            } else {
                Certainty::Possible
            };
            let reads_only = matches!(class, Some(EffectClass::Pure | EffectClass::ReadOnly));
            // A read-only command run on each file a finder found (`find src -exec wc -l {} +`)
            // reads below the finder's directories and its own working directory.
            let found_reads = reads_only && inv.found_below.is_some();
            let found_anywhere = inv.found_below.is_some()
                || inv
                    .origin
                    .iter()
                    .any(|step| step.via == crate::expand::Via::ExecOption);
            let roles = self.policy().roles(&view);
            self.recording.set(!self.policy().keeps_content(&view));
            // A copy or move of trees (see `tree_copies`), and a move's destination: worked
            // out once (a command may name thousands of paths).
            let copies_into = self.policy().copies_into(&view);
            let copies_trees = copies_into
                && roles.iter().any(|r| {
                    (matches!(r.role, Role::ReadPath | Role::Link) && r.recursive)
                        || (r.role == Role::DeletePath && r.operand)
                });
            let writes_too = roles.iter().any(|r| r.role == Role::WritePath);
            // `rm LINK`, `mv LINK NEW`: the entry, not what a link there points to.
            let removes_entries = self.policy().removes_entries(&view);
            // The targets of the links the command makes: recorded once, after its roles.
            let mut link_targets: Vec<(&Word, &str)> = Vec::new();
            let last_moved = roles
                .iter()
                .filter(|r| copies_into && r.role == Role::DeletePath && r.operand && !r.inside)
                .map(|r| r.index)
                .max();
            // Judging tens of thousands of paths (brace expansions) takes seconds: past a bound,
            // a person decides, and the first ones are still judged (a refusal among them
            // stands).
            if roles.len() > MAX_JUDGED_ROLES {
                judged.ask_unsaveable(
                    ReasonKind::Path,
                    None,
                    format!(
                        "names {} paths and options; the gate judges the first {MAX_JUDGED_ROLES} only",
                        roles.len()
                    ),
                );
            }
            // The name what a copy, move or link carries lands under in a directory: its
            // other operand's (the first).
            let moved_name = |at: usize| {
                roles
                    .iter()
                    .find(|r| r.index != at && r.operand && !r.inside)
                    .and_then(|r| Path::new(&r.text).file_name())
            };
            for role in roles.iter().take(MAX_JUDGED_ROLES) {
                let Some(word) = words.get(role.index) else {
                    continue;
                };
                let certainty = if role.inside {
                    Certainty::Inside
                } else {
                    certainty
                };
                // `{}` stands for each found file: judged below, by where they are found —
                // or, deeper inside a finder's command (`-exec sh -c 'cat "$1"' _ {} ;`), a
                // path not known until it runs.
                // A word that only holds `{}` (`/etc/{}`, or `$1` bound to `{}` in
                // `-exec sh -c 'cat /etc/$1' _ {} ;`) is another path, not known until it runs.
                if found_anywhere && crate::expand::holds_placeholder(&word.cooked) {
                    let access = match role.role {
                        Role::ReadPath => Some(Access::Read),
                        Role::WritePath | Role::DeletePath | Role::Link => Some(Access::Write),
                        _ => None,
                    };
                    if let Some(access) = access {
                        self.dynamic_path(&word.raw, access, judged);
                        continue;
                    }
                }
                if word.literal && word.cooked == "{}" && found_anywhere {
                    if !found_reads && !inv.appended_args {
                        let access = if reads_only {
                            Access::Read
                        } else {
                            Access::Write
                        };
                        self.dynamic_path("{}", access, judged);
                    }
                    continue;
                }
                let access = match role.role {
                    Role::ReadPath => {
                        if role.recursive {
                            self.judge_recursive_read(word, &role.text, words, ctx, judged);
                        }
                        if writes_too {
                            self.judge_copied_link(word, &role.text, &roles, words, ctx, judged);
                        }
                        Access::Read
                    }
                    Role::Link => {
                        if role.recursive {
                            self.judge_recursive_read(word, &role.text, words, ctx, judged);
                        }
                        self.judge_link_target(word, &role.text, &roles, words, ctx, judged);
                        link_targets.push((word, role.text.as_str()));
                        Access::Read
                    }
                    Role::WritePath if reads_only && certainty == Certainty::Possible => {
                        Access::Read
                    }
                    Role::WritePath => {
                        judged.writes_paths = true;
                        // A recursive copy or a move writes a tree below its destination
                        // (`cp -r src/. .git/hooks`, `cp -a tpl/. .`): see `tree_copies`.
                        // (What is copied, moved or linked may land under its own name.)
                        if copies_into && !role.inside {
                            let moved = moved_name(role.index);
                            self.judge_protected_name(word, &role.text, moved, ctx, judged);
                            self.judge_glob_names_into((word, role), (&roles, words), ctx, judged);
                        }
                        if copies_trees {
                            self.judge_tree_copy(
                                (word, role),
                                (&roles, words),
                                certainty,
                                ctx,
                                judged,
                            );
                        }
                        Access::Write
                    }
                    Role::DeletePath => {
                        judged.writes_paths = true;
                        // Writing into `/dev/null` goes nowhere; deleting or replacing it (`rm`,
                        // `mv x /dev/null` as root) breaks every program that writes to it.
                        if let Some(device) = literal_path(word, &role.text, ctx).filter(|p| {
                            p.to_str().is_some_and(|p| paths::WRITE_EXEMPT.contains(&p))
                        }) {
                            judged.ask_unsaveable(
                                ReasonKind::Path,
                                None,
                                format!(
                                    "deletes or replaces the device `{}`",
                                    display::escape(&device.to_string_lossy())
                                ),
                            );
                            continue;
                        }
                        if role.recursive {
                            self.judge_recursive_delete(word, &role.text, ctx, judged);
                        }
                        // A moved source may be a link (`mv a/up u` moves a link made earlier,
                        // whose relative target now leads elsewhere).
                        if role.operand && last_moved.is_some() && last_moved != Some(role.index) {
                            // (What it moves in from outside the project is content from
                            // elsewhere.)
                            if literal_path(word, &role.text, ctx).is_none_or(|p| self.foreign(&p))
                            {
                                judged.reads_foreign = true;
                            }
                            self.judge_copied_link(word, &role.text, &roles, words, ctx, judged);
                            self.judge_moved_protected_dir(word, &role.text, ctx, judged);
                        }
                        // A move's destination (`mv DIR DEST`: its last operand) receives the
                        // tree it moves.
                        if role.operand && last_moved == Some(role.index) {
                            let moved = moved_name(role.index);
                            if !role.inside {
                                self.judge_protected_name(word, &role.text, moved, ctx, judged);
                            }
                            self.judge_tree_copy(
                                (word, role),
                                (&roles, words),
                                certainty,
                                ctx,
                                judged,
                            );
                        }
                        Access::Write
                    }
                    // Code that runs: the command can only be approved exactly (see `judge_leaf`).
                    // A pager or editor that names one pure or read-only program runs nothing
                    // else (`git -c core.pager=cat log`), as for `GIT_PAGER=cat`.
                    Role::Program if word.literal && self.policy().harmless_program(&role.text) => {
                        continue;
                    }
                    Role::Exec | Role::Program => {
                        if judged.runs_code.is_none() {
                            judged.runs_code = Some(display::escape(&word.raw));
                        }
                        continue;
                    }
                    Role::Url => {
                        let host = word.literal.then(|| network::host_of(&role.text)).flatten();
                        judged.net.hosts.push((host, display::escape(&word.raw)));
                        continue;
                    }
                    Role::Method => {
                        judged.net.method = Some(if word.literal {
                            role.text.to_ascii_uppercase()
                        } else {
                            display::escape(&word.raw)
                        });
                        continue;
                    }
                    Role::Upload => {
                        judged.net.uploads.push(display::escape(&role.text));
                        Access::Read
                    }
                    Role::Send => {
                        match network::sent_file(&role.text).filter(|_| word.literal) {
                            Some(file) => self.judge_sent_file(word, file, ctx, judged),
                            // `@-`, `NAME=@-`: whatever is piped in is sent.
                            None if word.literal && network::sends_stdin(&role.text) => {
                                judged.net.uploads.push("standard input".to_owned());
                            }
                            None if word.literal => judged.net.sends = true,
                            None => judged.net.uploads.push(display::escape(&word.raw)),
                        }
                        continue;
                    }
                    Role::Attach => {
                        let file = role
                            .text
                            .strip_prefix('@')
                            .filter(|f| word.literal && !f.is_empty());
                        match file {
                            Some("-") => judged.net.uploads.push("standard input".to_owned()),
                            Some(file) => self.judge_sent_file(word, file, ctx, judged),
                            None if !word.literal => {
                                judged.net.uploads.push(display::escape(&word.raw));
                            }
                            None => {}
                        }
                        continue;
                    }
                    Role::Variable => {
                        if !word.literal {
                            judged.ask_unsaveable(
                                ReasonKind::Exposure,
                                None,
                                format!(
                                    "prints the variable `{}` names, which is not known until it runs (it may hold a secret)",
                                    display::escape(&word.raw)
                                ),
                            );
                        } else if self.policy().is_secret_name(&role.text) {
                            judged.ask_unsaveable(
                                ReasonKind::Exposure,
                                None,
                                format!(
                                    "prints `{}`, a variable that looks like it holds a secret (into the agent's transcript)",
                                    display::escape(&role.text)
                                ),
                            );
                        }
                        continue;
                    }
                    // A plain value is not a path (a pathspec was resolved by the policy).
                    Role::Value | Role::Pathspec => continue,
                };
                let entry = removes_entries
                    && role.role == Role::DeletePath
                    && role.operand
                    && !role.inside
                    && last_moved != Some(role.index);
                if entry {
                    // A directory entry the command removes or renames itself (`rm LINK`, `mv
                    // LINK NEW`): a link there is removed or renamed, not followed, unless the
                    // path ends in `/` (`rm -r LINK/` deletes what it points to).
                    let text = role.text.as_str();
                    let operand = Operand {
                        word,
                        text,
                        access: Access::Write,
                        certainty,
                        entry: !text.ends_with('/') && !text.ends_with("/.") && text != ".",
                    };
                    self.judge_operand(operand, ctx, judged);
                } else {
                    self.judge_path(word, &role.text, access, certainty, ctx, judged);
                }
            }
            if !link_targets.is_empty() {
                // One link: followed to its target; several: where each lands is not known.
                let target = match link_targets.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                };
                self.record_links(target, &roles, words, ctx);
            }
            if self.policy().searches_cwd(&view, &roles) {
                self.judge_searched_cwd(words, ctx, judged);
            }
            let verb = inv.words.first().map(|w| w.cooked.as_str());
            if matches!(verb, Some("cd" | "pushd")) && inv.words.first().is_some_and(|w| w.literal)
            {
                let operands: Vec<(usize, &Word)> = inv
                    .words
                    .iter()
                    .enumerate()
                    .skip(1)
                    .filter(|(_, w)| {
                        !(w.literal && w.cooked.starts_with('-') && w.cooked.len() > 1)
                    })
                    .collect();
                match operands.first() {
                    // Already judged when the policy gives the target a role.
                    Some((index, _)) if roles.iter().any(|r| r.index == *index) => {}
                    Some((_, target)) => self.judge_path(
                        target,
                        &target.cooked,
                        Access::Read,
                        Certainty::Certain,
                        ctx,
                        judged,
                    ),
                    None => {
                        if let Some(home) = ctx.home {
                            self.judge_resolved(
                                home,
                                &home.to_string_lossy(),
                                Access::Read,
                                Certainty::Certain,
                                judged,
                            );
                        }
                    }
                }
            }
            if found_reads {
                let here = working_directory_word();
                let roots = inv
                    .found_below
                    .iter()
                    .flatten()
                    .chain(std::iter::once(&here));
                for root in roots {
                    self.judge_path(
                        root,
                        &root.cooked,
                        Access::Read,
                        Certainty::Certain,
                        ctx,
                        judged,
                    );
                    // The finder's own words hold its filters (`find . -name '*.env'`).
                    let finder = self.finder_words(inv);
                    self.judge_recursive_read(root, &root.cooked, finder, ctx, judged);
                }
            } else if inv.appended_args && class != Some(EffectClass::Pure) {
                // (A pure verb's arguments are values, whatever they are: `xargs echo` runs
                // `/bin/echo`, which prints them.)
                let access = if reads_only {
                    Access::Read
                } else {
                    Access::Write
                };
                judged.reason(
                    ReasonKind::Path,
                    None,
                    format!(
                        "receives {} arguments that are not known until it runs",
                        access
                    ),
                );
                judged.raise(Decision::NeedsPrompt);
                judged.saveable = false;
                judged.untrusted.push(Untrusted {
                    shown: "(arguments appended at run time)".to_owned(),
                    access,
                    zone: None,
                });
            }
            self.recording.set(true);
            self.finish_build();
        }
        self.judge_redirects(inv, ctx, judged);
    }

    /// The working directory a command runs in is read (a listing, a search, a build), except
    /// by pure side-effect verbs and by `cd`/`pushd`/`popd`; a repository command or a project
    /// toolchain writes below it, so it must be in a write zone. An unknown working directory
    /// is untrusted unless every path may be read (and it is only read).
    pub(super) fn judge_cwd(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        safe: &SafeVerdict<'_>,
        judged: &mut Judged,
    ) {
        let Some(first) = inv.words.first() else {
            return;
        };
        if first.literal && matches!(first.cooked.as_str(), "cd" | "pushd" | "popd") {
            return;
        }
        // A command that writes files into its working directory (`unzip`, `patch`, `tar -x`)
        // may write a script run after it; a repository command or a toolchain changes the
        // project's own files, which stay the project's code.
        let writes_files_here = matches!(
            safe,
            SafeVerdict::Admitted {
                writes_cwd: true,
                class,
                ..
            } if !matches!(class, EffectClass::Repository | EffectClass::Toolchain)
        );
        let access = match safe {
            SafeVerdict::Admitted {
                class: EffectClass::Pure,
                ..
            } => return,
            SafeVerdict::Admitted {
                class: EffectClass::Repository | EffectClass::Toolchain,
                ..
            }
            | SafeVerdict::Admitted {
                writes_cwd: true, ..
            } => Access::Write,
            SafeVerdict::Admitted { .. }
            | SafeVerdict::Unsafe { .. }
            | SafeVerdict::NotCatalogued => Access::Read,
        };
        match ctx.cwd {
            Some(cwd) => {
                let resolved =
                    paths::finish(cwd, ctx.symlinks).unwrap_or_else(|| cwd.to_path_buf());
                if writes_files_here {
                    self.record_write(&resolved, judged);
                    if ctx.symlinks {
                        self.judge_links_in(&resolved, judged);
                    }
                }
                self.judge_resolved(
                    &resolved,
                    &resolved.to_string_lossy(),
                    access,
                    Certainty::Certain,
                    judged,
                );
                // A repository command writes the work tree git finds, which may begin above
                // the working directory (a monorepo, a dotfiles repository in the home
                // directory): its pathspecs (`..`, `:/`) and checkouts reach all of it.
                if ctx.symlinks
                    && matches!(
                        safe,
                        SafeVerdict::Admitted {
                            class: EffectClass::Repository,
                            ..
                        }
                    )
                    && let Some(top) = resolved
                        .ancestors()
                        .skip(1)
                        .find(|dir| dir.join(".git").exists())
                    && !resolved.join(".git").exists()
                {
                    self.judge_resolved(
                        top,
                        &top.to_string_lossy(),
                        Access::Write,
                        Certainty::Certain,
                        judged,
                    );
                }
            }
            None if access == Access::Read && self.state.read_all().is_some() => {}
            None => self.dynamic_path("(the working directory)", access, judged),
        }
    }

    /// A command that writes files into its working directory under names it chooses (a
    /// download named by its URL, an archive's members) writes through a link there of any of
    /// those names: each link is a possible write of what it leads to (`notes -> ~/.bashrc`,
    /// then `wget URL/notes`).
    fn judge_links_in(&self, dir: &Path, judged: &mut Judged) {
        /// The most entries of one directory looked at.
        const MAX_ENTRIES: usize = 4096;
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten().take(MAX_ENTRIES) {
            if !entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            let link = entry.path();
            let Some(target) = paths::finish(&link, true) else {
                continue;
            };
            self.judge_resolved(
                &target,
                &link.to_string_lossy(),
                Access::Write,
                Certainty::Possible,
                judged,
            );
        }
    }

    /// A search that names no directory (`rg KEY`, `grep -r KEY`) reads everything below its
    /// working directory; an unknown working directory is a path not known until it runs.
    fn judge_searched_cwd(&self, words: &[Word], ctx: &MatchContext<'_>, judged: &mut Judged) {
        if ctx.cwd.is_some() {
            let here = working_directory_word();
            self.judge_recursive_read(&here, ".", words, ctx, judged);
        } else {
            self.dynamic_path("(the working directory)", Access::Read, judged);
        }
    }

    /// Judges a redirect target, skipping the exempt devices.
    pub(super) fn judge_redirect(
        &self,
        word: &Word,
        access: Access,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        // (A descriptor's name is judged by what the command binds to it.)
        if word.literal
            && exempt(access).contains(&word.cooked.as_str())
            && !(access == Access::Write && paths::descriptor(Path::new(&word.cooked)).is_some())
        {
            return;
        }
        self.judge_path(word, &word.cooked, access, Certainty::Certain, ctx, judged);
    }

    /// A wrapper's own written paths, by its `[[verb]]` entry (`flock FILE CMD` creates FILE):
    /// the wrapper does that whatever the command it runs does.
    pub(super) fn judge_wrapper_writes(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let view = inv.view();
        // (Only a `[[wrapper]]` entry's own words: a brace or loop expansion, also judged
        // through what it produced, is not a command of its own.)
        if self.policy().wrapper(&inv.words).is_none() || !self.policy().knows_roles(&view) {
            return;
        }
        for role in self.policy().roles(&view) {
            if role.role != Role::WritePath {
                continue;
            }
            if let Some(word) = inv.words.get(role.index) {
                self.judge_path(
                    word,
                    &role.text,
                    Access::Write,
                    Certainty::Certain,
                    ctx,
                    judged,
                );
            }
        }
    }

    /// Judges one path operand; `text` is the path part of the word (the value of
    /// `--opt=value`, `-ovalue` or `key=value`).
    pub(super) fn judge_path(
        &self,
        word: &Word,
        text: &str,
        access: Access,
        certainty: Certainty,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let operand = Operand {
            word,
            text,
            access,
            certainty,
            entry: false,
        };
        self.judge_operand(operand, ctx, judged);
    }

    /// [`Run::judge_known`], or a dynamic path where it stops knowing it.
    fn judge_operand(&self, operand: Operand<'_>, ctx: &MatchContext<'_>, judged: &mut Judged) {
        let (raw, access) = (&operand.word.raw, operand.access);
        if self.judge_known(operand, ctx, judged).is_none() {
            self.dynamic_path(raw, access, judged);
        }
    }

    /// [`Run::judge_path`] as far as the path is known statically; `None` where it stops
    /// knowing it (the caller then judges it as a dynamic path).
    /// A file whose content a network client sends (`curl -d @FILE`, `-H @FILE`): an upload,
    /// and a read.
    fn judge_sent_file(
        &self,
        word: &Word,
        file: &str,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        judged.net.uploads.push(display::escape(file));
        self.judge_path(word, file, Access::Read, Certainty::Certain, ctx, judged);
    }

    fn judge_known(
        &self,
        op: Operand<'_>,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> Option<()> {
        let (word, text, access, certainty) = (op.word, op.text, op.access, op.certainty);
        if word.is_process_substitution() {
            // `<(cmd)` / `>(cmd)`: a pipe to a command that is judged as a clause of its own.
            return Some(());
        }
        let tilde = word.literal
            && text.starts_with('~')
            && (word.features.tilde || is_assignment_value(word, text));
        let expanded = if word.literal {
            paths::expand(text, tilde, ctx.cwd, ctx.home)?
        } else if only_home_variable(word) {
            PathBuf::from(paths::expand_home_variable(text, ctx.home)?)
        } else if only_glob(word) {
            // A glob at or below a work tree another clause rewrites matches what that clause
            // makes there (`git merge x && cat config/*`).
            let prefix = paths::split_glob(text).map_or("", |g| g.prefix);
            let dir = if prefix.is_empty() { "." } else { prefix };
            let rewritten = paths::expand(dir, word.features.tilde, ctx.cwd, ctx.home)
                .and_then(|p| paths::normalize(&p))
                .is_none_or(|p| self.below_rewritten_tree(&p.join("x")) && !judged.toolchain);
            if certainty == Certainty::Certain && rewritten && !self.trees.is_empty() {
                return None;
            }
            return self.judge_glob(op, ctx, judged);
        } else {
            return None;
        };
        let lexical = paths::normalize(&expanded)?;
        // A path below a work tree an earlier clause rewrote may be a link it made there
        // (`git merge x && echo y >> src/a`, with `src/a -> ~/.bashrc` on branch x). (A
        // toolchain runs the new tree's code by design.)
        if certainty == Certainty::Certain
            && !judged.toolchain
            && self.below_rewritten_tree(&lexical)
        {
            return None;
        }
        // A path through a link an earlier clause made (`ln -s ~ h && echo x > h/.bashrc`, a
        // link a tree copy carried), or the link itself (`ln -s ~/.bashrc rc; echo x >> rc`),
        // leads where the link does: not known here.
        // A link whose target is known is followed as well (both are judged: the place may
        // be a directory the link was made in).
        let through: Option<Vec<Option<PathBuf>>> = self.links.try_borrow().ok().map(|links| {
            links
                .iter()
                .filter_map(|(link, to)| {
                    let rest = lexical.strip_prefix(link).ok()?;
                    Some(to.as_ref().map(|to| to.join(rest)))
                })
                .collect()
        });
        let through = through?;
        // A link followed more than a few times leads in a loop (`ln -s s s; cat s/x`): not
        // known.
        let depth = self.following.get();
        let total = self.followed.get() + through.len();
        if through.iter().any(Option::is_none)
            || (!through.is_empty() && (depth >= MAX_FOLLOWED || total > MAX_FOLLOWS))
        {
            return None;
        }
        self.followed.set(total);
        self.following.set(depth + 1);
        for followed in through.into_iter().flatten() {
            let text = followed.to_string_lossy().into_owned();
            let probe = crate::expand::synthetic_word(text.clone(), word.span);
            self.judge_path(&probe, &text, access, certainty, ctx, judged);
        }
        self.following.set(depth);
        // `echo x 1< ~/.bashrc >> /dev/stdout` writes `~/.bashrc`.
        if access == Access::Write
            && let Some(fd) = paths::descriptor(&lexical)
        {
            return self.judge_descriptor_write(fd, ctx, judged);
        }
        if lexical
            .to_str()
            .is_some_and(|p| exempt(access).contains(&p))
        {
            // `tee /dev/null`, `cat /dev/stdin`: the device, not a file.
            return Some(());
        }
        let resolved = if !ctx.symlinks {
            lexical.clone()
        } else if let (true, Some(parent), Some(name)) =
            (op.entry, lexical.parent(), lexical.file_name())
        {
            // The entry itself: only the directories it is in are followed.
            paths::resolve_symlinks(parent)?.join(name)
        } else {
            paths::resolve_symlinks(&expanded)?
        };
        // A link to a descriptor's name (`out -> /dev/stdout`) writes what the descriptor is.
        if access == Access::Write
            && let Some(fd) = paths::descriptor(&resolved)
        {
            return self.judge_descriptor_write(fd, ctx, judged);
        }
        if access == Access::Write && certainty == Certainty::Certain {
            self.record_write(&resolved, judged);
            self.record_write(&lexical, judged);
        } else {
            self.record_build_input(Some(&resolved));
        }
        if resolved != lexical {
            judged.reason(
                ReasonKind::Path,
                None,
                format!(
                    "`{}` is a symbolic link to `{}`",
                    display::escape(&lexical.to_string_lossy()),
                    display::escape(&resolved.to_string_lossy())
                ),
            );
        }
        // The target decides; the path as written may be protected too (`keys/id_rsa`).
        if self.protected(&resolved, access, certainty, judged)
            || (resolved != lexical && self.protected(&lexical, access, certainty, judged))
        {
            return Some(());
        }
        // A name inside a destination directory is its directory's unless a link there leads
        // elsewhere (`cp x .` through `./x -> ~/work/x`): then the target's zone decides.
        let certainty = if certainty == Certainty::Inside && resolved != lexical {
            Certainty::Certain
        } else {
            certainty
        };
        self.judge_zone(
            &resolved,
            &resolved.to_string_lossy(),
            access,
            certainty,
            judged,
        );
        Some(())
    }

    /// Judges a glob path by its literal directory and, with symlink resolution, its matches;
    /// `None` where it stops knowing them.
    fn judge_glob(
        &self,
        op: Operand<'_>,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> Option<()> {
        let (access, certainty) = (op.access, op.certainty);
        let split = paths::split_glob(op.text)?;
        let tilde = op.word.features.tilde && split.prefix.starts_with('~');
        let base_text = if split.prefix.is_empty() {
            "."
        } else {
            split.prefix
        };
        let base = paths::expand(base_text, tilde, ctx.cwd, ctx.home)?;
        let lexical = paths::normalize(&base)?;
        if access == Access::Write && certainty == Certainty::Certain {
            // Any file below the glob's directory may be one it writes.
            self.record_write(&lexical, judged);
            if let Some(resolved) = paths::resolve_symlinks(&base) {
                self.record_write(&resolved, judged);
            }
        } else {
            self.record_build_input(Some(&lexical));
        }
        // A protected path below the glob: check the glob as if it were a path too.
        let mut whole = lexical.clone();
        for component in &split.rest {
            whole.push(component);
        }
        if self.protected(&whole, access, certainty, judged) {
            return Some(());
        }
        if !ctx.symlinks {
            self.judge_resolved(
                &lexical,
                &lexical.to_string_lossy(),
                access,
                certainty,
                judged,
            );
            return Some(());
        }
        let resolved = paths::resolve_symlinks(&base)?;
        self.judge_resolved(
            &resolved,
            &resolved.to_string_lossy(),
            access,
            certainty,
            judged,
        );
        let mut matches = Vec::new();
        if !expand_glob(&resolved, &split.rest, &mut matches) {
            return None;
        }
        for found in matches {
            if let Some(target) = paths::resolve_symlinks(&found) {
                if target != found && self.protected(&found, access, certainty, judged) {
                    continue;
                }
                self.judge_resolved(
                    &target,
                    &target.to_string_lossy(),
                    access,
                    certainty,
                    judged,
                );
            }
        }
        Some(())
    }

    /// Remembers that the command writes `path` (a file, or a directory it may write below), and
    /// that the invocation judged in `judged` does.
    fn record_write(&self, path: &Path, judged: &mut Judged) {
        if judged.own_writes.last().is_none_or(|w| w != path) {
            judged.own_writes.push(path.to_path_buf());
        }
        if !self.recording.get() {
            if let Ok(mut touched) = self.touched_set.try_borrow_mut() {
                touched.insert(path.to_path_buf());
            }
            return;
        }
        if self.record_build_output(path) {
            return;
        }
        if let (Ok(mut written), Ok(mut seen)) = (
            self.written.try_borrow_mut(),
            self.written_set.try_borrow_mut(),
        ) && seen.insert(path.to_path_buf())
        {
            written.push(path.to_path_buf());
        }
    }

    /// A path that cannot be known statically: untrusted.
    pub(super) fn dynamic_path(&self, raw: &str, access: Access, judged: &mut Judged) {
        self.record_build_input(None);
        let shown = display::escape(raw);
        judged.reason(
            ReasonKind::Path,
            None,
            format!("{access} of `{shown}`, which is not known until it runs"),
        );
        judged.raise(Decision::NeedsPrompt);
        judged.untrusted.push(Untrusted {
            shown,
            access,
            zone: None,
        });
    }

    /// The protected entry covering `path` strictest for `access`, remembered for the rest of
    /// the run (the working directory is checked once per clause).
    pub(super) fn protected_entry(&self, path: &Path, access: Access) -> Option<&'a Protected> {
        let key = (path.to_path_buf(), access);
        if let Ok(cache) = self.protected_cache.try_borrow()
            && let Some(entry) = cache.get(&key)
        {
            return *entry;
        }
        let home = self.state.home();
        let entry = self.gate.policy.protected(path, home, access).or_else(|| {
            bare_repository_file(path, self.state.resolve_symlinks())
                .and_then(|inside| self.gate.policy.protected(&inside, home, access))
        });
        if let Ok(mut cache) = self.protected_cache.try_borrow_mut() {
            cache.insert(key, entry);
        }
        entry
    }

    /// Checks the protected paths; returns true when the path's decision is forced.
    /// A protected path forces its decision; a *possible* access (an operand of a command
    /// whose argument roles are not known) is never refused outright: at most a person decides.
    pub(super) fn protected(
        &self,
        path: &Path,
        access: Access,
        certainty: Certainty,
        judged: &mut Judged,
    ) -> bool {
        // A git configuration file that holds a credential (a token in a remote's URL), read:
        // the same exposure as `git remote -v`.
        if access == Access::Read
            && self.state.resolve_symlinks()
            && super::repository_secrets::is_git_config(path)
            && super::repository_secrets::holds_credentials(path, self.state.home())
        {
            judged.ask_unsaveable(
                ReasonKind::Exposure,
                None,
                format!(
                    "reads `{}`, a git configuration that holds a credential (a token in a remote's URL, an extra HTTP header): it would enter the agent's transcript",
                    display::escape(&path.to_string_lossy())
                ),
            );
            return true;
        }
        // A backup copy of a protected file holds the same secrets (`~/.netrc.bak`, `.env~`):
        // reading one asks (writing one is an ordinary write).
        let (entry, backup) = match self.protected_entry(path, access) {
            Some(entry) => (entry, false),
            None => {
                let original = (access == Access::Read)
                    .then(|| backup_original(path))
                    .flatten();
                match original.and_then(|o| self.protected_entry(&o, access)) {
                    Some(entry) => (entry, true),
                    None => return false,
                }
            }
        };
        let forced = entry.forced(access);
        let forced = if backup {
            forced.min(Decision::NeedsPrompt)
        } else {
            forced
        };
        let (forced, what) = match certainty {
            Certainty::Certain | Certainty::Inside => (forced, access.to_string()),
            Certainty::Possible => (
                forced.min(Decision::NeedsPrompt),
                format!("possible {access}"),
            ),
        };
        let shown = display::escape(&path.to_string_lossy());
        let verdict = match forced {
            // Not forced: the zones decide.
            Decision::Approved => return false,
            // Always asks, and no zone can lift it.
            Decision::NeedsPrompt => {
                judged.untrusted.push(Untrusted {
                    shown: shown.clone(),
                    access,
                    zone: None,
                });
                "always needs a person"
            }
            // Never allowed (only a certain access is forced this far, so `what` is `access`).
            Decision::HardDenied => {
                judged.denied_by.push(DenyHit {
                    rule: entry.id.clone(),
                    category: "protected".to_owned(),
                    reason: format!("{access} of `{shown}`: {}", entry.why),
                });
                "is never allowed"
            }
        };
        judged.reason(
            ReasonKind::Protected,
            Some(entry.id.clone()),
            format!("{what} of `{shown}` {verdict}: {}", entry.why),
        );
        judged.raise(forced);
        true
    }

    /// Judges a resolved absolute path: protected paths, then zones.
    pub(super) fn judge_resolved(
        &self,
        path: &Path,
        shown: &str,
        access: Access,
        certainty: Certainty,
        judged: &mut Judged,
    ) {
        if self.protected(path, access, certainty, judged) {
            return;
        }
        self.judge_zone(path, shown, access, certainty, judged);
    }

    /// Whether `path` is strictly below a work tree another clause of the command rewrites from
    /// its input (see `Run::trees`): an earlier one, or any other when clauses run alongside
    /// one another (see `Run::concurrent`).
    pub(super) fn below_rewritten_tree(&self, path: &Path) -> bool {
        let Some(current) = self.current.get() else {
            return true;
        };
        self.trees.iter().any(|(i, tree)| {
            (*i < current || (self.concurrent && *i != current))
                && path.starts_with(tree)
                && path != tree
        })
    }

    /// Whether a resolved path is outside the run zones and the system directories, or in a
    /// shared one (`settings.shared_dirs`: `/dev/shm/x`, `/dev/fd/3`, `/proc/self/cwd/..`) and
    /// not a harmless device (`settings.harmless_devices`): content read from there may be code
    /// from elsewhere.
    pub(super) fn foreign(&self, path: &Path) -> bool {
        let policy = self.policy();
        let within = |dirs: &[std::path::PathBuf]| dirs.iter().any(|d| paths::is_within(path, d));
        !policy.harmless_devices().iter().any(|d| d == path)
            && self.state.run_zone_for(path).is_none()
            && (within(policy.shared_dirs()) || !within(policy.system_dirs()))
    }

    /// Judges a resolved absolute path against the zones.
    pub(super) fn judge_zone(
        &self,
        path: &Path,
        shown: &str,
        access: Access,
        certainty: Certainty,
        judged: &mut Judged,
    ) {
        let what = match certainty {
            Certainty::Certain => access.to_string(),
            Certainty::Possible => format!("possible {access}"),
            // Its destination's zone decides.
            Certainty::Inside => return,
        };
        if access == Access::Read && self.foreign(path) {
            judged.reads_foreign = true;
        }
        let shown = display::escape(shown);
        if access == Access::Read
            && let Some(source) = self.state.read_all()
        {
            judged.reason(
                ReasonKind::Zone,
                Some("all".to_owned()),
                format!(
                    "read of `{shown}`: every path may be read ({})",
                    source.as_str()
                ),
            );
            return;
        }
        if let Some(zone) = self.state.zone_for(path, access) {
            judged.reason(
                ReasonKind::Zone,
                Some(zone.path().to_string_lossy().into_owned()),
                format!(
                    "{what} of `{shown}` is inside the {} zone `{}` ({})",
                    zone.access(),
                    display::escape(&zone.path().to_string_lossy()),
                    zone.source().as_str()
                ),
            );
            return;
        }
        judged.reason(
            ReasonKind::Path,
            None,
            format!("{what} of `{shown}` is outside every {access} zone"),
        );
        judged.raise(Decision::NeedsPrompt);
        // A zone the grant rule refuses (the home directory, a system directory, one holding
        // a protected path) is not offered: the prompt is then not persistable.
        let zone = path
            .to_str()
            .and_then(|text| ZonePath::new(text, None).ok())
            .filter(|_| {
                self.gate
                    .grant_rule()
                    .check_zone(path, access, self.state.home())
                    .is_ok()
            })
            .map(|_| path.to_path_buf());
        judged.untrusted.push(Untrusted {
            shown,
            access,
            zone,
        });
    }
}

/// A file of a bare repository (a directory holding `HEAD`, `objects/` and `refs/`, as `git
/// init --bare` or a copied `.git` makes), as the same file of a work tree's `.git` directory:
/// its `config` names programs git runs (`core.fsmonitor` on `git -C DIR status`) and its
/// `hooks/` run, exactly as `.git/config` and `.git/hooks/` do. Only when the file system is
/// consulted (`resolve_symlinks`).
fn bare_repository_file(path: &Path, consulted: bool) -> Option<PathBuf> {
    if !consulted {
        return None;
    }
    let is_repository = |dir: &Path| {
        dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
    };
    let repository = path.ancestors().skip(1).find(|dir| is_repository(dir))?;
    if repository.file_name().is_some_and(|n| n == ".git") {
        return None;
    }
    let inside = path.strip_prefix(repository).ok()?;
    Some(repository.join(".git").join(inside))
}

/// The file a backup copy's name stands for (`~/.netrc.bak`, `.env~`, `config.json.orig`), or
/// `None` when the name has no backup suffix.
fn backup_original(path: &Path) -> Option<PathBuf> {
    const SUFFIXES: [&str; 7] = ["~", ".bak", ".old", ".orig", ".save", ".backup", ".copy"];
    let name = path.file_name()?.to_str()?;
    let stem = SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .filter(|stem| !stem.is_empty())?;
    Some(path.with_file_name(stem))
}
