//go:build e2e && unix

package main

// End-to-end tests against real engines (go test -tags e2e): a Debian
// Prometheus server scraping the metrics hub, and a Jaeger v2 all-in-one
// taking the shim's live spans. .ci/run installs Prometheus and builds
// Jaeger (tools/jaeger); without them the tests skip, saying so.

import (
	"encoding/json"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// engineBinary finds a real engine: the environment variable, else the
// name on PATH; the test skips when neither is there, or fails under
// MCPSNOOP_E2E_REQUIRE=1 (as .ci/run sets it).
func engineBinary(t *testing.T, env, name, how string) string {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("MCPSNOOP_E2E_REQUIRE") == "1" {
		skip = t.Fatalf
	}
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		skip("%s=%s does not exist; %s", env, p, how)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		skip("%s is not installed (set %s or put it on PATH); %s", name, env, how)
	}
	return p
}

// startEngine runs an engine until the test ends, its output kept in a
// file shown when the test fails. env is added to the environment.
func startEngine(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), filepath.Base(name)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("%s output (last 4 KiB):\n%s", filepath.Base(name), out[max(0, len(out)-4096):])
		}
	})
}

// waitHTTP polls url until it answers 200.
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	waitFor(t, url, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// promQuery runs an instant query through Prometheus's HTTP API and
// returns each result's labels and value.
func promQuery(t *testing.T, base, q string) []promSample {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.Status != "success" {
		t.Fatalf("query %s: %v %s %s", q, err, doc.Status, doc.Error)
	}
	var out []promSample
	for _, r := range doc.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %v", q, r.Value)
		}
		out = append(out, promSample{r.Metric, v})
	}
	return out
}

type promSample struct {
	labels map[string]string
	value  float64
}

// waitQuery polls q until it returns one sample equal to want.
func waitQuery(t *testing.T, base, q string, want float64) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%s = %v", q, want), func() bool {
		r := promQuery(t, base, q)
		return len(r) == 1 && r[0].value == want
	})
}

// waitScrapes waits until Prometheus has scraped the hub n more times
// than it had when called, counted by its own up series.
func waitScrapes(t *testing.T, base string, n float64) {
	t.Helper()
	const q = `count_over_time(up{job="mcpsnoop"}[1h])`
	scrapes := func() float64 {
		if r := promQuery(t, base, q); len(r) == 1 {
			return r[0].value
		}
		return 0
	}
	want := scrapes() + n
	waitFor(t, fmt.Sprintf("%s >= %v", q, want), func() bool { return scrapes() >= want })
}

// TestE2EPrometheus: a real Prometheus scrapes a metrics hub while real
// sessions run through the shim binary; its query API then reports the
// calls, errors and latency observations the sessions made, the flat
// transport-error series, and answers the README's queries.
func TestE2EPrometheus(t *testing.T) {
	prom := engineBinary(t, "MCPSNOOP_PROMETHEUS", "prometheus", ".ci/run installs Debian's prometheus package")
	bins := buildShimBinaries(t)
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	h := startHub(t, "--metrics-listen", "127.0.0.1:0")

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: mcpsnoop
    static_configs:
      - targets: ["%s"]
`, h.addr)), 0o600)
	promAddr := otlptest.FreeAddr(t)
	startEngine(t, nil, prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	base := "http://" + promAddr
	waitHTTP(t, base+"/-/ready")
	// The hub is up and healthy: its target is scraped, with a zero
	// sample of transport errors for no server yet (the family is there).
	waitQuery(t, base, `up{job="mcpsnoop"}`, 1)

	// Two rounds of 10 calls (9 echo, 1 fail each), the first scraped
	// before the second, so rates over the window see both.
	shimSession(t, bins, home, nil, 10, nil)
	waitQuery(t, base, `sum(mcpsnoop_tool_calls_total{server="sdkserver"})`, 10)
	waitScrapes(t, base, 2) // the first round's values, in two more samples
	shimSession(t, bins, home, nil, 10, nil)
	waitQuery(t, base, `sum(mcpsnoop_tool_calls_total{server="sdkserver"})`, 20)
	waitScrapes(t, base, 2)

	for q, want := range map[string]float64{
		`sum(mcpsnoop_tool_calls_total{server="sdkserver",tool="echo"})`:                          18,
		`sum(mcpsnoop_tool_calls_total{server="sdkserver",tool="fail"})`:                          2,
		`sum(mcpsnoop_tool_errors_total{server="sdkserver",tool="fail",error_type="tool"})`:       2,
		`sum(mcpsnoop_tool_errors_total{server="sdkserver",error_type="protocol"})`:               0,
		`count(mcpsnoop_tool_errors_total{server="sdkserver",error_type="protocol"})`:             2, // at 0, for echo and fail
		`count(mcpsnoop_tool_errors_total{server="sdkserver",tool="echo"})`:                       2, // both error types, at 0
		`sum(mcpsnoop_tool_call_duration_seconds_count{server="sdkserver"})`:                      20,
		`sum(mcpsnoop_tool_call_duration_seconds_bucket{server="sdkserver",le="+Inf"})`:           20,
		`sum(mcpsnoop_transport_errors_total{server="sdkserver"})`:                                0,
		`count(mcpsnoop_transport_errors_total{server="sdkserver"})`:                              1,
		`sum(mcpsnoop_sessions_total{server="sdkserver"})`:                                        2,
		`count(count by (server_id) (mcpsnoop_tool_calls_total{server="sdkserver"}))`:             1,
		`count(mcpsnoop_tool_call_duration_seconds_bucket{server="sdkserver",tool="echo"})`:       12,
		`sum(mcpsnoop_tool_call_duration_seconds_bucket{server="sdkserver",tool="echo",le="10"})`: 18,
	} {
		r := promQuery(t, base, q)
		got := 0.0
		if len(r) == 1 {
			got = r[0].value
		}
		if len(r) > 1 || got != want {
			t.Errorf("%s = %v, want %v", q, r, want)
		}
	}

	// The README's queries: p95 latency per tool, and the error ratio.
	p95 := promQuery(t, base, `histogram_quantile(0.95, sum by (server, tool, le) (rate(mcpsnoop_tool_call_duration_seconds_bucket[5m])))`)
	if len(p95) != 2 {
		t.Errorf("p95 per tool: %v, want echo and fail", p95)
	}
	for _, s := range p95 {
		if math.IsNaN(s.value) || s.value <= 0 || s.value > 10 {
			t.Errorf("p95 of %s: %v", s.labels["tool"], s.value)
		}
	}
	ratio := promQuery(t, base, `sum by (server) (rate(mcpsnoop_tool_errors_total[5m])) / sum by (server) (rate(mcpsnoop_tool_calls_total[5m]))`)
	if len(ratio) != 1 || math.Abs(ratio[0].value-0.1) > 0.01 {
		t.Errorf("error ratio: %v, want 0.1 (one fail in ten calls)", ratio)
	}
	if code := h.stop(t); code != 0 {
		t.Errorf("hub exit %d", code)
	}
}
