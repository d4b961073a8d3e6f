//go:build unix

package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/hub"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// hubRun is `mcpsnoop --metrics-listen` running in the test's process.
type hubRun struct {
	addr   string
	sigs   chan os.Signal
	stderr *lockedBuffer
	done   chan int
}

func startHub(t *testing.T, args ...string) *hubRun {
	t.Helper()
	h := &hubRun{sigs: make(chan os.Signal, 2), stderr: &lockedBuffer{}, done: make(chan int, 1)}
	listening := make(chan net.Addr, 1)
	hubSignals = func() (<-chan os.Signal, func()) { return h.sigs, func() {} }
	hubListening = func(a net.Addr) { listening <- a }
	t.Cleanup(func() { hubSignals, hubListening = defaultHubSignals, nil })
	go func() { h.done <- run(args, strings.NewReader(""), io.Discard, h.stderr) }()
	select {
	case a := <-listening:
		h.addr = a.String()
	case code := <-h.done:
		t.Fatalf("the hub exited %d:\n%s", code, h.stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("the hub did not start listening")
	}
	return h
}

var defaultHubSignals = hubSignals

func (h *hubRun) stop(t *testing.T) int {
	t.Helper()
	h.sigs <- syscall.SIGTERM
	select {
	case code := <-h.done:
		return code
	case <-time.After(10 * time.Second):
		t.Fatalf("the hub did not stop:\n%s", h.stderr.String())
	}
	return -1
}

// scrapeHub reads the hub's /metrics with Prometheus's text parser.
func scrapeHub(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return fams
}

// metricValue sums the samples of fam whose labels include want (a
// histogram's count); -1 when none matches.
func metricValue(fams map[string]*dto.MetricFamily, fam string, want map[string]string) float64 {
	total, found := 0.0, false
next:
	for _, m := range fams[fam].GetMetric() {
		for _, lp := range m.Label {
			if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
				continue next
			}
		}
		found = true
		if h := m.GetHistogram(); h != nil {
			total += float64(h.GetSampleCount())
		} else {
			total += m.GetCounter().GetValue()
		}
	}
	if !found {
		return -1
	}
	return total
}

// TestMetricsHubUsage: what --metrics-listen refuses, with exit 2.
func TestMetricsHubUsage(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-listen", "127.0.0.1:0", filepath.Join(t.TempDir(), "missing")}, "cannot follow"},
		{[]string{"--metrics-listen", "127.0.0.1:0", file}, "is not a folder"},
		{[]string{"--metrics-listen", "127.0.0.1:0", "--", "server"}, "not a server command"},
		{[]string{"--metrics-listen", "127.0.0.1:0", "--label", "x"}, "takes only --history-limit"},
		{[]string{"--metrics-listen", "127.0.0.1:0", "--history-limit", "-1"}, "--history-limit must be 0"},
		{[]string{"--metrics-listen", "256.1.1.1:http"}, "cannot listen on"},
		{[]string{"--metrics-listen", ""}, "needs an address"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestMetricsHubShimTraffic: the hub follows the state directory,
// $MCPSNOOP_LOG_DIR and a folder given as an argument; real sessions
// through the shim binary are counted as they happen, a log already there
// at start is not.
func TestMetricsHubShimTraffic(t *testing.T) {
	t.Log("the metrics hub scraped while shims carry traffic")
	bins := buildShimBinaries(t)
	home, other, envDir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	t.Setenv("MCPSNOOP_LOG_DIR", envDir)
	os.MkdirAll(filepath.Join(home, "sessions"), 0o700)
	old, err := os.ReadFile("../../fixtures/devtools-60calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "sessions", "history.jsonl"), old, 0o600)
	h := startHub(t, "--metrics-listen", "127.0.0.1:0", other)
	if !strings.Contains(h.stderr.String(), "serving metrics on http://"+h.addr+"/metrics (no authentication") {
		t.Errorf("stderr: %s", h.stderr.String())
	}
	if fams := scrapeHub(t, h.addr); metricValue(fams, hub.MetricCalls, nil) != -1 {
		t.Errorf("history counted: %v calls", metricValue(fams, hub.MetricCalls, nil))
	}
	shimSession(t, bins, home, []string{"--log-dir", filepath.Join(home, "sessions")}, 20, nil)
	shimSession(t, bins, t.TempDir(), []string{"--label", "elsewhere", "--log-dir", other}, 10, nil)
	shimSession(t, bins, t.TempDir(), []string{"--label", "fromenv"}, 10, nil) // into $MCPSNOOP_LOG_DIR
	want := map[string]float64{"sdkserver/echo": 18, "sdkserver/fail": 2, "elsewhere/echo": 9, "elsewhere/fail": 1, "fromenv/echo": 9, "fromenv/fail": 1}
	var fams map[string]*dto.MetricFamily
	waitFor(t, "the sessions' calls in the scrape", func() bool {
		fams = scrapeHub(t, h.addr)
		for k, n := range want {
			server, tool, _ := strings.Cut(k, "/")
			if metricValue(fams, hub.MetricCalls, map[string]string{"server": server, "tool": tool}) != n {
				return false
			}
		}
		return true
	})
	for k, n := range want {
		server, tool, _ := strings.Cut(k, "/")
		l := map[string]string{"server": server, "tool": tool}
		if got := metricValue(fams, hub.MetricDuration, l); got != n {
			t.Errorf("%s: %v latency observations, want %v", k, got, n)
		}
		wantErr := 0.0 // every tool called has its error series, at 0 until it fails
		if tool == "fail" {
			wantErr = n
		}
		if got := metricValue(fams, hub.MetricErrors, map[string]string{"server": server, "tool": tool, "error_type": "tool"}); got != wantErr {
			t.Errorf("%s: %v tool errors, want %v", k, got, wantErr)
		}
	}
	if got := metricValue(fams, hub.MetricSessions, nil); got != 3 {
		t.Errorf("%v sessions began, want 3", got)
	}
	if got := metricValue(fams, hub.MetricTransport, map[string]string{"server": "sdkserver", "status": ""}); got != 0 {
		t.Errorf("transport errors of a healthy server: %v, want its zero sample", got)
	}
	if code := h.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}
