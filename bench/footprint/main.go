//go:build linux

// Command footprint measures what one stdio shim costs a client that runs
// it: the peak resident memory of the shim and of any helper process it
// starts (mcpsnoop's supervisor), how long from spawning the shim until the
// server it wraps starts, and until the answer to an initialize request
// comes back. It runs each tool given, and the server alone, RUNS times
// interleaved (order rotated per run), and prints medians [min-max] side
// by side, the first tool against the second.
//
//	footprint [-runs 7] [-json FILE] NAME=BIN [NAME=BIN ...]
//
// Each BIN runs as `BIN --label footprint -- footprint server` with HOME,
// XDG_*_HOME and MCPSNOOP_HOME in a temp dir of its own, so that neither
// tool touches the user's state. The server is this program again: its
// first act is to write its pid and CLOCK_MONOTONIC to the file named by
// FOOTPRINT_STAMP (the environment reaches it through the shim); it then
// answers each request line with a small result, and ends at EOF.
//
// Memory is read from /proc: VmHWM (the peak RSS, held by the kernel for
// the process's whole life) of the shim and of each process under it that
// is not the server or under the server (the helpers), read until each is
// gone, so the figure is each process's own peak and the sum is what the
// client's machine holds for the shim at most (/usr/bin/time gives only
// the largest of a process tree). Once the handshake is done it also reads
// smaps_rollup: Pss (shared file pages, the binary's text, split between
// the processes that map them) and Anonymous (the heap and stacks).
//
// Linux only (/proc); elsewhere it says so and exits 0.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "server" {
		os.Exit(serve())
	}
	runs := flag.Int("runs", 7, "runs of each tool (interleaved)")
	jsonOut := flag.String("json", "", "also write every run's figures to this file")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: footprint [-runs N] [-json FILE] NAME=BIN [NAME=BIN ...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	tools, err := parseTools(flag.Args())
	if err != nil || *runs < 1 {
		flag.Usage()
		if err != nil {
			fmt.Fprintf(os.Stderr, "footprint: %v\n", err)
		}
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("cannot find this program to run as the server: %v", err)
	}
	work, err := os.MkdirTemp("", "footprint-")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(work)

	results := map[string][]trial{}
	order := append([]tool{{name: "server alone"}}, tools...)
	for r := 0; r < *runs; r++ {
		for i := range order {
			t := order[(i+r)%len(order)]
			tr, err := runTrial(t, self, filepath.Join(work, fmt.Sprintf("%d-%d", r, i)))
			if err != nil {
				fatalf("%s, run %d: %v", t.name, r+1, err)
			}
			results[t.name] = append(results[t.name], tr)
		}
	}
	printTable(os.Stdout, *runs, order, results)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fatalf("%v", err)
		}
	}
}

// tool is one shim to measure; a tool with no bin is the server alone.
type tool struct {
	name string
	bin  string
}

func parseTools(args []string) ([]tool, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("name at least one shim binary, as NAME=BIN")
	}
	var ts []tool
	for _, a := range args {
		name, bin, ok := strings.Cut(a, "=")
		if !ok || name == "" || bin == "" {
			return nil, fmt.Errorf("%q: want NAME=BIN", a)
		}
		if _, err := os.Stat(bin); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(bin)
		if err != nil {
			return nil, err
		}
		ts = append(ts, tool{name: name, bin: abs})
	}
	return ts, nil
}

// trial is one run of one tool. Memory is in KiB, times in nanoseconds.
type trial struct {
	StartupNS  int64 `json:"startup_ns"`  // spawn -> the server's first instruction of main
	FirstNS    int64 `json:"first_ns"`    // spawn -> the initialize response read
	ShimHWM    int64 `json:"shim_hwm_kb"` // the shim's peak RSS
	HelperHWM  int64 `json:"helper_hwm_kb"`
	Helpers    int   `json:"helpers"`
	ShimPss    int64 `json:"shim_pss_kb"`
	HelperPss  int64 `json:"helper_pss_kb"`
	ShimAnon   int64 `json:"shim_anon_kb"`
	HelperAnon int64 `json:"helper_anon_kb"`
	// CPU time (user + system) of the process spawned and of all it
	// reaped (the server's included), from wait4: unlike the times above,
	// it does not grow when the machine is busy.
	CPUNS int64 `json:"cpu_ns"`
	// CPU time on the shim's and the helpers' own accounts, from
	// /proc/PID/schedstat, read until each process is gone.
	ShimCPUNS   int64 `json:"shim_cpu_ns"`
	HelperCPUNS int64 `json:"helper_cpu_ns"`
}

// runTrial runs the server under t (or alone), does the handshake, reads
// the memory figures, ends the session and waits for every process.
func runTrial(t tool, self, dir string) (trial, error) {
	var tr trial
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return tr, err
	}
	for _, d := range []string{"home/run", "home/config", "home/data", "home/state", "home/cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return tr, err
		}
	}
	stamp := filepath.Join(dir, "stamp")
	argv := []string{self, "server"}
	if t.bin != "" {
		argv = append([]string{t.bin, "--label", "footprint", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = isolatedEnv(dir, stamp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return tr, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return tr, err
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	t0 := monotonic()
	if err := cmd.Start(); err != nil {
		return tr, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	watchdog := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()

	out := bufio.NewReader(stdout)
	if _, err := io.WriteString(stdin, initializeRequest); err != nil {
		return tr, fmt.Errorf("writing initialize: %v (stderr: %s)", err, stderr)
	}
	if _, err := out.ReadString('\n'); err != nil {
		return tr, fmt.Errorf("no initialize response: %v (stderr: %s)", err, stderr)
	}
	tr.FirstNS = monotonic() - t0
	serverPid, started, err := readStamp(stamp)
	if err != nil {
		return tr, err
	}
	tr.StartupNS = started - t0
	// A few more round trips, as a client's first seconds go.
	for _, req := range followUps {
		if _, err := io.WriteString(stdin, req); err != nil {
			return tr, err
		}
		if strings.Contains(req, `"id"`) {
			if _, err := out.ReadString('\n'); err != nil {
				return tr, fmt.Errorf("no response to %s: %v (stderr: %s)", strings.TrimSpace(req), err, stderr)
			}
		}
	}
	if t.bin == "" {
		stdin.Close()
		_, _ = io.Copy(io.Discard, out)
		err := <-waited
		tr.CPUNS = cpu(cmd)
		return tr, err
	}

	shim := cmd.Process.Pid
	helpers := helpersOf(shim, serverPid)
	tr.Helpers = len(helpers)
	tr.ShimPss, tr.ShimAnon = rollup(shim)
	for _, h := range helpers {
		pss, anon := rollup(h)
		tr.HelperPss += pss
		tr.HelperAnon += anon
	}
	// VmHWM only grows; read it until each process is gone, so that the
	// last reading is its peak over the whole session, its end included.
	peak, ran := map[int]int64{}, map[int]int64{}
	sample := func() {
		for _, p := range append([]int{shim}, helpers...) {
			if v := vmHWM(p); v > peak[p] {
				peak[p] = v
			}
			if v := onCPU(p); v > ran[p] {
				ran[p] = v
			}
		}
	}
	sample()
	stdin.Close()
	var werr error
	go func() { _, _ = io.Copy(io.Discard, out) }()
	tick := time.NewTicker(500 * time.Microsecond)
	defer tick.Stop()
wait:
	for {
		select {
		case werr = <-waited:
			break wait
		case <-tick.C:
			sample()
		}
	}
	if werr != nil {
		return tr, fmt.Errorf("%v (stderr: %s)", werr, stderr)
	}
	tr.CPUNS = cpu(cmd)
	tr.ShimHWM, tr.ShimCPUNS = peak[shim], ran[shim]
	for _, h := range helpers {
		tr.HelperHWM += peak[h]
		tr.HelperCPUNS += ran[h]
	}
	return tr, nil
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"footprint","version":"1"}}}` + "\n"

var followUps = []string{
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n",
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n",
	`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n",
}

// isolatedEnv is this process's environment with every place a tool keeps
// state moved into dir.
func isolatedEnv(dir, stamp string) []string {
	home := filepath.Join(dir, "home")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "MCPSNOOP_HOME" || strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"MCPSNOOP_HOME="+filepath.Join(home, "mcpsnoop"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_RUNTIME_DIR="+filepath.Join(home, "run"),
		"FOOTPRINT_STAMP="+stamp,
	)
}

func cpu(cmd *exec.Cmd) int64 {
	return int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
}

func readStamp(path string) (pid int, ns int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("the server wrote no start stamp: %v", err)
	}
	if _, err := fmt.Sscan(string(b), &pid, &ns); err != nil {
		return 0, 0, fmt.Errorf("start stamp %q: %v", b, err)
	}
	return pid, ns, nil
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "footprint: "+format+"\n", a...)
	os.Exit(1)
}
