//! Prints the clause graph of each argument (a debugging aid).

use shellgate_parser::{ParseOptions, parse};

fn main() {
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    for arg in std::env::args().skip(1) {
        let out = parse(&arg, &options);
        println!("complete={} reason={:?}", out.complete, out.reason());
        for (i, c) in out.graph.clauses().enumerate() {
            let argv: Vec<&str> = c.cooked_argv().collect();
            let redirects: Vec<String> = c
                .redirects
                .iter()
                .map(|r| format!("{}{:?}", r.op.as_str(), r.target))
                .collect();
            println!(
                "{i}: {}{:?} verb={:?} ctx={} op={:?} cwd={:?} parent={:?} span={:?} redirects={redirects:?} assigns={}",
                "  ".repeat(c.depth),
                argv,
                c.verb,
                c.context.as_str(),
                c.operator.map(|o| o.as_str()),
                c.cwd,
                c.parent,
                c.span.pair(),
                c.assignments.len()
            );
        }
        println!("edges: {:?}", out.graph.edges().collect::<Vec<_>>());
    }
}
