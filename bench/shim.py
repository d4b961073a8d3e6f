#!/usr/bin/env python3
"""Stdio shim overhead: round-trip latency and pipelined throughput through an
mcpsnoop-compatible shim, against the same echo server spoken to directly.

    MCPSNOOP_BIN=path/to/mcpsnoop bench/shim.py --runs 5   (BENCH_DIR: work folder, default a new temp dir)

(bench/shim.sh builds mcpsnoop and runs this.) A copy of
../shared/bench/bench_shim.py, kept here with the driver and echo server
(bench/rtt) so that the benchmark runs from a clone.

Configurations (same Go driver, same Go echo server, bench/rtt/):
  direct   driver -> echoserver
  trace    driver -> $MCPSNOOP_BIN --trace-file results/shim-trace.jsonl --label rtt -- echoserver
  notrace  driver -> $MCPSNOOP_BIN --no-trace --label rtt -- echoserver

Tests:
  seq    K sequential tools/call (default 20000, ~256 B text echoed each way);
         per-round-trip p50/p90/p99/p99.9, mean, calls/s
  burst  K pipelined tools/call (default 20000) with 4 KiB text each way;
         round trips/s, frames/s (both directions), MB/s (both directions)

Each round runs direct, trace, notrace back to back (order rotated per round),
RUNS rounds; reported are medians [min-max] across rounds and per-round paired
ratios. The trace file is checked after every traced run: expected frames are
2K + 6 (meta, initialize x2, initialized, tools/list x2), and the shim's own
"dropped N envelope(s)" warning is captured. Child CPU (shim + server, wait4)
is reported so the shim's CPU per frame can be estimated.
Results: results/shim-<tag>.json and a markdown table on stdout.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--k-seq", type=int, default=20000)
    ap.add_argument("--k-burst", type=int, default=20000)
    ap.add_argument("--seq-payload", type=int, default=256)
    ap.add_argument("--burst-payload", type=int, default=4096)
    ap.add_argument("--tests", default="seq,burst")
    ap.add_argument("--configs", default="direct,trace,notrace")
    ap.add_argument("--tag", default=None)
    a = ap.parse_args()

    binp = os.environ.get("MCPSNOOP_BIN")
    if not binp:
        sys.exit("set MCPSNOOP_BIN to the mcpsnoop binary to measure")
    work = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="bench-shim-")
    home = os.environ.get("MCPSNOOP_HOME", os.path.join(work, "home"))
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, MCPSNOOP_HOME=home)
    tag = a.tag or os.path.basename(binp)
    rtt = os.path.join(HERE, "rtt")
    driver = os.path.join(work, "bin", "driver")
    server = os.path.join(work, "bin", "echoserver")
    if not (os.path.exists(driver) and os.path.exists(server)):
        subprocess.run(["go", "build", "-o", driver, "./driver"], cwd=rtt, check=True)
        subprocess.run(["go", "build", "-o", server, "./echoserver"], cwd=rtt, check=True)
    os.makedirs(os.path.join(work, "results"), exist_ok=True)
    trace = os.path.join(work, "results", "shim-trace.jsonl")
    configs = {
        "direct": [server],
        "trace": [binp, "--trace-file", trace, "--label", "rtt", "--", server],
        "notrace": [binp, "--no-trace", "--label", "rtt", "--", server],
    }
    cnames = [c for c in a.configs.split(",") if c]
    tests = [t for t in a.tests.split(",") if t]
    results = {"bin": binp, "runs": a.runs, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "tests": {}}

    def run(test, cfg):
        k = a.k_seq if test == "seq" else a.k_burst
        payload = a.seq_payload if test == "seq" else a.burst_payload
        if os.path.exists(trace):
            os.remove(trace)
        argv = [driver, "-mode", test, "-k", str(k), "-payload", str(payload), "--"] + configs[cfg]
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise SystemExit("driver failed (%s %s): %s" % (test, cfg, p.stderr))
        r = json.loads(p.stdout)
        if cfg == "trace":
            with open(trace, "rb") as f:
                lines = sum(1 for _ in f)
            r["trace_frames"] = lines
            r["trace_expected"] = 2 * k + 6
            r["trace_missing"] = 2 * k + 6 - lines
        return r

    for test in tests:
        runs = {c: [] for c in cnames}
        # warm-up (page cache for binaries, first-run effects)
        for c in cnames:
            run(test, c)
        for i in range(a.runs):
            order = cnames[i % len(cnames):] + cnames[:i % len(cnames)]
            for c in order:
                r = run(test, c)
                runs[c].append(r)
                if test == "seq":
                    print("  %s run %d %-8s p50 %.1fus p99 %.1fus calls/s %.0f%s" % (
                        test, i + 1, c, r["p50_us"], r["p99_us"], r["calls_per_s"],
                        (" trace %d/%d" % (r["trace_frames"], r["trace_expected"])) if c == "trace" else ""), file=sys.stderr)
                else:
                    print("  %s run %d %-8s %.0f rt/s %.1f MB/s%s" % (
                        test, i + 1, c, r["calls_per_s"], r["mb_per_s"],
                        (" trace %d/%d" % (r["trace_frames"], r["trace_expected"])) if c == "trace" else ""), file=sys.stderr)
        results["tests"][test] = runs

        def stat(c, key):
            xs = [r[key] for r in runs[c]]
            return med(xs), min(xs), max(xs)

        k = a.k_seq if test == "seq" else a.k_burst
        if test == "seq":
            print("\n### sequential round trips: K=%d, %d B text each way, runs=%d\n" % (k, a.seq_payload, a.runs))
            print("| config | p50 us | p90 us | p99 us | p99.9 us | mean us | calls/s | startup ms | child cpu s | trace frames (missing) |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            keys = ["p50_us", "p90_us", "p99_us", "p999_us", "mean_us", "calls_per_s", "startup_ms"]
        else:
            print("\n### pipelined burst: K=%d, %d B text each way, runs=%d\n" % (k, a.burst_payload, a.runs))
            print("| config | round trips/s | frames/s | MB/s (both dirs) | total s | startup ms | child cpu s | trace frames (missing) |")
            print("|---|---|---|---|---|---|---|---|")
            keys = ["calls_per_s", "frames_per_s", "mb_per_s", "total_s", "startup_ms"]
        for c in cnames:
            cells = []
            for key in keys:
                m, lo, hi = stat(c, key)
                cells.append("%.0f [%.0f-%.0f]" % (m, lo, hi) if m >= 100 else "%.1f [%.1f-%.1f]" % (m, lo, hi))
            cpu = [r["child_user_s"] + r["child_sys_s"] for r in runs[c]]
            cells.append("%.2f [%.2f-%.2f]" % (med(cpu), min(cpu), max(cpu)))
            if c == "trace":
                miss = [r["trace_missing"] for r in runs[c]]
                fr = [r["trace_frames"] for r in runs[c]]
                cells.append("%d (%d..%d)" % (med(fr), min(miss), max(miss)))
            else:
                cells.append("-")
            print("| %s | %s |" % (c, " | ".join(cells)))
        if "direct" in runs:
            print("\n| paired vs direct | ratio med [min-max] | delta med |")
            print("|---|---|---|")
            for c in cnames:
                if c == "direct":
                    continue
                for key in (["p50_us", "p99_us", "calls_per_s"] if test == "seq" else ["calls_per_s", "mb_per_s"]):
                    rs = [x[key] / y[key] for x, y in zip(runs[c], runs["direct"])]
                    ds = [x[key] - y[key] for x, y in zip(runs[c], runs["direct"])]
                    print("| %s %s | %.2f [%.2f-%.2f] | %+.1f |" % (c, key, med(rs), min(rs), max(rs), med(ds)))
                cpu = [(x["child_user_s"] + x["child_sys_s"] - y["child_user_s"] - y["child_sys_s"]) / (2 * k) * 1e6
                       for x, y in zip(runs[c], runs["direct"])]
                print("| %s extra child CPU per frame (us) | %.1f [%.1f-%.1f] | |" % (c, med(cpu), min(cpu), max(cpu)))
        if "trace" in runs:
            tails = sorted(set(r.get("stderr_tail", "").split("\n")[-1] for r in runs["trace"] if "dropped" in r.get("stderr_tail", "")))
            if tails:
                print("\nshim drop warnings: %s" % "; ".join(tails))
        sys.stdout.flush()

    outf = os.path.join(work, "results", "shim-%s.json" % tag)
    with open(outf, "w") as f:
        json.dump(results, f, indent=1)
    print("\nresults: %s" % outf, file=sys.stderr)


if __name__ == "__main__":
    main()
