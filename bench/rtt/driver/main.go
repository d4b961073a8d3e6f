// driver: spawns an MCP stdio server command (optionally wrapped in a shim)
// and measures request/response latency and throughput over its stdio.
//
//	driver [-mode seq|burst] [-k N] [-payload BYTES] [-json] -- CMD [ARGS...]
//
// Both modes first do the MCP handshake (initialize, notifications/initialized,
// tools/list); "startup_ms" is spawn -> initialize response, which includes
// the child's (and any shim's) process start.
//
// seq:   K tools/call requests, strictly one at a time; per round trip latency
//
//	from just before the write to just after the matching response line
//	is read. Reports p50/p90/p99/p999/max/mean and calls/s.
//
// burst: K tools/call requests written back to back by one goroutine while
//
//	another reads the responses (pipelined, the pipe buffers are the only
//	window). Reports round trips/s, frames/s (requests + responses) and
//	MB/s (request + response bytes on the client's side of the pipe).
//
// Payload: the "text" argument is PAYLOAD bytes of ASCII, and the echo server
// echoes it, so requests and responses are both ~PAYLOAD+90 bytes.
// After the run stdin is closed and the child is waited for; its exit and the
// tail of its stderr (a shim's drop warning, for instance) are reported.
//
// A copy of ../shared/bench/rtt's, kept here so that bench/shim.sh and
// bench/otlp.sh run from a clone.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"time"
)

type report struct {
	Mode         string  `json:"mode"`
	K            int     `json:"k"`
	Payload      int     `json:"payload"`
	StartupMS    float64 `json:"startup_ms"`
	TotalS       float64 `json:"total_s"`
	CallsPerS    float64 `json:"calls_per_s"`
	FramesPerS   float64 `json:"frames_per_s,omitempty"`
	MBPerS       float64 `json:"mb_per_s,omitempty"`
	BytesSent    int64   `json:"bytes_sent"`
	BytesRecv    int64   `json:"bytes_recv"`
	P50us        float64 `json:"p50_us,omitempty"`
	P90us        float64 `json:"p90_us,omitempty"`
	P99us        float64 `json:"p99_us,omitempty"`
	P999us       float64 `json:"p999_us,omitempty"`
	MaxUS        float64 `json:"max_us,omitempty"`
	MeanUS       float64 `json:"mean_us,omitempty"`
	ExitErr      string  `json:"exit_err,omitempty"`
	StderrTail   string  `json:"stderr_tail,omitempty"`
	VerifyErrors int     `json:"verify_errors"`
	// rusage of the spawned child and the descendants it reaped (a shim's
	// wrapped server included), from wait4.
	ChildUserS float64 `json:"child_user_s"`
	ChildSysS  float64 `json:"child_sys_s"`
	ChildRSSKB int64   `json:"child_maxrss_kb"`
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "driver: "+format+"\n", a...)
	os.Exit(1)
}

type tailBuf struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuf) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	t.mu.Unlock()
	return len(p), nil
}

func main() {
	mode := flag.String("mode", "seq", "seq | burst")
	k := flag.Int("k", 20000, "number of tools/call requests")
	payload := flag.Int("payload", 256, "bytes of the text argument (echoed back)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fail("usage: driver [-mode seq|burst] [-k N] [-payload B] -- CMD [ARGS...]")
	}

	cmd := exec.Command(args[0], args[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail("%v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail("%v", err)
	}
	var errTail tailBuf
	cmd.Stderr = &errTail
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		fail("start: %v", err)
	}
	in := bufio.NewReaderSize(stdout, 1<<20)
	readLine := func() []byte {
		line, err := in.ReadBytes('\n')
		if err != nil {
			fail("read: %v (stderr: %s)", err, errTail.buf)
		}
		return line
	}
	send := func(b []byte) {
		if _, err := stdin.Write(b); err != nil {
			fail("write: %v", err)
		}
	}

	rep := report{Mode: *mode, K: *k, Payload: *payload}
	send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-driver","version":"1.0.0"}}}` + "\n"))
	readLine()
	rep.StartupMS = float64(time.Since(t0).Microseconds()) / 1000
	send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}` + "\n"))
	readLine()

	text := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz012345"), *payload/32+1)[:*payload]
	mkReq := func(buf []byte, id int) []byte {
		buf = append(buf[:0], `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
		buf = append(buf, text...)
		buf = append(buf, `"}}}`+"\n"...)
		return buf
	}
	idPrefix := func(id int) []byte {
		return strconv.AppendInt([]byte(`{"jsonrpc":"2.0","id":`), int64(id), 10)
	}
	verify := func(line []byte, id int) bool {
		p := idPrefix(id)
		return bytes.HasPrefix(line, p) && (line[len(p)] == ',')
	}

	const firstID = 2
	switch *mode {
	case "seq":
		lat := make([]float64, *k)
		var req []byte
		start := time.Now()
		for i := 0; i < *k; i++ {
			req = mkReq(req, firstID+i)
			ts := time.Now()
			send(req)
			line := readLine()
			lat[i] = float64(time.Since(ts).Nanoseconds()) / 1000
			rep.BytesSent += int64(len(req))
			rep.BytesRecv += int64(len(line))
			if !verify(line, firstID+i) {
				rep.VerifyErrors++
			}
		}
		rep.TotalS = time.Since(start).Seconds()
		sort.Float64s(lat)
		q := func(p float64) float64 {
			i := int(math.Ceil(p*float64(len(lat)))) - 1
			if i < 0 {
				i = 0
			}
			return lat[i]
		}
		var sum float64
		for _, v := range lat {
			sum += v
		}
		rep.P50us, rep.P90us, rep.P99us, rep.P999us, rep.MaxUS = q(0.5), q(0.9), q(0.99), q(0.999), lat[len(lat)-1]
		rep.MeanUS = sum / float64(len(lat))
		rep.CallsPerS = float64(*k) / rep.TotalS
	case "burst":
		done := make(chan struct{})
		start := time.Now()
		var recvBytes int64
		var verr int
		go func() {
			defer close(done)
			for i := 0; i < *k; i++ {
				line := readLine()
				recvBytes += int64(len(line))
				if !verify(line, firstID+i) {
					verr++
				}
			}
		}()
		w := bufio.NewWriterSize(stdin, 64<<10)
		var req []byte
		for i := 0; i < *k; i++ {
			req = mkReq(req, firstID+i)
			if _, err := w.Write(req); err != nil {
				fail("write: %v", err)
			}
			rep.BytesSent += int64(len(req))
		}
		if err := w.Flush(); err != nil {
			fail("flush: %v", err)
		}
		<-done
		rep.TotalS = time.Since(start).Seconds()
		rep.BytesRecv = recvBytes
		rep.VerifyErrors = verr
		rep.CallsPerS = float64(*k) / rep.TotalS
		rep.FramesPerS = 2 * float64(*k) / rep.TotalS
		rep.MBPerS = float64(rep.BytesSent+rep.BytesRecv) / 1e6 / rep.TotalS
	default:
		fail("unknown mode %q", *mode)
	}

	stdin.Close()
	io.Copy(io.Discard, in)
	if err := cmd.Wait(); err != nil {
		rep.ExitErr = err.Error()
	}
	if ps := cmd.ProcessState; ps != nil {
		rep.ChildUserS = ps.UserTime().Seconds()
		rep.ChildSysS = ps.SystemTime().Seconds()
		rep.ChildRSSKB = maxRSSKB(ps)
	}
	errTail.mu.Lock()
	rep.StderrTail = string(bytes.TrimSpace(errTail.buf))
	errTail.mu.Unlock()
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(rep)
}
