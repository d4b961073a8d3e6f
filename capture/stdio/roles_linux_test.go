//go:build linux

package stdio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// roleEnv names the role this test binary plays when it is started by a
// test rather than by go test (see TestMain).
const roleEnv = "MCPSNOOP_TEST_ROLE"

// Settings of the memory test's shim, passed through the environment.
const (
	trafficEnv = "MCPSNOOP_TEST_TRAFFIC" // the pattern the server writes (serveTraffic)
	redactEnv  = "MCPSNOOP_TEST_REDACT"  // capture.RedactOptions as JSON
	logEnv     = "MCPSNOOP_TEST_LOG"     // where the shim writes its log
	rssEnv     = "MCPSNOOP_TEST_RSS"     // where the shim writes its peak RSS, in bytes
)

func runRole(role string) int {
	switch role {
	case "shim":
		return runMeasuredShim()
	case "server":
		return serveTraffic(os.Getenv(trafficEnv), os.Stdout)
	case "plain-shim":
		return runPlainShim()
	}
	fmt.Fprintf(os.Stderr, "unknown test role %q\n", role)
	return 2
}

// commandEnv holds the server command of a plain shim, as JSON;
// shellEnv, when set, the shell it runs the watcher in ("none": the Go
// supervisor instead).
const (
	commandEnv = "MCPSNOOP_TEST_COMMAND"
	shellEnv   = "MCPSNOOP_TEST_SHELL"
)

// runPlainShim runs a Shim between this process's stdio and the command
// commandEnv names, without a log: a shim a test can kill.
func runPlainShim() int {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(commandEnv)), &argv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	switch sh := os.Getenv(shellEnv); sh {
	case "":
	case "none":
		shellPath = ""
	default:
		shellPath = sh
	}
	sh := &Shim{Command: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	code, err := sh.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return code
}

// runMeasuredShim runs a Shim between this process's stdio and this test
// binary playing the server, logging to a file with the redaction rules
// given, and writes its own peak resident set size when done.
func runMeasuredShim() int {
	capture.BoundMemory() // as the shim command does
	var ro capture.RedactOptions
	if v := os.Getenv(redactEnv); v != "" {
		if err := json.Unmarshal([]byte(v), &ro); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	red, err := capture.NewRedactor(ro)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out, err := os.Create(os.Getenv(logEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	os.Setenv(roleEnv, "server")
	sh := &Shim{
		Command: []string{os.Args[0]},
		Stdin:   os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		OpenLog: func() *capture.LogWriter {
			return capture.NewLogWriter(out, capture.LogOptions{SessionID: "mem-1-aaaaaaaaaaaa", Label: "mem", Path: out.Name(), Redactor: red, Warn: os.Stderr})
		},
	}
	code, err := sh.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The peak of this process's own memory: VmHWM. (getrusage's
	// ru_maxrss would not do: a process started by fork and exec inherits
	// the high-water mark of the process that started it.)
	hwm, err := peakRSS()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.WriteFile(os.Getenv(rssEnv), []byte(strconv.FormatInt(hwm, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return code
}

// peakRSS is this process's peak resident set size, in bytes: VmHWM of
// /proc/self/status.
func peakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// Traffic patterns a server writes, each generated as it is written.
const (
	// A message 9,990 deep beside a 15 MiB string, which once bought a
	// path rule room for 1.74 GB.
	trafficDeepPad = "deep-pad"
	// Results holding dense arrays of numbers just under 16 MiB, which a
	// decoded tree made 1 GB and 8 s a line.
	trafficDense = "dense"
	// 2 GiB of NUL-separated junk without a newline: one line far past
	// the frame limit.
	trafficJunk = "junk"
	// Messages as wide as a path rule's budget lets through: one with as
	// many values as it allows, one as long as a line may be.
	trafficWide = "wide"
	// Lines of 16 MiB on every channel at once: the server's stdout and
	// stderr, and (from the test) the client's requests, which the server
	// reads.
	trafficFlood = "flood"
)

// Sizes of the traffic patterns.
const (
	denseLines = 4
	junkBytes  = 2 << 30
	// wideItems is as many {"k":"..."} items as $..k may cost: 14 units
	// each against a budget of 1 Mi units (capture's redactBudgetMax).
	wideItems = 70_000
	// floodLines is how many lines of 16 MiB each channel carries.
	floodLines = 6
)

// writeBigLines writes n lines of just under MaxLogLine: JSON results
// holding a long string, or (not json) text of junk with NULs.
func writeBigLines(out io.Writer, n int, json bool) error {
	w := bufio.NewWriterSize(out, 1<<20)
	for id := range n {
		var line string
		if json {
			head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"`, id)
			line = head + strings.Repeat("y", capture.MaxLogLine-len(head)-10) + `"}]}}` + "\n"
		} else {
			line = strings.Repeat("junk\x00", (capture.MaxLogLine-10)/5) + "\n"
		}
		if _, err := w.WriteString(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

func serveTraffic(kind string, out io.Writer) int {
	w := bufio.NewWriterSize(out, 1<<20)
	var err error
	switch kind {
	case trafficDeepPad:
		const depth = 9990
		_, err = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"pad":"%s","x":%s1%s}}`+"\n",
			strings.Repeat("x", 15<<20), strings.Repeat(`{"k":`, depth), strings.Repeat("}", depth))
	case trafficDense:
		for id := range denseLines {
			head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"data":[`, id)
			tail := "1]}}\n"
			n := (capture.MaxLogLine - len(head) - len(tail) - 1) / 2
			if _, err = w.WriteString(head); err != nil {
				break
			}
			chunk := []byte(strings.Repeat("1,", 1<<16))
			for ; n >= 1<<16 && err == nil; n -= 1 << 16 {
				_, err = w.Write(chunk)
			}
			if err == nil {
				_, err = w.Write(chunk[:2*n])
			}
			if err == nil {
				_, err = w.WriteString(tail)
			}
		}
	case trafficWide:
		for id, item := range []string{`{"k":"` + strings.Repeat("x", 24) + `"}`, `{"k":"` + strings.Repeat("x", 1000) + `"}`} {
			n := min(wideItems, (capture.MaxLogLine-100)/(len(item)+1))
			if _, err = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"items":[%s]}}`+"\n", id, strings.Repeat(item+",", n-1)+item); err != nil {
				break
			}
		}
	case trafficFlood:
		// The client's requests are read as they come; the server is done
		// when its own lines are out.
		go func() { _, _ = io.Copy(io.Discard, os.Stdin) }()
		done := make(chan error, 1)
		go func() { done <- writeBigLines(os.Stderr, floodLines, false) }()
		err = writeBigLines(w, floodLines, true)
		if e := <-done; err == nil {
			err = e
		}
	case trafficJunk:
		chunk := []byte(strings.Repeat("junk\x00", (1<<20)/5))
		for n := 0; n < junkBytes && err == nil; n += len(chunk) {
			_, err = w.Write(chunk[:min(len(chunk), junkBytes-n)])
		}
	default:
		err = fmt.Errorf("unknown traffic %q", kind)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
