#!/usr/bin/env bash
# Runs one cargo-fuzz target with its dictionary and seeds, then prints the figures.
#
#   scripts/fuzz.sh TARGET [RUNS] [-- EXTRA_LIBFUZZER_FLAGS...]
#
# TARGET is parse, fast_path, evaluate, policy_load or store_load; RUNS (default 1000000) is
# libFuzzer's -runs (executions; -1 runs until stopped). cargo-fuzz needs nightly features: on a
# stable toolchain this script sets RUSTC_BOOTSTRAP=1. Environment:
#   FUZZ_SANITIZER  address | none (default none: shellgate forbids unsafe code, and without
#                   ASan a run is several times faster; use address to check dependencies)
#   FUZZ_MAX_LEN    -max_len (default 4096; 8192 for policy_load)
#   FUZZ_TIMEOUT    -timeout in seconds per input (default 10)
#   FUZZ_RSS_MB     -rss_limit_mb (default 2048)
#   FUZZ_TRACE_CMP  1 | 0 (default 1; 0 builds with --no-trace-compares: several times
#                   the executions a second, with coarser feedback on comparisons — for volume
#                   runs resumed from a corpus that a tracing run grew)
#
# The working corpus grows in fuzz/corpus/TARGET (git-ignored), seeded from fuzz/seeds/ on the
# first run; crashes, timeouts and out-of-memory inputs go to fuzz/artifacts/TARGET/. The log
# is fuzz/artifacts/TARGET/last-run.log. Reproduce one input with
#   fuzz/target/<host>/release/TARGET fuzz/artifacts/TARGET/crash-…
# and shrink it with -minimize_crash=1 -runs=100000.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/fuzz.sh parse|fast_path|evaluate|policy_load|store_load [RUNS] [-- FLAGS...]" >&2
  exit 2
}

target="${1:-}"
[[ -n "$target" ]] || usage
shift
runs=1000000
if [[ $# -gt 0 && "$1" != "--" ]]; then
  runs="$1"
  shift
fi
if [[ $# -gt 0 ]]; then
  [[ "$1" == "--" ]] || usage
  shift
fi

case "$target" in
  parse | fast_path | evaluate)
    dict=fuzz/shell.dict
    seeds=(fuzz/seeds/multiline)
    max_len=4096
    ;;
  policy_load)
    dict=fuzz/policy.dict
    seeds=(fuzz/seeds/policies)
    max_len=8192
    ;;
  store_load)
    dict=fuzz/trust.dict
    seeds=(fuzz/seeds/trust)
    max_len=4096
    ;;
  *) usage ;;
esac
max_len="${FUZZ_MAX_LEN:-$max_len}"
sanitizer="${FUZZ_SANITIZER:-none}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is not installed: cargo install cargo-fuzz --locked" >&2
  exit 1
fi

corpus="fuzz/corpus/$target"
artifacts="fuzz/artifacts/$target"
mkdir -p "$corpus" "$artifacts"
# One seed file per line of fuzz/seeds/commands.txt (single-line commands).
if [[ "$target" == parse || "$target" == fast_path || "$target" == evaluate ]] &&
  [[ -z "$(ls -A "$corpus")" ]]; then
  n=0
  while IFS= read -r line; do
    printf '%s' "$line" >"$corpus/seed-$(printf '%04d' "$n")"
    n=$((n + 1))
  done <fuzz/seeds/commands.txt
fi

build_flags=(--sanitizer "$sanitizer")
[[ "${FUZZ_TRACE_CMP:-1}" == 0 ]] && build_flags+=(--no-trace-compares)
(cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build "${build_flags[@]}" "$target")
host="$(rustc -vV | sed -n 's/^host: //p')"
binary="fuzz/target/$host/release/$target"

# store_load writes a scratch file per run: keep it in memory when possible.
scratch=""
if [[ "$target" == store_load ]]; then
  base=/dev/shm
  [[ -d "$base" && -w "$base" ]] || base="${TMPDIR:-/tmp}"
  scratch="$(mktemp -d "$base/shellgate-fuzz.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  export TMPDIR="$scratch"
fi

log="$artifacts/last-run.log"
list_artifacts() {
  find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' -o -name 'slow-unit-*' \) | sort
}
before="$(list_artifacts)"
start=$(date +%s)
set +e
"$binary" "$corpus" "${seeds[@]}" \
  -dict="$dict" \
  -runs="$runs" \
  -max_len="$max_len" \
  -timeout="${FUZZ_TIMEOUT:-10}" \
  -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
  -artifact_prefix="$artifacts/" \
  -print_final_stats=1 \
  "$@" 2>&1 | tee "$log" | grep -E --line-buffered '^#[0-9]+[[:space:]]+(pulse|DONE)'
status=${PIPESTATUS[0]}
set -e
elapsed=$(($(date +%s) - start))

execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
peak_mb="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
new_artifacts="$(comm -13 <(echo "$before") <(list_artifacts) | sed '/^$/d')"
echo "== fuzz $target (sanitizer $sanitizer, max_len $max_len, trace compares ${FUZZ_TRACE_CMP:-1})"
echo "executions:       ${execs:-unknown}"
echo "exec/s:           ${rate:-unknown}"
echo "duration:         ${elapsed}s"
echo "peak RSS (MiB):   ${peak_mb:-unknown}"
echo "corpus entries:   $(find "$corpus" -type f | wc -l)"
echo "new artifacts:    $(echo -n "$new_artifacts" | grep -c . || true)"
[[ -z "$new_artifacts" ]] || echo "$new_artifacts" | sed 's/^/  /'
echo "exit status:      $status"
grep -E '^(==[0-9]+== ERROR|SUMMARY|thread .* panicked|artifact_prefix)' "$log" | head -5 || true
exit "$status"
