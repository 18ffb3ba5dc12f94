#!/usr/bin/env bash
# Writes the gate's decision on every command of the tldr-pages and NL2Bash corpora (and,
# when present, the agent logs in ../shared/agent-logs) to one file per corpus, so that two
# builds can be compared line by line:
#
#   scripts/decisions.sh OUT_DIR [SHELLGATE_BINARY]
#   diff -r before/ after/
#
# Each line of OUT_DIR/NAME.tsv is `LINE<TAB>DECISION<TAB>RULES` (the deny rules and protected
# paths that decided). The corpora are replayed with `shellgate audit --decisions`: home
# /home/u and project /home/u/proj for the corpora, home /home/agent and each record's cwd as
# its project for the agent logs, no grants, symbolic links not resolved.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:?usage: scripts/decisions.sh OUT_DIR [SHELLGATE_BINARY]}"
bin="${2:-target/release/shellgate}"
mkdir -p "$out"
empty_trust="$(mktemp)"
rm -f "$empty_trust"
trap 'rm -f "$empty_trust"' EXIT

run() {
  local name="$1"
  shift
  "$bin" audit --trust "$empty_trust" --decisions - "$@" 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print("%d\t%s\t%s" % (d["line"], d["decision"], ",".join(d.get("rules") or [])))
' >"$out/$name.tsv"
  echo "$name: $(cut -f2 "$out/$name.tsv" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
}

corpus=(--home /home/u --cwd /home/u/proj --project /home/u/proj --format lines)
run tldr "${corpus[@]}" tests/data/corpus/tldr-commands.txt
run nl2bash "${corpus[@]}" tests/data/corpus/nl2bash-commands.txt
logs=../shared/agent-logs
if [ -d "$logs" ]; then
  for f in "$logs"/*.jsonl; do
    run "agent-$(basename "$f" .jsonl)" --home /home/agent "$f"
  done
fi
