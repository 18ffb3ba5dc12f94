#!/usr/bin/env bash
# Wall time of whole `shellgate hook claude-code` processes (release build).
#
#   scripts/bench-hook.sh [RUNS]          (default 300)
#
# Feeds each recorded Claude Code payload (allow, ask, deny) to a fresh process RUNS times,
# with HOME and XDG directories in a temporary directory (so the trust file is absent and the
# audit log is written there), and prints the median, 90th percentile and maximum wall time
# per payload. The clock is bash's EPOCHREALTIME (microseconds), read just before the process
# is spawned and just after it exits, so the time includes fork/exec as an agent would pay it.
# The first row is a bare process (`/bin/true`) started the same way: the floor any hook pays
# on this machine at this moment.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-300}
cargo build --release --quiet --bin shellgate
bin=$PWD/target/release/shellgate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" XDG_STATE_HOME="$tmp/state"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"

for payload in bare tests/data/hooks/claude-code-*.json; do
  times=()
  for ((i = 0; i < runs; i++)); do
    start=$EPOCHREALTIME
    if [[ "$payload" == bare ]]; then
      /bin/true < /dev/null > /dev/null
    else
      "$bin" hook claude-code < "$payload" > /dev/null
    fi
    end=$EPOCHREALTIME
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", (b - a) * 1e6 }')")
  done
  printf '%s\n' "${times[@]}" | sort -n > "$tmp/times"
  median=$(awk -v n="$runs" 'NR == int((n + 1) / 2) { print }' "$tmp/times")
  p90=$(awk -v n="$runs" 'NR == int(n * 0.9) { print }' "$tmp/times")
  max=$(tail -n 1 "$tmp/times")
  if [[ "$payload" == bare ]]; then
    shown="/bin/true"
  else
    answer=$("$bin" hook claude-code < "$payload")
    shown=$(printf '%s' "$answer" | grep -o '"permissionDecision":"[a-z]*"' || echo '{}')
  fi
  printf '%-40s median=%6.2f ms  p90=%6.2f ms  max=%6.2f ms  %s\n' "$(basename "$payload")" \
    "$(awk -v u="$median" 'BEGIN { print u / 1000 }')" \
    "$(awk -v u="$p90" 'BEGIN { print u / 1000 }')" \
    "$(awk -v u="$max" 'BEGIN { print u / 1000 }')" \
    "$shown"
done
