//! The fast scanner against the grammar on inputs chosen for their edges: where it accepts, the
//! typed trees (spans and raw text included) must be equal; where the grammar is needed, it
//! must decline.

use crate::build::{Engine, build_script};

/// The tree the grammar builds, as text.
fn grammar(input: &str) -> String {
    format!(
        "{:?}",
        build_script(input, 64, Engine::Grammar).map_err(|e| e.to_string())
    )
}

/// The tree the fast scanner builds, as text, or `None` when it declines.
fn fast(input: &str) -> Option<String> {
    super::script(input).map(|script| format!("{:?}", Ok::<_, String>(script)))
}

#[track_caller]
fn same(input: &str) {
    let fast = fast(input);
    assert!(fast.is_some(), "the fast scanner declines {input:?}");
    assert_eq!(fast.unwrap_or_default(), grammar(input), "{input:?}");
}

#[track_caller]
fn declines(input: &str) {
    assert_eq!(fast(input), None, "{input:?}");
}

#[test]
fn accepts_the_common_subset_with_the_grammars_tree() {
    for input in [
        "",
        "   ",
        "\n\n",
        "git status",
        "  git   status  ",
        "a && b || c; d & e | f |& g",
        "a;\nb\n\nc &\n",
        "a &&\n\n b",
        "a |\n b",
        "echo 'single' \"double $HOME ${x} $(date) \\\" \\$\" $'\\x72m' $\"t\"",
        "find . -name '*.py' -exec rm {} \\;",
        "ls *.rs file[0-9] ~ ~/x a~b {a,b} x{1..3} '{a,b}' {} {x}",
        "echo $ $1 $@ $# $? $- $$ $! $* $a_b9 ${#a} ${a:-b} ${} \"$\" \"$'\" a$",
        "A=1 B+=2 C= cmd arg=x",
        "A=~/x B=$(pwd) C=\"$D\"",
        "export A=1 B=\"x y\" C=~ 'D=2' E",
        "local x=$(a | b)",
        ">out 2>>err <in 3<>rw 2>&1 >&- &>all &>>app >|clob cmd",
        "cmd 2>/dev/null 10>x 99999999999>y a>b a2>c",
        "echo $(echo $(echo $(a; b) | c) && d)",
        "echo \"$(echo \"$(x)\")\" $( ) $(\n a\n b\n)",
        "echo a\\ b \\é \"\\é\" \"a\nb\" 'a\nb'",
        "echo a\\\nb",
        "echo ! a | ! b",
        "echo time; x time",
        "{}x {a}b",
        "echo é ü 日本",
        "echo \u{1}\u{b}\u{7f}",
        "a=",
        "a=;b=&",
        "2",
        "echo a#b",
        "echo `date` \"`a \\$b \\\\ \\x`\" a`b`c `echo $(x)`",
        "a=<(x)",
        "echo `a | b; c` ` ` `\n`",
        "diff <(sort a) >(b) x<(y) 2<(z) <( )",
        "cat < <(a) > >(b)",
        "<(a) b",
        "echo \"<(x)\" '<(x)'",
        "a=`b` c=$(d)",
    ] {
        same(input);
    }
}

#[test]
fn declines_what_needs_the_grammar() {
    for input in [
        "a (",
        "time",
        "! ;",
        "((a))",
        "( )",
        "{ }",
        "{ a }",
        "if a; then b; else; fi",
        "for x in a do b; done",
        "for 1 in a; do b; done",
        "select x in a; do b; done",
        "case a in b) c;; esac",
        "while a; do b; done c",
        "(a) b",
        "(a) <<EOF\nx\nEOF",
        "f() { a; }",
        "a\r\n",
        "cat <<EOF\nx\nEOF",
        "cat <<< x",
        "echo `a \\`b\\``",
        "echo $((1 + 2))",
        "echo $[1]",
        "echo ${ a; }",
        "echo ${a:-'b'}",
        "echo ${a<(b)} ${a<b}",
        "echo @(a|b) !(x)",
        "a[1]=x",
        "a=(x y)",
        "{fd}>x",
        "echo \\",
        "echo 'unterminated",
        "echo \"unterminated",
        "a;;",
        "; a",
        "a &&",
        "a | | b",
        "echo $(a",
        "echo )",
        "[[ -f a ]]",
        "coproc a",
        "}x",
        "a=1 if",
    ] {
        declines(input);
    }
}

#[test]
fn declines_long_and_deep_inputs() {
    declines(&"a ".repeat(super::MAX_FAST_BYTES));
    let deep = format!(
        "echo {}x{}",
        "$(echo ".repeat(super::MAX_FAST_DEPTH + 1),
        ")".repeat(super::MAX_FAST_DEPTH + 1)
    );
    declines(&deep);
    let ok = format!(
        "echo {}x{}",
        "$(echo ".repeat(super::MAX_FAST_DEPTH),
        ")".repeat(super::MAX_FAST_DEPTH)
    );
    same(&ok);
}
