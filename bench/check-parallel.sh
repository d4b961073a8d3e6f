#!/usr/bin/env bash
# Is one `mcpsnoop check` of K independent logs faster than K checks in a
# row, with the default worker count? K logs of N tool calls (each its own
# session, seeds 1..K; 85 MB each at the default 20,000 calls) are checked
# ROUNDS times each way, interleaved so that a machine shared with other
# work slows both alike:
#   - in-a-row: K processes, `mcpsnoop check LOG`, one after another;
#   - one:      one process, `mcpsnoop check LOG1 ... LOGK` (--jobs 0,
#               the default);
#   - jobs=J:   one process with --jobs J, for each J in JOBS (default: 1
#               and the number of cores), to see the default against them.
# Printed: the default worker count for these logs (bench/checkworkers,
# the decision check makes, and what bounded it), each round's wall and CPU
# (user+sys) times and speed-ups (in-a-row's wall time over each
# variant's, within the round), then the medians of the times and of the
# per-round speed-ups. On a machine shared with other work the wall times
# swing with its load; the CPU times say whether a variant did more work.
# Usage:
#   bench/check-parallel.sh [N [K [ROUNDS]]]       default: 20000 4 5
#   JOBS="1 2 4" bench/check-parallel.sh
# Needs Go and GNU time; the logs are written to a temporary folder and deleted at the
# end (BENCH_DIR keeps them, and reuses them when they are there).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}; k=${2:-4}; rounds=${3:-5}
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
go build -o "$work/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/gen" ./bench/gen
go build -o "$work/checkworkers" ./bench/checkworkers
logs=()
for i in $(seq 1 "$k"); do
  log="$work/log-$n-$i.jsonl"
  [ -s "$log" ] || "$work/gen" "$n" "$log" --seed "$i" 2>/dev/null
  logs+=("$log")
done
bytes=$(cat "${logs[@]}" | wc -c)   # also warms the page cache
jobs=${JOBS:-"1 $(nproc)"}
printf '%d logs of %d calls, %d MB in all, %d cores, GOMEMLIMIT=%s\n' "$k" "$n" "$((bytes / 1000000))" "$(nproc)" "${GOMEMLIMIT:-unset}"
"$work/checkworkers" "${logs[@]}"
# run CMD...: "WALL CPU" of CMD in seconds, CPU being user+sys (check exits
# 1 on findings).
run() {
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$@" >/dev/null 2>&1 || [ $? -eq 1 ]
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v c="$(tail -n 1 "$work/cpu")" 'BEGIN { split(c, x, " "); printf "%.3f %.3f\n", b - a, x[1] + x[2] }'
}
in_a_row() {
  local wall=0 cpu=0 w c
  for l in "${logs[@]}"; do
    read -r w c < <(run "$work/mcpsnoop" check "$l")
    wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print a + b }'); cpu=$(awk -v a="$cpu" -v b="$c" 'BEGIN { print a + b }')
  done
  echo "$wall $cpu"
}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }
# Each round runs in-a-row and one back to back, in turns first (so that
# a load that rises or falls through the round favours neither), then the
# --jobs variants; each variant's speed-up is over that round's in-a-row.
printf '%-6s %-10s %8s %8s %8s %s\n' round variant seconds cpu_s speedup load
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    read -r rw rc < <(in_a_row); read -r ow oc < <(run "$work/mcpsnoop" check "${logs[@]}")
  else
    read -r ow oc < <(run "$work/mcpsnoop" check "${logs[@]}"); read -r rw rc < <(in_a_row)
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  printf '%-6d %-10s %8.2f %8.2f %8s %s\n' "$r" in-a-row "$rw" "$rc" - "$load"
  printf '%-6d %-10s %8.2f %8.2f %7.2fx %s\n' "$r" one "$ow" "$oc" "$(awk -v a="$rw" -v b="$ow" 'BEGIN { print a / b }')" "$load"
  for j in $jobs; do
    read -r tw tc < <(run "$work/mcpsnoop" check --jobs "$j" "${logs[@]}")
    printf '%-6d %-10s %8.2f %8.2f %7.2fx %s\n' "$r" "jobs=$j" "$tw" "$tc" "$(awk -v a="$rw" -v b="$tw" 'BEGIN { print a / b }')" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done | tee "$work/runs"
awk '
  $1 !~ /^[0-9]+$/ { next }
  { t[$2, ++n[$2]] = $3; c[$2, n[$2]] = $4; if ($5 != "-") { x[$2, n[$2]] = $5 + 0 }; seen[$2] = 1 }
  function median(a, v, k,   i, j, y, z) {
    for (i = 1; i <= k; i++) y[i] = a[v, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (y[j] < y[i]) { z = y[i]; y[i] = y[j]; y[j] = z }
    return (k % 2) ? y[(k + 1) / 2] : (y[k / 2] + y[k / 2 + 1]) / 2
  }
  END {
    printf "median in-a-row %6.2f s, %6.2f s CPU\n", median(t, "in-a-row", n["in-a-row"]), median(c, "in-a-row", n["in-a-row"])
    for (v in seen) if (v != "in-a-row")
      printf "median %-8s %6.2f s, %6.2f s CPU; speed-up over in-a-row (median of the rounds): %.2fx\n", v, median(t, v, n[v]), median(c, v, n[v]), median(x, v, n[v])
  }' "$work/runs"
