// Command httpproxy measures what the streamable-HTTP capture proxy
// (`mcpsnoop http`) adds to a request and to an SSE event, side by side in
// one run with plain net/http/httputil reverse proxies, against the same
// loopback target:
//
//	go run ./bench/httpproxy -bin path/to/mcpsnoop [-rounds 5] [-n 2000] [-burst 2s] [-events 2000]
//
// The configurations, each measured in every round (their order rotated
// from round to round):
//
//   - direct: the target itself, no proxy (the base the added times are
//     taken from);
//   - plain: a httputil.ReverseProxy inside this process, as
//     ../shared/bench/httpbench sets it up (it shares this process's
//     scheduler with the client and the target);
//   - plain-process: the same reverse proxy as a process of its own (this
//     program run as `httpproxy http --target URL --listen ADDR`, the
//     command line of mcpsnoop http), which pays what any proxy in its own
//     process pays: the wake-ups of another process on every hop;
//   - mcpsnoop: `BIN http --target URL --listen ADDR` with its own
//     MCPSNOOP_HOME, logging on.
//
// The tests:
//
//   - seq: p50 of sequential tools/call round trips with a 2 KB result,
//     as added time over direct;
//   - burst: requests per second with 16 concurrent clients;
//   - sse: a POST answered with an event stream (text/event-stream) whose
//     events go out one at a time, each once the client has read the one
//     before: p50 of the time from the target's write of an event to the
//     client's read of it, as added time over direct.
//
// Printed: each round's figures, then the median over the rounds of each
// and its ratio to plain and to plain-process. At the end mcpsnoop is
// stopped with SIGINT and its log is read: the frames it holds against the
// messages sent, and any seq gap or closing frame (frames lost).
//
// Since this program doubles as the plain-process proxy, it takes the same
// `http --target URL --listen ADDR` arguments as mcpsnoop, so that it can
// stand as the -ref of ../shared/bench/httpbench too.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "http" {
		servePlain(os.Args[2:])
		return
	}
	bin := flag.String("bin", "", "the mcpsnoop binary to measure (required)")
	ref := flag.String("ref", "", "another mcpsnoop binary (an older build, say), measured in the same rounds as ref")
	n := flag.Int("n", 2000, "sequential round trips per configuration and round")
	burstFor := flag.Duration("burst", 2*time.Second, "length of each concurrent burst")
	events := flag.Int("events", 2000, "SSE events per configuration and round")
	rounds := flag.Int("rounds", 5, "rounds")
	tests := flag.String("tests", "seq,burst,sse", "tests to run, comma-separated")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: httpproxy -bin MCPSNOOP [-ref OTHER] [-rounds 5] [-n 2000] [-burst 2s] [-events 2000] [-tests seq,burst,sse]")
		os.Exit(2)
	}
	if err := run(*bin, *ref, *n, *burstFor, *events, *rounds, strings.Split(*tests, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "httpproxy:", err)
		os.Exit(1)
	}
}

// servePlain is the plain-process configuration: a reverse proxy with the
// settings of httpbench's plain proxy, on mcpsnoop http's command line.
func servePlain(args []string) {
	fs := flag.NewFlagSet("http", flag.ExitOnError)
	target := fs.String("target", "", "")
	listen := fs.String("listen", "127.0.0.1:0", "")
	fs.Parse(args)
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		fmt.Fprintln(os.Stderr, "httpproxy http: --target URL is required")
		os.Exit(2)
	}
	u.Path = "" // the request carries the path
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.Serve(ln, plainProxy(u))
}

func plainProxy(u *url.URL) *httputil.ReverseProxy {
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 64}
	return rp
}

var result = strings.Repeat("x", 2048)

// target is the MCP server stand-in: a 2 KB tools/call result to a JSON
// POST, and to a POST with "Accept: text/event-stream" only, an event
// stream paced by the client (see sseLatency).
type target struct {
	url  string
	sse  sync.Mutex // one SSE test at a time
	sent chan time.Time
	next chan struct{}
	k    int // events per stream
}

func startTarget() (*target, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &target{url: "http://" + ln.Addr().String() + "/mcp", sent: make(chan time.Time, 1), next: make(chan struct{}, 1)}
	go http.Serve(ln, t)
	return t, nil
}

func (t *target) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	id := requestID(b)
	if r.Header.Get("Accept") == "text/event-stream" {
		t.stream(w, id)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, result)
}

// stream writes t.k progress notifications and the result, each as one
// event, each after the client read the one before, telling the clock
// time of each write on t.sent.
func (t *target) stream(w http.ResponseWriter, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	for i := range t.k + 1 {
		if i > 0 {
			<-t.next
		}
		data := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"message":"%s"}}`, id, i, result[:256])
		if i == t.k {
			data = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, id)
		}
		fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", i, data)
		t.sent <- time.Now()
		f.Flush()
	}
}

func requestID(b []byte) string {
	i := bytes.Index(b, []byte(`"id":`))
	if i < 0 {
		return "1"
	}
	k := i + 5
	for k < len(b) && b[k] != ',' && b[k] != '}' {
		k++
	}
	return string(b[i+5 : k])
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}

func call(u string, id int64) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`, id, result[:512])
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func seqP50(u string, n int) (time.Duration, error) {
	d := make([]time.Duration, 0, n)
	for i := range n {
		t := time.Now()
		if err := call(u, int64(i)); err != nil {
			return 0, err
		}
		d = append(d, time.Since(t))
	}
	return median(d), nil
}

// burst returns the requests per second 16 clients get through and how
// many they made.
func burst(u string, dur time.Duration) (float64, int, error) {
	var ok atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	end := time.Now().Add(dur)
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				if err := call(u, int64(c*10_000_000+i)); err != nil {
					failed.Store(err)
					return
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return 0, 0, err
	}
	return float64(ok.Load()) / dur.Seconds(), int(ok.Load()), nil
}

// sseLatency opens one event stream of k events and returns the p50 of the
// time from the target's write of an event to the client's read of it.
func sseLatency(t *target, u string, k int) (time.Duration, error) {
	t.sse.Lock()
	defer t.sse.Unlock()
	t.k = k
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":99}}}`
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	br := bufio.NewReader(resp.Body)
	d := make([]time.Duration, 0, k+1)
	for i := 0; i <= k; i++ {
		// An event ends with an empty line.
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return 0, fmt.Errorf("event %d: %w", i, err)
			}
			if len(line) == 1 {
				break
			}
		}
		got := time.Now()
		d = append(d, got.Sub(<-t.sent))
		if i < k {
			t.next <- struct{}{}
		}
	}
	return median(d), nil
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// config is one way to the target: directly, or through a proxy, which may
// be a process of its own.
type config struct {
	name, url string
	p         *proc
}

// cpuTime is the CPU time the configuration's process used so far (user
// and system), where /proc tells it.
func (c config) cpuTime() (time.Duration, bool) {
	if c.p == nil {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.p.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces, in
	// parentheses): utime and stime are the 12th and 13th, in clock ticks
	// (USER_HZ, 100 on Linux).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

// proc is a proxy running as a process of its own.
type proc struct {
	cmd    *exec.Cmd
	url    string
	home   string
	stderr bytes.Buffer
}

func startProc(bin, target string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "httpproxy-bench-")
	if err != nil {
		return nil, err
	}
	p := &proc{url: "http://" + addr + "/mcp", home: home}
	p.cmd = exec.Command(bin, "http", "--target", target, "--listen", addr)
	p.cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	for range 250 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.cmd.Process.Kill()
	return nil, fmt.Errorf("%s did not listen on %s:\n%s", bin, addr, p.stderr.String())
}

// stop ends the process with SIGINT (the log is flushed) and waits.
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

func run(bin, ref string, n int, burstFor time.Duration, events, rounds int, tests []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	t, err := startTarget()
	if err != nil {
		return err
	}
	tu, _ := url.Parse(t.url)
	base := *tu
	base.Path = ""
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, plainProxy(&base))
	plainProc, err := startProc(self, t.url)
	if err != nil {
		return err
	}
	defer func() { plainProc.stop(); os.RemoveAll(plainProc.home) }()
	ours, err := startProc(bin, t.url)
	if err != nil {
		return err
	}
	defer os.RemoveAll(ours.home)
	configs := []config{
		{"direct", t.url, nil},
		{"plain", "http://" + ln.Addr().String() + "/mcp", nil},
		{"plain-process", plainProc.url, plainProc},
		{"mcpsnoop", ours.url, ours},
	}
	if ref != "" {
		other, err := startProc(ref, t.url)
		if err != nil {
			return err
		}
		defer func() { other.stop(); os.RemoveAll(other.home) }()
		configs = append(configs, config{"ref", other.url, other})
	}
	sent := 0 // messages mcpsnoop forwarded, for the log check
	for _, c := range configs {
		if _, err := seqP50(c.url, 200); err != nil { // warm up
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if c.name == "mcpsnoop" {
			sent += 400
		}
	}
	want := map[string]bool{}
	for _, s := range tests {
		want[strings.TrimSpace(s)] = true
	}
	seq := map[string][]float64{}
	cpu := map[string][]float64{} // CPU time of the proxy's process per sequential round trip
	rps := map[string][]float64{}
	sse := map[string][]float64{}
	for r := range rounds {
		order := append([]config(nil), configs...)
		for i := range order { // rotate: no configuration always runs first
			order[i] = configs[(i+r)%len(configs)]
		}
		var line []string
		if want["seq"] {
			for _, c := range order {
				before, cpuOK := c.cpuTime()
				p, err := seqP50(c.url, n)
				if err != nil {
					return fmt.Errorf("seq %s: %w", c.name, err)
				}
				seq[c.name] = append(seq[c.name], float64(p))
				if after, ok := c.cpuTime(); ok && cpuOK {
					cpu[c.name] = append(cpu[c.name], float64(after-before)/float64(n))
				}
				if c.name == "mcpsnoop" {
					sent += 2 * n
				}
			}
			line = append(line, "seq p50 added:")
			for _, c := range configs[1:] {
				line = append(line, fmt.Sprintf("%s %.0fus", c.name, (last(seq[c.name])-last(seq["direct"]))/1e3))
			}
		}
		if want["burst"] {
			for _, c := range order {
				if c.name == "direct" {
					continue
				}
				v, made, err := burst(c.url, burstFor)
				if err != nil {
					return fmt.Errorf("burst %s: %w", c.name, err)
				}
				rps[c.name] = append(rps[c.name], v)
				if c.name == "mcpsnoop" {
					sent += 2 * made
				}
			}
			line = append(line, "| burst req/s:")
			for _, c := range configs[1:] {
				line = append(line, fmt.Sprintf("%s %.0f", c.name, last(rps[c.name])))
			}
		}
		if want["sse"] {
			for _, c := range order {
				p, err := sseLatency(t, c.url, events)
				if err != nil {
					return fmt.Errorf("sse %s: %w", c.name, err)
				}
				sse[c.name] = append(sse[c.name], float64(p))
				if c.name == "mcpsnoop" {
					sent += 1 + events + 1
				}
			}
			line = append(line, "| sse event p50 added:")
			for _, c := range configs[1:] {
				line = append(line, fmt.Sprintf("%s %.0fus", c.name, (last(sse[c.name])-last(sse["direct"]))/1e3))
			}
		}
		fmt.Printf("round %d: %s\n", r, strings.Join(line, " "))
	}
	ours.stop()
	fmt.Println("medians over the rounds (ratios: mcpsnoop to plain, and to plain-process):")
	added := func(m map[string][]float64, name string) float64 { return med(m[name]) - med(m["direct"]) }
	if want["seq"] {
		o, p, pp := added(seq, "mcpsnoop"), added(seq, "plain"), added(seq, "plain-process")
		fmt.Printf("  seq p50 added: mcpsnoop %.0f us, plain %.0f us (x%.2f), plain-process %.0f us (x%.2f)", o/1e3, p/1e3, o/p, pp/1e3, o/pp)
		if ref != "" {
			fmt.Printf(", ref %.0f us", added(seq, "ref")/1e3)
		}
		fmt.Println()
		if len(cpu) > 0 {
			fmt.Printf("  CPU time of the proxy's process per sequential round trip: mcpsnoop %.0f us, plain-process %.0f us", med(cpu["mcpsnoop"])/1e3, med(cpu["plain-process"])/1e3)
			if ref != "" {
				fmt.Printf(", ref %.0f us", med(cpu["ref"])/1e3)
			}
			fmt.Println()
		}
	}
	if want["burst"] {
		o, p, pp := med(rps["mcpsnoop"]), med(rps["plain"]), med(rps["plain-process"])
		fmt.Printf("  burst req/s: mcpsnoop %.0f, plain %.0f (x%.2f), plain-process %.0f (x%.2f)", o, p, o/p, pp, o/pp)
		if ref != "" {
			fmt.Printf(", ref %.0f", med(rps["ref"]))
		}
		fmt.Println()
	}
	if want["sse"] {
		o, p, pp := added(sse, "mcpsnoop"), added(sse, "plain"), added(sse, "plain-process")
		fmt.Printf("  sse event p50 added: mcpsnoop %.0f us, plain %.0f us (x%.2f), plain-process %.0f us (x%.2f)",
			o/1e3, p/1e3, o/p, pp/1e3, o/pp)
		if ref != "" {
			fmt.Printf(", ref %.0f us", added(sse, "ref")/1e3)
		}
		fmt.Printf("; direct %.0f us\n", med(sse["direct"])/1e3)
	}
	return checkLog(ours, sent)
}

func last(v []float64) float64 { return v[len(v)-1] }

func med(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// checkLog reads mcpsnoop's log: every seq from 1 on, no closing frame
// (nothing lost), and a frame for every message forwarded.
func checkLog(p *proc, sent int) error {
	files, _ := filepath.Glob(filepath.Join(p.home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		return fmt.Errorf("mcpsnoop wrote %d logs, want 1:\n%s", len(files), p.stderr.String())
	}
	f, err := os.Open(files[0])
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var frames, gaps int
	var last uint64
	var dropped uint64
	for sc.Scan() {
		var fr struct {
			Seq       uint64 `json:"seq"`
			Direction string `json:"direction"`
			Dropped   uint64 `json:"dropped"`
		}
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			return fmt.Errorf("%s: %w", files[0], err)
		}
		if fr.Seq != last+1 {
			gaps++
		}
		last = fr.Seq
		dropped += fr.Dropped
		if fr.Direction != "meta" {
			frames++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("mcpsnoop's log: %d frames for %d messages forwarded, %d seq gaps, %d dropped\n", frames, sent, gaps, dropped)
	if gaps > 0 || dropped > 0 {
		return errors.New("mcpsnoop lost frames")
	}
	if frames != sent {
		return fmt.Errorf("the log holds %d frames, want %d", frames, sent)
	}
	return nil
}
