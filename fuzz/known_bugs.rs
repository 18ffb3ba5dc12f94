//! Reported, still open bugs that the fuzz targets step around so that a campaign keeps looking
//! for new ones. Each names its regression test in `tests/fuzz_regressions.rs`; remove the
//! check when that test passes (and is no longer `#[ignore]`d).

/// `parse_time_is_bounded_for_nested_funsub_openers` and
/// `nested_shell_code_parse_time_is_bounded_in_total`: pest backtracks exponentially over nested
/// `${ ` / `${|` (bash 5.3 command substitutions) and `$((` openers. One pest run stops at the
/// call limit after ~0.5-1 s, but the prefix recovery runs pest up to 8 more times and every
/// nested `bash -c` code string gets a fresh budget, so one command can take seconds to
/// minutes. Inputs with this many openers are not run.
pub const SLOW_OPENERS: usize = 8;

/// Counts the openers behind the exponential backtracking.
pub fn slow_openers(input: &str) -> usize {
    ["${ ", "${|", "${\t", "${\n", "$(("]
        .iter()
        .map(|opener| input.matches(opener).count())
        .sum()
}
