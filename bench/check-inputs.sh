#!/usr/bin/env bash
# `mcpsnoop check` on several logs at once: K logs of N tool calls (each its
# own session, from seeds 1..K) checked with the inputs read in parallel
# (the default, --jobs 0: one worker per core) and in order (--jobs 1, the
# same runtime otherwise: GOMAXPROCS=1 would also take the garbage
# collector's second core away). When BASE names another mcpsnoop binary
# (an older build), it checks the K logs too, and both check the first log
# alone ("one", "base-one"), for single-input throughput. The runs are
# interleaved, ROUNDS times, so that a machine shared with other work slows
# them alike; each run's time, throughput, peak memory and the load average
# are printed, then the medians and the speedups.
# Usage:
#   bench/check-inputs.sh [N [K [ROUNDS]]]     default: 100000 4 5
#   BASE=/tmp/mcpsnoop-main bench/check-inputs.sh
# The logs (about 415 MB each at 100,000 calls) are written to a temporary
# folder and deleted at the end. Needs GNU time, and python3 when the
# repository has no bench/gen.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}; k=${2:-4}; rounds=${3:-5}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/gen" ./bench/gen
gen=("$work/gen")
logs=()
for i in $(seq 1 "$k"); do
  "${gen[@]}" "$n" "$work/log$i.jsonl" --seed "$i" 2>/dev/null
  logs+=("$work/log$i.jsonl")
done
bytes=$(cat "${logs[@]}" | wc -c)   # also warms the page cache
one=$(stat -c %s "${logs[0]}")
printf '%d logs of %d calls, %d MB in all, %d cores\n' "$k" "$n" "$((bytes / 1000000))" "$(nproc)"
variants=(parallel in-order); [ -n "${BASE:-}" ] && variants+=(base one base-one)
printf '%-6s %-9s %9s %10s %12s %s\n' round variant seconds MB_per_s peak_RSS_MB load
for r in $(seq 1 "$rounds"); do
  for v in "${variants[@]}"; do
    size=$bytes; in=("${logs[@]}")
    case $v in
      parallel) cmd=("$work/mcpsnoop" check) ;;
      in-order) cmd=("$work/mcpsnoop" check --jobs 1) ;;
      base) cmd=("$BASE" check) ;;
      one) cmd=("$work/mcpsnoop" check); size=$one; in=("${logs[0]}") ;;
      base-one) cmd=("$BASE" check); size=$one; in=("${logs[0]}") ;;
    esac
    /usr/bin/time -f '%e %M' -o "$work/time" "${cmd[@]}" "${in[@]}" >/dev/null || true
    read -r secs kb < <(tail -n 1 "$work/time")
    load=$(cut -d' ' -f1 /proc/loadavg)
    awk -v r="$r" -v v="$v" -v b="$size" -v s="$secs" -v kb="$kb" -v l="$load" 'BEGIN {
      printf "%-6d %-9s %9.2f %10.1f %12.1f %s\n", r, v, s, (s > 0 ? b/1e6/s : 0), kb/1024, l }'
  done
done | tee "$work/runs"
workers=$(( k < $(nproc) ? k : $(nproc) ))
awk -v w="$workers" '
  { t[$2, ++n[$2]] = $3; s[$2, n[$2]] = $4; m[$2, n[$2]] = $5; l[$2, n[$2]] = $6 }
  function median(a, v, k,   i, j, x, y) {
    for (i = 1; i <= k; i++) x[i] = a[v, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { y = x[i]; x[i] = x[j]; x[j] = y }
    return (k % 2) ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
  }
  END {
    for (v in n) { mt[v] = median(t, v, n[v]); ms[v] = median(s, v, n[v]); mm[v] = median(m, v, n[v]); ml[v] = median(l, v, n[v]) }
    for (v in n) printf "median %-9s %6.2f s %8.1f MB/s  peak %6.1f MB  load %s\n", v, mt[v], ms[v], mm[v], ml[v]
    if ("parallel" in n) printf "parallel peak per concurrent input (%d at once): %.1f MB\n", w, mm["parallel"] / w
    if (("parallel" in n) && ("in-order" in n)) printf "speedup over in order: %.2fx\n", mt["in-order"] / mt["parallel"]
    if (("parallel" in n) && ("base" in n)) printf "speedup over base:     %.2fx\n", mt["base"] / mt["parallel"]
    if (("one" in n) && ("base-one" in n)) printf "one input, against base: %.2fx the throughput\n", ms["one"] / ms["base-one"]
  }' "$work/runs"
