//! Reported, still open bugs that the fuzz targets step around so that a campaign keeps looking
//! for new ones. Each names its regression test in `tests/fuzz_regressions.rs`; remove the
//! check when that test passes (and is no longer `#[ignore]`d).

/// `parse_time_is_bounded_under_exponential_backtracking` and
/// `nested_shell_code_parse_time_is_bounded_in_total`: pest backtracks exponentially over some
/// nestings — `${ ` / `${|` (bash 5.3 command substitutions), `$((`, and `${…>(…` chains inside
/// double quotes among those found. One pest run stops at the call limit after ~0.5-4 s, but
/// the prefix recovery runs pest up to 8 more times and every nested `bash -c` code string gets
/// a fresh budget, so one command of a few hundred bytes takes seconds (and a 64 KiB one
/// minutes). Inputs that could hit it are not run: they would only find this bug again.
pub fn likely_slow(input: &str) -> bool {
    const BACKTRACKING: [&str; 5] = ["${ ", "${|", "${\t", "${\n", "$(("];
    const OPENERS: [&str; 5] = ["${", "$(", "<(", ">(", "`"];
    let count = |set: &[&str]| -> usize { set.iter().map(|o| input.matches(o).count()).sum() };
    count(&BACKTRACKING) >= 3 || count(&OPENERS) >= 12
}
