#!/usr/bin/env bash
# Throughput and peak memory of `mcpsnoop check` on realistic logs written by
# bench/gen (deterministic; the same bytes as ../shared/bench/gen.py). Usage:
#   bench/check.sh [N ...]        default: 10000 100000 1000000 tool calls
# Each log is generated into a temporary folder and deleted right after its
# run (the 1,000,000-call log is about 4.2 GB). Needs Go and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/gen" ./bench/gen
printf '%-9s %-6s %10s %9s %10s %12s\n' calls wire log_MB seconds MB_per_s peak_RSS_MB
for n in "${sizes[@]}"; do
  log="$work/bench-$n.jsonl"
  "$work/gen" "$n" "$log" 2>/dev/null
  bytes=$(stat -c %s "$log")
  cat "$log" >/dev/null   # warm the page cache so the disk is not measured
  # Without and with schema validation (--fail-on ...,wire), one after the other.
  for gate in error error,invalid,warn,wire; do
    wire=no; [[ $gate == *wire ]] && wire=yes
    /usr/bin/time -f '%e %M' -o "$work/time" "$work/mcpsnoop" check --fail-on "$gate" "$log" >/dev/null || true
    read -r secs kb < <(tail -n 1 "$work/time")
    awk -v n="$n" -v w="$wire" -v b="$bytes" -v s="$secs" -v kb="$kb" 'BEGIN {
      printf "%-9d %-6s %10.1f %9.2f %10.1f %12.1f\n", n, w, b/1e6, s, (s > 0 ? b/1e6/s : 0), kb/1024 }'
  done
  rm -f "$log"
done
