#!/usr/bin/env bash
# Time and peak memory of `mcpsnoop export -T json` next to `mcpsnoop check`
# on the same realistic log from bench/gen (deterministic), run one after
# the other so both see the same machine. Usage:
#   bench/export.sh [N ...]       default: 100000 tool calls
#   FORMATS="json text html" bench/export.sh 100000
# The export goes to /dev/null, as check's report does. Needs Go and GNU
# time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(100000)
read -r -a formats <<< "${FORMATS:-json}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/gen" ./bench/gen
printf '%-9s %10s %-12s %9s %12s %12s %10s\n' calls log_MB command seconds peak_RSS_MB x_check_time x_check_RSS
measure() { # prints "seconds kilobytes"
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null || true
  tail -n 1 "$work/time"
}
for n in "${sizes[@]}"; do
  log="$work/bench-$n.jsonl"
  "$work/gen" "$n" "$log" 2>/dev/null
  bytes=$(stat -c %s "$log")
  cat "$log" >/dev/null   # warm the page cache so the disk is not measured
  read -r csecs ckb < <(measure "$work/mcpsnoop" check --fail-on error "$log")
  awk -v n="$n" -v b="$bytes" -v s="$csecs" -v kb="$ckb" 'BEGIN {
    printf "%-9d %10.1f %-12s %9.2f %12.1f %12s %10s\n", n, b/1e6, "check", s, kb/1024, "1.00", "1.00" }'
  for f in "${formats[@]}"; do
    read -r esecs ekb < <(measure "$work/mcpsnoop" export -T "$f" "$log")
    awk -v n="$n" -v b="$bytes" -v s="$esecs" -v kb="$ekb" -v cs="$csecs" -v ckb="$ckb" -v f="$f" 'BEGIN {
      printf "%-9d %10.1f %-12s %9.2f %12.1f %12.2f %10.2f\n", n, b/1e6, "export " f, s, kb/1024, (cs > 0 ? s/cs : 0), (ckb > 0 ? kb/ckb : 0) }'
  done
  rm -f "$log"
done
