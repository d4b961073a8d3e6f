#!/usr/bin/env bash
# Overhead of the stdio shim: bench/shim.py drives the same
# Go echo server directly, through `mcpsnoop --trace-file` (logging on) and
# through `mcpsnoop --no-trace`, and prints round-trip latency percentiles
# (20,000 sequential calls) and pipelined throughput (a 4 KiB burst) for each,
# with paired ratios against direct. Usage:
#   bench/shim.sh [shim.py flags]     e.g. --runs 3 --k-seq 5000
# Set BENCH_DIR to keep the work folder (binaries, trace, results JSON).
# Targets with logging on: added p50 under 40 us per round trip, pipelined
# round trips/s at least 50% of direct. Needs python3 and Go.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench/shim.py
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
MCPSNOOP_BIN="$work/mcpsnoop" BENCH_DIR="$work" MCPSNOOP_HOME="$work/home" python3 "$bench" "$@"
