//! The verdict on one invocation while it is being built.

use std::path::PathBuf;

use shellgate_rules::{Access, Decision, HostGrant};

use crate::evaluation::{ClauseVerdict, DenyHit, Reason, ReasonKind};

/// An untrusted path found while judging a clause.
#[derive(Clone, Debug)]
pub(super) struct Untrusted {
    /// What the prompt shows.
    pub(super) shown: String,
    /// The access needed.
    pub(super) access: Access,
    /// The zone a person may trust for it.
    pub(super) zone: Option<PathBuf>,
}

/// The verdict of one invocation while it is being built.
pub(super) struct Judged {
    pub(super) verdict: ClauseVerdict,
    /// The clause itself needs a person (verb, executable, code, assignment), not only a path.
    pub(super) needs_person: bool,
    /// It can be saved (its proposal stands for it).
    pub(super) saveable: bool,
    pub(super) untrusted: Vec<Untrusted>,
    /// Hosts it reads from (plain reads only) that are not granted: what a person may grant.
    pub(super) hosts: Vec<HostGrant>,
    /// Protected paths that deny it.
    pub(super) denied_by: Vec<DenyHit>,
    /// It writes a path through an operand or option (so it is not read-only).
    pub(super) writes_paths: bool,
    /// An argument is code or a program that runs (role `exec`), shown as written.
    pub(super) runs_code: Option<String>,
    /// What it does on the network (roles `url`, `upload`, `send`, `method`).
    pub(super) net: NetFacts,
    /// The files it runs silently as the project's own code (a script or program inside a run
    /// zone), resolved, with each as written.
    pub(super) project_code: Vec<(PathBuf, String)>,
    /// A command the catalog does not admit has effects the gate does not know: it may write
    /// anything below its working directory (`git clone URL` writes `./NAME`). That directory
    /// (`/` when it is not known statically).
    pub(super) writes_below: Option<PathBuf>,
    /// A project toolchain: the working directory whose build files, tests and configuration
    /// it runs (see `Run::judge_written_code`).
    pub(super) runs_below: Option<PathBuf>,
    /// The repository directory of a program that runs code its repository's configuration
    /// names (`settings.repository_programs`), for [`super::Run::judge_written_code`].
    pub(super) repository: Option<PathBuf>,
    /// The directories an interpreter imports modules from first (`[[interpreter]]`
    /// `imports_cwd`: `python3 -c`, `-m`; its working directory and the directories of a
    /// module path variable it is given), for [`super::Run::judge_written_code`].
    pub(super) imports_from: Vec<PathBuf>,
    /// The paths this invocation itself writes (an interpreter imports before it writes them).
    pub(super) own_writes: Vec<PathBuf>,
    /// It reads a file outside the run zones and the system directories: what it writes may
    /// be code from elsewhere (`cp /tmp/x.py tests/`).
    pub(super) reads_foreign: bool,
    /// It prints what it reads from another machine (`fetches`): what its redirections and the
    /// later stages of its pipeline write may be code from elsewhere.
    pub(super) fetches: bool,
    /// It is a project toolchain (the catalog's, or the project's copy of one): it runs the
    /// project's code, whatever an earlier clause made of the work tree.
    pub(super) toolchain: bool,
}

/// The network effects of an invocation, from its argument roles.
#[derive(Clone, Debug, Default)]
pub(super) struct NetFacts {
    /// Each URL or host argument: the host, or `None` when it cannot be known statically;
    /// with the argument as shown.
    pub(super) hosts: Vec<(Option<String>, String)>,
    /// Files whose content is sent, as shown.
    pub(super) uploads: Vec<String>,
    /// Data given on the command line is sent.
    pub(super) sends: bool,
    /// The request method, when one is given.
    pub(super) method: Option<String>,
}

impl Judged {
    /// A verdict being built from `verdict`: nothing found yet, so it can be saved.
    pub(super) fn new(verdict: ClauseVerdict) -> Self {
        Self {
            verdict,
            needs_person: false,
            saveable: true,
            untrusted: Vec::new(),
            hosts: Vec::new(),
            denied_by: Vec::new(),
            writes_paths: false,
            runs_code: None,
            net: NetFacts::default(),
            project_code: Vec::new(),
            writes_below: None,
            runs_below: None,
            own_writes: Vec::new(),
            reads_foreign: false,
            fetches: false,
            toolchain: false,
            repository: None,
            imports_from: Vec::new(),
        }
    }

    pub(super) fn raise(&mut self, decision: Decision) {
        self.verdict.decision = self.verdict.decision.max(decision);
    }

    pub(super) fn reason(
        &mut self,
        kind: ReasonKind,
        rule: Option<String>,
        message: impl Into<String>,
    ) {
        let reason = Reason::new(kind, rule, message);
        // (The same finding reached twice, through two roles of one word, is one reason. Only
        // the last few are compared: a command may name thousands of paths.)
        if !self
            .verdict
            .reasons
            .iter()
            .rev()
            .take(8)
            .any(|r| *r == reason)
        {
            self.verdict.reasons.push(reason);
        }
    }

    /// The clause needs a person (not only for a path).
    pub(super) fn ask(
        &mut self,
        kind: ReasonKind,
        rule: Option<String>,
        message: impl Into<String>,
    ) {
        self.raise(Decision::NeedsPrompt);
        self.needs_person = true;
        self.reason(kind, rule, message);
    }

    /// As [`Judged::ask`], and the clause cannot be saved (what it runs or touches is not
    /// known until it runs, or it must always be asked).
    pub(super) fn ask_unsaveable(
        &mut self,
        kind: ReasonKind,
        rule: Option<String>,
        message: impl Into<String>,
    ) {
        self.saveable = false;
        self.ask(kind, rule, message);
    }
}
