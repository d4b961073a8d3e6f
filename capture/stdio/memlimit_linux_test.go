package stdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// shimMemoryLimit is what the shim may hold, whatever the traffic.
const shimMemoryLimit = 300 << 20

// measuredShimIn runs this test binary as a shim (runMeasuredShim) with
// the client's requests read from in (nil: none) and its output drained
// by this test, the server writing traffic, and returns the bytes
// forwarded, the log's frames, the shim's peak resident set size and how
// long it took.
func measuredShimIn(t *testing.T, traffic string, ro capture.RedactOptions, in func(io.Writer)) (forwarded int64, frames []capture.Frame, rss int64, took time.Duration) {
	t.Helper()
	dir := t.TempDir()
	rules, err := json.Marshal(ro)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=shim", trafficEnv+"="+traffic, redactEnv+"="+string(rules),
		logEnv+"="+filepath.Join(dir, "log.jsonl"), rssEnv+"="+filepath.Join(dir, "rss"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The client's input stays open until the server's output has ended:
	// the end of its input would have the shim end the server after the
	// kill grace.
	go func() {
		if in != nil {
			in(stdin)
		}
	}()
	forwarded, _ = io.Copy(io.Discard, out)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shim: %v\n%s", err, stderr.String())
	}
	took = time.Since(start)
	data, err := os.ReadFile(filepath.Join(dir, "rss"))
	if err != nil {
		t.Fatal(err)
	}
	rss, _ = strconv.ParseInt(string(data), 10, 64)
	f, err := os.Open(filepath.Join(dir, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = capture.ReadLog(f, "log.jsonl", func(fr *capture.Frame, _ int) bool {
		c := fr.Clone()
		if len(c.Raw) > 1<<10 {
			c.Raw = c.Raw[:1<<10] // enough to judge; the frame is read whole all the same
		}
		if len(c.Text) > 1<<10 {
			c.Text = c.Text[:1<<10]
		}
		frames = append(frames, c)
		return true
	}, func() { t.Error("the log lost a frame") })
	if err != nil {
		t.Fatalf("the log does not read back: %v", err)
	}
	t.Logf("%s %s: peak RSS %d MiB, %s, %d bytes forwarded, %d frames", traffic, rules, rss>>20, took.Round(time.Millisecond), forwarded, len(frames))
	return forwarded, frames, rss, took
}

// The shim stays under shimMemoryLimit whatever the traffic: a message
// padded to buy a path rule room, dense arrays under --redact-secrets, and
// 2 GiB of junk without a newline, which is forwarded whole and logged
// cut. Each runs in a process of its own, whose peak RSS is measured.
func TestShimMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 2 GiB through a shim")
	}
	for _, tc := range []struct {
		name    string
		traffic string
		rules   capture.RedactOptions
		check   func(t *testing.T, forwarded int64, frames []capture.Frame)
	}{
		{"a deep message padded with a long string, under a path rule", trafficDeepPad, capture.RedactOptions{Paths: []string{"$..k"}},
			func(t *testing.T, forwarded int64, frames []capture.Frame) {
				if len(frames) != 2 || !frames[1].RedactionSkipped || string(frames[1].Raw) != `{"id":1,"jsonrpc":"2.0","result":{}}` {
					t.Errorf("want the message withheld: %s", summary(frames))
				}
			}},
		{"messages as wide as the path budget allows", trafficWide, capture.RedactOptions{Paths: []string{"$..k"}},
			func(t *testing.T, forwarded int64, frames []capture.Frame) {
				if len(frames) != 3 || frames[1].RedactionSkipped || frames[2].RedactionSkipped || !frames[1].Redacted || !strings.Contains(string(frames[2].Raw), `{"k":"[REDACTED]"}`) {
					t.Errorf("want both messages redacted: %s", summary(frames))
				}
			}},
		{"lines of 16 MiB on every channel at once, under --redact-secrets", trafficFlood, capture.RedactOptions{Secrets: true},
			func(t *testing.T, forwarded int64, frames []capture.Frame) {
				// Lines that did not fit the write queue's memory budget are
				// lost from the log, and counted: seq gaps the closing frame
				// sums up.
				logged, dropped := 0, uint64(0)
				for _, f := range frames {
					switch {
					case f.Direction != capture.Meta:
						logged++
					case f.LastSeq > 0:
						dropped = f.Dropped
					}
				}
				// The server ends once its own lines are out: the client's
				// last lines may come after it and go unread, never
				// forwarded nor seen, so they are no loss of the log's.
				server := 0
				for _, f := range frames {
					if f.Direction == capture.ServerToClient || f.Direction == capture.Stderr {
						server++
					}
				}
				if total := logged + int(dropped); total > 3*floodLines || total < 2*floodLines || server+int(dropped) < 2*floodLines || logged == 0 {
					t.Errorf("%d lines logged and %d dropped, want the server's %d and at most the client's %d: %s", logged, dropped, 2*floodLines, floodLines, summary(frames))
				}
			}},
		{"dense arrays under --redact-secrets", trafficDense, capture.RedactOptions{Secrets: true},
			func(t *testing.T, forwarded int64, frames []capture.Frame) {
				if len(frames) != 1+denseLines || len(frames[1].Raw) == 0 || frames[1].Redacted {
					t.Errorf("want %d messages kept as raw, unchanged: %s", denseLines, summary(frames))
				}
			}},
		{"2 GiB of junk without a newline", trafficJunk, capture.RedactOptions{}, junkForwardedWholeLoggedCut},
		{"2 GiB of junk without a newline, under --redact-value", trafficJunk, capture.RedactOptions{Values: []string{"s3cr3t"}}, junkForwardedWholeLoggedCut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in func(io.Writer)
			if tc.traffic == trafficFlood {
				in = func(w io.Writer) { writeBigLines(w, floodLines, true) }
			}
			forwarded, frames, rss, _ := measuredShimIn(t, tc.traffic, tc.rules, in)
			tc.check(t, forwarded, frames)
			if rss > shimMemoryLimit {
				t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, shimMemoryLimit>>20)
			}
		})
	}
}

// summary describes frames in a line each, their bodies cut short.
func summary(frames []capture.Frame) string {
	var b strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&b, "\n%d %s truncated=%v redacted=%v skipped=%v raw=%.80q text=%.80q", f.Seq, f.Direction, f.Truncated, f.Redacted, f.RedactionSkipped, f.Raw, f.Text)
	}
	return b.String()
}

// junkForwardedWholeLoggedCut checks the junk traffic: every byte reached
// the client, and the log holds the line cut, marked truncated.
func junkForwardedWholeLoggedCut(t *testing.T, forwarded int64, frames []capture.Frame) {
	if forwarded != junkBytes {
		t.Errorf("forwarded %d bytes, want %d", forwarded, junkBytes)
	}
	if len(frames) != 2 || !frames[1].Truncated || !strings.HasPrefix(frames[1].Text, "junk\x00junk") {
		t.Errorf("want the line logged cut: %s", summary(frames))
	}
}
