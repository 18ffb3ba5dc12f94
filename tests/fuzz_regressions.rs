//! Bugs found by fuzzing (`fuzz/`, issue 7), each a minimal reproducer named after the bug.
//!
//! Every bug found so far is fixed; its reproducer stays here so it cannot come back. (A bug
//! that is found but not fixed yet gets an `#[ignore = "open bug …"]` reproducer and a check in
//! the fuzz target that keeps a campaign from stopping on it; the fix removes both.)

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failed step should fail the test loudly"
)]

use std::time::{Duration, Instant};

use shellgate_parser::{DiagnosticKind, ParseOptions, ParseOutput, parse, render};
use shellgate_policy::{Decision, GateEvaluator, Policy};

/// Parsing the rendered text gives the same clause graph (the contract of `render`).
fn assert_round_trip(input: &str) {
    let options = ParseOptions::default();
    let out = parse(input, &options);
    assert!(out.complete, "{input:?}: {:?}", out.reason());
    let rendered = render(input).unwrap();
    let again = parse(&rendered, &options);
    assert!(again.complete, "{rendered:?}: {:?}", again.reason());
    assert_eq!(out.graph, again.graph, "{input:?} renders as {rendered:?}");
}

/// Asserts that `input` does not parse completely, and that the first diagnostic is a syntax error.
#[track_caller]
fn assert_syntax_error(input: &str) {
    let out = parse(input, &ParseOptions::default());
    assert!(!out.complete, "{input:?} parsed completely");
    assert_eq!(
        out.diagnostics.first().map(|d| d.kind),
        Some(DiagnosticKind::Syntax),
        "{input:?}"
    );
}

/// The decision on `command` (default policy, audience `personal`), with the time it took
/// printed (the regressions of evaluation timeouts assert the decision, never a time).
fn timed_decision(command: &str) -> Decision {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    let start = Instant::now();
    let evaluation = gate.evaluate(command, &state);
    eprintln!("{} bytes evaluated in {:?}", command.len(), start.elapsed());
    evaluation.decision
}

/// Parses on a thread with the default 2 MiB stack and returns the output with the time taken.
fn timed_parse(input: String) -> (ParseOutput, Duration) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let start = Instant::now();
            let out = parse(&input, &ParseOptions::default());
            (out, start.elapsed())
        })
        .unwrap()
        .join()
        .unwrap()
}

// Crash input (parse target): b"[\n\r" — minimised to `echo a\r`.
#[test]
fn render_keeps_a_word_ending_in_carriage_return() {
    // `echo a\r` runs `echo` with the argument `a\r`; the rendered `echo a\r\n` runs `echo a`.
    assert_round_trip("echo a\r");
    assert_round_trip("\r");
}

// Crash input (parse target): b"git show-brancfor f in a ???…d\\" — minimised to `echo d\`.
#[test]
fn render_keeps_a_trailing_backslash() {
    assert_round_trip("echo d\\");
}

// Crash inputs (parse target): b" <2EOF@ <2 in \xbb…" — minimised to `<@ in`; and
// b">$(d) $(/)".
#[test]
fn render_keeps_redirects_before_words() {
    // `<x if` runs a command named `if`; rendered as `if <x` it opens an `if` statement.
    assert_round_trip("<x if");
    assert_round_trip("<@ in");
    // The substitutions swap places in the clause graph.
    assert_round_trip(">$(d) $(/)");
    assert_round_trip("echo >$(d) $(/)");
}

// Timeout inputs (parse target, > 10 s each under the fuzzer): 483 bytes of nested
// `${ ech:-tOF\n` in a double-quoted assignment; 495 bytes of `=$(r! -rf … $((…); lk=l…`;
// 497 bytes of `C=">(${D>(funZ/yum -…`. Reduced to the shapes below. Each nesting level made
// pest parse the rest twice (a `${ ` tried as a command and then as a parameter, a failed part
// of a word tried again as the next word, `$((` tried as arithmetic and then as a
// substitution…), so 20 levels cost a million times one. The grammar now decides each of
// these once; the test proves it without timing anything: pest's work limit (2,000,000 calls,
// `limits::CALL_LIMIT`) is never what stops these parses, the syntax error is.
#[test]
fn parse_time_is_bounded_under_exponential_backtracking() {
    let shapes: &[(&str, usize)] = &[
        ("${ e:-", 40),
        ("$\"${", 30),
        ("${$\"", 30),
        ("$'${", 40),
        ("${\n}\"\"", 40),
        ("${ a; }x", 40),
        ("${|e:-", 40),
        ("${\te:-", 40),
        ("${\ne:-", 40),
        ("$(a>(", 30),
        ("C=\">(${D>(funZ/yum -", 20),
        ("x$(", 40),
        ("a=$(", 40),
        ("a[$(", 30),
        ("local a=$(", 40),
        ("$((", 30),
        ("((a ", 30),
        ("time $(", 40),
        ("! $(", 40),
        ("coproc a { $(", 20),
        ("[[ a =~ $(", 15),
        ("[[ a =~ ( $(", 12),
        ("[[ a =~ (<(", 12),
        ("[[ a =~ (((((((((((((((((((((((((((((((", 1),
        ("echo <(", 40),
        ("cat <<<$(", 40),
        ("for x in $(", 30),
        ("case $(", 30),
        // A descriptor before a redirect whose target fails (`3<$(…`): tried as a redirect,
        // then again as the word `3` and the redirect `<$(…` (found in the fuzz corpus, where
        // 850 bytes took 350 ms in release).
        ("3<$(", 30),
        ("x 3>$(", 30),
        ("x {a}<$(", 30),
        ("a=1 2>&$(", 30),
        ("local 3<<<$(", 30),
        // A case body that fails, parsed again as the next item's pattern.
        ("case x in a) $(", 30),
        ("case x in a)$(a;", 30),
        // `time` before a backtick word, parsed again as a command named `time`.
        ("``$(time ", 30),
        ("$(a;(time ``", 30),
        // A declaration builtin before a process substitution (`typeset>(…`): one word, once
        // parsed as a declaration's word and again as a command word.
        ("typeset>(", 30),
        ("local <(", 30),
        // A `}` after a command's blanks whose word fails (`}${ …`): taken as the closing
        // brace of `${ a }`, then the rest of the word parsed again.
        ("${ a }", 40),
        ("x${ a }", 40),
        ("\"${\na }\"", 40),
        ("${ a=1 }", 40),
        // `!` before a command that starts with `&>` and fails: `&` was read as the end of the
        // pipeline, so the command was parsed again as a command named `!`.
        ("!&>$(", 40),
        ("! &>>$(", 40),
        ("<(!&>$(", 30),
        // `while c; {`: a group that fails inside the condition, parsed again as the body
        // (only `for` and `select` take a `{ …; }` body).
        ("while s;{ ", 25),
        ("until s\n{ ", 25),
        // `coproc for((`: `for` read as a coprocess name before a subshell, then again as an
        // arithmetic `for`.
        ("coproc for((x; $(", 12),
        // A keyword glued to a process substitution (`do>(…`): one word in bash, but the
        // keyword was tried after the word failed, and the substitution parsed twice per level.
        ("while l do>(", 30),
        ("until l do<(", 30),
        ("if l then>(", 30),
    ];
    // These two repeat into valid text: `${` and a newline then `}` is an empty bash 5.3
    // command substitution, and `${ a; }x` one followed by `x`.
    let complete_ok = ["${\n}\"\"", "${ a; }x"];
    for &(opener, times) in shapes {
        let input = opener.repeat(times);
        let (out, elapsed) = timed_parse(input.clone());
        eprintln!(
            "{opener:?} x{times} ({} bytes) parsed in {elapsed:?}",
            input.len()
        );
        let kind = out.diagnostics.first().map(|d| d.kind);
        assert!(
            matches!(
                kind,
                Some(DiagnosticKind::Syntax | DiagnosticKind::Unterminated)
            ) || (out.complete && complete_ok.contains(&opener)),
            "{opener:?} x{times}: {kind:?} {:?}",
            out.reason()
        );
    }
    // Brackets after a parameter with `[` in it (`"${[""}"`) are counted by the nesting
    // pre-scan, which used to read them as quoted text: 200 of them reached pest and cost up
    // to its work limit on every recovery run.
    let input = format!("\"${{[\"\"}}\"\n{}", "(".repeat(200));
    let (out, _) = timed_parse(input);
    assert_eq!(
        out.reason(),
        Some("nesting is deeper than 64 levels"),
        "{:?}",
        out.diagnostics
    );
    // Prefix recovery parses again before each of up to 8 earlier `;`: each of those runs is
    // linear too.
    let input = format!("{};", "${ e:-".repeat(7)).repeat(9);
    let (out, elapsed) = timed_parse(input);
    eprintln!("387-byte `${{ e:-` command parsed in {elapsed:?}");
    assert_eq!(
        out.diagnostics.first().map(|d| d.kind),
        Some(DiagnosticKind::Unterminated)
    );
}

#[test]
fn nested_shell_code_parse_time_is_bounded_in_total() {
    // 40 `bash -c '${ e:-…'` clauses: each code string used to cost a full pest call limit
    // (~0.7 s in release), 30 s in all. Each is now one linear parse that ends in a syntax
    // error (not the work limit), and the command needs a person.
    let inner = "${ e:-".repeat(12);
    let inner_out = parse(&inner, &ParseOptions::default());
    assert_eq!(
        inner_out.diagnostics.first().map(|d| d.kind),
        Some(DiagnosticKind::Unterminated),
        "{:?}",
        inner_out.reason()
    );
    let code = format!("bash -c '{inner}'");
    let command = vec![code; 40].join("; ");
    assert_eq!(timed_decision(&command), Decision::NeedsPrompt);
}

// Crash input (parse target): b"{\xff\xff… <<A; c=at <<B\nat} }…${x:-$(d)}\n…A\n…B" — minimised
// below. Render printed one list element per line, so `c=1` moved after the heredoc body and
// behind the body's `$(d)` in the clause graph; it now stays on the line that opened the
// heredoc, as written.
#[test]
fn render_keeps_commands_before_a_pending_heredoc_body() {
    assert_round_trip("x <<A; c=1 <<B\n$(d)\nA\nb\nB\n");
    assert_round_trip("cat <<A & echo $(y)\n$(d)\nA\n");
    assert_round_trip("{ cat <<A; }; echo $(y)\n$(d)\nA\n");
    assert_round_trip("while read l; do cat <<A; done; echo $(y)\n$(d)\nA\n");
    assert_round_trip("if cat <<A; then echo $(y); fi\n$(d)\nA\n");
    assert_round_trip("case x in a) cat <<A;; b) echo $(y);; esac\n$(d)\nA\n");
    assert_round_trip("for x in a b; do cat <<A; echo $(y); done\n$(d)\nA\n");
    assert_round_trip("for ((;;)); do cat <<A; done; echo $(y)\n$(d)\nA\n");
    // A body on the next line stays where it was.
    assert_round_trip("cat <<A\n$(d)\nA\necho $(y)\n");
    assert_round_trip("{ cat <<A; echo $(y)\n$(d)\nA\n}\n");
    assert_eq!(
        render("x <<A; c=1\nbody\nA\n").unwrap(),
        "x <<A; c=1\nbody\nA\n"
    );
}

/// Every input the fuzzer ever stopped on (`tests/data/fuzz/parse/crash-*` and `timeout-*`,
/// copied from `fuzz/artifacts/parse/`) and the slowest inputs of its corpus (`slow-*`: 300 ms
/// and 24 ms, from `$"${` nesting and the `((` probe) parses without reaching the work limit
/// (the nesting limit may refuse one), and a complete parse renders to text with the same
/// clause graph — the checks of the `parse` fuzz target.
#[test]
fn recorded_parse_artifacts_pass_the_fuzz_checks() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz/parse");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let input = String::from_utf8_lossy(&bytes).into_owned();
        let (out, elapsed) = timed_parse(input.clone());
        eprintln!("{}: {elapsed:?}", path.display());
        assert!(
            !out.reason().is_some_and(|r| r.contains("work limit")),
            "{}: {:?}",
            path.display(),
            out.reason()
        );
        if out.complete {
            assert_round_trip(&input);
        }
    }
}

// Crash input (parse target): b"select c{\nper???? <<}2\r\n}2\r\na\nb\n}\n…" — minimised below.
// The delimiter `}2\r` keeps its carriage return (as in bash), but render printed the
// terminator line without it, so the rendered heredoc never ended.
#[test]
fn render_keeps_a_carriage_return_that_ends_a_heredoc_terminator() {
    assert_round_trip("cat <<E\r\nbody\nE\r\necho $(x)\n");
    assert_round_trip("{ cat <<}2\r\n}2\r\na\n}\n");
    let rendered = render("cat <<E\r\nbody\nE\r\n").unwrap();
    assert_eq!(rendered, "cat <<E\r \nbody\nE\r\n");
}

/// Found by the `evaluate` target (session 18): `/rm -fr */etc//s` (rm named by a path outside
/// the trusted bin directories) was offered "Session", and after it the recursive delete still
/// asked. A recursive delete that is not a disposable output is now never saved, whatever names
/// the program, so the prompt is not persistable and a Session answer is never offered.
#[test]
fn a_recursive_delete_by_a_path_named_rm_is_never_persistable() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    for command in [
        "/rm -fr src",
        "=/=t&//etc//t&p//pxttc//t&p//p=/=t&/rm -fr */etc//s&p//pxttc//t&p//pxxt&/l&/ls",
    ] {
        let evaluation = gate.evaluate(command, &state);
        assert_eq!(evaluation.decision, Decision::NeedsPrompt, "{command}");
        assert!(!evaluation.prompt.unwrap().persistable, "{command}");
    }
}

/// Found by the `evaluate` target (session 18): `curl … '  nction '` proposed the host
/// `nction` (a host grant trims and checks its text) while the gate compared `  nction `, so
/// a Session answer did not approve it. A URL whose host is not a plain host name is now a
/// host not known statically: never proposed, never saved.
#[test]
fn a_url_host_with_blanks_is_not_known_statically() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    let command = "curl https://ehttps://enction '  nction '  hh";
    let evaluation = gate.evaluate(command, &state);
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    let prompt = evaluation.prompt.unwrap();
    assert!(!prompt.persistable);
}

/// Found by the `evaluate` target (session 29): `git -c coren3 -c pager="sh -c id" coren3 -c p
/// log` proposed `git -c coren3 -c *`, taking the value `coren3` for the subcommand, and saving
/// it was refused (git needs a subcommand). A proposal is now checked as saving checks it: this
/// one is none, and the prompt is not persistable.
#[test]
fn a_proposal_is_one_that_saving_accepts() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    let command = r#"git -c coren3 -c pager="sh -c id" coren3 -c p log"#;
    let evaluation = gate.evaluate(command, &state);
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    let prompt = evaluation.prompt.unwrap();
    assert!(!prompt.persistable);
    assert_eq!(prompt.clauses.first().unwrap().pattern, None);
}

// Crash input (parse target, session 21): b"noa\nusage@( ){\nOF\n}\n\nno" — render printed the
// definition as `usage@() { OF\n}`, which reads back as the extglob word `usage@()` followed
// by `{`, and the lone `}` is then a syntax error.
#[test]
fn render_keeps_a_function_name_ending_in_an_extglob_character() {
    for name in ["f@", "f*", "f+", "f?", "f!"] {
        let input = format!("{name}( ){{\nOF\n}}\nno");
        assert_eq!(
            render(&input).unwrap(),
            format!("{name} () {{ OF\n}}\nno\n")
        );
        assert_round_trip(&input);
        assert_round_trip(&format!("function {name}() {{ a; }}"));
    }
    assert_eq!(render("f( ){ a; }").unwrap(), "f() { a\n}\n");
}

// Crash inputs (parse target, session 23, on bf81882's parser), reduced:
// * `x <<A; a=(r⏎body⏎A⏎b)`: the newline inside the array reads the body; render printed the
//   array as written, body included, and then the body again after the line.
// * `find {{{…{#{{{;{{{{…` (39 `{`, then 60 more after the `;`): the nesting pre-scan read `#`
//   after `{` as a comment to the end of the line, so the input passed with 99 brackets; the
//   rendering, with a newline for the `;`, was refused as too deep. `{#` is a word (bash), and
//   the brackets after it count: the input itself is now refused (incomplete), like its
//   rendering.
#[test]
fn render_prints_a_heredoc_body_read_inside_an_array_once() {
    assert_round_trip("x <<A; a=(r\nbody\nA\nb)");
    assert_eq!(
        render("x <<A; a=(r\nbody\nA\nb)").unwrap(),
        "x <<A; a=(r\nbody\nA\nb)\n"
    );
    assert_round_trip("cat <<A <<B; a=(r\n1\nA\n2\nB\nb) c\n");
    let input = format!("find {}#{{{{{{;{}", "{".repeat(39), "{".repeat(60));
    let out = parse(&input, &ParseOptions::default());
    assert_eq!(
        out.reason(),
        Some("nesting is deeper than 64 levels"),
        "{:?}",
        out.diagnostics
    );
}

// Crash input (parse target, session 24, run A9): 1.5 KiB around `A="${ #["⏎…$(… cd<< A;…)…`,
// minimised by libFuzzer to `${ $(<<A);}⏎A`. The parse was right: the heredoc opened two
// substitutions deep reads its body after the line. Render printed the outer word as written
// and then the line end, but looked for pending heredocs only one substitution deep, so the
// body and its terminator were dropped and the rendering did not parse.
#[test]
fn render_prints_a_heredoc_body_opened_two_substitutions_deep() {
    for input in [
        "${ $(<<A);}\nA",
        "$( $(<<A);)\nA",
        "echo \"$(echo $(cat <<A))\"\nbody\nA\n",
        "for x in $(a $(<<A)); do b; done\nbody\nA\n",
        "case $( $(<<A) ) in x) y;; esac\nbody\nA\n",
        "[[ $( $(<<A) ) ]]\nbody\nA\n",
        "x=$( $(<<A) ) y\nbody\nA\n",
        "y >$( $(<<A) )\nbody\nA\n",
    ] {
        assert_round_trip(input);
    }
    assert_eq!(render("$( $(<<A);)\nA").unwrap(), "$( $(<<A);)\nA\n");
}

// Crash input (parse target, session 24, run A10 on 4e26fb8), minimised by libFuzzer to
// `<<EOF|(⏎$(n)⏎EOF⏎h)`: the newline after `|(` reads the body, before the subshell's first
// command. Render printed `<<EOF | ( h⏎$(n)⏎EOF⏎)`, which parses, but with the body's `$(n)`
// after `h`: the clauses came back in another order. A list whose first command the source
// wrote after pending bodies now starts on a new line, after them.
#[test]
fn render_writes_bodies_read_before_a_lists_first_command_before_it() {
    for input in [
        "<<EOF|(\n$(n)\nEOF\nh)",
        "<<EOF|{\n$(n)\nEOF\nh; }",
        "<<EOF|if\n$(n)\nEOF\nh; then i; fi",
        "<<EOF|while\n$(n)\nEOF\nh; do i; done",
    ] {
        assert_round_trip(input);
    }
    assert_eq!(
        render("<<EOF|(\n$(n)\nEOF\nh)").unwrap(),
        "<<EOF | ( \n$(n)\nEOF\nh\n)\n"
    );
}

// Crash input (parse target, session 25, run B12 on c237770): `a[$…"\;sf"%\\⏎⏎|&⏎…]=1`,
// reduced to `a[x|⏎y]=1`. The grammar ended a subscript at a newline, so the word `a[x` was a
// command piped into `y]=1`; render joined the pipeline on one line, `a[x | y]=1`, which is one
// assignment. Bash reads a subscript to its matching `]` across newlines (`a[x|⏎y]=1` sets
// `a[0]`, and `a[x⏎echo hi` is a syntax error: unexpected end of file looking for `]`): the
// grammar now does too.
#[test]
fn an_assignment_subscript_goes_on_across_newlines() {
    for input in ["a[x|\ny]=1", "a[x\n]=1 b", "a[$(b)\n]=1; c", "x=$[1\n+2]"] {
        assert_round_trip(input);
    }
    let out = parse("a[x|\ny]=1", &ParseOptions::default());
    assert!(out.complete);
    let clauses: Vec<_> = out.graph.clauses().collect();
    assert_eq!(clauses.len(), 1);
    assert_eq!(
        clauses[0]
            .assignments
            .iter()
            .map(|a| (a.name.as_str(), a.index.as_deref()))
            .collect::<Vec<_>>(),
        [("a", Some("x|\ny"))]
    );
}

// Crash input (parse target, session 25, run A13 on 625fb47, after the fix above): 1 KiB of
// `a[]=v` words, minimised by libFuzzer to `r[ #]⏎]=`. The word `r[` was a command with the
// comment ` #]`; render dropped the comment, and `r[⏎]=` read back as one assignment. Where an
// assignment may stand, bash reads `NAME[` to its matching `]` as one word (`r[ #]` is a
// command named `r[ #]`). Such a word that is not an assignment and whose brackets hold a blank,
// a newline or an operator is now refused (incomplete: the gate asks), not split.
// Then (run A14 on 8ed7762, after 3,712,430 executions; minimised to `i[;#[⏎]`): a `[` that
// never closes. Bash calls it a syntax error (unexpected end of file looking for `]`); the
// grammar read `i[`, `;`, the comment `#[` and `]`, and render, dropping the comment, made
// `i[⏎]`. Such a word is refused too.
#[test]
fn a_bracketed_command_word_with_a_blank_inside_is_refused() {
    for input in [
        "r[ #]\n]=",
        "r[ x]",
        "x=1 r[a;b] c",
        "declare r[ #]\n]=1",
        "i[;#[\n]",
        "a[x",
    ] {
        assert_syntax_error(input);
    }
    for input in ["r[x]y", "echo r[ x]", "a[x y]=1 b", "declare a[1 + 2]=3"] {
        assert_round_trip(input);
    }
}

// Slow input (parse target, session 25: 0.8–1.9 KiB took 130–300 ms, near pest's work limit;
// reduced to `while l do>(` repeated). Bash reads a keyword glued to a process substitution as
// one word (`do>(x)` runs or passes `do/dev/fd/63`), but the grammar ended a keyword at any `<`
// or `>`: after the word `do>(…` failed, `do` was tried as the keyword and the substitution
// parsed again, twice per nesting level. A keyword now ends only where bash ends it.
#[test]
fn a_keyword_glued_to_a_process_substitution_is_one_word() {
    for input in [
        "while false; do>(cat); done",
        "if true; then>(cat); fi",
        "{ a; }>(cat)",
    ] {
        assert_syntax_error(input);
    }
    for input in [
        "while l do>(x); do y; done",
        "echo then<(x) done>(y)",
        "do>(x)",
    ] {
        assert_round_trip(input);
    }
    let out = parse("while l do>(x); do y; done", &ParseOptions::default());
    let argv: Vec<Vec<&str>> = out
        .graph
        .clauses()
        .map(|c| c.argv.iter().map(|w| w.raw.as_str()).collect())
        .collect();
    assert_eq!(argv, [vec!["l", "do>(x)"], vec!["x"], vec!["y"]]);
}

// Crash input (parse target, session 23): `usagePROMPT_COMMAND=( ){\nOF\n}` among other
// definitions. The grammar took it for a function named `usagePROMPT_COMMAND=`; render printed
// `usagePROMPT_COMMAND=() { OF\n}`, which reads back as the array assignment `…=()` and a
// command `{`, and the text did not parse. Without the `function` keyword a word that starts
// like an assignment is never a function name, as in bash, which reads `x=( )` as an array
// assignment: the definition is a syntax error (incomplete), and `function x= …` stays one.
#[test]
fn an_assignment_shaped_word_is_not_a_function_name() {
    for input in [
        "usagePROMPT_COMMAND=( ){\nOF\n}",
        "x=() { rm -rf ~; }",
        "x+=( ) { a; }",
        "x[1]=() { a; }",
    ] {
        assert_syntax_error(input);
    }
    assert_round_trip("function x= { a; }");
    assert_round_trip("function x=() { a; }");
    assert_round_trip("x () { a; }");
}

// Crash input (parse target, session 21; minimised):
// b"<<'SJ'|\nSJ\n<<'SJ'|\nSJ\n<<'SJ'<<''|\nSJ\n\n<<EOF\nEOF" — the source reads the bodies after
// each `|`, so no line has more than the four pending heredocs the parser allows. Render joined
// the pipeline on one line with five pending heredocs, which the parser refuses.
#[test]
fn render_ends_the_line_after_an_operator_where_the_source_read_heredoc_bodies() {
    let input = "<<'SJ'|\nSJ\n<<'SJ'|\nSJ\n<<'SJ'<<''|\nSJ\n\n<<EOF\nEOF";
    assert_eq!(
        render(input).unwrap(),
        "<<'SJ' |\nSJ\n<<'SJ' |\nSJ\n<<'SJ' <<'' |\nSJ\n\n<<EOF\nEOF\n"
    );
    assert_round_trip(input);
    assert_round_trip("cat <<A && cat <<B ||\nA\nB\necho $(c)\n");
    assert_round_trip("a <<A | b <<B | c <<C | d <<D |\nA\nB\nC\nD\ne <<E\nE\n");
    // Bodies after the next command stay after it, on one line.
    assert_eq!(
        render("cat <<A | cat <<B\nA\nB\n").unwrap(),
        "cat <<A | cat <<B\nA\nB\n"
    );
}

// Crash input (evaluate target): b"mvn -v clen". The exact proposal of a clause the catalog
// singles out by a word was checked with every word as the subcommand, but saving reads the
// pattern's own verb chain (`mvn`, stopping at `-v`) and refuses a multi-purpose tool without a
// subcommand: the prompt said "persistable" and the Session answer failed. An exact proposal is
// now checked as saving checks it.
#[test]
fn an_exact_proposal_is_one_saving_accepts() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    for command in ["mvn -v clen", "mvn -v clean", "cargo -v test --config x=y"] {
        let evaluation = gate.evaluate(command, &state);
        if let Some(prompt) = evaluation.prompt.as_ref().filter(|p| p.persistable) {
            gate.respond(&evaluation, shellgate_policy::Choice::Session, &state)
                .unwrap_or_else(|e| panic!("{command}: {prompt:?} cannot be saved: {e:?}"));
        }
    }
}

// Crash input (evaluate target): b"git -C / push -f". git in a repository outside the project
// asks, and that need was saveable, so the prompt offered a pattern whose Session answer left
// the command asking: the need is now never saved.
#[test]
fn git_in_a_repository_outside_the_project_is_never_saved() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    let evaluation = gate.evaluate("git -C / push -f", &state);
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    assert!(!evaluation.prompt.unwrap().persistable);
}

// Crash input (evaluate target): b"git -c core.python1 c-pga erh -c -\" hsid\" log". `c-pga`
// may be a user's alias, so the command is proposed with every word; a word that cannot be
// spelled in a pattern cut the proposal short (`git c-pga erh -c *`), which the word-for-word
// matching never covered. A narrow command is proposed whole or not at all.
#[test]
fn a_narrow_command_with_an_unspellable_word_is_not_proposed() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    let evaluation = gate.evaluate("git -c core.python1 c-pga erh -c -\" hsid\" log", &state);
    assert_eq!(evaluation.decision, Decision::NeedsPrompt);
    assert!(!evaluation.prompt.unwrap().persistable);
}

// Timeout input (evaluate target, E34): `…/cas/////{0..9}//////nic/{0..9}//////nice -n 5 …`. The
// brace expansion names a hundred programs by absolute path, each `nice`; an unknown command
// named by an absolute path became a launcher whose operands are read again as a command line,
// and each of those a hundred launchers deep: five minutes. The launched command lines of one
// command are now read again a bounded number of times.
#[test]
fn launchers_nested_through_a_brace_expansion_are_read_again_a_bounded_number_of_times() {
    let command = "chm*/mod /;/cas/////{0..9}//////nic/{0..9}//////nice -n 5 ///dd//read -r c;; es.sa( x in n wget -c";
    assert_eq!(timed_decision(command), Decision::NeedsPrompt);
}

// Timeout input (evaluate target, E34b): a recursive copy of `~` with brace expansions that
// name thousands of paths. Each reason was compared with every reason before it (merging the
// same finding reached twice), quadratic in the paths named; only the last few are compared.
#[test]
fn reasons_of_thousands_of_paths_are_merged_in_linear_time() {
    let command = "cp -r ~ /\"rm\"\u{14}hto\u{6}ssssssssssssssssssssime dgawkay -t %3ssssssshopt -s extglsssssssssss{\u{fffd}1..9}straphs -r s~ zGIC{1..9}=T\u{fffd}_SSH_C{1..9}=rm -rf ~ nd\u{fffd}or.tgz\u{fffd}\u{fffd}/\"rm\"\u{14}hto\u{6}ssssssssssss\u{fffd}\u{fffd}\u{fffd}\u{fffd}sssssime display!-t %:sssssss\u{c}hopt -s\u{fffd}extglssssssss{0..9}sss{1..9}straphs\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}~st -cro s<r ~isplay!-t %3s\u{0}\u{0}\u{0}\u{0}sssssshopchezmt -s extglsssssssss\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{18b}stglssssss";
    assert_eq!(timed_decision(command), Decision::NeedsPrompt);
}

// Timeout input (evaluate target, E36): a recursive copy of `~` to a hundred brace-expanded
// destinations. For each destination and each source, the gate asked whether an earlier clause
// had rewritten the destination by comparing it with every path written so far, which a copy of a
// large home directory makes thousands: over 100 s with a real home of 264,000 files. The
// question is now asked once per destination, by the destination's ancestors, and a command
// reads at most 20,000 entries of copied trees in all (0.5 s there; this state's home is not on
// disk).
#[test]
fn a_copy_to_many_destinations_asks_about_earlier_writes_once_per_destination() {
    let command = "cp -r ~ /\"rm\"\u{14}hto\u{6}ssssssssssssssssssssime dgawkay -t %3ssssssshopt -s extglsssssssssss{\u{fffd}1..9}straphs -r s~ zGIC{2..9}=T\u{fffd}_SSH_C{1..9}=rm -rf ~ nd\u{fffd}or.tgz\u{fffd}\u{fffd}/\"rm\"\u{14}hto\u{6}ssssssssssss\u{fffd}\u{fffd}\u{fffd}\u{fffd}sssswime displapython3.9sssss\u{c}hopt -s\u{fffd}extglssssssss{0..9}sss{1..9}s=nv n=/env n= n=\u{fffd}\u{fffd}chm*/mo@ /;//////{0..9}/////////dd if=/////{0..9}////get -c\u{7cc}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}/ \u{fffd}n.=nv inshnu\u{fffd}= -r";
    assert_eq!(timed_decision(command), Decision::NeedsPrompt);
}

// Crash input (evaluate target, E40b): b" ~+/a.;". A name with a trailing dot was taken for a
// path of Windows' shape (which drops the dot) and so not known, while the prompt still proposed
// the program by its path: the Session answer left it asking. A trailing dot is now a character
// of the name here (Windows' reading is matched by path globs only), so the project's program
// runs silently in the project, as it did before.
#[test]
fn a_program_whose_name_ends_in_a_dot_is_the_project_s() {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = shellgate_policy::examples::example_state(&gate, "personal").unwrap();
    for command in [" ~+/a.;", "./a. --x", "./b ."] {
        let evaluation = gate.evaluate(command, &state);
        if let Some(prompt) = evaluation.prompt.as_ref().filter(|p| p.persistable) {
            let effects = gate
                .respond(&evaluation, shellgate_policy::Choice::Session, &state)
                .unwrap();
            let mut after = state.clone();
            after.apply_effects(&effects);
            assert_eq!(
                gate.evaluate(command, &after).decision,
                Decision::Approved,
                "{command}: {prompt:?}"
            );
        }
    }
    assert_eq!(
        gate.evaluate(" ~+/a.;", &state).decision,
        Decision::Approved
    );
}
