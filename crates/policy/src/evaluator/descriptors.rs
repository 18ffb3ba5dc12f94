//! Writes through a descriptor's name (`/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`): on
//! Linux, opening one opens again, for writing, whatever the command bound to that descriptor,
//! even a file it opened only to read (`echo x 1< ~/.bashrc >> /dev/stdout` appends to
//! `~/.bashrc`). Such a write is judged as a write of every file a redirection binds to the
//! descriptor — one of the invocation's own (a group's included), of an `exec` that binds it
//! for the rest of the script, or of a shell or wrapper, whose code inherits it — following
//! duplications such as `1>&3`; a descriptor nothing binds is the agent's own output
//! (descriptors 0–2) or not known (any other). The gate's own descriptors are never looked at.

use shellgate_parser::{Redirect, RedirectFd, RedirectOp, RedirectTarget, Word};
use shellgate_rules::Access;

use crate::expand::InvocationKind;
use crate::matching::MatchContext;
use crate::paths;

use super::path_effects::{Certainty, MAX_FOLLOWED};
use super::run::Run;
use super::verdict::Judged;

/// How many duplications (`1>&3`, `3<&4`) are followed from one descriptor.
const MAX_DUPLICATIONS: usize = 16;

/// What a descriptor is bound to by the command's redirections.
enum Bound<'w> {
    /// The files, as their target words (none: the descriptor is inherited).
    Files(Vec<&'w Word>),
    /// A descriptor the command allocates (`{fd}>file`) or binds through a word not known
    /// until it runs: not known here.
    Unknown,
}

/// The descriptors a redirection binds: its written number, or its operator's default.
fn bound_descriptors(redirect: &Redirect) -> Vec<u32> {
    match (&redirect.fd, redirect.op) {
        (Some(RedirectFd::Number(n)), _) => vec![*n],
        (Some(RedirectFd::Variable(_)), _) => Vec::new(),
        (
            None,
            RedirectOp::Read
            | RedirectOp::ReadWrite
            | RedirectOp::DupIn
            | RedirectOp::HereString
            | RedirectOp::Heredoc
            | RedirectOp::HeredocStrip,
        ) => vec![0],
        (None, RedirectOp::WriteBoth | RedirectOp::AppendBoth) => vec![1, 2],
        (None, RedirectOp::DupOut) if !redirect.is_fd_dup() => vec![1, 2],
        (
            None,
            RedirectOp::Write | RedirectOp::Append | RedirectOp::Clobber | RedirectOp::DupOut,
        ) => {
            vec![1]
        }
    }
}

impl Run<'_> {
    /// What the redirections that reach the invocation being judged (see the module docs)
    /// bind descriptor `fd` to.
    fn bound(&self, fd: u32) -> Bound<'_> {
        let mut files = Vec::new();
        let mut pending = vec![fd];
        let mut seen = Vec::new();
        while let Some(fd) = pending.pop() {
            if seen.contains(&fd) {
                continue;
            }
            if seen.len() > MAX_DUPLICATIONS {
                return Bound::Unknown;
            }
            seen.push(fd);
            let current = self.current.get();
            for redirect in self
                .expansion
                .invocations
                .iter()
                .enumerate()
                .filter(|(index, inv)| {
                    current.is_none_or(|c| c == *index)
                        || (inv.words.len() == 1
                            && inv.words.first().is_some_and(|w| w.cooked == "exec"))
                        // A shell or wrapper passes its descriptors to the code it runs
                        // (`bash -c 'echo x >> /dev/stdout' 1< ~/.bashrc`).
                        || matches!(inv.kind, InvocationKind::Wrapper { .. })
                })
                .flat_map(|(_, inv)| inv.redirects.iter())
            {
                if matches!(redirect.fd, Some(RedirectFd::Variable(_))) && fd > 9 {
                    return Bound::Unknown;
                }
                if !bound_descriptors(redirect).contains(&fd) {
                    continue;
                }
                let RedirectTarget::Word(word) = &redirect.target else {
                    continue;
                };
                if redirect.is_fd_dup() {
                    // (`>&-` closes it.)
                    if let Ok(from) = word.cooked.trim_end_matches('-').parse::<u32>() {
                        pending.push(from);
                    }
                    continue;
                }
                if matches!(redirect.op, RedirectOp::HereString) {
                    continue;
                }
                if !word.literal {
                    return Bound::Unknown;
                }
                // `1>/dev/stderr` binds descriptor 1 to what 2 is bound to.
                match paths::descriptor(std::path::Path::new(&word.cooked)) {
                    Some(other) => pending.push(other),
                    None => files.push(word),
                }
            }
        }
        Bound::Files(files)
    }

    /// Judges a write through the name of descriptor `fd` (see the module docs); `None` when
    /// what it writes is not known.
    pub(super) fn judge_descriptor_write(
        &self,
        fd: u32,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> Option<()> {
        // A bound file may itself lead to a descriptor's name (`out -> /dev/stdout`): followed
        // as far as links are.
        let depth = self.following.get();
        if depth >= MAX_FOLLOWED {
            return None;
        }
        match self.bound(fd) {
            Bound::Files(files) if files.is_empty() => (fd <= 2).then_some(()),
            Bound::Files(files) => {
                self.following.set(depth + 1);
                for word in files {
                    self.judge_path(
                        word,
                        &word.cooked,
                        Access::Write,
                        Certainty::Certain,
                        ctx,
                        judged,
                    );
                }
                self.following.set(depth);
                Some(())
            }
            Bound::Unknown => None,
        }
    }
}
