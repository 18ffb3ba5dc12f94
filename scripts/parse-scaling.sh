#!/usr/bin/env bash
# Instructions per byte of `shellgate_parser::parse` for the inputs of the `scaling` example
# (pipelines, lists, nesting, long words, heredocs at growing sizes), counted by callgrind, so
# the curve does not depend on the machine's load:
#
#   scripts/parse-scaling.sh [SHAPE…]
#
# Prints `shape n bytes instructions instructions/byte complete`. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p shellgate-parser --example scaling >&2
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
SCALING_RUNS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
  --dump-before='shellgate_parser::parse_with' --dump-after='shellgate_parser::parse_with' \
  target/release/examples/scaling "$@" >"$out/table" 2>"$out/log"
# Dumps alternate: before a parse (what ran since the last one: the start, dropping the last
# result, making the next input) and after it (the parse alone). The first parse is a warm-up.
mapfile -t counts < <(for f in $(ls "$out" | grep -E '^cg\.[0-9]+$' | sort -t. -k2 -n | awk 'NR % 2 == 0' | tail -n +2); do
  sed -n 's/^summary: //p' "$out/$f"
done)
i=0
tail -n +2 "$out/table" | while read -r shape n bytes _ns _per complete; do
  ir="${counts[$i]:-0}"
  awk -v s="$shape" -v n="$n" -v b="$bytes" -v ir="$ir" -v c="$complete" \
    'BEGIN { printf "%-18s %6d %8d %14d %10.1f  %s\n", s, n, b, ir, ir / b, c }'
  i=$((i + 1))
done
