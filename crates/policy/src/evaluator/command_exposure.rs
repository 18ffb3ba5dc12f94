//! Secrets a command hands on under another name, seen in the command as a whole: printed by
//! `set -x`, copied into `BASH_REMATCH` by `[[ … =~ … ]]`, or bound to a loop variable or
//! tested by a `case` (`for x in $TOKEN; do echo $x; done`). A clause that prints a secret by
//! its own name is judged with the clause (`assignments::judge_exposure`).

use crate::evaluation::ReasonKind;

use super::assignments::expanded_names;
use super::run::Run;

impl Run<'_> {
    /// Judges the secrets the command hands on under another name (see the module docs).
    pub(super) fn judge_command_exposure(&mut self) {
        if !self.command.contains('$') {
            return;
        }
        // With `set -x` the shell prints every command it runs, expanded: a secret expanded
        // anywhere (`[[ -n $TOKEN ]]`, `x=$TOKEN`) reaches the transcript.
        let traces = self.expansion.invocations.iter().any(|inv| {
            let mut words = inv.words.iter().map(|w| w.cooked.as_str());
            words.next() == Some("set")
                && words.any(|w| {
                    w == "xtrace" || (w.starts_with('-') && !w.starts_with("--") && w.contains('x'))
                })
        });
        if traces {
            let secrets = self.secrets_in(expanded_names(self.command));
            self.exposes(&secrets, |names| {
                format!(
                    "`set -x` prints every command expanded, `${names}` included: it looks like it holds a secret (into the agent's transcript)"
                )
            });
        }
        // `[[ $TOKEN =~ (.*) ]]` copies what matched into `BASH_REMATCH`, a name that does not
        // look secret. (A `[[` clause's words are those inside the brackets.)
        let matched: Vec<&str> = self
            .expansion
            .invocations
            .iter()
            .filter(|inv| inv.words.iter().any(|w| w.literal && w.cooked == "=~"))
            .flat_map(|inv| inv.words.iter())
            .flat_map(|w| expanded_names(&w.raw))
            .collect();
        let secrets = self.secrets_in(matched);
        self.exposes(&secrets, |names| {
            format!(
                "`[[ … =~ … ]]` copies what `${names}` matched into `BASH_REMATCH`: it looks like it holds a secret, and is handed on under another name"
            )
        });
        // A secret in a loop's or a `case`'s words is printed, or tested letter by letter, under
        // another name.
        let outside =
            shellgate_parser::evaluates::outside_clauses(self.command, &self.parsed.graph);
        let secrets = self.secrets_in(expanded_names(&outside));
        self.exposes(&secrets, |names| {
            format!(
                "a `for`, `select` or `case` word expands `${names}`, which looks like it holds a secret: the loop or the test hands it on under another name"
            )
        });
    }

    /// The names among `names` that look like they hold a secret, once each.
    fn secrets_in(&self, names: Vec<&str>) -> Vec<String> {
        let mut secrets: Vec<String> = names
            .into_iter()
            .filter(|name| self.policy().is_secret_name(name))
            .map(str::to_owned)
            .collect();
        secrets.sort_unstable();
        secrets.dedup();
        secrets
    }

    /// Adds a verdict that needs a person when `secrets` is not empty, saying `why` with their
    /// names.
    fn exposes(&mut self, secrets: &[String], why: impl Fn(&str) -> String) {
        if secrets.is_empty() {
            return;
        }
        let judged = self.text_verdict(ReasonKind::Exposure, &why(&secrets.join("`, `$")));
        self.judged.push(judged);
    }
}
