//! Times the whole gate (parse + evaluate) over the tldr-pages command lines, single thread,
//! with the embedded default policy, the `personal` audience and symbolic links not resolved.
//! A quick figure and a steady workload for profilers; the real bench is
//! `cargo bench --bench evaluate`.
//!
//! `cargo run --release --example evaluate_corpus [PASSES]`
//! `valgrind --tool=callgrind target/release/examples/evaluate_corpus 1`

use std::time::Instant;

use shellgate::{Decision, GateEvaluator, Policy, TrustState};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/tldr-commands.txt"
    );
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().collect();
    let passes: usize = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(3);

    let gate = GateEvaluator::new(Policy::embedded_default()?);
    let mut state = TrustState::new("personal", "/home/u/proj");
    state.set_home("/home/u");
    state.set_project("/home/u/proj");
    state.set_resolve_symlinks(false);
    gate.apply_profile(&mut state)?;

    for _ in 0..passes {
        let mut counts = [0usize; 3];
        let start = Instant::now();
        for line in &lines {
            let slot = match gate.evaluate(line, &state).decision {
                Decision::Approved => 0,
                Decision::NeedsPrompt => 1,
                Decision::HardDenied => 2,
            };
            if let Some(count) = counts.get_mut(slot) {
                *count += 1;
            }
        }
        let elapsed = start.elapsed();
        let per = elapsed.as_secs_f64() * 1e6 / lines.len().max(1) as f64;
        let [approved, prompts, denied] = counts;
        println!(
            "{} commands in {elapsed:.2?}: {per:.1} µs/command \
             ({approved} approved, {prompts} need a person, {denied} denied)",
            lines.len(),
        );
    }
    Ok(())
}
