//! Arbitrary bytes → `&str`: whenever the fast scanner takes the input, `parse` (with and
//! without a working and home directory, compared with spans through `Debug`) and `render`
//! must give exactly what the grammar alone gives.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

use shellgate_parser::differential::{fast_accepts, parse_grammar, render_grammar};
use shellgate_parser::{ParseOptions, parse, render};

static OPTIONS: LazyLock<[ParseOptions; 2]> = LazyLock::new(|| {
    [
        ParseOptions {
            cwd: Some(PathBuf::from("/home/u/proj")),
            home: Some(PathBuf::from("/home/u")),
        },
        ParseOptions::default(),
    ]
});

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    if !fast_accepts(&input) {
        return;
    }
    for options in OPTIONS.iter() {
        let fast = format!("{:?}", parse(&input, options));
        let grammar = format!("{:?}", parse_grammar(&input, options));
        assert_eq!(fast, grammar, "parse differs on {input:?}");
    }
    assert_eq!(
        render(&input),
        render_grammar(&input),
        "render differs on {input:?}"
    );
});
