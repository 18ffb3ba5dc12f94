//! Option values and variables that are command lines (`rsync -e CMD`, `tar --to-command=CMD`:
//! the policy's `exec` role; `git -c core.pager=CMD`, `ssh -o ProxyCommand=CMD`: an `exec`
//! key of a `[[verb]]` entry's `settings`; `GIT_SSH_COMMAND=CMD git fetch`:
//! `settings.command_variables`): the
//! value is parsed as shell code and each of its clauses is judged, so every deny rule applies
//! inside it. The command itself stays judged by itself (it runs code, or sets a variable that
//! changes what runs, so it needs a person anyway).

use shellgate_parser::ParseOptions;
use shellgate_rules::Role;

use super::{CodeSource, InvocationKind, Opaque, Via, Walker};

impl Walker<'_> {
    /// Parses the literal `exec`-role values of invocation `index`, and the literal values of
    /// the command variables it sets itself (not those its parent set), as shell code.
    pub(super) fn code_values(&mut self, index: usize, depth: usize) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let inherited = inv
            .parent
            .and_then(|p| self.ex.invocations.get(p))
            .map_or(&[][..], |p| p.assignments.as_slice());
        let mut codes: Vec<String> = inv
            .assignments
            .iter()
            .filter(|a| {
                !inherited
                    .iter()
                    .any(|b| b.span == a.span && b.name == a.name)
            })
            .filter(|a| self.policy.is_command_variable(&a.name))
            .filter_map(|a| a.value.as_ref().filter(|v| v.literal))
            .map(|v| v.cooked.clone())
            .filter(|text| !text.trim().is_empty())
            .collect();
        let view = inv.view();
        // A wrapper's own words are its options and the command it runs, which is judged by
        // itself: only its setting options' values are its own (`git -c core.pager=CMD log`).
        let roles = if matches!(inv.kind, InvocationKind::Wrapper { .. }) {
            self.policy.setting_roles(&view)
        } else if self.policy.knows_roles(&view) {
            self.policy.roles(&view)
        } else {
            Vec::new()
        };
        codes.extend(
            roles
                .into_iter()
                .filter(|r| matches!(r.role, Role::Exec | Role::Program))
                .filter(|r| inv.words.get(r.index).is_some_and(|w| w.literal))
                // An option's value (`-e CMD`, `--to-command=CMD`), not an operand that
                // names a program or a document (`open report.pdf`).
                .filter(|r| {
                    let joined = inv
                        .words
                        .get(r.index)
                        .is_some_and(|w| w.cooked.starts_with('-'));
                    let after_option = r
                        .index
                        .checked_sub(1)
                        .and_then(|i| inv.words.get(i))
                        .is_some_and(|w| w.cooked.starts_with('-'));
                    joined || after_option
                })
                .map(|r| r.text)
                .filter(|text| !text.trim().is_empty()),
        );
        self.judge_code(index, depth, codes);
    }

    /// Parses each of `codes`, command lines invocation `index` runs, as shell code and
    /// judges its clauses as run by it.
    pub(super) fn judge_code(&mut self, index: usize, depth: usize, codes: Vec<String>) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let (cwd, home, clause_index) = (inv.cwd.clone(), inv.home.clone(), inv.clause_index);
        for code in codes {
            if depth + 1 > self.max_depth {
                self.ex.complete = false;
                self.set_opaque(index, Opaque::DepthLimit);
                if depth + 1 > self.parse_depth {
                    return;
                }
            }
            let parsed = shellgate_parser::parse(
                &code,
                &ParseOptions {
                    cwd: cwd.clone(),
                    home: home.clone(),
                },
            );
            if !parsed.complete {
                // Not shell code the gate can read: the command that runs it is not known
                // (most already need a person for running code; a sed `e` line would not).
                self.dynamic(
                    index,
                    "runs a command line that is not shell code the gate can read",
                );
                continue;
            }
            self.ex.background |= parsed.background;
            self.ex.sources.push(CodeSource {
                text: code,
                invocation: index,
            });
            self.graph(
                &parsed.graph,
                Some((index, Via::Value)),
                home.as_deref(),
                depth + 1,
                Some(clause_index),
            );
        }
    }
}
