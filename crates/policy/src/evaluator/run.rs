//! One evaluation in progress: the state shared by the judging steps, and the walk over every
//! invocation.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use shellgate_parser::ParseOutput;
use shellgate_rules::{Access, Decision, DenyRule, Policy, Protected};

use crate::expand::{Expansion, Invocation, InvocationKind, Via};

use crate::display;
use crate::evaluation::{ClauseVerdict, DenyHit, Reason, ReasonKind};
use crate::matching::MatchContext;

use super::GateEvaluator;
use super::verdict::Judged;
use crate::trust::TrustState;

/// One evaluation in progress.
pub(super) struct Run<'a> {
    pub(super) gate: &'a GateEvaluator,
    pub(super) state: &'a TrustState,
    pub(super) command: &'a str,
    pub(super) parsed: &'a ParseOutput,
    pub(super) expansion: &'a Expansion,
    pub(super) judged: Vec<Judged>,
    pub(super) hard_deny: Vec<DenyHit>,
    /// The `[[ask]]` rules hit, once each.
    pub(super) asked_by: Vec<DenyHit>,
    pub(super) errors: Vec<String>,
    /// The protected entry of each path judged so far (a command can name thousands: brace
    /// expansions).
    pub(super) protected_cache: RefCell<HashMap<(PathBuf, Access), Option<&'a Protected>>>,
    /// Files and directories the command writes through its operands, option values and
    /// redirections (and the working directories of commands that write there, such as
    /// `unzip`): a script among them is not the project's code but code the command brings.
    pub(super) written: RefCell<Vec<PathBuf>>,
    /// The paths in `written`, to keep it free of repeats.
    pub(super) written_set: RefCell<HashSet<PathBuf>>,
    /// Paths the command changes without bringing content, not in `written` (`rm -rf build`,
    /// `chmod +x run.sh`): a later clause may find them gone or changed (`rm -rf build && mv
    /// sub build` renames `sub`, it does not move it into `build`).
    pub(super) touched_set: RefCell<HashSet<PathBuf>>,
    /// How many more entries of copied trees the command may read (see
    /// [`super::tree_copies`]): beyond it, what a copy writes is not known.
    pub(super) tree_budget: Cell<usize>,
    /// What each option value of a recursive read filters to (`GrantRule::protected_filter`),
    /// once per value: every path operand looks at every value.
    pub(super) filter_cache: RefCell<HashMap<String, Option<(&'a Protected, &'a str)>>>,
    /// False while judging the operands of a command whose writes keep every file's content
    /// (`chmod +x run.sh`): they are not recorded in `written`.
    pub(super) recording: Cell<bool>,
    /// The links the command makes (`ln -s . s`), or the directories it makes them in: a
    /// clause that works at or below one is in a directory whose place on disk is not known
    /// (`ln -s . s && cd s && touch ../.bashrc` writes `~/.bashrc`: `..` goes up from where
    /// the link leads).
    pub(super) links: RefCell<Vec<(PathBuf, Option<PathBuf>)>>,
    /// The links the clause being judged makes: they count for the clauses after it.
    pub(super) new_links: RefCell<Vec<(PathBuf, Option<PathBuf>)>>,
    /// The work trees clauses rewrite from their input (`git merge`, `git stash pop`), with the
    /// index of the invocation that does: any path strictly below one may be a link to anywhere
    /// for every other clause, before it or after it (one in the background runs alongside).
    pub(super) trees: Vec<(usize, PathBuf)>,
    /// Whether its clauses may run alongside one another (see [`Run::concurrent`]).
    pub(super) concurrent: bool,
    /// How many links are being followed (`ln -s s s; cat s/x` would follow forever).
    pub(super) following: Cell<usize>,
    /// How many links all paths were followed through so far (nested links can branch).
    pub(super) followed: Cell<usize>,
    /// The toolchain clauses' builds (see [`super::builds`]), and the one being judged.
    pub(super) builds: RefCell<Vec<super::builds::Build>>,
    pub(super) building: RefCell<Option<super::builds::Build>>,
    /// The invocation being judged (its index in the expansion), for what its redirections
    /// bind (see [`super::descriptors`]).
    pub(super) current: Cell<Option<usize>>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        gate: &'a GateEvaluator,
        state: &'a TrustState,
        command: &'a str,
        parsed: &'a ParseOutput,
        expansion: &'a Expansion,
    ) -> Self {
        Self {
            gate,
            state,
            command,
            parsed,
            expansion,
            judged: Vec::with_capacity(expansion.invocations.len()),
            hard_deny: Vec::new(),
            asked_by: Vec::new(),
            errors: Vec::new(),
            protected_cache: RefCell::new(HashMap::new()),
            written: RefCell::new(Vec::new()),
            written_set: RefCell::new(HashSet::new()),
            touched_set: RefCell::new(HashSet::new()),
            tree_budget: Cell::new(super::tree_copies::MAX_COMMAND_ENTRIES),
            filter_cache: RefCell::new(HashMap::new()),
            recording: Cell::new(true),
            links: RefCell::new(Vec::new()),
            new_links: RefCell::new(Vec::new()),
            trees: Vec::new(),
            concurrent: false,
            following: Cell::new(0),
            followed: Cell::new(0),
            builds: RefCell::new(Vec::new()),
            building: RefCell::new(None),
            current: Cell::new(None),
        }
    }

    pub(super) fn policy(&self) -> &'a Policy {
        &self.gate.policy
    }

    /// Judges every invocation and applies the deny hits.
    pub(super) fn judge_all(&mut self) {
        self.trees = self.rewritten_trees();
        self.concurrent = self.concurrent();
        for invocation in &self.expansion.invocations {
            let judged = self.judge(invocation);
            self.judged.push(judged);
            if let (Ok(mut links), Ok(mut new)) =
                (self.links.try_borrow_mut(), self.new_links.try_borrow_mut())
            {
                for link in new.drain(..) {
                    if !links.contains(&link) {
                        links.push(link);
                    }
                }
                // Many links: every directory may be below one.
                if links.len() > 256 {
                    links.clear();
                    links.push((PathBuf::from("/"), None));
                }
            }
        }
        self.judge_written_code();
        // Words the shell expands outside any clause (`for v in ${!x}`, `case $((x)) in`).
        if let Some(why) =
            shellgate_parser::evaluates::unjudged_evaluation(self.command, &self.parsed.graph)
        {
            let judged = self.text_verdict(ReasonKind::Opaque, &why);
            self.judged.push(judged);
        }
        // Constructs bash reads differently (`$\⏎(cmd)`, `"${x:-'$(cmd)'}"`), in the command
        // or in shell code it runs.
        let misread = shellgate_parser::misread::misread_in(self.command, &self.parsed.graph)
            .or_else(|| {
                self.expansion
                    .sources
                    .iter()
                    .find_map(|s| shellgate_parser::misread::misread(&s.text))
            });
        if let Some(why) = misread {
            let judged = self.text_verdict(ReasonKind::Opaque, why);
            self.judged.push(judged);
        }
        self.judge_command_exposure();
        // Variables set by a loop or a `${NAME:=…}` default (`for PATH in /tmp/x; do ls; done`).
        let sources = self
            .expansion
            .sources
            .iter()
            .flat_map(|s| shellgate_parser::evaluates::implicitly_assigned(&s.text))
            .map(str::to_owned);
        let mut loading: Vec<String> =
            shellgate_parser::evaluates::implicitly_assigned_in(self.command, &self.parsed.graph)
                .into_iter()
                .chain(sources)
                .filter(|name| self.policy().is_code_loading_variable(name))
                .collect();
        loading.sort_unstable();
        loading.dedup();
        if !loading.is_empty() {
            let why = format!(
                "a `for`/`select` loop or a `${{NAME:=…}}` default sets `{}`, which changes which program runs or what it loads",
                loading.join("`, `")
            );
            let judged = self.text_verdict(ReasonKind::Assignment, &why);
            self.judged.push(judged);
        }
        let hits = crate::expand::deny_hits(self.policy(), self.command, self.expansion);
        for hit in hits {
            let rule = hit.rule;
            if hit.asks {
                let reason = if rule.is_ask() {
                    rule.reason.clone()
                } else {
                    format!(
                        "an operand of a command the policy does not know may be a command it runs: `{}`, which the deny rule `{}` refuses ({})",
                        rule.verb().join(" "),
                        rule.id,
                        rule.reason
                    )
                };
                self.apply_ask(rule, &reason, hit.invocation);
                continue;
            }
            if !self.hard_deny.iter().any(|h| h.rule == rule.id) {
                self.hard_deny.push(DenyHit {
                    rule: rule.id.clone(),
                    category: rule.category.as_str().to_owned(),
                    reason: rule.reason.clone(),
                });
            }
            if let Some(judged) = hit.invocation.and_then(|i| self.judged.get_mut(i)) {
                judged.raise(Decision::HardDenied);
                judged.verdict.reasons.insert(
                    0,
                    Reason::new(
                        ReasonKind::HardDeny,
                        Some(rule.id.clone()),
                        rule.reason.clone(),
                    ),
                );
            }
        }
    }

    /// An `[[ask]]` rule hit: the clause it hit (or the command as a whole, for a `raw` rule)
    /// needs a person whatever a grant or the catalog said, and cannot be saved — a saved
    /// grant never silences an ask rule.
    fn apply_ask(&mut self, rule: &DenyRule, why: &str, invocation: Option<usize>) {
        if !self.asked_by.iter().any(|h| h.rule == rule.id) {
            self.asked_by.push(DenyHit {
                rule: rule.id.clone(),
                category: rule.category.as_str().to_owned(),
                reason: why.to_owned(),
            });
        }
        let reason = Reason::new(ReasonKind::Ask, Some(rule.id.clone()), why.to_owned());
        match invocation.and_then(|i| self.judged.get_mut(i)) {
            Some(judged) => {
                judged.raise(Decision::NeedsPrompt);
                judged.needs_person = true;
                judged.saveable = false;
                if !judged.verdict.reasons.contains(&reason) {
                    judged.verdict.reasons.insert(0, reason);
                }
            }
            None => {
                let mut judged = self.text_verdict(ReasonKind::Ask, why);
                judged.verdict.reasons = vec![reason];
                self.judged.push(judged);
            }
        }
    }

    /// A verdict on the command text as a whole (not one clause): it needs a person and
    /// cannot be saved.
    pub(super) fn text_verdict(&self, kind: ReasonKind, why: &str) -> Judged {
        Judged {
            needs_person: true,
            saveable: false,
            ..Judged::new(ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "compound".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(kind, None, display::escape(why))],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            })
        }
    }

    /// Whether clauses of the command may run alongside one another, so that text order is not
    /// the order they act in: a job in the background (`(sleep 1; cat x) & git merge y`), a
    /// pipeline, a substitution or a coprocess, at any depth (in the command and in every piece
    /// of shell code found in it: `bash -c $'(…) \x26 git merge x'`).
    pub(super) fn concurrent(&self) -> bool {
        use shellgate_parser::Context;
        self.expansion.background
            || !self.expansion.pipelines.is_empty()
            || self.expansion.invocations.iter().any(|inv| {
                // (A loop's body runs again after what follows it; a function's and a trap's
                // when they are called or fire.)
                matches!(
                    inv.context,
                    Context::Background
                        | Context::Pipeline
                        | Context::Substitution
                        | Context::ProcessSubstitution
                        | Context::LoopBody
                        | Context::FunctionBody
                ) || self.policy().is_concurrent_command(&inv.words)
            })
    }

    /// The work trees the command's clauses rewrite from their input (a catalog entry with
    /// `updates_tree`): the whole project a clause runs in, or its working directory outside
    /// one.
    fn rewritten_trees(&self) -> Vec<(usize, PathBuf)> {
        let mut trees = Vec::new();
        for (i, inv) in self.expansion.invocations.iter().enumerate() {
            if inv.words.is_empty() || !self.policy().rewrites_tree(&inv.view()) {
                continue;
            }
            let ctx = self.match_context(inv);
            let Some(cwd) = ctx.cwd else {
                continue;
            };
            let resolved =
                crate::paths::finish(cwd, ctx.symlinks).unwrap_or_else(|| cwd.to_path_buf());
            let tree = self
                .state
                .run_zone_for(&resolved)
                .map_or_else(|| resolved.clone(), |zone| zone.resolved().to_path_buf());
            if trees.len() < 64 {
                trees.push((i, tree));
            }
        }
        trees
    }

    /// Where and how an invocation's words are matched.
    pub(super) fn match_context<'i>(&self, inv: &'i Invocation) -> MatchContext<'i>
    where
        'a: 'i,
    {
        // A working directory at or below a link an earlier clause made is not known, nor
        // one reached from such a directory (`cd link && env -C .. …`).
        let below_link = |cwd: &std::path::Path| {
            self.links.try_borrow().map_or(true, |links| {
                links.iter().any(|(link, _)| cwd.starts_with(link))
            })
        };
        let through_link = inv.cwd.is_some()
            && std::iter::once(inv)
                .chain(
                    inv.origin
                        .iter()
                        .filter_map(|step| self.expansion.invocations.get(step.invocation)),
                )
                .any(|i| i.cwd.as_deref().is_some_and(below_link));
        MatchContext {
            cwd: inv.cwd.as_deref().filter(|_| !through_link),
            home: inv.home.as_deref(),
            symlinks: self.state.resolve_symlinks(),
            trusted_bin_dirs: self.policy().trusted_bin_dirs(),
        }
    }

    /// The first privilege-changing wrapper an invocation was found through.
    pub(super) fn privileged_step(&self, inv: &Invocation) -> Option<Vec<String>> {
        inv.origin.iter().find_map(|step| {
            let parent = self.expansion.invocations.get(step.invocation)?;
            matches!(parent.kind, InvocationKind::Wrapper { privileged: true })
                .then(|| step.verb.clone())
        })
    }

    /// The words of the finder whose `-exec` runs an invocation (`find . -name '*.env' -exec
    /// cat {} +`), or none.
    pub(super) fn finder_words(&self, inv: &Invocation) -> &[shellgate_parser::Word] {
        let finder = inv.found_by.or_else(|| {
            inv.origin
                .iter()
                .rev()
                .find(|step| step.via == Via::ExecOption)
                .map(|step| step.invocation)
        });
        finder
            .and_then(|finder| self.expansion.invocations.get(finder))
            .map_or(&[], |finder| finder.words.as_slice())
    }

    /// Where an invocation comes from, for evidence.
    pub(super) fn origin(&self, inv: &Invocation) -> String {
        let root = inv
            .origin
            .first()
            .and_then(|step| self.expansion.invocations.get(step.invocation))
            .map_or(inv.context, |outer| outer.context);
        let mut text = root.as_str().to_owned();
        for step in &inv.origin {
            text.push_str(" > ");
            text.push_str(&step.verb.join(" "));
            match step.via {
                Via::Wrapper => {}
                Via::ExecOption => text.push_str(" -exec"),
                Via::Shell => text.push_str(" code"),
                Via::Remote => text.push_str(" remote"),
                Via::Value => text.push_str(" value"),
                Via::Split => text.push_str(" -S"),
                Via::Braces => text.push_str(" braces"),
                Via::FoldedName => text.push_str(" folded"),
            }
        }
        text
    }
}
