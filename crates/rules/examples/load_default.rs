//! Times loading the embedded default policy: `cargo run --release -p shellgate-rules
//! --example load_default -- [N] [--full]` prints the minimum and median of N loads (default
//! 50); with `--full`, also one full compile that parses the TOML and checks every glob and
//! regex (what `shellgate check` does before it runs the examples through the gate's walk).

use std::time::{Duration, Instant};

use shellgate_rules::{Examples, Policy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--full");
    let n: usize = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(50)
        .max(1);
    let mut times: Vec<Duration> = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let policy = Policy::embedded_default()?;
        times.push(start.elapsed());
        std::hint::black_box(policy);
    }
    times.sort_unstable();
    let min = times.first().copied().unwrap_or_default();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    println!("embedded_default x{n}: min {min:?}, median {median:?}");
    if full {
        let start = Instant::now();
        let policy = Policy::compile_with(&[Policy::default_source()], Examples::All)?;
        println!(
            "compile_with(default, Examples::All): {:?}",
            start.elapsed()
        );
        std::hint::black_box(policy);
    }
    Ok(())
}
