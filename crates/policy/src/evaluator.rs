//! The [`GateEvaluator`]: one command in, one decision with its evidence out.
//!
//! # Order of judgement
//!
//! The command is parsed, then [`Policy::expand`] finds every command it runs: each clause of
//! the graph, every command inside a wrapper (`sudo`, `env`, `timeout`, `xargs`, `find -exec`,
//! `git -C`) and every command in shell code parsed again (`bash -c`, `eval`, heredocs fed to a
//! shell), with interpreters and unreadable code marked opaque. Then:
//!
//! 1. **Hard deny** on every invocation, `raw` rules on the whole text and every nested code
//!    string, `pipeline` rules on every pipeline — also on whatever parsed when the parse is
//!    incomplete. A hit makes the decision `HardDenied`; no grant beats it.
//! 2. **The executable** of each leaf invocation: a non-literal verb (`$CMD`, `$(…)`, a glob, a
//!    brace expansion) needs a person and cannot be saved; a path-qualified verb is the bare
//!    name only in a trusted bin directory (`/usr/bin/cat` is `cat`, `./cat` is not).
//! 3. **Paths**: every operand the verb's roles mark as a read or write path, every redirect
//!    target (except `/dev/null`, `/dev/stdout`, `/dev/stderr` for writes and `/dev/null`,
//!    `/dev/stdin` for reads; descriptor duplications are not paths), every `cd`/`pushd` target
//!    (a read), and, for `xargs` and `find -exec`, the arguments they append (unknown, so
//!    dynamic). Each is resolved (see [`crate::paths`]); a protected path forces its decision
//!    (checked on the path as written and on its symlink target); a read needs a read zone (or
//!    a profile with `read = "all"`), a write a write zone. A dynamic path is untrusted, never
//!    skipped. A glob is judged by its literal directory (every match lies below it) and, when
//!    symbolic links are resolved, by each file it matches.
//! 4. **The verb**: it passes when the safe catalog admits it (a safe or pure verb that writes
//!    through a redirect is not read-only, so it does not pass this way), or when an approved
//!    pattern matches (see [`crate::matching`]). Otherwise it needs a person and a narrow
//!    pattern is proposed (see [`crate::proposal`]). Inner commands of a privilege-changing
//!    wrapper (`sudo`) never pass silently and cannot be saved. An assignment that changes how
//!    programs load or run (`PATH`, `LD_PRELOAD`, `GIT_SSH_COMMAND`…) needs a person and cannot
//!    be saved.
//! 5. **Embedded code**: an interpreter call needs a person and can only be saved as the exact
//!    command; a script file, code from a pipe, remote or dynamic code needs a person and cannot
//!    be saved. So does an expansion that evaluates data as code (`$((x))`, `${a[i]}`, `${s:n}`,
//!    `${!x}`, `${x@P}`, see [`shellgate_rules::evaluating_parts`]) — in a word, an assignment, a
//!    redirection, an unquoted heredoc, a wrapper's options or a `for`/`select`/`case` word — and
//!    a loop variable or `${NAME:=…}` default that sets a variable such as `PATH`.
//! 6. **An incomplete parse** (or nested shell code that did not parse, or a depth limit) needs a
//!    person and cannot be saved.
//!
//! The decision is the maximum over every clause. One [`Prompt`] lists every clause that needs
//! a person and every untrusted path, deduplicated.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use shellgate_parser::{Context, ParseOptions, ParseOutput, Redirect, RedirectTarget, Word};
use shellgate_rules::{
    Access, Decision, ExpandOptions, Expansion, Invocation, InvocationKind, Opaque, Policy,
    Protected, ReadZones, Role, SafeVerdict, Via, ZonePath, ZoneVars,
};

use crate::display::{self, Replacement};
use crate::error::GateError;
use crate::evaluation::{
    ClauseVerdict, DenyHit, Evaluation, Prompt, PromptClause, PromptPath, Reason, ReasonKind,
};
use crate::grant_rule::GrantRule;
use crate::matching::{self, Executable, MatchContext, Token};
use crate::paths;
use crate::proposal::{self, ProposalInput};
use crate::trust::{GrantSource, TrustState};

/// Most files a glob path is expanded to when symbolic links are resolved; more make the path
/// untrusted.
const MAX_GLOB_MATCHES: usize = 256;

/// Variables that change which program runs or what it loads: setting one makes a command
/// need a person (and it cannot be saved, since patterns do not cover assignments).
const CODE_LOADING_VARIABLES: &[&str] = &[
    "PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "GIT_EXEC_PATH",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    // Where configuration (which names programs: `core.fsmonitor`, `core.pager`) is read from:
    // `HOME=. git status` reads a `.gitconfig` shipped in the checkout.
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_WORK_TREE",
    // The shell other programs start (`flock FILE -c CODE` runs `$SHELL -c CODE`).
    "SHELL",
    // Where `cd DIR` and `cd -` go: `CDPATH=~ cd .ssh` enters `~/.ssh`, not `./.ssh`.
    "CDPATH",
    "OLDPWD",
    // Libraries and modules loaded by ordinary programs.
    "GCONV_PATH",
    "OPENSSL_CONF",
    "OPENSSL_ENGINES",
    "OPENSSL_MODULES",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
];

/// Builtins whose `NAME=value` operands set variables.
const SETTERS: [&str; 5] = ["export", "declare", "typeset", "local", "readonly"];

/// Whether a variable name changes how programs load or run.
fn is_code_loading(name: &str) -> bool {
    CODE_LOADING_VARIABLES.contains(&name)
        || name.starts_with("DYLD_")
        || name.starts_with("LD_")
        || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_")
        || name.starts_with("PYTHON")
        || name.starts_with("PERL")
        || name.starts_with("RUBY")
        || name.starts_with("NODE_")
        || name.ends_with("_COMMAND")
        // `KUBECONFIG`, `DOCKER_CONFIG`, `AWS_CONFIG_FILE`: a configuration file can name a
        // program (a kubeconfig `exec` credential plugin runs on `kubectl get pods`).
        || name.contains("CONFIG")
        // `BAT_PAGER`, `SYSTEMD_PAGER`, `DELTA_PAGER`, `SVN_EDITOR`, `*_ASKPASS`: programs.
        || name.ends_with("PAGER")
        || name.ends_with("_EDITOR")
        || name.ends_with("_ASKPASS")
}

/// The gate: an immutable, shareable evaluator over one compiled [`Policy`].
///
/// ```
/// use shellgate_policy::{Decision, GateEvaluator, Policy, TrustState};
///
/// let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
/// let mut state = TrustState::new("personal", "/home/u/proj");
/// state.set_home("/home/u");
/// state.set_project("/home/u/proj");
/// state.set_resolve_symlinks(false);
/// gate.apply_profile(&mut state).unwrap();
/// assert_eq!(gate.evaluate("git status", &state).decision, Decision::Approved);
/// assert_eq!(gate.evaluate("rm -rf /", &state).decision, Decision::HardDenied);
/// ```
#[derive(Clone, Debug)]
pub struct GateEvaluator {
    policy: Arc<Policy>,
    /// What may be granted for good, and so proposed; built when first needed (an approved
    /// command never needs it).
    grant_rule: OnceLock<GrantRule>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<GateEvaluator>();
};

impl GateEvaluator {
    /// An evaluator over `policy`.
    #[must_use]
    pub fn new(policy: impl Into<Arc<Policy>>) -> Self {
        Self {
            policy: policy.into(),
            grant_rule: OnceLock::new(),
        }
    }

    /// What may be granted for good (and so proposed) under this policy.
    #[must_use]
    pub fn grant_rule(&self) -> &GrantRule {
        self.grant_rule
            .get_or_init(|| GrantRule::new(Arc::clone(&self.policy)))
    }

    /// The policy.
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Adds the zones of the state's audience profile (`{project}`, `{session}`, `{home}`,
    /// `{tmp}` from the state), with source [`GrantSource::Profile`].
    ///
    /// # Errors
    ///
    /// [`GateError::UnknownAudience`] when the policy has no such audience.
    pub fn apply_profile(&self, state: &mut TrustState) -> Result<(), GateError> {
        let Some(audience) = self.policy.audience(state.audience()) else {
            let known: Vec<&str> = self.policy.audiences().keys().map(String::as_str).collect();
            return Err(GateError::unknown_audience(state.audience(), &known));
        };
        let project = state.project().map(Path::to_path_buf);
        let session = state.session().map(Path::to_path_buf);
        let home = state.home().map(Path::to_path_buf);
        let tmp = state.tmp().to_path_buf();
        let vars = ZoneVars {
            project: project.as_deref(),
            session: session.as_deref(),
            home: home.as_deref(),
            tmp: Some(&tmp),
        };
        let mut zones: Vec<(PathBuf, Access)> = Vec::new();
        match &audience.read {
            ReadZones::All => state.set_read_all(GrantSource::Profile),
            ReadZones::Templates(templates) => {
                zones.extend(
                    templates
                        .iter()
                        .filter_map(|t| t.resolve(&vars))
                        .map(|p| (p, Access::Read)),
                );
            }
        }
        zones.extend(
            audience
                .write
                .iter()
                .filter_map(|t| t.resolve(&vars))
                .map(|p| (p, Access::Write)),
        );
        for (path, access) in zones {
            state.add_zone(path, access, GrantSource::Profile);
        }
        Ok(())
    }

    /// Evaluates `command` as `state`'s audience would run it. Never fails: every problem
    /// raises the decision and is recorded in the result.
    ///
    /// An empty or blank command needs a person (see [`crate::odd_input`]).
    #[must_use]
    pub fn evaluate(&self, command: &str, state: &TrustState) -> Evaluation {
        if crate::odd_input::is_blank(command) {
            return crate::odd_input::blank(command);
        }
        let cwd = state.cwd().is_absolute().then(|| state.cwd().to_path_buf());
        let home = state
            .home()
            .filter(|h| h.is_absolute())
            .map(Path::to_path_buf);
        let parsed = shellgate_parser::parse(
            command,
            &ParseOptions {
                cwd: cwd.clone(),
                home: home.clone(),
            },
        );
        let expansion = self.policy.expand(
            &parsed,
            &ExpandOptions {
                cwd: cwd.clone(),
                home,
                max_depth: None,
            },
        );
        let mut run = Run::new(self, state, command, &parsed, &expansion);
        if cwd.is_none() {
            run.errors.push(format!(
                "the working directory `{}` is not absolute",
                state.cwd().display()
            ));
        }
        run.judge_all();
        run.finish()
    }
}

/// An untrusted path found while judging a clause.
#[derive(Clone, Debug)]
struct Untrusted {
    /// What the prompt shows.
    shown: String,
    /// The access needed.
    access: Access,
    /// The zone a person may trust for it.
    zone: Option<PathBuf>,
}

/// The verdict of one invocation while it is being built.
struct Judged {
    verdict: ClauseVerdict,
    /// The clause itself needs a person (verb, executable, code, assignment), not only a path.
    needs_person: bool,
    /// It can be saved (its proposal stands for it).
    saveable: bool,
    untrusted: Vec<Untrusted>,
    /// Protected paths that deny it.
    denied_by: Vec<DenyHit>,
    /// It writes a path through an operand or option (so it is not read-only).
    writes_paths: bool,
    /// An argument is code or a program that runs (role `exec`), shown as written.
    runs_code: Option<String>,
}

impl Judged {
    fn raise(&mut self, decision: Decision) {
        self.verdict.decision = self.verdict.decision.max(decision);
    }

    fn reason(&mut self, kind: ReasonKind, rule: Option<String>, message: impl Into<String>) {
        self.verdict.reasons.push(Reason::new(kind, rule, message));
    }

    /// The clause needs a person (not only for a path).
    fn ask(&mut self, kind: ReasonKind, rule: Option<String>, message: impl Into<String>) {
        self.raise(Decision::NeedsPrompt);
        self.needs_person = true;
        self.reason(kind, rule, message);
    }
}

/// One evaluation in progress.
struct Run<'a> {
    gate: &'a GateEvaluator,
    state: &'a TrustState,
    command: &'a str,
    parsed: &'a ParseOutput,
    expansion: &'a Expansion,
    judged: Vec<Judged>,
    hard_deny: Vec<DenyHit>,
    errors: Vec<String>,
    protected_cache: RefCell<Vec<(PathBuf, Option<&'a Protected>)>>,
}

impl<'a> Run<'a> {
    fn new(
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
            errors: Vec::new(),
            protected_cache: RefCell::new(Vec::new()),
        }
    }

    fn policy(&self) -> &'a Policy {
        &self.gate.policy
    }

    /// Judges every invocation and applies the deny hits.
    fn judge_all(&mut self) {
        for invocation in &self.expansion.invocations {
            let judged = self.judge(invocation);
            self.judged.push(judged);
        }
        // Words the shell expands outside any clause (`for v in ${!x}`, `case $((x)) in`).
        if let Some(why) = shellgate_rules::unjudged_evaluation(self.command, &self.parsed.graph) {
            let judged = self.text_verdict(ReasonKind::Opaque, &why);
            self.judged.push(judged);
        }
        // Variables set by a loop or a `${NAME:=…}` default (`for PATH in /tmp/x; do ls; done`).
        let texts = std::iter::once(self.command)
            .chain(self.expansion.sources.iter().map(|s| s.text.as_str()));
        let mut loading: Vec<&str> = texts
            .flat_map(shellgate_rules::implicitly_assigned)
            .filter(|name| is_code_loading(name))
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
        let hits = self.policy().deny_expansion(self.command, self.expansion);
        for hit in hits {
            let rule = hit.rule;
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

    /// A verdict on the command text as a whole (not one clause): it needs a person and
    /// cannot be saved.
    fn text_verdict(&self, kind: ReasonKind, why: &str) -> Judged {
        Judged {
            verdict: ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "compound".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(kind, None, display::escape(why))],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            },
            needs_person: true,
            saveable: false,
            untrusted: Vec::new(),
            denied_by: Vec::new(),
            writes_paths: false,
            runs_code: None,
        }
    }

    /// The verdict on one invocation.
    fn judge(&self, inv: &Invocation) -> Judged {
        let hint = shellgate_parser::verb_hint(
            &inv.words
                .iter()
                .map(|w| w.cooked.as_str())
                .collect::<Vec<_>>(),
        );
        let mut judged = Judged {
            verdict: ClauseVerdict {
                verb: hint,
                argv: inv.words.iter().map(|w| w.cooked.clone()).collect(),
                origin: self.origin(inv),
                decision: Decision::Approved,
                reasons: Vec::new(),
                text: clause_text(inv, self.shows_code(inv)),
                clause: Some(inv.clause_index),
                proposal: None,
            },
            needs_person: false,
            saveable: true,
            untrusted: Vec::new(),
            denied_by: Vec::new(),
            writes_paths: false,
            runs_code: None,
        };
        if let InvocationKind::Wrapper { privileged } = inv.kind {
            let through = if privileged {
                "runs its inner commands with other privileges; judged through them"
            } else {
                "judged through the commands it runs"
            };
            judged.reason(ReasonKind::Safe, None, format!("wrapper: {through}"));
            // The wrapper's own words (`nice -n $((x)) ls`) are expanded too.
            self.judge_evaluating_expansions(inv, &mut judged);
            if let Some(opaque) = &inv.opaque {
                // The code it runs is not (fully) visible: remote, or partly unparsed.
                judged.saveable = false;
                let (kind, message) = opaque_reason(opaque);
                judged.ask(kind, None, message);
            }
            return judged;
        }
        self.judge_leaf(inv, &mut judged);
        judged
    }

    /// Judges a plain or inner invocation.
    fn judge_leaf(&self, inv: &Invocation, judged: &mut Judged) {
        let ctx = MatchContext {
            cwd: inv.cwd.as_deref(),
            home: inv.home.as_deref(),
            symlinks: self.state.resolve_symlinks(),
            trusted_bin_dirs: self.policy().trusted_bin_dirs(),
        };
        self.judge_assignments(inv, judged);
        self.judge_evaluating_expansions(inv, judged);
        if let Some(keyword) = self.shell_keyword(inv) {
            self.judge_keyword(keyword, inv, &ctx, judged);
            return;
        }
        // The paths: operands by role, redirect targets, cd targets, appended arguments.
        let safe = if inv.words.is_empty() {
            SafeVerdict::NotCatalogued
        } else {
            self.policy().safe(&inv.view())
        };
        self.judge_paths(inv, &ctx, &safe, judged);
        let Some(first) = inv.words.first() else {
            // A bare assignment or redirection: nothing runs.
            return;
        };
        let tokens: Vec<Token<'_>> = inv.words.iter().map(token).collect();
        // The executable.
        let executable = match tokens.first() {
            Some(first_token) => matching::executable(first_token, &ctx),
            None => Executable::Unknown,
        };
        if !first.literal {
            judged.saveable = false;
            judged.ask(
                ReasonKind::Executable,
                None,
                format!(
                    "the command name `{}` is not known until it runs",
                    display::escape(&first.raw)
                ),
            );
            return;
        }
        match &executable {
            Executable::Name(name) if first.cooked.contains('/') => judged.reason(
                ReasonKind::Executable,
                None,
                format!(
                    "`{}` is `{name}` from a trusted bin directory",
                    display::escape(&first.cooked)
                ),
            ),
            Executable::Name(_) => {}
            Executable::Path(path) => judged.reason(
                ReasonKind::Executable,
                None,
                format!(
                    "`{}` runs `{}`, which is not in a trusted bin directory",
                    display::escape(&first.cooked),
                    display::escape(&path.to_string_lossy())
                ),
            ),
            Executable::Unknown => {
                judged.saveable = false;
                judged.ask(
                    ReasonKind::Executable,
                    None,
                    format!(
                        "where `{}` is cannot be known statically",
                        display::escape(&first.cooked)
                    ),
                );
                return;
            }
        }
        // Code the gate cannot read.
        let interpreter_call = match &inv.opaque {
            None => false,
            Some(Opaque::Interpreter { why }) => {
                judged.reason(ReasonKind::Interpreter, None, why.clone());
                true
            }
            Some(other) => {
                judged.saveable = false;
                let (kind, message) = opaque_reason(other);
                judged.ask(kind, None, message);
                return;
            }
        };
        // An interpreter's arguments are code or select code: it is only ever saved, and
        // matched, as the exact command.
        let opaque_code = interpreter_call || judged.runs_code.is_some();
        if let Some(code) = judged.runs_code.clone() {
            judged.reason(
                ReasonKind::Interpreter,
                None,
                format!("`{code}` is a program or code that runs"),
            );
        }
        let interpreter_call = opaque_code || self.policy().interpreter(&inv.words).is_some();
        // Privilege changes never pass silently.
        if let Some(step) = self.privileged_step(inv) {
            judged.saveable = false;
            judged.ask(
                ReasonKind::Privileged,
                None,
                format!("runs with other privileges through `{}`", step.join(" ")),
            );
            return;
        }
        // The verb. A read-only verb that writes a file (an output operand, an output option,
        // a redirect) is not read-only.
        let writes = judged.writes_paths || inv.redirects.iter().any(is_real_write);
        if !opaque_code {
            match safe {
                SafeVerdict::Safe { why } if !writes => {
                    judged.reason(ReasonKind::Safe, None, format!("safe: {why}"));
                    return;
                }
                SafeVerdict::Pure if !writes => {
                    judged.reason(
                        ReasonKind::Pure,
                        None,
                        "a pure side-effect verb with no write redirect",
                    );
                    return;
                }
                SafeVerdict::Safe { .. } | SafeVerdict::Pure => judged.reason(
                    ReasonKind::Unsafe,
                    None,
                    "a read-only verb that writes a file is not read-only",
                ),
                SafeVerdict::Unsafe { token, why } => judged.reason(
                    ReasonKind::Unsafe,
                    None,
                    format!("`{}`: {why}", display::escape(&token)),
                ),
                SafeVerdict::NotCatalogued => {}
            }
        }
        for approved in self.state.patterns() {
            if matching::matches(&approved.pattern, &tokens, interpreter_call, &ctx) {
                judged.reason(
                    ReasonKind::Pattern,
                    Some(approved.pattern.as_str().to_owned()),
                    format!("approved pattern ({})", approved.source.as_str()),
                );
                return;
            }
        }
        let proposal = if interpreter_call {
            if self.code_visible(inv) {
                proposal::propose_exact(&tokens, &executable, self.gate.grant_rule())
            } else {
                None
            }
        } else {
            let hint_words: Vec<&str> = match &executable {
                Executable::Name(name) => std::iter::once(name.as_str())
                    .chain(inv.words.iter().skip(1).map(|w| w.cooked.as_str()))
                    .collect(),
                Executable::Path(_) | Executable::Unknown => Vec::new(),
            };
            let hint = shellgate_parser::verb_hint(&hint_words);
            proposal::propose(&ProposalInput {
                words: &tokens,
                hint: &hint,
                executable: &executable,
                rule: self.gate.grant_rule(),
            })
        };
        if proposal.is_none() {
            judged.saveable = false;
        }
        let message = if interpreter_call {
            match &proposal {
                Some(p) => format!("runs code; it can only be saved as the exact command `{p}`"),
                None => "runs code, and the exact command cannot be saved as a pattern".to_owned(),
            }
        } else {
            match &proposal {
                Some(p) => format!("not approved; proposed pattern `{p}`"),
                None => "not approved, and no narrow pattern can be proposed".to_owned(),
            }
        };
        let kind = if interpreter_call {
            ReasonKind::Interpreter
        } else {
            ReasonKind::Verb
        };
        judged.ask(kind, None, message);
        judged.verdict.proposal = proposal;
    }

    /// `[[` or `((` when the invocation is a conditional or arithmetic command evaluated by the
    /// shell itself (its words are the expression, not a command). Known for top-level clauses
    /// and for any arithmetic context; a `[[ … ]]` inside re-parsed shell code is judged as a
    /// command (and so needs a person).
    fn shell_keyword(&self, inv: &Invocation) -> Option<&'static str> {
        if inv.context == Context::Arithmetic {
            return Some("((");
        }
        if !inv.origin.is_empty() {
            return None;
        }
        let clause = self.parsed.graph.get(inv.clause_index)?;
        match clause.verb.first().map(String::as_str) {
            Some("[[") if clause.verb.len() == 1 => Some("[["),
            Some("((") if clause.verb.len() == 1 => Some("(("),
            _ => None,
        }
    }

    /// A `[[ … ]]` or `(( … ))` expression: nothing runs but the shell, so it passes — unless
    /// bash could evaluate text as arithmetic, where `a[$(cmd)]` runs a command: a word with
    /// `[`, `$(` or a backquote, or (in `((` or an arithmetic `[[` comparison) a word that is
    /// not literal. Substitutions inside are clauses of their own; redirections are judged.
    fn judge_keyword(
        &self,
        keyword: &str,
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
        let comparison = inv.words.iter().any(|w| {
            matches!(
                w.cooked.as_str(),
                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
            )
        });
        let risky = inv.words.iter().find(|w| {
            w.cooked.contains(['[', '`'])
                || w.cooked.contains("$(")
                // `(( x + 1 ))`: the value of a variable is evaluated as arithmetic too, and
                // a value such as `a[$(cmd)]` runs `cmd`.
                || (keyword == "((" && shellgate_rules::arithmetic_reads_data(&w.cooked))
                // `[[ $x -eq 0 ]]`, `[[ x -eq 0 ]]`: so are the operands of a comparison.
                || (keyword == "[["
                    && comparison
                    && !matches!(w.cooked.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
                    && (!w.literal || has_identifier(&w.cooked)))
        });
        match risky {
            None => judged.reason(
                ReasonKind::Safe,
                None,
                format!("`{keyword}` is evaluated by the shell itself; nothing else runs"),
            ),
            Some(word) => {
                judged.saveable = false;
                judged.ask(
                    ReasonKind::Opaque,
                    None,
                    format!(
                        "`{}` in a `{keyword}` expression may be evaluated as arithmetic, which can run commands",
                        display::escape(&word.raw)
                    ),
                );
            }
        }
    }

    /// Whether an invocation's words hold code (an interpreter call, or a shell whose code was
    /// parsed again): such words are shown in full, never summarised.
    fn shows_code(&self, inv: &Invocation) -> bool {
        matches!(inv.kind, InvocationKind::Wrapper { .. })
            || inv.opaque.is_some()
            || self.policy().interpreter(&inv.words).is_some()
    }

    /// The first privilege-changing wrapper an invocation was found through.
    fn privileged_step(&self, inv: &Invocation) -> Option<Vec<String>> {
        inv.origin.iter().find_map(|step| {
            let parent = self.expansion.invocations.get(step.invocation)?;
            matches!(parent.kind, InvocationKind::Wrapper { privileged: true })
                .then(|| step.verb.clone())
        })
    }

    /// Whether an interpreter call's code is in its words (not read from standard input).
    fn code_visible(&self, inv: &Invocation) -> bool {
        let Some(interpreter) = self.policy().interpreter(&inv.words) else {
            return false;
        };
        inv.words.iter().skip(interpreter.verb.len()).any(|w| {
            let text = w.cooked.as_str();
            !text.starts_with('-')
                || interpreter
                    .code_flags
                    .iter()
                    .chain(&interpreter.script_flags)
                    .any(|flag| {
                        text == flag || (!flag.starts_with("--") && text.starts_with(flag.as_str()))
                    })
        })
    }

    /// Expansions that make bash evaluate a value as code (see [`shellgate_rules::evaluating_parts`]):
    /// arithmetic over a variable (`$((x))`, `${a[i]}`, `${s:n}`, `a[i]=1`, whose value
    /// `a[$(cmd)]` runs `cmd`), indirect expansion (`${!x}`) and prompt expansion (`${x@P}`) —
    /// in a word, an assignment, a redirect target or an unquoted heredoc. Wherever they are,
    /// the clause needs a person and cannot be saved.
    fn judge_evaluating_expansions(&self, inv: &Invocation, judged: &mut Judged) {
        if let Some(why) =
            shellgate_rules::evaluating_parts(&inv.words, &inv.assignments, &inv.redirects)
        {
            judged.saveable = false;
            judged.ask(ReasonKind::Opaque, None, display::escape(&why));
        }
    }

    /// Assignments (prefixes, or `export NAME=…`) that change how programs load or run.
    fn judge_assignments(&self, inv: &Invocation, judged: &mut Judged) {
        let mut names: Vec<&str> = inv.assignments.iter().map(|a| a.name.as_str()).collect();
        if inv
            .words
            .first()
            .is_some_and(|w| SETTERS.contains(&w.cooked.as_str()))
        {
            names.extend(
                inv.words
                    .iter()
                    .skip(1)
                    .filter_map(|w| w.cooked.split_once('=').map(|(name, _)| name)),
            );
        }
        // `{PATH}>/dev/null` stores a descriptor number in `PATH`.
        names.extend(
            shellgate_rules::descriptor_variables(&inv.words, &inv.redirects)
                .into_iter()
                .filter_map(|v| v.split('[').next()),
        );
        for name in names {
            if is_code_loading(name) {
                judged.saveable = false;
                judged.ask(
                    ReasonKind::Assignment,
                    None,
                    format!(
                        "setting `{}` changes which program runs or what it loads",
                        display::escape(name)
                    ),
                );
            }
        }
    }

    /// Judges every path of an invocation.
    fn judge_paths(
        &self,
        inv: &Invocation,
        ctx: &MatchContext<'_>,
        safe: &SafeVerdict<'_>,
        judged: &mut Judged,
    ) {
        let leaf = !inv.words.is_empty();
        if leaf {
            self.judge_cwd(inv, ctx, safe, judged);
            let roles = self.policy().roles(&inv.view());
            for role in &roles {
                let Some(word) = inv.words.get(role.index) else {
                    continue;
                };
                let access = match role.role {
                    Role::ReadPath => Access::Read,
                    Role::WritePath => {
                        judged.writes_paths = true;
                        Access::Write
                    }
                    // Code that runs: the command can only be approved exactly (see `judge_leaf`).
                    Role::Exec => {
                        if judged.runs_code.is_none() {
                            judged.runs_code = Some(display::escape(&word.raw));
                        }
                        continue;
                    }
                    // A plain value is not a path.
                    Role::Value => continue,
                };
                self.judge_path(word, &role.text, access, ctx, judged);
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
                    Some((_, target)) => {
                        self.judge_path(target, &target.cooked, Access::Read, ctx, judged)
                    }
                    None => {
                        if let Some(home) = ctx.home {
                            self.judge_resolved(
                                home,
                                &home.to_string_lossy(),
                                Access::Read,
                                judged,
                            );
                        }
                    }
                }
            }
            if inv.appended_args {
                let access = match safe {
                    SafeVerdict::Safe { .. } | SafeVerdict::Pure => Access::Read,
                    SafeVerdict::Unsafe { .. } | SafeVerdict::NotCatalogued => Access::Write,
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
        }
        for redirect in &inv.redirects {
            if let Some(target) = redirect.write_target() {
                self.judge_redirect(target, Access::Write, ctx, judged);
            }
            if let Some(target) = redirect.read_target() {
                self.judge_redirect(target, Access::Read, ctx, judged);
            }
        }
    }

    /// The working directory a command runs in is read (a listing, a search, a build), except
    /// by pure side-effect verbs and by `cd`/`pushd`/`popd`. An unknown working directory is
    /// untrusted unless every path may be read.
    fn judge_cwd(
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
        if matches!(safe, SafeVerdict::Pure) {
            return;
        }
        match ctx.cwd {
            Some(cwd) => {
                let resolved =
                    paths::finish(cwd, ctx.symlinks).unwrap_or_else(|| cwd.to_path_buf());
                self.judge_resolved(&resolved, &resolved.to_string_lossy(), Access::Read, judged);
            }
            None if self.state.read_all().is_some() => {}
            None => self.dynamic_path("(the working directory)", Access::Read, judged),
        }
    }

    /// Judges a redirect target, skipping the exempt devices.
    fn judge_redirect(
        &self,
        word: &Word,
        access: Access,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let exempt: &[&str] = match access {
            Access::Write => &paths::WRITE_EXEMPT,
            Access::Read => &paths::READ_EXEMPT,
        };
        if word.literal && exempt.contains(&word.cooked.as_str()) {
            return;
        }
        self.judge_path(word, &word.cooked, access, ctx, judged);
    }

    /// Judges one path operand; `text` is the path part of the word (the value of
    /// `--opt=value`, `-ovalue` or `key=value`).
    fn judge_path(
        &self,
        word: &Word,
        text: &str,
        access: Access,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        if is_process_substitution(word) {
            // `<(cmd)` / `>(cmd)`: a pipe to a command that is judged as a clause of its own.
            return;
        }
        let tilde = word.literal
            && text.starts_with('~')
            && (word.features.tilde || is_assignment_value(word, text));
        let expanded = if word.literal {
            paths::expand(text, tilde, ctx.cwd, ctx.home)
        } else if only_home_variable(word) {
            paths::expand_home_variable(text, ctx.home).map(PathBuf::from)
        } else if only_glob(word) {
            self.judge_glob(word, text, access, ctx, judged);
            return;
        } else {
            None
        };
        let Some(expanded) = expanded else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        let Some(lexical) = paths::normalize(&expanded) else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        let exempt: &[&str] = match access {
            Access::Write => &paths::WRITE_EXEMPT,
            Access::Read => &paths::READ_EXEMPT,
        };
        if lexical.to_str().is_some_and(|p| exempt.contains(&p)) {
            // `tee /dev/null`, `cat /dev/stdin`: the device, not a file.
            return;
        }
        let resolved = if ctx.symlinks {
            paths::resolve_symlinks(&expanded)
        } else {
            Some(lexical.clone())
        };
        let Some(resolved) = resolved else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
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
        if self.protected(&resolved, access, judged)
            || (resolved != lexical && self.protected(&lexical, access, judged))
        {
            return;
        }
        self.judge_zone(&resolved, &resolved.to_string_lossy(), access, judged);
    }

    /// Judges a glob path by its literal directory and, with symlink resolution, its matches.
    fn judge_glob(
        &self,
        word: &Word,
        text: &str,
        access: Access,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let Some(split) = paths::split_glob(text) else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        let tilde = word.features.tilde && split.prefix.starts_with('~');
        let base_text = if split.prefix.is_empty() {
            "."
        } else {
            split.prefix
        };
        let Some(base) = paths::expand(base_text, tilde, ctx.cwd, ctx.home) else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        let Some(lexical) = paths::normalize(&base) else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        // A protected path below the glob: check the glob as if it were a path too.
        let mut whole = lexical.clone();
        for component in &split.rest {
            whole.push(component);
        }
        if self.protected(&whole, access, judged) {
            return;
        }
        if !ctx.symlinks {
            self.judge_resolved(&lexical, &lexical.to_string_lossy(), access, judged);
            return;
        }
        let Some(resolved) = paths::resolve_symlinks(&base) else {
            self.dynamic_path(&word.raw, access, judged);
            return;
        };
        self.judge_resolved(&resolved, &resolved.to_string_lossy(), access, judged);
        let mut matches = Vec::new();
        if !expand_glob(&resolved, &split.rest, &mut matches) {
            self.dynamic_path(&word.raw, access, judged);
            return;
        }
        for found in matches {
            if let Some(target) = paths::resolve_symlinks(&found) {
                if target != found && self.protected(&found, access, judged) {
                    continue;
                }
                self.judge_resolved(&target, &target.to_string_lossy(), access, judged);
            }
        }
    }

    /// A path that cannot be known statically: untrusted.
    fn dynamic_path(&self, raw: &str, access: Access, judged: &mut Judged) {
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

    /// The strictest protected entry covering `path`, remembered for the rest of the run (the
    /// working directory is checked once per clause).
    fn protected_entry(&self, path: &Path) -> Option<&'a Protected> {
        if let Ok(cache) = self.protected_cache.try_borrow()
            && let Some((_, entry)) = cache.iter().find(|(p, _)| p == path)
        {
            return *entry;
        }
        let entry = self.gate.policy.protected(path, self.state.home());
        if let Ok(mut cache) = self.protected_cache.try_borrow_mut() {
            cache.push((path.to_path_buf(), entry));
        }
        entry
    }

    /// Checks the protected paths; returns true when the path's decision is forced.
    fn protected(&self, path: &Path, access: Access, judged: &mut Judged) -> bool {
        let Some(entry) = self.protected_entry(path) else {
            return false;
        };
        let forced = match access {
            Access::Read => entry.read,
            Access::Write => entry.write,
        };
        let shown = display::escape(&path.to_string_lossy());
        match forced {
            // Not forced: the zones decide.
            Decision::Approved => false,
            // Always asks, and no zone can lift it.
            Decision::NeedsPrompt => {
                judged.reason(
                    ReasonKind::Protected,
                    Some(entry.id.clone()),
                    format!("{access} of `{shown}` always needs a person: {}", entry.why),
                );
                judged.raise(Decision::NeedsPrompt);
                judged.untrusted.push(Untrusted {
                    shown,
                    access,
                    zone: None,
                });
                true
            }
            // Never allowed.
            Decision::HardDenied => {
                judged.reason(
                    ReasonKind::Protected,
                    Some(entry.id.clone()),
                    format!("{access} of `{shown}` is never allowed: {}", entry.why),
                );
                judged.raise(Decision::HardDenied);
                judged.denied_by.push(DenyHit {
                    rule: entry.id.clone(),
                    category: "protected".to_owned(),
                    reason: format!("{access} of `{shown}`: {}", entry.why),
                });
                true
            }
        }
    }

    /// Judges a resolved absolute path: protected paths, then zones.
    fn judge_resolved(&self, path: &Path, shown: &str, access: Access, judged: &mut Judged) {
        if self.protected(path, access, judged) {
            return;
        }
        self.judge_zone(path, shown, access, judged);
    }

    /// Judges a resolved absolute path against the zones.
    fn judge_zone(&self, path: &Path, shown: &str, access: Access, judged: &mut Judged) {
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
                    "{access} of `{shown}` is inside the {} zone `{}` ({})",
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
            format!("{access} of `{shown}` is outside every {access} zone"),
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

    /// Where an invocation comes from, for evidence.
    fn origin(&self, inv: &Invocation) -> String {
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
                Via::Split => text.push_str(" -S"),
            }
        }
        text
    }

    /// Combines everything into the evaluation.
    fn finish(mut self) -> Evaluation {
        let complete = self.parsed.complete && self.expansion.complete;
        let needs_display = !complete
            || !self.errors.is_empty()
            || (self.hard_deny.is_empty()
                && self
                    .judged
                    .iter()
                    .any(|j| j.verdict.decision == Decision::NeedsPrompt));
        let display = if needs_display {
            self.render_display()
        } else {
            String::new()
        };
        let judged_all = std::mem::take(&mut self.judged);
        let mut clauses: Vec<ClauseVerdict> = Vec::with_capacity(self.judged.len() + 1);
        let mut paths: Vec<PromptPath> = Vec::new();
        let mut prompt_clauses: Vec<PromptClause> = Vec::new();
        let mut persistable = true;
        let mut decision = Decision::Approved;
        for judged in judged_all {
            decision = decision.max(judged.verdict.decision);
            for hit in judged.denied_by {
                if !self.hard_deny.iter().any(|h| h.rule == hit.rule) {
                    self.hard_deny.push(hit);
                }
            }
            if judged.verdict.decision == Decision::NeedsPrompt {
                for untrusted in judged.untrusted {
                    if untrusted.zone.is_none() {
                        persistable = false;
                    }
                    add_path(&mut paths, untrusted);
                }
                if judged.needs_person {
                    if !judged.saveable || judged.verdict.proposal.is_none() {
                        persistable = false;
                    }
                    let entry = PromptClause {
                        text: judged.verdict.text.clone(),
                        pattern: if judged.saveable {
                            judged.verdict.proposal.clone()
                        } else {
                            None
                        },
                    };
                    if !prompt_clauses.contains(&entry) {
                        prompt_clauses.push(entry);
                    }
                }
            }
            clauses.push(judged.verdict);
        }
        if !complete {
            let message = self
                .parsed
                .reason()
                .map(str::to_owned)
                .or_else(|| self.expansion.notes.first().cloned())
                .unwrap_or_else(|| "the command did not parse completely".to_owned());
            clauses.push(ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "parse".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(ReasonKind::Incomplete, None, message)],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            });
            decision = decision.max(Decision::NeedsPrompt);
            persistable = false;
            let entry = PromptClause {
                text: display.clone(),
                pattern: None,
            };
            if !prompt_clauses.contains(&entry) {
                prompt_clauses.push(entry);
            }
        }
        for error in &self.errors {
            clauses.push(ClauseVerdict {
                verb: Vec::new(),
                argv: Vec::new(),
                origin: "internal".to_owned(),
                decision: Decision::NeedsPrompt,
                reasons: vec![Reason::new(ReasonKind::Internal, None, error.clone())],
                text: display::escape(self.command),
                clause: None,
                proposal: None,
            });
            decision = decision.max(Decision::NeedsPrompt);
            persistable = false;
        }
        if !self.errors.is_empty() && prompt_clauses.is_empty() {
            prompt_clauses.push(PromptClause {
                text: display.clone(),
                pattern: None,
            });
        }
        if !self.hard_deny.is_empty() {
            decision = Decision::HardDenied;
        }
        let prompt = (decision == Decision::NeedsPrompt).then_some(Prompt {
            paths,
            clauses: prompt_clauses,
            persistable,
            display,
        });
        Evaluation {
            decision,
            clauses,
            hard_deny: self.hard_deny,
            prompt,
            complete,
            errors: self.errors,
        }
    }

    /// The whole command on one line (see [`crate::display`]).
    fn render_display(&self) -> String {
        let codes: Vec<&str> = self
            .expansion
            .sources
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        let mut replacements = Vec::new();
        for clause in self.parsed.graph.clauses() {
            let code_call = self.policy().interpreter(&clause.argv).is_some();
            let mut words: Vec<&Word> = clause.argv.iter().collect();
            words.extend(clause.assignments.iter().filter_map(|a| a.value.as_ref()));
            words.extend(
                clause
                    .assignments
                    .iter()
                    .filter_map(|a| a.array.as_ref())
                    .flatten(),
            );
            words.extend(clause.redirects.iter().filter_map(|r| match &r.target {
                RedirectTarget::Word(w) => Some(w),
                RedirectTarget::Heredoc(_) => None,
            }));
            for word in words {
                if summarizable(word) && !code_call && !codes.contains(&word.cooked.as_str()) {
                    replacements.push(Replacement {
                        start: word.span.start,
                        end: word.span.end,
                        text: display::summarize(&word.cooked),
                    });
                }
            }
        }
        display::render(self.command, replacements)
    }
}

/// The evidence for code the gate cannot read.
fn opaque_reason(opaque: &Opaque) -> (ReasonKind, String) {
    match opaque {
        Opaque::ScriptFile { path } => (
            ReasonKind::Opaque,
            format!(
                "runs the script file `{}`, which the gate cannot read",
                display::escape(path)
            ),
        ),
        Opaque::Remote => (
            ReasonKind::Opaque,
            "runs code on another machine".to_owned(),
        ),
        Opaque::DynamicCode { why } => (ReasonKind::Opaque, why.clone()),
        Opaque::Interpreter { why } => (ReasonKind::Interpreter, why.clone()),
        Opaque::DepthLimit => (
            ReasonKind::Incomplete,
            "shell code is nested too deep to follow".to_owned(),
        ),
        Opaque::NestedIncomplete => (
            ReasonKind::Incomplete,
            "its shell code did not parse completely".to_owned(),
        ),
    }
}

/// Adds an untrusted path to the prompt: once per path, a write covering a read.
fn add_path(paths: &mut Vec<PromptPath>, untrusted: Untrusted) {
    if let Some(existing) = paths.iter_mut().find(|p| p.path == untrusted.shown) {
        if untrusted.access == Access::Write {
            existing.access = Access::Write;
        }
        if untrusted.zone.is_none() {
            existing.zone = None;
        }
        return;
    }
    paths.push(PromptPath {
        path: untrusted.shown,
        access: untrusted.access,
        zone: untrusted.zone,
    });
}

/// A word as matching sees it.
fn token(word: &Word) -> Token<'_> {
    Token {
        text: &word.cooked,
        literal: word.literal,
        tilde: word.features.tilde,
    }
}

/// Whether a literal word's value spans two lines or more and is shown summarised.
fn summarizable(word: &Word) -> bool {
    word.literal && display::is_summarized(&word.cooked)
}

/// Whether a word's only expansion is a leading `$HOME`/`${HOME}`.
fn only_home_variable(word: &Word) -> bool {
    let f = &word.features;
    f.parameter
        && !f.command_substitution
        && !f.process_substitution
        && !f.arithmetic
        && !f.glob
        && !f.brace
}

/// Whether a text names a variable (an ASCII letter or `_`), as arithmetic would evaluate it.
fn has_identifier(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_alphabetic() || b == b'_')
}

/// Whether a word is exactly one process substitution (`<(…)` or `>(…)`).
fn is_process_substitution(word: &Word) -> bool {
    let f = &word.features;
    f.process_substitution
        && !f.parameter
        && !f.command_substitution
        && !f.arithmetic
        && !f.glob
        && !f.brace
        && (word.raw.starts_with("<(") || word.raw.starts_with(">("))
        && closes_at_end(&word.raw)
}

/// Whether the parenthesis opened at byte 1 of `raw` closes at its last character (a rough
/// balance count; anything unusual counts as not closing, so the word is judged as a path).
fn closes_at_end(raw: &str) -> bool {
    let mut depth = 0_usize;
    let last = raw.char_indices().last().map_or(0, |(i, _)| i);
    for (i, c) in raw.char_indices().skip(1) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == last;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether a word's only expansion is a glob.
fn only_glob(word: &Word) -> bool {
    let f = &word.features;
    f.glob
        && !f.parameter
        && !f.command_substitution
        && !f.process_substitution
        && !f.arithmetic
        && !f.brace
}

/// Whether `text` is the value of a `name=value` word whose value starts with an unquoted `~`
/// (bash expands it, as in `dd of=~/x`).
fn is_assignment_value(word: &Word, text: &str) -> bool {
    let Some((name, value)) = word.raw.split_once('=') else {
        return false;
    };
    value.starts_with('~')
        && word.cooked.ends_with(text)
        && !name.is_empty()
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Whether a redirect writes to a real file (not an exempt device).
fn is_real_write(redirect: &Redirect) -> bool {
    redirect
        .write_target()
        .is_some_and(|w| !(w.literal && paths::WRITE_EXEMPT.contains(&w.cooked.as_str())))
}

/// The clause shown on one line: assignments, words and redirects as written, multi-line
/// literal words summarised, everything escaped.
fn clause_text(inv: &Invocation, code: bool) -> String {
    let word_text = |word: &Word| {
        if code {
            display::escape(&word.raw)
        } else {
            word_text(word)
        }
    };
    let mut parts: Vec<String> = Vec::new();
    for assignment in &inv.assignments {
        let mut text = assignment.name.clone();
        if let Some(index) = &assignment.index {
            text.push('[');
            text.push_str(index);
            text.push(']');
        }
        text.push_str(if assignment.append { "+=" } else { "=" });
        if let Some(value) = &assignment.value {
            text.push_str(&word_text(value));
        }
        if let Some(array) = &assignment.array {
            text.push('(');
            text.push_str(&array.iter().map(&word_text).collect::<Vec<_>>().join(" "));
            text.push(')');
        }
        parts.push(text);
    }
    parts.extend(inv.words.iter().map(&word_text));
    for redirect in &inv.redirects {
        let mut text = String::new();
        match &redirect.fd {
            Some(shellgate_parser::RedirectFd::Number(n)) => text.push_str(&n.to_string()),
            Some(shellgate_parser::RedirectFd::Variable(name)) => {
                text.push('{');
                text.push_str(name);
                text.push('}');
            }
            None => {}
        }
        text.push_str(redirect.op.as_str());
        match &redirect.target {
            RedirectTarget::Word(word) => text.push_str(&word_text(word)),
            RedirectTarget::Heredoc(heredoc) => {
                if heredoc.quoted {
                    text.push('\'');
                    text.push_str(&display::escape(&heredoc.delimiter));
                    text.push('\'');
                } else {
                    text.push_str(&display::escape(&heredoc.delimiter));
                }
                text.push(' ');
                text.push_str(&display::summarize(&heredoc.body));
            }
        }
        parts.push(text);
    }
    parts.join(" ")
}

/// One word shown: summarised when it is a literal multi-line value, else escaped raw text. A
/// word made by unwrapping (`env NAME='a b'` or `env -S`) has no quotes of its own; one with
/// whitespace is shown single-quoted so the words stay apart.
fn word_text(word: &Word) -> String {
    if summarizable(word) {
        return display::summarize(&word.cooked);
    }
    if word.literal && word.raw.contains(char::is_whitespace) && word.raw == word.cooked {
        return format!("'{}'", display::escape(&word.raw.replace('\'', "'\\''")));
    }
    display::escape(&word.raw)
}

/// Expands glob components below `dir` on the file system (no dotfiles unless the component
/// starts with `.`); returns false when there are more than [`MAX_GLOB_MATCHES`] candidates.
fn expand_glob(dir: &Path, components: &[&str], out: &mut Vec<PathBuf>) -> bool {
    let Some((first, rest)) = components.split_first() else {
        out.push(dir.to_path_buf());
        return out.len() <= MAX_GLOB_MATCHES;
    };
    if first.is_empty() || *first == "." {
        return expand_glob(dir, rest, out);
    }
    if !first.contains(['*', '?', '[']) {
        let next = dir.join(first);
        if std::fs::symlink_metadata(&next).is_err() {
            return true;
        }
        return expand_glob(&next, rest, out);
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        if paths::fnmatch(first, name, true) && !expand_glob(&dir.join(name), rest, out) {
            return false;
        }
        if out.len() > MAX_GLOB_MATCHES {
            return false;
        }
    }
    true
}
