//! Scratch timing (deleted before handing over).
#![allow(clippy::unwrap_used, missing_docs, reason = "scratch")]
use shellgate_policy::{GateEvaluator, Policy, TrustState};

#[test]
fn timing() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/corpus/tldr-commands.txt"
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let mut state = TrustState::new("personal", "/home/u/proj");
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    state.set_resolve_symlinks(false);
    gate.apply_profile(&mut state).unwrap();
    for round in 0..3 {
        let t = std::time::Instant::now();
        for l in &lines {
            std::hint::black_box(gate.evaluate(l, &state));
        }
        let full = t.elapsed();
        let t = std::time::Instant::now();
        for l in &lines {
            let parsed = shellgate_parser::parse(l, &Default::default());
            std::hint::black_box(&parsed);
        }
        let parse = t.elapsed();
        let parsed: Vec<_> = lines
            .iter()
            .map(|l| shellgate_parser::parse(l, &Default::default()))
            .collect();
        let t = std::time::Instant::now();
        for (l, p) in lines.iter().zip(&parsed) {
            std::hint::black_box(shellgate_rules::unjudged_evaluation(l, &p.graph));
        }
        let a = t.elapsed();
        let t = std::time::Instant::now();
        for l in &lines {
            std::hint::black_box(shellgate_rules::implicitly_assigned(l));
        }
        let b = t.elapsed();
        let t = std::time::Instant::now();
        for p in &parsed {
            for c in p.graph.clauses() {
                std::hint::black_box(shellgate_rules::evaluating_parts(
                    &c.argv,
                    &c.assignments,
                    &c.redirects,
                ));
            }
        }
        let c = t.elapsed();
        let n0 = lines.len() as u32;
        println!(
            "  unjudged {:?} implicit {:?} parts {:?}",
            a / n0,
            b / n0,
            c / n0
        );
        let mine = a + b + c;
        let n = lines.len() as u32;
        println!(
            "round {round}: {} lines; evaluate {:?}/cmd, parse {:?}/cmd, red-team checks {:?}/cmd",
            n,
            full / n,
            parse / n,
            mine / n
        );
    }
}
