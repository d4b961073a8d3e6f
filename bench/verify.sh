#!/usr/bin/env bash
# Cost of `mcpsnoop verify`: verifying a recorded session of 1,000 tool calls
# against a local stdio server (read the recording, start the server through
# the shim, replay every call, check the replay log, compare every answer)
# against a minimal Go SDK client making the same 1,000 calls to the same
# server directly. Prints both medians and their ratio; the target is under
# 2x. Usage:
#   bench/verify.sh [count]      (default 5 runs of each)
# Needs Go.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
out=$(go test ./replay -run XXX -bench 'Verify1000|DirectClient1000' -benchtime 1x -count "$count")
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '
  /^BenchmarkVerify1000/        { v[++nv] = $3 }
  /^BenchmarkDirectClient1000/  { d[++nd] = $3 }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    mv = median(v, nv); md = median(d, nd)
    printf "verify 1,000 calls: %.0f ms (median of %d)\n", mv / 1e6, nv
    printf "direct SDK client:  %.0f ms (median of %d)\n", md / 1e6, nd
    printf "ratio: %.2fx (target < 2x)\n", mv / md
  }'
