#!/usr/bin/env bash
# What the HTTP capture proxy (`mcpsnoop http`, logging on) adds to a
# tools/call round trip and to an SSE event, against plain
# net/http/httputil reverse proxies (one inside the measuring process, as
# ../shared/bench/httpbench runs it, one as a process of its own), all in
# front of the same loopback target; see bench/httpproxy for what each
# figure is. Usage:
#   bench/http.sh [httpproxy flags]     e.g. -rounds 3 -n 1000 -events 1000
# When ../shared/bench/httpbench is there (HTTPBENCH=path to point
# elsewhere), it runs too, with the process-of-its-own plain proxy as its
# -ref. BASE=path to another mcpsnoop (an older build) measures it too, in
# the same rounds, as -ref of both (before/after ratios from one run).
# Needs Go.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/httpproxy" ./bench/httpproxy
echo "== bench/httpproxy"
ref=(); [ -n "${BASE:-}" ] && ref=(-ref "$BASE")
"$work/httpproxy" -bin "$work/mcpsnoop" "${ref[@]}" "$@"
httpbench=${HTTPBENCH:-../shared/bench/httpbench}
if [ -d "$httpbench" ]; then
  (cd "$httpbench" && go build -o "$work/httpbench" .)
  if [ -n "${BASE:-}" ]; then
    echo "== $httpbench (ref: $BASE)"
    "$work/httpbench" -bin "$work/mcpsnoop" -ref "$BASE"
  else
    echo "== $httpbench (ref: a plain httputil reverse proxy in a process of its own)"
    "$work/httpbench" -bin "$work/mcpsnoop" -ref "$work/httpproxy"
  fi
fi
