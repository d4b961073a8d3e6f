package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// measuredCheck runs Check in a process of its own (runRole "check") over
// paths with jobs, its address space limited to limitAS bytes (0: none)
// and GOMEMLIMIT set to gomemlimit ("" leaves it unset), feeding stdin
// from in when it is not nil, and returns what it printed.
func measuredCheck(t *testing.T, paths []string, jobs int, gomemlimit string, limitAS uint64, in func(io.Writer)) (checkResult, time.Duration) {
	return measuredCheckFiles(t, paths, jobs, gomemlimit, limitAS, 0, in)
}

// measuredCheckFiles is measuredCheck with the child's open-file limit set
// to files (0: as it is).
func measuredCheckFiles(t *testing.T, paths []string, jobs int, gomemlimit string, limitAS, files uint64, in func(io.Writer)) (checkResult, time.Duration) {
	t.Helper()
	list, _ := json.Marshal(paths)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=check", inputsEnv+"="+string(list), jobsEnv+"="+fmt.Sprint(jobs), wireEnv+"=1")
	if gomemlimit != "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+gomemlimit)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var stdin io.WriteCloser
	limited := limitAS > 0 || files > 0
	if limited {
		cmd.Env = append(cmd.Env, waitEnv+"=1")
	}
	if in != nil || limited {
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's limits, as `ulimit -v` and `ulimit -n` would set them,
	// applied once it runs: it waits for a line on stdin before it starts
	// (waitEnv).
	setLimit := func(resource int, v uint64) {
		lim := syscall.Rlimit{Cur: v, Max: v}
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(cmd.Process.Pid), uintptr(resource), uintptr(unsafePointer(&lim)), 0, 0, 0); errno != 0 {
			t.Fatalf("prlimit: %v", errno)
		}
	}
	if limitAS > 0 {
		setLimit(syscall.RLIMIT_AS, limitAS)
	}
	if files > 0 {
		setLimit(syscall.RLIMIT_NOFILE, files)
	}
	if limited {
		if _, err := io.WriteString(stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
		if in == nil {
			stdin.Close()
		}
	}
	if in != nil {
		go func() {
			w := bufio.NewWriterSize(stdin, 1<<20)
			in(w)
			w.Flush()
			stdin.Close()
		}()
	}
	err := cmd.Wait()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("check: %v\n%.2000s", err, stderr.String())
	}
	var res checkResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("check printed %.500q: %v\n%.2000s", stdout.String(), err, stderr.String())
	}
	t.Logf("%d input(s), jobs %d, GOMEMLIMIT %q: %d workers, peak RSS %d MiB, %s", len(paths), jobs, gomemlimit, res.Workers, res.PeakRSS>>20, took.Round(time.Millisecond))
	return res, took
}

// writeHugeLineLog writes a log of session sid whose second frame is one
// line of about size bytes: a tool result holding a long string.
func writeHugeLineLog(t *testing.T, path, sid string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	frame := func(seq int, dir, raw string) {
		fmt.Fprintf(w, `{"session_id":%q,"server_label":"big","seq":%d,"ts":"2026-07-28T12:00:0%d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", sid, seq, seq, dir, raw)
	}
	frame(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	frame(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	frame(3, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}`)
	head := fmt.Sprintf(`{"session_id":%q,"server_label":"big","seq":4,"ts":"2026-07-28T12:00:02.000Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, sid)
	w.WriteString(head)
	chunk := []byte(strings.Repeat("y", 1<<20))
	for n := size - len(head) - 10; n > 0; n -= len(chunk) {
		w.Write(chunk[:min(n, len(chunk))])
	}
	w.WriteString(`"}]}}}` + "\n")
	frame(5, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	frame(6, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Six logs with 255 MiB lines checked with --jobs 6 under a 2 GiB memory
// budget (GOMEMLIMIT): the workers share the budget, so no more of them
// read at once than it holds (one: each may need 797 MiB, and half the
// budget holds one), and the check's peak stays within it, where six at
// once hold over 3 GiB. By default no more workers are started than the
// budget holds for the largest log: one, so the logs are read in order,
// where validation once piled the six huge frames up in one batch (over
// 2 GiB, out of memory).
//
// The address space is limited too, so that a check that ignores the
// budget cannot take the machine's memory, but well above the budget: Go
// reserves address space it does not use (heap arenas, the page
// allocator's index, stacks, the binary's mappings; about 1.5 GiB before
// the first allocation), and a limit equal to the budget once left too
// little of it for the heap the budget allows (a CI run ran out of memory).
func TestCheckJobsShareOneMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and checks six logs of 255 MiB")
	}
	dir := t.TempDir()
	var paths []string
	for i := range 6 {
		p := filepath.Join(dir, fmt.Sprintf("big%d.jsonl", i))
		writeHugeLineLog(t, p, fmt.Sprintf("big-%d-aaaaaaaaaaaa", i), 255<<20)
		paths = append(paths, p)
	}
	const (
		budget    = 2 << 30
		addrSpace = budget + 4<<30
	)
	res, _ := measuredCheck(t, paths, 6, "2GiB", addrSpace, nil)
	if res.Err != "" || res.Sessions != 6 || res.Counters.Pending != 0 {
		t.Fatalf("check: %+v", res)
	}
	if res.PeakRSS > budget {
		t.Errorf("peak RSS %d MiB, over the %d MiB budget", res.PeakRSS>>20, budget>>20)
	}
	// By default, no more workers than half the budget holds logs.
	def, _ := measuredCheck(t, paths, 0, "2GiB", addrSpace, nil)
	if want := max(1, int(budget/2/logNeed(255<<20))); def.Workers > want || def.Err != "" || def.Sessions != 6 {
		t.Errorf("by default %d workers (%+v), want at most %d", def.Workers, def, want)
	}
}

func unsafePointer(l *syscall.Rlimit) unsafe.Pointer { return unsafe.Pointer(l) }

// --jobs never opens more files than the open-file limit allows: 20 logs
// asked for with --jobs 100 in a process that may hold 10 files are read
// all the same, a few at a time.
func TestCheckJobsWithinOpenFileLimit(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("log%02d.jsonl", i))
		writeHugeLineLog(t, p, fmt.Sprintf("s-%d-aaaaaaaaaaaa", i), 4<<20)
		paths = append(paths, p)
	}
	res, _ := measuredCheckFiles(t, paths, 100, "", 0, 10, nil)
	if res.Err != "" || res.Sessions != 20 {
		t.Errorf("check: %+v", res)
	}
	if res.Workers > 10-reservedFiles && res.Workers > 1 {
		t.Errorf("%d workers under a limit of 10 open files", res.Workers)
	}
}

// A million requests from the server that nobody answers, in one session
// read from a stream: the session keeps 10,000 in flight and counts the
// rest, and check stays within 300 MiB (it took 1.5 GB).
func TestCheckMillionPendingRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a million requests")
	}
	const n = 1_000_000
	res, _ := measuredCheck(t, []string{"-"}, 1, "", 0, func(w io.Writer) {
		for i := range n {
			fmt.Fprintf(w, `{"session_id":"flood-1-aaaaaaaaaaaa","server_label":"flood","seq":%d,"ts":"2026-07-28T12:00:00.000Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":%d,"method":"roots/list"}}`+"\n", i+1, i)
		}
	})
	if res.Err != "" || res.Counters.Pending != maxOpenCallsForTest || res.Counters.Untracked != n-maxOpenCallsForTest {
		t.Errorf("check: %+v", res)
	}
	if res.PeakRSS > 300<<20 {
		t.Errorf("peak RSS %d MiB, over 300 MiB", res.PeakRSS>>20)
	}
}

// maxOpenCallsForTest is checker's bound on the calls a session keeps in
// flight.
const maxOpenCallsForTest = 10_000

// Schema validation of a 12 MB result of 800,000 bad items (check
// --fail-on wire): at most 100 issues and 100,000 values of it are
// validated, and check stays within 500 MiB (it took 2.2 GB, and ran out
// of memory under a limit).
func TestCheckWireOnHugeBadFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("validates a 12 MB message")
	}
	res, _ := measuredCheck(t, []string{"-"}, 1, "", 0, func(w io.Writer) {
		frame := func(seq int, dir, raw string) {
			fmt.Fprintf(w, `{"session_id":"w-1-aaaaaaaaaaaa","server_label":"w","seq":%d,"ts":"2026-07-28T12:00:00.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, dir, raw)
		}
		frame(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		frame(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		frame(3, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
		for i := range 800_000 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":1}`)
		}
		b.WriteString(`]}}`)
		frame(4, "s2c", b.String())
	})
	stopped := false
	for _, f := range res.Findings {
		stopped = stopped || strings.Contains(f, "validation stopped after 100000 values")
	}
	if res.Err != "" || !stopped {
		t.Errorf("check: %+v", res)
	}
	if res.PeakRSS > 500<<20 {
		t.Errorf("peak RSS %d MiB, over 500 MiB", res.PeakRSS>>20)
	}
}
