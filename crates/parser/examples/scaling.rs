//! Parse time against input size for the shapes that could make a parser super-linear:
//! pipelines, `&&` chains, `;` lists, nesting of each kind, long words and quoted strings, many
//! arguments, many heredocs. For each shape and size it prints the input size, the best time
//! of several runs, the time per byte and whether the parse was complete (a limit answers an
//! incomplete parse: `limits.rs`).
//!
//! ```sh
//! cargo run --release -p shellgate-parser --example scaling [SHAPE…]
//! ```
//!
//! A linear shape keeps `ns/byte` flat as the size doubles. Wall-clock time on a loaded
//! machine is noisy; for instruction counts, run each input once (`SCALING_RUNS=1`) under
//! callgrind with a dump after every parse (`scripts/parse-scaling.sh` does this).

use std::hint::black_box;
use std::time::Instant;

use shellgate_parser::{ParseOptions, parse};

/// A shape: a name and the input of size `n`.
struct Shape {
    name: &'static str,
    make: fn(usize) -> String,
    sizes: &'static [usize],
}

const SIZES: &[usize] = &[16, 64, 256, 1024, 4096];
const DEPTHS: &[usize] = &[2, 4, 8, 16, 32, 60];

fn repeat_join(n: usize, item: &str, sep: &str) -> String {
    vec![item; n].join(sep)
}

fn nest(n: usize, open: &str, inner: &str, close: &str) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// A shape whose input grows in length (`SIZES`).
const fn sized(name: &'static str, make: fn(usize) -> String) -> Shape {
    Shape {
        name,
        make,
        sizes: SIZES,
    }
}

/// A shape whose input grows in nesting depth (`DEPTHS`).
const fn nested(name: &'static str, make: fn(usize) -> String) -> Shape {
    Shape {
        name,
        make,
        sizes: DEPTHS,
    }
}

const SHAPES: &[Shape] = &[
    sized("pipeline", |n| repeat_join(n, "grep -v foo", " | ")),
    sized("and-chain", |n| repeat_join(n, "test -f a", " && ")),
    sized("list", |n| repeat_join(n, "echo a", "; ")),
    sized("lines", |n| repeat_join(n, "echo a", "\n")),
    sized("args", |n| format!("echo {}", repeat_join(n, "arg", " "))),
    sized("long-word", |n| format!("echo {}", "a".repeat(n * 16))),
    sized("long-dq", |n| format!("echo \"{}\"", "a b ".repeat(n * 4))),
    sized("long-sq", |n| format!("echo '{}'", "a b ".repeat(n * 4))),
    sized("vars-in-dq", |n| {
        format!("echo \"{}\"", "$a-${b}/".repeat(n))
    }),
    sized("heredocs", |n| {
        repeat_join(n, "cat <<EOF\nline $x\nEOF", "\n")
    }),
    sized("heredocs-one-line", |n| {
        let ops = repeat_join(n.min(4), "cat <<E", " && ");
        let bodies = "x\nE\n".repeat(n.min(4));
        repeat_join(n / 4 + 1, &format!("{ops}\n{bodies}"), "")
    }),
    nested("nest-comsub", |n| {
        format!("echo {}", nest(n, "$(echo ", "x", ")"))
    }),
    nested("nest-subshell", |n| nest(n, "( ", "echo x", " )")),
    nested("nest-group", |n| nest(n, "{ ", "echo x", "; }")),
    nested("nest-if", |n| nest(n, "if true; then ", "echo x", "; fi")),
    nested("nest-dq-comsub", |n| {
        format!("echo {}", nest(n, "\"$(echo ", "x", ")\""))
    }),
    Shape {
        name: "nest-backtick",
        make: |n| {
            // Each level doubles the escaping: `a \`b \\\`c\\\`\``.
            let mut s = "echo x".to_owned();
            for _ in 0..n.min(6) {
                s = format!("echo `{}`", s.replace('\\', "\\\\").replace('`', "\\`"));
            }
            s
        },
        sizes: &[1, 2, 3, 4, 5, 6],
    },
    nested("nest-param", |n| {
        format!("echo {}", nest(n, "${a:-", "x", "}"))
    }),
    nested("unclosed-comsub", |n| {
        format!("echo {}", "$(echo ".repeat(n))
    }),
    sized("unclosed-dq", |n| format!("echo \"{}", "a $(b) ".repeat(n))),
];

fn time(input: &str, options: &ParseOptions) -> (f64, bool) {
    let mut best = f64::INFINITY;
    let mut complete = false;
    let runs = std::env::var("SCALING_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if input.len() > 20_000 { 5 } else { 15 });
    for _ in 0..runs {
        let start = Instant::now();
        let out = black_box(parse(black_box(input), options));
        best = best.min(start.elapsed().as_nanos() as f64);
        complete = out.complete;
    }
    (best, complete)
}

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    if std::env::var_os("SCALING_RUNS").is_some() {
        // A first parse, so that a profiler's first per-parse figure holds the program's start.
        black_box(parse("", &options));
    }
    println!(
        "{:<18} {:>6} {:>8} {:>12} {:>9}  complete",
        "shape", "n", "bytes", "best ns", "ns/byte"
    );
    for shape in SHAPES {
        if !only.is_empty() && !only.iter().any(|o| o == shape.name) {
            continue;
        }
        for &n in shape.sizes {
            let input = (shape.make)(n);
            let (ns, complete) = time(&input, &options);
            println!(
                "{:<18} {:>6} {:>8} {:>12.0} {:>9.1}  {complete}",
                shape.name,
                n,
                input.len(),
                ns,
                ns / input.len().max(1) as f64
            );
        }
    }
}
