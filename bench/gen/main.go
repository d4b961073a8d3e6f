// Command gen writes realistic mcpsnoop session logs (JSONL envelopes) for
// the benchmarks, deterministically: a Go port of ../shared/bench/gen.py
// whose output is byte for byte the script's for the same arguments.
//
//	go run ./bench/gen N OUT.jsonl [--seed 42] [--label bench]
//
// OUT "-" is standard output. The log, in the reference shim's envelope
// layout ({"session_id":..,"server_label":..,"seq":..,"ts":..,
// "direction":..,"transport":"stdio","raw":..}, or "text" for stderr
// lines), holds a meta frame, two server stderr lines, initialize and
// tools/list (20 tools with realistic input schemas), then N tools/call
// request/response pairs: results of about 300 B (80%), 5 KB (15%) and
// 50 KB (5%), 1% of them errors, 5% of the calls with progress
// notifications, 10% of the time two or three calls at once (answers out
// of order), and timestamps that advance like an agent's (log-normal tool
// latencies and think times, nanosecond resolution). Statistics go to
// stderr as one JSON line.
//
// Byte identity rests on drawing every random number as CPython does
// (random.go: its Mersenne Twister, seeding and methods), writing JSON and
// floats as Python's json module does (pyjson.go), and exp and log
// correctly rounded where Go's math package may be one ulp off (libm.go);
// a C library that rounds differently in the last place could change an
// output only where that bit decides a nanosecond or a rounded decimal.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

const usage = "usage: go run ./bench/gen N OUT.jsonl [--seed 42] [--label bench]"

func main() {
	n, out, seed, label, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n%s\n", err, usage)
		os.Exit(2)
	}
	var w io.Writer = os.Stdout
	var f *os.File
	if out != "-" {
		if f, err = os.Create(out); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	stats, err := generate(bw, n, seed, label)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %s: %v\n", out, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, dumpsDefault(stats))
}

// parseArgs reads gen.py's command line: N and OUT in that order, and
// --seed and --label (or --seed=42) anywhere.
func parseArgs(args []string) (n int, out string, seed int64, label string, err error) {
	seed, label = 42, "bench"
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--seed", "--label":
			if !hasVal {
				if i+1 >= len(args) {
					return 0, "", 0, "", fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "--label" {
				label = val
			} else if seed, err = strconv.ParseInt(val, 10, 64); err != nil {
				return 0, "", 0, "", fmt.Errorf("--seed %q is not an integer", val)
			}
		case "-h", "--help":
			return 0, "", 0, "", fmt.Errorf("help requested")
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return 0, "", 0, "", fmt.Errorf("want N and OUT, got %d arguments", len(pos))
	}
	if n, err = strconv.Atoi(pos[0]); err != nil || n < 0 {
		return 0, "", 0, "", fmt.Errorf("the number of calls, N, must be 0 or more, got %q", pos[0])
	}
	return n, pos[1], seed, label, nil
}

// clock is a nanosecond clock written as Go's time.Time MarshalJSON
// writes UTC times.
type clock struct{ ns int64 }

func (c *clock) advance(seconds float64) { c.ns += max(1000, int64(seconds*1e9)) }

func (c *clock) format(ns int64) string {
	sec, frac := ns/1_000_000_000, ns%1_000_000_000
	s := time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05")
	if frac == 0 {
		return s + "Z"
	}
	return s + "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0") + "Z"
}

// event is one frame of a round of calls, before the round is sorted.
type event struct {
	ts      int64
	order   int
	dir     string
	payload string
	text    bool
}

func generate(w *bufio.Writer, n int, seed int64, label string) (obj, error) {
	rng := newPyRandom(seed)
	txt := newText(newPyRandom(seed + 1))
	cl := newCalls(rng, txt)
	var cum []float64
	acc := 0.0
	for _, t := range tools {
		acc += t.popularity
		cum = append(cum, acc)
	}
	pid := 20000 + rng.randint(0, 40000)
	sid := fmt.Sprintf("%s-%d-%012x", label, pid, rng.getrandbits(48))
	// As in gen.py, the label goes in as it is, unescaped: one that JSON
	// would escape makes lines that are not JSON.
	prefix := `{"session_id":"` + sid + `","server_label":"` + label + `","seq":`

	clk := &clock{ns: 1785225600*1_000_000_000 + 123_456_789} // 2026-07-28T08:00:00.123456789Z
	seq, nbytes := 0, 0
	counts := map[string]int{}
	var err error
	emit := func(dir, payload string, ts int64, isText bool) {
		seq++
		var line string
		if isText {
			line = fmt.Sprintf("%s%d,\"ts\":\"%s\",\"direction\":\"%s\",\"transport\":\"stdio\",\"text\":%s}\n", prefix, seq, clk.format(ts), dir, dumpsDefault(payload))
		} else {
			line = fmt.Sprintf("%s%d,\"ts\":\"%s\",\"direction\":\"%s\",\"transport\":\"stdio\",\"raw\":%s}\n", prefix, seq, clk.format(ts), dir, payload)
		}
		if _, werr := w.WriteString(line); werr != nil && err == nil {
			err = werr
		}
		nbytes += len(line)
		counts["frames"]++
		counts[dir]++
	}
	now := func() int64 { return clk.ns }

	emit("meta", dumps(o("command", []string{"node", "/opt/mcp/devtools-server/dist/index.js", "--stdio"}, "cwd", "/home/dev/project")), now(), false)
	clk.advance(0.000412)
	emit("c2s", dumps(o("jsonrpc", "2.0", "id", 0, "method", "initialize", "params", o(
		"protocolVersion", "2025-06-18",
		"capabilities", o("roots", o("listChanged", true), "sampling", obj{}, "elicitation", obj{}),
		"clientInfo", o("name", "claude-code", "version", "1.0.98")))), now(), false)
	clk.advance(0.182)
	emit("stderr", "devtools-mcp v2.3.1 starting (node v22.11.0)", now(), true)
	clk.advance(0.031)
	emit("stderr", "Secure MCP devtools server running on stdio", now(), true)
	clk.advance(0.0009)
	emit("s2c", dumps(o("jsonrpc", "2.0", "id", 0, "result", o(
		"protocolVersion", "2025-06-18",
		"capabilities", o("tools", o("listChanged", true), "logging", obj{}),
		"serverInfo", o("name", "devtools-mcp", "title", "Developer Tools", "version", "2.3.1"),
		"instructions", "Filesystem, git, shell, database, GitHub and web tools for the current workspace. "+
			"Prefer read_file over run_command for reading files.",
	))), now(), false)
	clk.advance(0.0011)
	emit("c2s", dumps(o("jsonrpc", "2.0", "method", "notifications/initialized")), now(), false)
	clk.advance(0.0004)
	emit("c2s", dumps(o("jsonrpc", "2.0", "id", 1, "method", "tools/list", "params", obj{})), now(), false)
	clk.advance(0.0021)
	emit("s2c", dumps(o("jsonrpc", "2.0", "id", 1, "result", o("tools", toolList()))), now(), false)

	thinkMu := pyLog(1.2)
	nextID, nextToken, done := 2, 1, 0
	for done < n {
		clk.advance(rng.lognormvariate(thinkMu, 0.9)) // the model "thinks"
		k := 1
		if rng.random() < 0.10 && n-done >= 2 {
			k = min(n-done, choice(rng, []int{2, 2, 3}))
			counts["concurrent_batches"]++
		}
		var timeline []event
		order := 0
		t0 := clk.ns
		for j := range k {
			x := rng.random() * acc
			ti := 0
			for cum[ti] < x {
				ti++
			}
			tl := tools[ti]
			cid := nextID
			nextID++
			params := o("name", tl.name, "arguments", cl.args(tl.name))
			token := 0
			if tl.progress && rng.random() < 0.25 {
				token = nextToken
				nextToken++
				params.set("_meta", o("progressToken", token))
			}
			reqTS := t0 + int64(j)*int64(rng.randint(200_000, 3_000_000))
			timeline = append(timeline, event{reqTS, order, "c2s", dumps(o("jsonrpc", "2.0", "id", cid, "method", "tools/call", "params", params)), false})
			order++
			dur := max(0.0002, rng.lognormvariate(pyLog(tl.lat), tl.sigma))
			durNS := int64(dur * 1e9)
			if token != 0 {
				steps := rng.randint(1, 4)
				total := steps + 1
				for s := 1; s <= steps; s++ {
					p := o("progressToken", token, "progress", s, "total", total)
					if rng.random() < 0.5 {
						p.set("message", fmt.Sprintf("%s: step %d of %d", tl.name, s, total))
					}
					timeline = append(timeline, event{reqTS + durNS*int64(s)/int64(total), order, "s2c",
						dumps(o("jsonrpc", "2.0", "method", "notifications/progress", "params", p)), false})
					order++
					counts["progress"]++
				}
			}
			var target int
			switch u := rng.random(); {
			case u < 0.80:
				target = rng.randint(200, 400)
				counts["small"]++
			case u < 0.95:
				target = rng.randint(3500, 6500)
				counts["medium"]++
			default:
				target = rng.randint(35000, 65000)
				counts["large"]++
			}
			isErr := rng.random() < 0.01
			if isErr {
				counts["isError"]++
			}
			res := cl.result(tl.name, tl.style, target, isErr)
			end := reqTS + durNS
			timeline = append(timeline, event{end, order, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, cid, dumps(res)), false})
			order++
			if rng.random() < 0.005 {
				lvl := choice(rng, levels)
				timeline = append(timeline, event{end - 50_000, order, "stderr",
					fmt.Sprintf("[%s] %s completed in %.1fms", lvl, tl.name, dur*1000), true})
				order++
			}
		}
		sort.Slice(timeline, func(a, b int) bool {
			if timeline[a].ts != timeline[b].ts {
				return timeline[a].ts < timeline[b].ts
			}
			return timeline[a].order < timeline[b].order
		})
		for _, e := range timeline {
			emit(e.dir, e.payload, e.ts, e.text)
		}
		clk.ns = max(clk.ns, timeline[len(timeline)-1].ts)
		done += k
	}
	stats := o("frames", counts["frames"], "c2s", counts["c2s"], "s2c", counts["s2c"], "stderr", counts["stderr"],
		"meta", counts["meta"], "small", counts["small"], "medium", counts["medium"], "large", counts["large"],
		"isError", counts["isError"], "progress", counts["progress"], "concurrent_batches", counts["concurrent_batches"],
		"bytes", nbytes, "calls", n, "session_id", sid)
	return stats, err
}
