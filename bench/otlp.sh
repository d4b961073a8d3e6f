#!/usr/bin/env bash
# What live OTLP streaming costs the stdio shim when the collector is dead:
# the round-trip p50 the shim adds (against the same echo server spoken to
# directly) without OTLP, and with --otlp-endpoint pointing at a collector
# that accepts connections and never answers (a black hole, the worst
# case: every request hangs until its timeout, the queue fills, spans are
# dropped); for scale, also with a collector that answers at once (what
# tracing itself costs: the spans are made either way). One run, 3 interleaved rounds (configuration order rotated per
# round), K sequential tools/call each (bench/rtt's driver and echo server).
# Usage:
#   bench/otlp.sh [K]          (default 5000; BENCH_DIR keeps the work folder)
# Prints each round's p50s and the added p50 per configuration (median of
# the rounds), and the shim's own report of the spans it dropped.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-5000}
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home"
go build -o "$work/bin/mcpsnoop" ./cmd/mcpsnoop
go build -o "$work/bin/driver" ./bench/rtt/driver
go build -o "$work/bin/echoserver" ./bench/rtt/echoserver
MCPSNOOP_HOME="$work/home" WORK="$work" K="$k" python3 - <<'PY'
import json, os, socket, statistics, subprocess, threading

work, k = os.environ["WORK"], os.environ["K"]
b = lambda n: os.path.join(work, "bin", n)

# The black hole: accepts, reads, never answers.
hole = socket.socket()
hole.bind(("127.0.0.1", 0))
hole.listen(64)
def swallow(c):
    while c.recv(65536):
        pass
def accept():
    while True:
        c, _ = hole.accept()
        threading.Thread(target=swallow, args=(c,), daemon=True).start()
threading.Thread(target=accept, daemon=True).start()
endpoint = "http://127.0.0.1:%d/v1/traces" % hole.getsockname()[1]

# A collector that answers every request at once.
import http.server
class Ok(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")
    def log_message(self, *a):
        pass
ok = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ok)
threading.Thread(target=ok.serve_forever, daemon=True).start()
answering = "http://127.0.0.1:%d/v1/traces" % ok.server_address[1]

configs = {
    "direct": [b("echoserver")],
    "shim": [b("mcpsnoop"), "--label", "rtt", "--", b("echoserver")],
    "shim+otlp(black hole)": [b("mcpsnoop"), "--label", "rtt", "--otlp-endpoint", endpoint, "--", b("echoserver")],
    "shim+otlp(answering)": [b("mcpsnoop"), "--label", "rtt", "--otlp-endpoint", answering, "--", b("echoserver")],
}
names = list(configs)
p50 = {n: [] for n in names}
reports = []
for r in range(3):
    order = names[r:] + names[:r]
    for n in order:
        p = subprocess.run([b("driver"), "-mode", "seq", "-k", k, "--"] + configs[n], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise SystemExit("driver failed (%s): %s" % (n, p.stderr))
        rep = json.loads(p.stdout)
        p50[n].append(rep["p50_us"])
        if "black hole" in n:
            reports.append(rep.get("stderr_tail", "").strip().splitlines()[-1:] )
    print("round %d (%s): %s" % (r + 1, ", ".join(order), ", ".join("%s p50 %.1f us" % (n, p50[n][-1]) for n in names)))

added = lambda n: [s - d for s, d in zip(p50[n], p50["direct"])]
print()
print("| configuration | p50 per round (us) | added p50 vs direct, median of rounds (us) |")
print("|---|---|---|")
for n in names:
    row = " / ".join("%.1f" % v for v in p50[n])
    add = "-" if n == "direct" else "%.1f [%s]" % (statistics.median(added(n)), " / ".join("%.1f" % v for v in added(n)))
    print("| %s | %s | %s |" % (n, row, add))
print()
print("the shim's report with the black hole (last round): %s" % (reports[-1][0] if reports and reports[-1] else "(none)"))
PY
