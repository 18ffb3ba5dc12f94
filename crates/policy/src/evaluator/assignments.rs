//! Variables an invocation sets, and expansions that evaluate data as code.

use shellgate_parser::Word;

use crate::expand::Invocation;

use crate::display;
use crate::evaluation::ReasonKind;

use super::run::Run;
use super::verdict::Judged;

/// Builtins whose `NAME=value` operands set variables.
pub(super) const SETTERS: [&str; 5] = ["export", "declare", "typeset", "local", "readonly"];

/// The literal `NAME=value` pairs an invocation sets: its assignment prefixes and the operands
/// of `export`/`declare`-style builtins.
pub(super) fn assigned_values(inv: &Invocation) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = inv
        .assignments
        .iter()
        .filter_map(|a| {
            let value = a.value.as_ref()?;
            value
                .literal
                .then_some((a.name.as_str(), value.cooked.as_str()))
        })
        .collect();
    out.extend(
        setter_operands(inv)
            .iter()
            .filter(|w| w.literal)
            .filter_map(|w| {
                let (name, value) = shellgate_parser::declared_variable(&w.cooked);
                Some((name, value?))
            }),
    );
    out
}

/// The operands of an `export`/`declare`-style builtin (see [`SETTERS`]); none for any other
/// command.
fn setter_operands(inv: &Invocation) -> &[Word] {
    match inv.words.split_first() {
        Some((first, rest)) if SETTERS.contains(&first.cooked.as_str()) => rest,
        _ => &[],
    }
}

/// Why setting `name` to `value` sends data where it should not go: git traces that log
/// named environment variables or write to a file, disabled trace redaction, and a GitHub CLI
/// host other than github.com (which receives the token). `None` when it does not.
pub(super) fn exposing_assignment(name: &str, value: &str) -> Option<&'static str> {
    let switch = |v: &str| {
        v.is_empty()
            || v.bytes().all(|b| b.is_ascii_digit())
            || ["true", "false", "yes", "no", "on", "off"]
                .iter()
                .any(|w| v.eq_ignore_ascii_case(w))
    };
    let off = |v: &str| {
        v == "0"
            || ["false", "no", "off"]
                .iter()
                .any(|w| v.eq_ignore_ascii_case(w))
    };
    if name == "GIT_TRACE_REDACT" && off(value) {
        return Some("makes git print credentials in its traces");
    }
    if name.starts_with("GIT_TRACE") && !switch(value) {
        return Some(
            "makes git write its trace to a file or log the named environment variables (which may hold secrets)",
        );
    }
    if name == "GH_HOST" && !value.eq_ignore_ascii_case("github.com") {
        return Some("sends the GitHub CLI's requests, with its token, to another host");
    }
    None
}

impl<'a> Run<'a> {
    /// Expansions that make bash evaluate a value as code (see [`shellgate_parser::evaluates::evaluating_parts`]):
    /// arithmetic over a variable (`$((x))`, `${a[i]}`, `${s:n}`, `a[i]=1`, whose value
    /// `a[$(cmd)]` runs `cmd`), indirect expansion (`${!x}`) and prompt expansion (`${x@P}`) —
    /// in a word, an assignment, a redirect target or an unquoted heredoc. Wherever they are,
    /// the clause needs a person and cannot be saved.
    pub(super) fn judge_evaluating_expansions(&self, inv: &Invocation, judged: &mut Judged) {
        if let Some(why) = shellgate_parser::evaluates::evaluating_parts(
            &inv.words,
            &inv.assignments,
            &inv.redirects,
        ) {
            judged.ask_unsaveable(ReasonKind::Opaque, None, display::escape(&why));
        }
    }

    /// Assignments (prefixes, or `export NAME=…`) that change how programs load or run.
    pub(super) fn judge_assignments(&self, inv: &Invocation, judged: &mut Judged) {
        let mut names: Vec<&str> = inv.assignments.iter().map(|a| a.name.as_str()).collect();
        // A declaration sets its name, also by appending (`export PATH+=:/x`) or without a
        // value (`local PATH` in a function empties it).
        names.extend(
            setter_operands(inv)
                .iter()
                .filter(|w| !w.cooked.starts_with('-'))
                .filter(|w| {
                    w.cooked.contains('=')
                        || !inv
                            .words
                            .first()
                            .is_some_and(|v| v.cooked == "export" || v.cooked == "readonly")
                })
                .map(|w| shellgate_parser::declared_variable(&w.cooked).0),
        );
        // `mapfile NAME` and `readarray NAME` fill a variable with lines of input. Unsetting a
        // variable restores what a program does without it, which loads nothing, except for
        // the variables whose absence has a meaning of its own: without `PATH` bash looks
        // commands up in the working directory, without `HOME` `cd` and `~` go elsewhere.
        if let Some(first) = inv.words.first() {
            let operands = inv
                .words
                .iter()
                .skip(1)
                .map(|w| w.cooked.as_str())
                .filter(|w| !w.starts_with('-'));
            match first.cooked.as_str() {
                "mapfile" | "readarray" => names.extend(operands),
                "unset" if !inv.words.iter().any(|w| w.cooked == "-f") => {
                    names.extend(operands.filter(|name| matches!(*name, "PATH" | "HOME")));
                }
                _ => {}
            }
        }
        // `printf -v NAME FORMAT …` stores its output in `NAME`.
        if inv.words.first().is_some_and(|w| w.cooked == "printf") {
            let mut words = inv.words.iter().skip(1).map(|w| w.cooked.as_str());
            while let Some(word) = words.next() {
                match word {
                    "-v" => names.extend(words.next()),
                    "--" => break,
                    w if w.starts_with("-v") => names.extend(w.get(2..)),
                    _ => break,
                }
            }
        }
        // `read NAME…` assigns a line of input to each NAME (a word that is an option's value,
        // such as `read -p PATH`'s prompt, counts too: it can only ask more).
        if inv.words.first().is_some_and(|w| w.cooked == "read") {
            names.extend(
                inv.words
                    .iter()
                    .skip(1)
                    .map(|w| w.cooked.as_str())
                    .filter(|w| !w.starts_with('-')),
            );
        }
        // `{PATH}>/dev/null` stores a descriptor number in `PATH`.
        names.extend(
            shellgate_parser::evaluates::descriptor_variables(&inv.words, &inv.redirects)
                .into_iter()
                .filter_map(|v| v.split('[').next()),
        );
        // A secret copied under a name that does not look like one (`x=$GITHUB_TOKEN; echo
        // $x`) is printed later without its name: a person decides.
        if kept_by_shell(inv) {
            for assignment in &inv.assignments {
                let copied: Vec<&str> = assignment
                    .value
                    .iter()
                    .chain(assignment.array.iter().flatten())
                    .flat_map(|w| expanded_names(&w.raw))
                    .filter(|n| self.policy().is_secret_name(n))
                    .collect();
                if let Some(secret) = copied.first()
                    && !self.policy().is_secret_name(&assignment.name)
                {
                    judged.ask_unsaveable(
                        ReasonKind::Exposure,
                        None,
                        format!(
                            "copies `${}`, which looks like it holds a secret, into `{}`, whose name does not: printed later, it is not recognised",
                            display::escape(secret),
                            display::escape(&assignment.name)
                        ),
                    );
                }
            }
        }
        for (name, value) in assigned_values(inv) {
            if let Some(why) = exposing_assignment(name, value) {
                judged.ask_unsaveable(
                    ReasonKind::Assignment,
                    None,
                    format!(
                        "`{}={}` {why}",
                        display::escape(name),
                        display::escape(value)
                    ),
                );
            }
        }
        let values = assigned_values(inv);
        // (Code-loading names are judged below, with their exceptions: `PATH=./bin make`.)
        if self.policy().is_environment_program(&inv.words)
            && let Some(name) = inv
                .assignments
                .iter()
                .filter(|a| !names_no_program(a) && !self.sets_data(a))
                .map(|a| a.name.as_str())
                .find(|name| !self.policy().is_code_loading_variable(name))
        {
            judged.ask_unsaveable(
                ReasonKind::Assignment,
                None,
                format!(
                    "setting `{}` overrides a variable of the program's own (`settings.environment_programs`), which may name a program it runs (a make recipe's `$(GO)`, an MSBuild `Exec`)",
                    display::escape(name)
                ),
            );
        }
        let mut loading = false;
        for name in &names {
            let name = *name;
            if self.policy().is_code_loading_variable(name)
                && !self.sets_a_harmless_program(name, &names, &values)
                && !self.sets_only_data(name, &names, &values)
                && !self.sets_project_module_path(inv, name, &names, &values)
            {
                judged.ask_unsaveable(
                    ReasonKind::Assignment,
                    None,
                    format!(
                        "setting `{}` changes which program runs or what it loads",
                        display::escape(name)
                    ),
                );
                loading = true;
            }
        }
        if loading {
            return;
        }
        // Any other variable may name a program or a directory to load code from too (a
        // hook's binary, an npm prefix, a native module: `GIT_TEST_FSMONITOR=/tmp/x git
        // status`): a path outside the run zones and the system directories needs a person.
        // (A `*_URL`/`*_URI` variable holds an address: `VITE_API_URL=/api/graphql`.)
        let address = |name: &str| name.ends_with("_URL") || name.ends_with("_URI");
        // Values that start with the home or working directory's variable are paths too
        // (`APP_SETTINGS=$HOME/x.cfg`).
        let mut values = values.clone();
        let home_values: Vec<(&str, String)> = inv
            .assignments
            .iter()
            .filter_map(|a| {
                let value = a.value.as_ref().filter(|v| !v.literal)?;
                let text = value.cooked.as_str();
                let rest = ["$HOME", "${HOME}"]
                    .iter()
                    .find_map(|v| text.strip_prefix(v).map(|r| ("~", r)))
                    .or_else(|| {
                        ["$PWD", "${PWD}"]
                            .iter()
                            .find_map(|v| text.strip_prefix(v).map(|r| (".", r)))
                    })?;
                (!rest.1.contains(['$', '`']))
                    .then(|| (a.name.as_str(), format!("{}{}", rest.0, rest.1)))
            })
            .collect();
        // Any other value that is not known statically still holds what it spells
        // (`PREFIX=${PREFIX:-/tmp/evil}`, `X=$(pwd)/../x`): its literal pieces are judged.
        let dynamic_values: Vec<(&str, String)> = inv
            .assignments
            .iter()
            .filter_map(|a| {
                let value = a.value.as_ref().filter(|v| !v.literal)?;
                let pieces: Vec<&str> = value
                    .cooked
                    .split(['$', '{', '}', '(', ')', '`', '"', '\'', ':'])
                    .map(|p| p.trim_start_matches([':', '-', '=', '+', '?']))
                    .filter(|p| p.starts_with(['/', '~']))
                    .collect();
                (!pieces.is_empty()).then(|| (a.name.as_str(), pieces.join(" ")))
            })
            .collect();
        values.extend(home_values.iter().map(|(n, v)| (*n, v.as_str())));
        values.extend(dynamic_values.iter().map(|(n, v)| (*n, v.as_str())));
        // A shell variable (`dir=~/src`) reaches a program only once exported.
        let exported = !inv.words.is_empty()
            || ["export", "declare", "typeset", "allexport", "set -a"]
                .iter()
                .any(|w| self.command.contains(w));
        for (name, value) in values.iter().filter(|_| exported) {
            // A value that is a shell command line: a program may run it through `sh -c`
            // (`GIT_TEST_FSMONITOR='curl x|sh' git status`).
            if shell_code(value) {
                judged.ask_unsaveable(
                    ReasonKind::Assignment,
                    None,
                    format!(
                        "`{}` is set to `{}`, a shell command line: a program may run it",
                        display::escape(name),
                        display::escape(value)
                    ),
                );
                return;
            }
            if let Some(path) = self.foreign_path_in(inv, value, address(name)) {
                judged.ask_unsaveable(
                    ReasonKind::Assignment,
                    None,
                    format!(
                        "`{}` is set to `{}`, outside the project: a program may load or run what it names",
                        display::escape(name),
                        display::escape(&path)
                    ),
                );
                return;
            }
        }
    }
}

impl Run<'_> {
    /// Whether every assignment of `name` — an editor or pager variable (`GIT_EDITOR=true`,
    /// `PAGER=cat`) — is a literal single program name that the catalog admits by itself as
    /// pure or read-only, so that whatever starts it runs nothing else. A name set without a
    /// literal value (`read PAGER`, `PAGER=$x`) never is.
    fn sets_a_harmless_program(&self, name: &str, names: &[&str], values: &[(&str, &str)]) -> bool {
        let names_a_program = matches!(name, "EDITOR" | "VISUAL" | "PAGER" | "MANPAGER")
            || name.ends_with("_EDITOR")
            || name.ends_with("PAGER");
        if !names_a_program {
            return false;
        }
        let set = names.iter().filter(|n| **n == name).count();
        let harmless = values
            .iter()
            .filter(|(n, value)| *n == name && self.policy().harmless_program(value))
            .count();
        set > 0 && set == harmless
    }

    /// Whether `assignment` sets its variable to a literal value that is data, not a program
    /// or a path (`settings.harmless_assignments`: `TERM=dumb`, `NODE_ENV=production`).
    fn sets_data(&self, assignment: &shellgate_parser::Assignment) -> bool {
        assignment.array.is_none()
            && assignment.value.as_ref().is_some_and(|v| {
                v.literal
                    && self
                        .policy()
                        .is_harmless_assignment(&assignment.name, &v.cooked)
            })
    }

    /// Whether every assignment of `name` sets it literally to data, not a program or a path
    /// (`settings.harmless_assignments`). A name set without a literal value (`read
    /// NODE_OPTIONS`, `NODE_ENV=$x`) never does.
    fn sets_only_data(&self, name: &str, names: &[&str], values: &[(&str, &str)]) -> bool {
        let set = names.iter().filter(|n| **n == name).count();
        let data = values
            .iter()
            .filter(|(n, value)| *n == name && self.policy().is_harmless_assignment(n, value))
            .count();
        set > 0 && set == data
    }

    /// The first absolute or home path in an assigned value (its `:`, `=`, `,`, `;` or
    /// blank-separated pieces; URLs aside) that lies outside the run zones and the system
    /// directories.
    fn foreign_path_in(&self, inv: &Invocation, value: &str, address: bool) -> Option<String> {
        // A remote URL (a scheme and a host) is an address; a `file:` URL names a file on this
        // machine, whatever host it names (`file://localhost/x`).
        if let Some((scheme, rest)) = value.split_once("://") {
            if scheme.eq_ignore_ascii_case("file") {
                let path = rest
                    .find('/')
                    .map_or("", |at| rest.get(at..).unwrap_or_default());
                return self.foreign_path_in(inv, path, false);
            }
            if !rest.starts_with('/') {
                return None;
            }
        }
        let ctx = self.match_context(inv);
        value
            .split([':', '=', ',', ';', ' ', '\t'])
            .map(|piece| piece.trim_start_matches('@'))
            // (A relative path resolves from the working directory: `x/../../evil`.)
            .filter(|piece| piece.starts_with('~') || piece.contains('/') || *piece == "..")
            .find(|piece| {
                let Some(path) = crate::paths::expand(piece, true, ctx.cwd, ctx.home)
                    .and_then(|p| crate::paths::finish(&p, ctx.symlinks))
                else {
                    return true;
                };
                // (An address's path is a route unless it is in the home directory.)
                if address
                    && !ctx
                        .home
                        .is_some_and(|home| crate::paths::is_within(&path, home))
                {
                    return false;
                }
                self.foreign(&path)
            })
            .map(str::to_owned)
    }

    /// Whether every assignment of `name` — a variable that lists directories to load code
    /// from (`settings.module_path_variables`) — is literal and names only directories inside
    /// the run zones (`PYTHONPATH=.`, `PATH=./node_modules/.bin`), resolved from `inv`'s
    /// working directory: code loaded from there is the project's.
    fn sets_project_module_path(
        &self,
        inv: &Invocation,
        name: &str,
        names: &[&str],
        values: &[(&str, &str)],
    ) -> bool {
        if !self.policy().is_module_path_variable(name) {
            return false;
        }
        let ctx = self.match_context(inv);
        let Some(cwd) = ctx.cwd else {
            return false;
        };
        // A variable the shell keeps (`PYTHONPATH=.` alone, `export PATH=./bin`) is read
        // wherever a later clause runs (`…; cd /tmp; pip --version` loads `/tmp`'s modules): a
        // relative directory is not known.
        let persists = kept_by_shell(inv)
            && self
                .expansion
                .invocations
                .iter()
                .any(|other| other.cwd != inv.cwd);
        let set = names.iter().filter(|n| **n == name).count();
        let in_project = values
            .iter()
            .filter(|(n, value)| {
                *n == name
                    && !value.is_empty()
                    && value.split(':').all(|dir| {
                        !dir.is_empty()
                            && !dir.starts_with('~')
                            && (!persists || dir.starts_with('/'))
                            // (Where its links lead: `ext -> /opt/x` is not the project's.)
                            && crate::paths::expand(dir, false, Some(cwd), ctx.home)
                                .and_then(|p| crate::paths::finish(&p, ctx.symlinks))
                                .is_some_and(|p| self.state.run_zone_for(&p).is_some())
                    })
            })
            .count();
        set > 0 && set == in_project
    }

    /// A command whose output goes to the transcript (a pure or read-only one) that expands a
    /// variable whose name looks like it holds a secret (`echo $GITHUB_TOKEN`, a heredoc
    /// `$AWS_SECRET_ACCESS_KEY`) puts the secret into the agent's context: a person decides.
    pub(super) fn judge_exposure(&self, inv: &Invocation, judged: &mut Judged) {
        let mut texts: Vec<&str> = inv.words.iter().map(|w| w.raw.as_str()).collect();
        for redirect in &inv.redirects {
            match &redirect.target {
                shellgate_parser::RedirectTarget::Heredoc(heredoc) if !heredoc.quoted => {
                    texts.push(&heredoc.body);
                }
                // A here-string is the command's input, printed by `cat <<< "$TOKEN"`.
                shellgate_parser::RedirectTarget::Word(word)
                    if redirect.op == shellgate_parser::RedirectOp::HereString =>
                {
                    texts.push(&word.raw);
                }
                _ => {}
            }
        }
        let mut names: Vec<&str> = texts
            .into_iter()
            .flat_map(expanded_names)
            .filter(|name| self.policy().is_secret_name(name))
            .collect();
        names.sort_unstable();
        names.dedup();
        if !names.is_empty() {
            judged.ask_unsaveable(
                ReasonKind::Exposure,
                None,
                format!(
                    "prints `${}`, which looks like it holds a secret (into the agent's transcript)",
                    names.join("`, `$")
                ),
            );
        }
    }
}

/// Whether the variables `inv` sets stay set for the clauses after it: a bare assignment
/// (`x=1`) or one through `export`, `declare`, `typeset`, `local` or `readonly` (a prefix
/// assignment, `x=1 cmd`, is the command's alone).
/// Whether a variable's value reads as a shell command line rather than data: it holds `;`, `|`,
/// a backquote, `$`, or a redirection, or an `&` that is not a URL query's (every piece after one
/// starts `NAME=`, which a shell would only assign). (Lines alone are data: a message.)
fn shell_code(value: &str) -> bool {
    if value.contains([';', '|', '`', '$', '<', '>']) {
        return true;
    }
    let mut pieces = value.split('&');
    pieces.next();
    pieces.any(|piece| {
        let name = piece.split_once('=').map_or("", |(n, _)| n);
        name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '[' | ']'))
    })
}

fn kept_by_shell(inv: &Invocation) -> bool {
    inv.words.first().is_none_or(|w| {
        matches!(
            w.cooked.as_str(),
            "export" | "declare" | "typeset" | "local" | "readonly"
        )
    })
}

/// The variable names a shell text expands (`$NAME`, `${NAME…}`), outside single quotes and
/// not escaped.
pub(super) fn expanded_names(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut single = false;
    let mut double = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'$' if !single => {
                let start = if bytes.get(i + 1) == Some(&b'{') {
                    i + 2
                } else {
                    i + 1
                };
                let len = bytes
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                if len > 0
                    && bytes.get(start).is_some_and(|c| !c.is_ascii_digit())
                    && let Some(name) = text.get(start..start + len)
                {
                    out.push(name);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether an assignment's value is a literal number or switch (`VERBOSE=1`, `CI=true`,
/// `DOTNET_NOLOGO=1`), which cannot name a program a recipe runs (not `yes`, a program).
fn names_no_program(assignment: &shellgate_parser::Assignment) -> bool {
    assignment.array.is_none()
        && assignment.value.as_ref().is_some_and(|v| {
            let text = v.cooked.to_ascii_lowercase();
            v.literal
                && (text.is_empty()
                    || text.chars().all(|c| c.is_ascii_digit())
                    || matches!(text.as_str(), "true" | "false" | "no" | "on" | "off"))
        })
}

#[cfg(test)]
mod tests {
    use super::expanded_names;

    #[test]
    fn shell_command_lines_among_values() {
        use super::shell_code;
        for code in [
            "curl x|sh",
            "cd;rm -rf *",
            "a&b",
            "x > y",
            "`id`",
            "$(id)",
            "a&=x",
        ] {
            assert!(shell_code(code), "{code}");
        }
        for data in [
            "debug",
            "-O2 -g",
            "https://x.io/a?b=1&c=2",
            "a=1&b[]=2",
            "",
            "x&y.z=1",
            "a\nb",
        ] {
            assert!(!shell_code(data), "{data}");
        }
    }

    #[test]
    fn names_expanded_outside_single_quotes() {
        assert_eq!(expanded_names("echo $A ${B:-x} \"$C\""), ["A", "B", "C"]);
        assert_eq!(expanded_names("echo '$A' \\$B $1 $"), Vec::<&str>::new());
        assert_eq!(expanded_names("\"it's $TOKEN\""), ["TOKEN"]);
    }
}
