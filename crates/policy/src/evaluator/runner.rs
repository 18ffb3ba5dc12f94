//! Package runners (`uv run`, `npx`, `pnpm dlx`…): the command they run is judged like any
//! wrapped command; the runner adds where that command comes from — the project's environment
//! (its code: a run zone) or a package registry (code from elsewhere, unless installed locally).

use std::path::Path;

use shellgate_rules::{PrefixMode, Runs, Wrapper};

use crate::expand::Invocation;

use crate::display;
use crate::evaluation::ReasonKind;
use crate::matching::{self, Executable, MatchContext, Token};
use crate::paths;
use crate::proposal::{self, ProposalInput};

use super::invocation::token;
use super::run::Run;
use super::verdict::Judged;

impl Run<'_> {
    /// Judges what a package runner adds to the command it runs.
    pub(super) fn judge_runner(
        &self,
        inv: &Invocation,
        wrapper: &Wrapper,
        prefix: &PrefixMode,
        runs: Runs,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) {
        let silent = match runs {
            Runs::Project => self.runs_in_run_zone(ctx, judged),
            Runs::Elsewhere => self.runs_local_package(inv, wrapper, prefix, ctx, judged),
        };
        if silent {
            return;
        }
        let tokens: Vec<Token<'_>> = inv.words.iter().map(token).collect();
        for approved in self.state.patterns() {
            if matching::matches(&approved.pattern, &tokens, false, ctx) {
                judged.reason(
                    ReasonKind::Pattern,
                    Some(approved.pattern.as_str().to_owned()),
                    format!("approved pattern ({})", approved.source.as_str()),
                );
                return;
            }
        }
        let executable = tokens
            .first()
            .map_or(Executable::Unknown, |t| matching::executable(t, ctx));
        let hint_words: Vec<&str> = inv.words.iter().map(|w| w.cooked.as_str()).collect();
        let hint = shellgate_parser::verb_hint(&hint_words);
        let proposal = proposal::propose(&ProposalInput {
            words: &tokens,
            hint: &hint,
            executable: &executable,
            rule: self.gate.grant_rule(),
        });
        let message = match (&proposal, runs) {
            (Some(p), Runs::Elsewhere) => format!(
                "runs a package from a registry (code from elsewhere); proposed pattern `{p}`"
            ),
            (None, Runs::Elsewhere) => {
                "runs a package from a registry (code from elsewhere)".to_owned()
            }
            (Some(p), Runs::Project) => format!("not approved; proposed pattern `{p}`"),
            (None, Runs::Project) => {
                "not approved, and no narrow pattern can be proposed".to_owned()
            }
        };
        judged.saveable = proposal.is_some();
        judged.ask(ReasonKind::Code, None, message);
        judged.verdict.proposal = proposal;
    }

    /// Whether a registry runner runs an installed command: a `local_flags` option is given
    /// (`npx --no-install`), or — when the file system is consulted — the command is in one of
    /// `local_bins` below the working directory or a parent, inside a run zone.
    fn runs_local_package(
        &self,
        inv: &Invocation,
        wrapper: &Wrapper,
        prefix: &PrefixMode,
        ctx: &MatchContext<'_>,
        judged: &mut Judged,
    ) -> bool {
        let options = inv
            .words
            .iter()
            .skip(wrapper.verb.len())
            .take_while(|w| w.literal && w.cooked.starts_with('-'));
        // (npm reads `--yes`/`-y` and `--no` as one switch, the last one winning: `npx --no -y x`
        // downloads; so does any `--no=…` or `--offline=…` value.)
        let undone = options.clone().any(|w| {
            let t = w.cooked.as_str();
            matches!(t, "-y" | "--yes")
                || (t.starts_with("--y") && "--yes".starts_with(t.split('=').next().unwrap_or(t)))
                || ["--yes=", "--no=", "--no-install=", "--offline="]
                    .iter()
                    .any(|p| t.starts_with(p))
                || (!t.starts_with("--") && t.len() > 2 && t.contains('y'))
        });
        if !undone
            && let Some(flag) = options
                .clone()
                .find(|w| prefix.local_flags.iter().any(|f| f == &w.cooked))
        {
            judged.reason(
                ReasonKind::Code,
                None,
                format!(
                    "`{}` runs only an installed command",
                    display::escape(&flag.cooked)
                ),
            );
            return true;
        }
        let inner = self
            .expansion
            .invocations
            .iter()
            .position(|i| std::ptr::eq(i, inv))
            .and_then(|index| {
                self.expansion
                    .invocations
                    .iter()
                    .find(|i| i.parent == Some(index))
            })
            .and_then(|i| i.words.first())
            .filter(|w| w.literal && !w.cooked.contains('/'));
        if ctx.symlinks
            && let (Some(verb), Some(cwd)) = (inner, ctx.cwd)
        {
            for dir in cwd.ancestors() {
                for bin in &prefix.local_bins {
                    let candidate = dir.join(bin).join(&verb.cooked);
                    if candidate.exists()
                        && let Some(resolved) = paths::resolve_symlinks(&candidate)
                        && self.state.run_zone_for(dir_of(&resolved)).is_some()
                    {
                        judged.reason(
                            ReasonKind::Code,
                            None,
                            format!(
                                "`{}` is the project's installed copy `{}`",
                                display::escape(&verb.cooked),
                                display::escape(&candidate.to_string_lossy())
                            ),
                        );
                        judged
                            .project_code
                            .push((resolved, candidate.to_string_lossy().into_owned()));
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// The directory holding a file (the file itself when it has no parent).
fn dir_of(path: &Path) -> &Path {
    path.parent().unwrap_or(path)
}
