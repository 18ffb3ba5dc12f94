//! Red-team regressions (issue 7): each test is named after a bypass that was found, and
//! asserts the exact decision of the commands that showed it — plus the legitimate neighbours
//! that must keep their decision, so a fix cannot cry wolf.
//!
//! Every case runs on the embedded default policy with audience `personal`, cwd = project =
//! `/home/u/proj`, home `/home/u`, tmp `/tmp`, no grants, symbolic links not resolved.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a failed step should fail the test loudly"
)]

use std::sync::OnceLock;

use shellgate_policy::{Decision, GateEvaluator, Policy, TrustState};

use Decision::{Approved, HardDenied, NeedsPrompt};

fn gate() -> &'static (GateEvaluator, TrustState) {
    static GATE: OnceLock<(GateEvaluator, TrustState)> = OnceLock::new();
    GATE.get_or_init(|| {
        let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
        let mut state = TrustState::new("personal", "/home/u/proj");
        state.set_home("/home/u");
        state.set_project("/home/u/proj");
        state.set_tmp("/tmp");
        state.set_resolve_symlinks(false);
        gate.apply_profile(&mut state).unwrap();
        (gate, state)
    })
}

/// Asserts every `(command, decision)` pair, reporting all mismatches at once.
fn expect(cases: &[(&str, Decision)]) {
    let (gate, state) = gate();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(command, expected)| {
            let evaluation = gate.evaluate(command, state);
            (evaluation.decision != *expected).then(|| {
                let reasons: Vec<String> = evaluation
                    .clauses
                    .iter()
                    .map(|c| {
                        let r: Vec<String> = c
                            .reasons
                            .iter()
                            .map(|r| format!("{}: {}", r.kind, r.message))
                            .collect();
                        format!("    {:?} {} :: {}", c.argv, c.decision, r.join(" | "))
                    })
                    .collect();
                format!(
                    "{command:?}: expected {expected}, got {}\n{}",
                    evaluation.decision,
                    reasons.join("\n")
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn arithmetic_on_variable_is_not_approved() {
    expect(&[
        ("echo $((x))", NeedsPrompt),
        ("echo $(( x ))", NeedsPrompt),
        ("(( x ))", NeedsPrompt),
        // `$1` may hold `a[$(cmd)]` as much as `x` may.
        ("(( $1 ))", NeedsPrompt),
        ("echo $(($1))", NeedsPrompt),
        ("echo $[x]", NeedsPrompt),
        // The first `$[…]` was skipped when a `$((…))` followed it.
        ("echo $[x]$((1))", NeedsPrompt),
        ("x='a[$(id)]'; echo $((x))", NeedsPrompt),
        ("bash -c 'echo $(($1))' x 'a[$(id)]'", NeedsPrompt),
        // Numbers only: nothing is evaluated.
        ("echo $((1 + 2))", Approved),
        ("(( 1 + 2 ))", Approved),
        ("(( $# > 1 ))", Approved),
    ]);
}

#[test]
fn indirect_and_prompt_expansions_are_not_approved() {
    expect(&[
        ("echo ${!x}", NeedsPrompt),
        ("echo ${x@P}", NeedsPrompt),
        ("echo \"${x@P}\"", NeedsPrompt),
        ("echo ${x@Q} ${x@E} ${x,,}", Approved),
        ("echo $x", Approved),
        ("echo \"$x\" ${x:-default} ${#x}", Approved),
    ]);
}

#[test]
fn array_subscript_over_variable_is_not_approved() {
    expect(&[
        ("echo ${arr[i]}", NeedsPrompt),
        ("echo ${arr[$i]}", NeedsPrompt),
        ("echo \"${arr[i+1]}\"", NeedsPrompt),
        ("echo ${#arr[i]}", NeedsPrompt),
        ("a[$i]=1", NeedsPrompt),
        ("a[i]=1", NeedsPrompt),
        ("a=([i]=1)", NeedsPrompt),
        ("a+=([$i]=1)", NeedsPrompt),
        ("x=${a[i]} ls", NeedsPrompt),
        ("echo ${arr[0]} ${arr[-1]} ${arr[@]} ${#arr[@]}", Approved),
        ("a=(1 2); a[0]=3", Approved),
    ]);
}

#[test]
fn substring_offset_over_variable_is_not_approved() {
    expect(&[
        ("echo ${x:y}", NeedsPrompt),
        ("echo ${x:$y}", NeedsPrompt),
        ("echo ${x:0:n}", NeedsPrompt),
        ("echo ${@:x}", NeedsPrompt),
        ("echo \"${*:$1}\"", NeedsPrompt),
        ("echo ${x:1} ${x: -1} ${x:1:2} ${x:(-1)}", Approved),
    ]);
}

#[test]
fn evaluating_expansion_in_heredoc_body_is_not_approved() {
    expect(&[
        ("cat <<EOF\n$((x))\nEOF", NeedsPrompt),
        ("cat <<EOF\n${x@P}\nEOF", NeedsPrompt),
        ("cat <<EOF\n${a[i]}\nEOF", NeedsPrompt),
        ("cat <<< $((x))", NeedsPrompt),
        // A quoted delimiter: the body is not expanded.
        ("cat <<'EOF'\n$((x)) ${!x}\nEOF", Approved),
        ("cat <<EOF\n$x $((1))\nEOF", Approved),
    ]);
}

#[test]
fn evaluating_expansion_in_wrapper_options_is_not_approved() {
    expect(&[
        ("nice -n $((x)) ls", NeedsPrompt),
        ("timeout ${x:y} ls", NeedsPrompt),
        ("env -u ${!x} ls", NeedsPrompt),
        ("nice -n 5 ls", Approved),
        ("timeout 5 ls", Approved),
    ]);
}

#[test]
fn evaluating_expansion_in_for_and_case_words_is_not_approved() {
    expect(&[
        ("for v in ${!x}; do echo; done", NeedsPrompt),
        ("for v in ${x@P}; do echo; done", NeedsPrompt),
        ("select v in ${a[i]}; do echo; done", NeedsPrompt),
        ("case $((x)) in *) echo;; esac", NeedsPrompt),
        ("case x in ${x@P}) echo;; esac", NeedsPrompt),
        ("bash -c 'for v in ${!x}; do echo; done'", NeedsPrompt),
        ("for v in a $x; do echo $v; done", Approved),
        ("case $x in a) echo;; esac", Approved),
    ]);
}

#[test]
fn unquoted_heredoc_fed_to_shell_is_expanded_first() {
    expect(&[
        // bash turns `\`` into a backquote before the inner shell reads it.
        ("bash <<EOF\necho \\`touch /srv/x\\`\nEOF", NeedsPrompt),
        ("bash <<EOF\necho \\$(touch /srv/x)\nEOF", NeedsPrompt),
        // Quoted, the backslash stays: the inner shell echoes a backquote and runs nothing.
        ("bash <<'EOF'\necho \\`touch /srv/x\\`\nEOF", Approved),
        // A value expanded into the code is code the gate cannot see.
        ("bash <<EOF\necho $HOME\nEOF", NeedsPrompt),
        ("bash <<EOF\n$(cat notes.txt)\nEOF", NeedsPrompt),
        ("bash <<EOF\nrm -rf /\nEOF", HardDenied),
        ("bash <<EOF\nls\nEOF", Approved),
        ("bash <<'EOF'\necho $HOME\nEOF", Approved),
    ]);
}

#[test]
fn heredoc_on_another_descriptor_is_not_shell_code() {
    expect(&[
        // bash reads its code from the pipe, not from descriptor 3.
        ("cat notes.txt | bash 3<<EOF\nls\nEOF", NeedsPrompt),
        ("cat notes.txt | bash 3<<< ls", NeedsPrompt),
        ("bash <<< ls 0<&3", NeedsPrompt),
        ("bash 0<<< ls", Approved),
    ]);
}

#[test]
fn shell_code_inherits_its_shells_environment() {
    expect(&[
        ("PATH=/tmp/evil bash -c 'ls'", NeedsPrompt),
        ("GIT_PAGER=x bash -c 'git log'", NeedsPrompt),
        ("PYTHONPATH=/tmp/lib eval ls", NeedsPrompt),
        ("LD_PRELOAD=/tmp/x.so bash -c ls", HardDenied),
        ("FOO=1 bash -c 'ls'", Approved),
    ]);
}

#[test]
fn config_and_shell_locating_variables_are_not_approved() {
    expect(&[
        // A `.gitconfig` shipped in the checkout names `core.fsmonitor`.
        ("HOME=. git status", NeedsPrompt),
        ("XDG_CONFIG_HOME=. git status", NeedsPrompt),
        ("GIT_DIR=vendor/evil.git git status", NeedsPrompt),
        // flock runs `$SHELL -c CODE`.
        ("SHELL=/tmp/evil flock /tmp/lock -c 'ls'", NeedsPrompt),
        (
            "BAT_PAGER='sh -c id' bat --paging=always notes.txt",
            NeedsPrompt,
        ),
        ("GCONV_PATH=. iconv -l", NeedsPrompt),
        // A kubeconfig `exec` credential plugin runs on any API call.
        ("KUBECONFIG=./evil kubectl get pods", NeedsPrompt),
        ("DOCKER_CONFIG=. docker ps", NeedsPrompt),
        // `cd` through CDPATH enters `~/.ssh`, not `./.ssh`.
        ("CDPATH=/home/u cd .ssh && cat id_rsa", NeedsPrompt),
        ("flock /tmp/lock -c 'ls'", Approved),
        ("LANG=C git status", Approved),
    ]);
}

#[test]
fn loop_variable_or_default_setting_code_loading_variable_is_not_approved() {
    expect(&[
        ("for PATH in /tmp/evil; do ls; done", NeedsPrompt),
        ("select PATH in /tmp; do ls; done", NeedsPrompt),
        ("for HOME in .; do git status; done", NeedsPrompt),
        (": ${GIT_DIR:=vendor/evil.git}; git status", NeedsPrompt),
        ("bash -c 'for PATH in /tmp/e; do ls; done'", NeedsPrompt),
        ("for f in a b; do echo $f; done", Approved),
        ("echo ${x:=1}", Approved),
    ]);
}

#[test]
fn set_history_expansion_and_keyword_are_not_approved() {
    expect(&[
        // History expansion rewrites the third line into `echo echo a;touch /tmp/x # "`.
        (
            "set -H -o history\necho \"a;touch /tmp/x\"\necho !!:gs/\"// # \"",
            NeedsPrompt,
        ),
        ("set -H", NeedsPrompt),
        ("set -eH", NeedsPrompt),
        ("set -o histexpand", NeedsPrompt),
        ("set -o history", NeedsPrompt),
        // With `-k`, `LD_PRELOAD=x.so` after the command name is an environment assignment.
        ("set -k; ls LD_PRELOAD=/tmp/x.so", NeedsPrompt),
        ("set -o keyword", NeedsPrompt),
        ("set -euo pipefail", Approved),
        ("set -x", Approved),
        ("set +H", Approved),
    ]);
}

#[test]
fn wait_p_subscript_is_not_approved() {
    expect(&[
        ("wait -n -p 'a[$(id)]'", NeedsPrompt),
        ("wait -p pid", NeedsPrompt),
        ("wait", Approved),
        ("sleep 1 & wait", Approved),
    ]);
}

#[test]
fn wrapper_options_do_not_hide_deny_rules() {
    expect(&[
        ("xargs -I{} rm -rf /", HardDenied),
        ("xargs -I {} rm -rf /", HardDenied),
        ("xargs -i rm -rf /", HardDenied),
        ("xargs --replace rm -rf /", HardDenied),
        ("xargs -a list.txt rm -rf /", HardDenied),
        ("/usr/bin/time -o /tmp/t rm -rf /", HardDenied),
        ("xargs -I{} echo {}", NeedsPrompt),
        ("/usr/bin/time -f %e ls", Approved),
    ]);
}

#[test]
fn git_top_level_options_do_not_hide_deny_rules() {
    expect(&[
        ("git -c x=y push --force origin main", HardDenied),
        ("git --git-dir=.git push --force origin main", HardDenied),
        ("git --work-tree . push -f origin main", HardDenied),
        (
            "git --config-env=a.b=X push --force origin main",
            HardDenied,
        ),
        ("git --exec-path=/tmp push --force origin main", HardDenied),
        ("git -C .. -c a=b push --force origin main", HardDenied),
        // Boolean top-level options between `git` and the subcommand.
        ("git --no-pager push --force origin main", HardDenied),
        ("git --bare push -f origin main", HardDenied),
        ("git --no-pager -c x=y push --force origin main", HardDenied),
        // `-c` still makes git judged by itself, unless it sets the pager or the editor to a
        // read-only program.
        ("git -c core.pager=./pager log", NeedsPrompt),
        ("git -c core.pager=less log", Approved),
        ("git --git-dir=../other/.git log", NeedsPrompt),
        // A repository outside the project runs its own configuration's programs.
        ("git -C .. log", NeedsPrompt),
        ("git -C src log", Approved),
        ("git --no-pager log", Approved),
        ("git push --force-with-lease origin feature", NeedsPrompt),
    ]);
}

#[test]
fn uncommon_launchers_do_not_hide_deny_rules() {
    expect(&[
        ("eatmydata rm -rf /", HardDenied),
        ("chrt 1 rm -rf /", HardDenied),
        ("prlimit --nofile=10 -- rm -rf /", HardDenied),
        ("setpriv --reuid 1000 rm -rf /", HardDenied),
        ("fakeroot rm -rf /", HardDenied),
        ("numactl -N 0 rm -rf /", HardDenied),
        ("xvfb-run -a rm -rf /", HardDenied),
        ("firejail --noprofile rm -rf /", HardDenied),
        ("systemd-run --user rm -rf /", HardDenied),
        // Never silent, even around a safe command.
        ("eatmydata ls", NeedsPrompt),
        ("chrt -f 10 ls", NeedsPrompt),
        ("chrt -p 1234", NeedsPrompt),
    ]);
}

#[test]
fn rm_recursive_tilde_user_is_denied() {
    expect(&[
        ("rm -rf ~alice", HardDenied),
        ("rm -r ~root/", HardDenied),
        ("rm -rf ~alice/*", HardDenied),
        ("rm -rf build~", NeedsPrompt),
    ]);
}

#[test]
fn redirect_descriptor_variable_is_judged() {
    expect(&[
        // The substitution in the variable's subscript runs; the parser has no clause for it.
        ("true {a[$(touch /tmp/x)]}>/dev/null", NeedsPrompt),
        ("true {a[i]}>/dev/null", NeedsPrompt),
        // The descriptor number becomes PATH: `git` is then looked up in `./10/`.
        ("true {PATH}>/dev/null; git status", NeedsPrompt),
        ("ls {HOME}>/dev/null", NeedsPrompt),
        ("true {fd}>/dev/null", Approved),
    ]);
}

/// Red team 32k: a command slow to judge (many paths) that also runs `rm -rf ~` was answered ask
/// by the hook after its deadline. The deny rules alone are checked first, without judging any
/// path: they name the rule; ask rules are not deny rules.
#[test]
fn deny_rules_are_found_without_judging_paths() {
    let (gate, state) = gate();
    let ids = |command: &str| -> Vec<String> {
        gate.deny_rule_hits(command, state)
            .into_iter()
            .map(|hit| hit.rule)
            .collect()
    };
    assert_eq!(ids("ls a b c; rm -rf ~"), ["rm-recursive-root"]);
    assert_eq!(ids("ls a b c"), Vec::<String>::new());
    assert_eq!(ids("shopt -s compat42"), Vec::<String>::new());
}
