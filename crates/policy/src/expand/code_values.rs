//! Option values that are command lines (`rsync -e CMD`, `tar --to-command=CMD`,
//! `sort --compress-program=CMD`: the policy's `exec` role): the value is parsed as shell code
//! and each of its clauses is judged, so every deny rule applies inside it. The command itself
//! stays judged by itself (it runs code, so it is only ever saved exactly).

use shellgate_parser::ParseOptions;
use shellgate_rules::Role;

use super::{CodeSource, InvocationKind, Opaque, Via, Walker};

impl Walker<'_> {
    /// Parses the literal `exec`-role values of invocation `index` as shell code.
    pub(super) fn code_values(&mut self, index: usize, depth: usize) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        if matches!(inv.kind, InvocationKind::Wrapper { .. }) {
            return;
        }
        let view = inv.view();
        if !self.policy.knows_roles(&view) {
            return;
        }
        let codes: Vec<String> = self
            .policy
            .roles(&view)
            .into_iter()
            .filter(|r| r.role == Role::Exec)
            .filter(|r| inv.words.get(r.index).is_some_and(|w| w.literal))
            .map(|r| r.text)
            .filter(|text| !text.trim().is_empty())
            .collect();
        if codes.is_empty() {
            return;
        }
        let (cwd, home, clause_index) = (inv.cwd.clone(), inv.home.clone(), inv.clause_index);
        for code in codes {
            if depth + 1 > self.max_depth {
                self.ex.complete = false;
                self.set_opaque(index, Opaque::DepthLimit);
                return;
            }
            let parsed = shellgate_parser::parse(
                &code,
                &ParseOptions {
                    cwd: cwd.clone(),
                    home: home.clone(),
                },
            );
            if !parsed.complete {
                // Not shell code the gate can read; the command already needs a person for
                // running it.
                continue;
            }
            self.ex.sources.push(CodeSource {
                text: code,
                invocation: index,
            });
            self.graph(
                &parsed.graph,
                Some((index, Via::Shell)),
                home.as_deref(),
                depth + 1,
                Some(clause_index),
            );
        }
    }
}
