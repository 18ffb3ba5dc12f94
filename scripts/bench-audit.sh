#!/usr/bin/env bash
# Audit throughput and peak memory on a generated 1,000,000-line log.
#
#   scripts/bench-audit.sh [LINES]        (default 1000000)
#
# The log cycles the commands of examples/agent-session.jsonl, the tldr-pages and NL2Bash
# corpora (tests/data/corpus) as jsonl records with cwd and timestamp. It is written once to
# $BENCH_DIR (default target/bench-audit) and reused. For each thread count (1 and 2) the
# release binary audits it with `--json` under /usr/bin/time -v; the script prints lines/s,
# wall time and peak RSS (maximum resident set size).
set -euo pipefail
cd "$(dirname "$0")/.."

lines=${1:-1000000}
dir=${BENCH_DIR:-target/bench-audit}
mkdir -p "$dir"
log="$dir/audit-$lines.jsonl"

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time (apt-get install time)" >&2
  apt-get install -y time >/dev/null
fi

cargo build --release --quiet --bin shellgate
bin=target/release/shellgate

if [ ! -s "$log" ]; then
  pool="$dir/pool.jsonl"
  {
    cat examples/agent-session.jsonl
    # JSON-escape with sed (backslash, quote, tab; carriage returns dropped), then wrap.
    cat tests/data/corpus/tldr-commands.txt tests/data/corpus/nl2bash-commands.txt |
      tr -d '\r' |
      sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' |
      awk 'NF > 0 {
          printf "{\"timestamp\":\"2026-05-12T10:%02d:%02dZ\",\"command\":\"%s\",\"cwd\":\"/home/dev/acme-shop\",\"audience\":\"personal\"}\n",
            (NR / 60) % 60, NR % 60, $0
        }'
  } > "$pool"
  awk -v n="$lines" '{ pool[NR] = $0 } END { for (i = 0; i < n; i++) print pool[i % NR + 1] }' "$pool" > "$log"
  rm -f "$pool"
fi
echo "log: $log ($(wc -l < "$log") lines, $(du -h "$log" | cut -f1))"

run() {
  local label=$1; shift
  out="$dir/time-$label.txt"
  /usr/bin/time -v "$bin" audit "$@" "$log" > "$dir/report-$label.txt" 2> "$out"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$out")
  user=$(awk -F': ' '/User time/ { print $2 }' "$out")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$out")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
  secs=$(awk -v t="$wall" 'BEGIN { n = split(t, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
  rate=$(awk -v n="$lines" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
  printf '%-16s wall=%6.2fs  cpu=%6.2fs  lines/s=%8s  peak RSS=%6.1f MiB\n' "$label" "$secs" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rate" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
  printf '                 %s\n' "$(head -n 1 "$dir/report-$label.txt")"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for threads in 1 2; do
  run "threads=$threads" --threads "$threads"
done
if [ "${NO_MEMO:-0}" = 1 ]; then
  for threads in 1 2; do
    run "threads=$threads,no-memo" --threads "$threads" --no-memo
  done
fi
