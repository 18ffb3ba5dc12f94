//! The project's own code: toolchains, and scripts and programs inside a run zone. The
//! audience's run zones (`[audience.NAME] run`) say where such code runs silently.

use std::path::{Path, PathBuf};

use crate::expand::Invocation;
use shellgate_rules::{Access, Decision, EffectClass, NamedTask, SafeVerdict};

use crate::display;
use crate::evaluation::ReasonKind;
use crate::matching::MatchContext;
use crate::paths;

use super::brought_files::brought_by_files;
use super::path_effects::Certainty;
use super::run::Run;
use super::verdict::Judged;

impl Run<'_> {
    /// The absolute path of a script or program named `text` (as written on the command line,
    /// relative to the invocation's working directory) when it lies inside a run zone. The file
    /// need not exist: a missing script or program runs nothing, and one that this command
    /// writes before running it is not the project's code (see [`Run::judge_written_code`]).
    pub(super) fn project_code_file(&self, text: &str, ctx: &MatchContext<'_>) -> Option<String> {
        // A file name, not a subcommand (`bun add`), a URL or an assignment-like word.
        if !(text.contains('/') || text.contains('.')) || text.contains("://") || text.contains('=')
        {
            return None;
        }
        self.in_run_zone(text, ctx)
    }

    /// The path `text` names, resolved, when it is inside a run zone.
    fn in_run_zone(&self, text: &str, ctx: &MatchContext<'_>) -> Option<String> {
        self.in_code_zone(text, ctx, false)
    }

    /// [`Run::in_run_zone`], or with `writable` and an audience without run zones (`team`,
    /// `public`), inside a write zone or the project: the project's files, which a saved grant
    /// of the toolchain may run, as opposed to code from elsewhere, which no grant covers.
    fn in_code_zone(&self, text: &str, ctx: &MatchContext<'_>, writable: bool) -> Option<String> {
        let expanded = paths::expand(text, text.starts_with('~'), ctx.cwd, ctx.home)?;
        let lexical = paths::normalize(&expanded)?;
        let resolved = if ctx.symlinks {
            paths::resolve_symlinks(&expanded)?
        } else {
            lexical
        };
        if writable && self.state.run_zones().is_empty() {
            let inside = self.state.zone_for(&resolved, Access::Write).is_some()
                || self
                    .state
                    .project()
                    .and_then(paths::normalize)
                    .is_some_and(|project| resolved.starts_with(project));
            if !inside {
                return None;
            }
        } else {
            self.state.run_zone_for(&resolved)?;
        }
        resolved.to_str().map(str::to_owned)
    }

    /// Whether the project's code that `inv` runs in its working directory (a toolchain,
    /// repository hooks) may run silently: the directory is inside a run zone. Records why.
    pub(super) fn runs_in_run_zone(&self, ctx: &MatchContext<'_>, judged: &mut Judged) -> bool {
        let Some(cwd) = ctx.cwd else {
            judged.reason(
                ReasonKind::Code,
                None,
                "runs the project's code in a directory that is not known statically",
            );
            return false;
        };
        let resolved = paths::finish(cwd, ctx.symlinks).unwrap_or_else(|| cwd.to_path_buf());
        let shown = display::escape(&resolved.to_string_lossy());
        match self.state.run_zone_for(&resolved) {
            Some(zone) => {
                judged.reason(
                    ReasonKind::Code,
                    Some(zone.path().to_string_lossy().into_owned()),
                    format!(
                        "runs the project's code in `{shown}`, inside the run zone `{}` ({})",
                        display::escape(&zone.path().to_string_lossy()),
                        zone.source().as_str()
                    ),
                );
                true
            }
            None => {
                let broad_project = self
                    .state
                    .project()
                    .filter(|p| self.gate.zone_dir(p, self.state).is_none())
                    .and_then(paths::normalize);
                let why = if let Some(project) = broad_project {
                    format!(
                        "the project directory `{}` is no zone: it is `/` or the temporary \
                         directory, or holds the home directory, a system directory or files \
                         that run outside the gate",
                        display::escape(&project.to_string_lossy())
                    )
                } else if self.state.run_zones().is_empty() {
                    format!(
                        "the `{}` audience runs no project code silently",
                        self.state.audience()
                    )
                } else {
                    "outside every run zone".to_owned()
                };
                judged.reason(
                    ReasonKind::Code,
                    None,
                    format!("runs the project's code in `{shown}`: {why}"),
                );
                false
            }
        }
    }

    /// Whether a toolchain whose operands are files (`bun run src/cli.ts`, `pytest tests/`)
    /// runs them as the project's code: each is inside a run zone. One outside (`bun run
    /// /tmp/x.js`, `pytest /tmp/t`) is code from elsewhere; records why.
    pub(super) fn task_file_runs(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> bool {
        self.task_files_run(inv, ctx, false, judged)
    }

    /// [`Run::task_file_runs`] for the entries of the program's name wherever it is (the
    /// project's copy of a toolchain: `./gradlew`, `.venv/bin/pytest`), or `anywhere` false
    /// for the entries of the command as written.
    fn task_files_run(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        anywhere: bool,
        judged: &mut Judged,
    ) -> bool {
        let view = inv.view();
        let files = if anywhere {
            self.policy().task_files_anywhere(&view)
        } else {
            self.policy().task_files(&view)
        };
        let outside = files.into_iter().find(|file| {
            let word = file.word;
            // A glob runs what it matches below its literal directory (`tests/**/t_*.py`).
            let text = match word.features.glob && !word.features.tilde {
                true => paths::split_glob(file.text).map(|g| g.prefix),
                false => word.literal.then_some(file.text),
            };
            let text = text.map(|t| if t.is_empty() { "." } else { t });
            // A path the tool expands itself (`'$HOME/x'`, `'~/x'` inside quotes) or one through
            // a directory named `-` is not known here. (An unquoted `~/x` is the shell's.)
            let quoted_tilde = !word.features.tilde;
            let unknown = |t: &str| {
                t.contains('$') || t.starts_with('-') || (quoted_tilde && t.starts_with('~'))
            };
            // A protected file inside the run zone (`--junitxml=.git/hooks/pre-commit`) is not
            // the project's to write silently either.
            let protected = |resolved: String| {
                self.policy()
                    .protected(Path::new(&resolved), ctx.home, Access::Write)
                    .is_some_and(|entry| entry.write != Decision::Approved)
            };
            text.is_none_or(|t| unknown(t) || self.in_code_zone(t, ctx, true).is_none_or(protected))
        });
        let Some(file) = outside else {
            return true;
        };
        let word = file.word;
        // Code from elsewhere: a need of its own, which no grant of the toolchain's name
        // covers (`pytest *` must not approve `pytest --rootdir=/tmp`).
        judged.ask_unsaveable(
            ReasonKind::Code,
            None,
            format!(
                "`{}` names a file outside every run zone, or a protected one, which it runs, loads or writes (code from elsewhere)",
                display::escape(&word.raw)
            ),
        );
        false
    }

    /// Whether the catalog entry for the name of `inv`'s program, a file outside the trusted
    /// bin directories, refuses the call (`./gradlew build -p /tmp/x`); records why.
    pub(super) fn judge_refused_anywhere(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> bool {
        if inv.judged_wrapper {
            judged.reason(
                ReasonKind::Unsafe,
                None,
                "given an option with which the program does something of its own (another build file, init script or directory)",
            );
            return true;
        }
        // The project's copy of a tool (`.venv/bin/pip`, `node_modules/.bin/npm`) called as one
        // of the commands that run code from elsewhere or destroy (`settings.narrow`: `pip
        // install`, `npm publish`) does what the tool does, not what the project's code does.
        let name = inv
            .words
            .first()
            .map(|w| w.cooked.rsplit('/').next().unwrap_or_default());
        let chain: Vec<&str> = name
            .into_iter()
            .chain(inv.words.iter().skip(1).map(|w| w.cooked.as_str()))
            .collect();
        let called_as = |n: &&Vec<String>| {
            n.len() > 1 && chain.get(..n.len()).is_some_and(|c| c.iter().eq(n.iter()))
        };
        if let Some(narrow) = self.policy().narrow_commands().iter().find(called_as) {
            judged.saveable = false;
            judged.reason(
                ReasonKind::Unsafe,
                None,
                format!(
                    "`{}`: the project's copy of the tool, doing what the tool does (`settings.narrow`)",
                    display::escape(&narrow.join(" "))
                ),
            );
            return true;
        }
        let verdict = self.policy().safe_anywhere(&inv.view());
        // The project's copy of a toolchain loads and writes what the tool does: a value naming
        // a file outside the run zones (`./mvnw -Dmaven.ext.class.path=/tmp/x.jar`) is code
        // from elsewhere, as it is for `mvn`.
        if matches!(
            verdict,
            SafeVerdict::Admitted {
                class: EffectClass::Toolchain,
                ..
            }
        ) && !self.task_files_run(inv, ctx, true, judged)
        {
            return true;
        }
        let SafeVerdict::Unsafe {
            token,
            why,
            saveable,
            ..
        } = verdict
        else {
            return false;
        };
        judged.saveable &= saveable;
        judged.reason(
            ReasonKind::Unsafe,
            None,
            format!("`{}`: {why}", display::escape(&token)),
        );
        true
    }

    /// Whether a project script or program (`file`, resolved inside a run zone; `shown` as
    /// written) runs silently: not when its name, or one of the operands it is given (`./gradlew
    /// publish`, `python manage.py deploy`), says it deploys, publishes or releases
    /// (`settings.release_names`; options such as `--release` are not operands). The file
    /// itself is read.
    pub(super) fn project_code_runs(
        &self,
        file: &str,
        shown: &str,
        args: &[shellgate_parser::Word],
        judged: &mut Judged,
    ) -> bool {
        let named = args
            .iter()
            .filter(|w| !w.cooked.starts_with('-'))
            .find_map(|w| self.policy().named_task(&w.cooked).map(|named| (w, named)));
        if let Some((word, named)) = named {
            let (what, glob, list) = match named {
                NamedTask::Release(glob) => (
                    "looks like it deploys, publishes or releases",
                    glob,
                    "release_names",
                ),
                NamedTask::Console(glob) => {
                    // What it runs is whatever it is handed next time: never saved.
                    judged.saveable = false;
                    (
                        "opens a console that runs the code it is given or changes data kept outside the project's files",
                        glob,
                        "console_names",
                    )
                }
            };
            judged.reason(
                ReasonKind::Code,
                None,
                format!(
                    "`{}` is given `{}`, which {what} (`{}` in `settings.{list}`)",
                    display::escape(shown),
                    display::escape(&word.raw),
                    display::escape(glob)
                ),
            );
            return false;
        }
        let path = PathBuf::from(file);
        self.judge_resolved(&path, file, Access::Read, Certainty::Certain, judged);
        let name = Path::new(file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if let Some(glob) = self.policy().release_name(name) {
            judged.reason(
                ReasonKind::Code,
                None,
                format!(
                    "`{}` looks like it deploys, publishes or releases (`{}` in `settings.release_names`)",
                    display::escape(shown),
                    display::escape(glob)
                ),
            );
            return false;
        }
        let zone = self
            .state
            .run_zone_for(&path)
            .map(|z| display::escape(&z.path().to_string_lossy()))
            .unwrap_or_default();
        judged.reason(
            ReasonKind::Code,
            Some(zone.clone()),
            format!(
                "runs `{}`, the project's own code inside the run zone `{zone}`",
                display::escape(shown)
            ),
        );
        judged.project_code.push((path, shown.to_owned()));
        true
    }

    /// A script or program that ran silently as the project's own code, but that the command
    /// itself writes (`cat > t.py <<EOF … EOF; python3 t.py`, `unzip x.zip && ./run.sh`), is
    /// code the command brings, as unreadable as inline code: it needs a person. A command the
    /// catalog does not admit may write anything below its working directory (`git clone URL
    /// && python3 x/setup.py`), unless it is itself the project's code. A toolchain runs code
    /// the command brings when the command writes one of its build files below its directory
    /// (`settings.toolchain_code`) or wrote the directory as a whole; what a build makes from
    /// such sources counts as written (see [`super::builds`]).
    pub(super) fn judge_written_code(&mut self) {
        let known = self.written.take();
        let mut written = known.clone();
        let below: Vec<(usize, PathBuf)> = self
            .judged
            .iter()
            .enumerate()
            .filter(|(_, j)| j.project_code.is_empty())
            .filter_map(|(i, j)| j.writes_below.clone().map(|w| (i, w)))
            .collect();
        written.extend(below.iter().map(|(_, w)| w.clone()));
        let outputs = self.add_brought_builds(&mut written);
        if written.is_empty() {
            return;
        }
        let policy = self.policy();
        // Once a clause reads a file from elsewhere or the network, what it and any later clause
        // writes may be that content (`cp /tmp/x.py tests/`, `cat /tmp/x | tee t.py`, `x=$(cat
        // /tmp/x); echo "$x" > t.py`, `curl -o t.py URL`): a toolchain, a project script or read
        // inline code run after it runs that code. When clauses run alongside one another (a
        // job in the background, a pipeline, a substitution), text order says nothing.
        let concurrent = self.concurrent;
        let first_foreign = self
            .judged
            .iter()
            .position(|j| j.reads_foreign || !j.net.hosts.is_empty())
            .map(|i| if concurrent { 0 } else { i });
        let mut foreign: Vec<(usize, PathBuf)> = self
            .judged
            .iter()
            .enumerate()
            .skip(first_foreign.unwrap_or(usize::MAX))
            .flat_map(|(i, j)| j.own_writes.iter().map(move |w| (i, w.clone())))
            .collect();
        // A command that prints what it fetched taints what it and its pipeline write.
        let fetchers: Vec<usize> = (0..self.judged.len())
            .filter(|i| self.judged.get(*i).is_some_and(|j| j.fetches))
            .collect();
        for i in fetchers {
            let mut writers = vec![i];
            for pipeline in &self.expansion.pipelines {
                let stage = pipeline.stages.iter().position(|s| s.contains(&i));
                if let Some(stage) = stage {
                    writers.extend(pipeline.stages.iter().skip(stage + 1).flatten());
                }
            }
            for w in writers {
                if let Some(writer) = self.judged.get(w) {
                    foreign.extend(writer.own_writes.iter().map(|p| (w, p.clone())));
                }
            }
        }
        let invocations = &self.expansion.invocations;
        let sequential = !concurrent
            && invocations.iter().all(|inv| {
                matches!(
                    inv.context,
                    shellgate_parser::Context::Top
                        | shellgate_parser::Context::Group
                        | shellgate_parser::Context::Subshell
                        | shellgate_parser::Context::CaseArm
                )
            });
        for (index, judged) in self.judged.iter_mut().enumerate() {
            // Writes that cannot have brought this clause's code are left out: those of a command
            // it runs itself (`npx jest`: the build's outputs, everything below its directory,
            // hold `node_modules/.bin/jest`), and those of a later command of a sequential list
            // (`./gradlew jar && java -jar app.jar`) — not when clauses run alongside one another
            // or again (a loop, its condition, a function, a command that runs another per item:
            // `find -exec sh -c './tool; gcc -o tool …'`).
            let before = |writer: usize| {
                !runs_inside(invocations, writer, index)
                    && (!sequential || root(invocations, writer) <= root(invocations, index))
            };
            let written: Vec<&PathBuf> = known
                .iter()
                .chain(
                    below
                        .iter()
                        .filter(|(writer, _)| before(*writer))
                        .map(|(_, p)| p),
                )
                .chain(
                    outputs
                        .iter()
                        .filter(|(owner, _)| before(*owner))
                        .map(|(_, p)| p),
                )
                .collect();
            for why in brought_by_files(judged, &known, policy) {
                judged.ask_unsaveable(ReasonKind::Code, None, why);
            }
            // A toolchain, a project script or read inline code runs or imports what is in its
            // project (npm finds the root `package.json` from `tests/`; a script imports its
            // siblings): its run zone as a whole, or its own directory outside one.
            let dirs: Vec<PathBuf> = judged
                .runs_below
                .iter()
                .cloned()
                .chain(judged.imports_from.iter().cloned())
                .chain(
                    judged
                        .project_code
                        .iter()
                        .filter_map(|(f, _)| f.parent().map(Path::to_path_buf)),
                )
                .map(|dir| {
                    self.state
                        .run_zone_for(&dir)
                        .map_or(dir, |zone| zone.resolved().to_path_buf())
                })
                .collect();
            if let Some((_, w)) = foreign.iter().find(|(i, w)| {
                (*i < index || (concurrent && *i != index))
                    && dirs.iter().any(|dir| paths::is_within(w, dir))
            }) {
                let why = format!(
                    "runs the project's code, and this command writes `{}` where content from outside the project may go: code it brings, which the gate cannot read",
                    display::escape(&w.to_string_lossy())
                );
                judged.ask_unsaveable(ReasonKind::Code, None, why);
            }
            let brought: Vec<String> = judged
                .project_code
                .iter()
                // A directory run as code (`python3 .` runs its `__main__.py`) is brought by a
                // write below it too.
                .filter(|(file, _)| {
                    written
                        .iter()
                        .any(|w| file.starts_with(w) || (w.starts_with(file) && *w != file))
                })
                .map(|(_, shown)| shown.clone())
                .collect();
            for shown in brought {
                judged.ask_unsaveable(
                    ReasonKind::Code,
                    None,
                    format!(
                        "`{}` is written by this command: code it brings, which the gate cannot read",
                        display::escape(&shown)
                    ),
                );
            }
        }
    }
}

/// Invocation `index`, then the clause that runs it, and so on up to its command list's own
/// (bounded by the number of invocations).
fn lineage(invocations: &[crate::expand::Invocation], index: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(index), |&i| {
        invocations.get(i).and_then(|inv| inv.parent)
    })
    .take(invocations.len().saturating_add(1))
}

/// Whether invocation `inner` is `outer` or runs inside it (a command a wrapper or runner runs).
fn runs_inside(invocations: &[crate::expand::Invocation], inner: usize, outer: usize) -> bool {
    lineage(invocations, inner).any(|i| i == outer)
}

/// The invocation of the command list that `index` belongs to (itself, or the clause that runs
/// it, and so on).
fn root(invocations: &[crate::expand::Invocation], index: usize) -> usize {
    lineage(invocations, index).last().unwrap_or(index)
}
