package hub

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape fetches /metrics from h's handler and parses it with
// Prometheus's own text parser; it returns the families and the body's
// uncompressed size.
func scrape(t *testing.T, h http.Handler) (map[string]*dto.MetricFamily, int) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	return fams, len(body)
}

// sample finds the metric of fam whose labels include want; nil if none.
func sample(fams map[string]*dto.MetricFamily, fam string, want map[string]string) *dto.Metric {
	f := fams[fam]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func counter(fams map[string]*dto.MetricFamily, fam string, want map[string]string) float64 {
	m := sample(fams, fam, want)
	if m == nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

// feed runs a log through an engine configured by m, as a followed log is.
func feed(t *testing.T, m *Metrics, log string) {
	t.Helper()
	feedEngine(t, checker.New(m.Config("test.jsonl")), log)
}

// feedEngine runs a log (or more of it) through eng.
func feedEngine(t *testing.T, eng *checker.Engine, log string) {
	t.Helper()
	r := capture.NewReader(strings.NewReader(log), "test.jsonl")
	for {
		fr, line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		eng.Ingest(&fr, checker.Position{Line: line})
	}
}

func labels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TestMetricsFamilies: finished tool calls are counted per server and
// tool, their latency observed in the buckets; errors split by
// type; pending, superseded and cancelled-without-result calls add
// nothing; HTTP failures that never became JSON-RPC count per status; a
// server with none has its zero sample.
func TestMetricsFamilies(t *testing.T) {
	m := NewMetrics()
	m.Count()
	files := newLog("files-1-aaaa", "files", "stdio").meta("/srv/files/server.py", "/home/me").init().
		toolCall(1, "read").result(1, 30*time.Millisecond, `{"content":[]}`).
		toolCall(2, "read").result(2, 700*time.Millisecond, `{"content":[],"isError":true}`).
		toolCall(3, "write").rpcError(3, 3*time.Millisecond).
		toolCall(4, "write").           // pending
		toolCall(5, "write").cancel(5). // cancelled, never answered
		toolCall(6, "read").            // superseded by the reuse of id 6 below
		toolCall(6, "read").result(6, 4*time.Millisecond, `{"content":[]}`).
		request(7, "resources/read", `{"uri":"file:///x"}`).result(7, time.Millisecond, `{"contents":[]}`)
	feed(t, m, files.String())
	gw := newLog("gw-1-bbbb", "127.0.0.1:9000", "http").init().
		toolCall(1, "search").result(1, 20*time.Millisecond, `{"content":[]}`).
		frame("s2c", time.Millisecond, `"status":502`).
		frame("s2c", time.Millisecond, `"status":401`).
		frame("s2c", time.Millisecond, `"status":502`).
		frame("s2c", time.Millisecond, `"status":202`)
	feed(t, m, gw.String())

	fams, _ := scrape(t, (&Hub{Metrics: m}).Handler())
	fid := ServerID("stdio", "files", []string{"/srv/files/server.py"}, "/home/me")
	gid := ServerID("http", "127.0.0.1:9000", nil, "")
	for _, c := range []struct {
		fam    string
		labels map[string]string
		want   float64
	}{
		{MetricCalls, labels("server", "files", "server_id", fid, "tool", "read"), 3},
		{MetricCalls, labels("server", "files", "server_id", fid, "tool", "write"), 1},
		{MetricCalls, labels("server", "127.0.0.1:9000", "server_id", gid, "tool", "search"), 1},
		{MetricErrors, labels("server", "files", "tool", "read", "error_type", "tool"), 1},
		{MetricErrors, labels("server", "files", "tool", "write", "error_type", "protocol"), 1},
		// Every tool called has both error series, at 0 until it fails.
		{MetricErrors, labels("server", "files", "tool", "read", "error_type", "protocol"), 0},
		{MetricErrors, labels("server", "files", "tool", "write", "error_type", "tool"), 0},
		{MetricErrors, labels("server", "127.0.0.1:9000", "server_id", gid, "tool", "search", "error_type", "tool"), 0},
		{MetricErrors, labels("server", "127.0.0.1:9000", "server_id", gid, "tool", "search", "error_type", "protocol"), 0},
		{MetricTransport, labels("server", "127.0.0.1:9000", "server_id", gid, "status", "502"), 2},
		{MetricTransport, labels("server", "127.0.0.1:9000", "server_id", gid, "status", "401"), 1},
		{MetricTransport, labels("server", "127.0.0.1:9000", "server_id", gid, "status", "202"), -1},
		{MetricTransport, labels("server", "files", "server_id", fid, "status", ""), 0},
		{MetricSessions, labels("server", "files", "server_id", fid), 1},
	} {
		if got := counter(fams, c.fam, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.fam, c.labels, got, c.want)
		}
	}
	h := sample(fams, MetricDuration, labels("server", "files", "tool", "read")).GetHistogram()
	if h.GetSampleCount() != 3 || h.GetSampleSum() < 0.733 || h.GetSampleSum() > 0.735 {
		t.Errorf("read latency: %d observations, sum %v; want 3 summing 0.734 s", h.GetSampleCount(), h.GetSampleSum())
	}
	var bounds []float64
	cum := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if len(bounds) != len(DurationBuckets)+1 || !math.IsInf(bounds[len(bounds)-1], 1) {
		t.Fatalf("buckets %v, want the issue's and +Inf", bounds)
	}
	for i, b := range DurationBuckets {
		if bounds[i] != b {
			t.Errorf("bucket %d bound %v, want %v", i, bounds[i], b)
		}
	}
	if cum[0.005] != 1 || cum[0.025] != 1 || cum[0.05] != 2 || cum[0.5] != 2 || cum[1] != 3 {
		t.Errorf("cumulative counts %v: want 4ms, 30ms and 700ms in their buckets", cum)
	}
	if w := sample(fams, MetricDuration, labels("tool", "write")).GetHistogram(); w.GetSampleCount() != 1 {
		t.Errorf("write: %d observations, want 1 (pending and cancelled add none)", w.GetSampleCount())
	}
	for _, fam := range []string{MetricCalls, MetricDuration, MetricErrors} {
		for _, mt := range fams[fam].GetMetric() {
			if len(mt.Label) < 3 {
				t.Errorf("%s series without server, server_id and tool: %v", fam, mt.Label)
			}
		}
	}
}

// TestServerID: stable across sessions of one server, apart for two
// servers sharing a label, short, and made of nothing it shows.
func TestServerID(t *testing.T) {
	a := ServerID("stdio", "files", []string{"python3", "/srv/a/server.py"}, "/home/me")
	if a != ServerID("stdio", "files", []string{"python3", "/srv/a/server.py"}, "/home/me") {
		t.Error("not stable")
	}
	if a == ServerID("stdio", "files", []string{"python3", "/srv/b/server.py"}, "/home/me") ||
		a == ServerID("http", "files", nil, "") || a == ServerID("stdio", "files", []string{"python3"}, "/srv/a/server.py") {
		t.Error("two servers share an id")
	}
	if len(a) != 12 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("id %q is not 12 hex digits", a)
	}
}

// TestScrapeExposesNoIdentity: a scrape names servers by label and id,
// never by command, path, session id, or the parts of an endpoint beyond
// the label. The labels are the real defaults: the stdio shim's derived
// from the server command, `mcpsnoop http`'s the target's host:port, which
// the scrape does show (README: the endpoint has no authentication).
func TestScrapeExposesNoIdentity(t *testing.T) {
	m := NewMetrics()
	m.Count()
	command := []string{"/opt/secret-tool/run.sh", "--token=hunter2"}
	stdioLabel := capture.DeriveLabel(command)
	target, err := httpcapture.ParseTarget("https://alice:pw0rd@10.1.2.3:8443/tenant-42/mcp?key=k3y")
	if err != nil {
		t.Fatal(err)
	}
	httpLabel := httpcapture.DefaultLabel(target)
	if stdioLabel != "run.sh" || httpLabel != "10.1.2.3:8443" {
		t.Fatalf("default labels %q and %q; this test needs updating", stdioLabel, httpLabel)
	}
	stdioSession, httpSession := capture.NewSessionID(stdioLabel), capture.NewSessionID(httpLabel)
	feed(t, m, newLog(stdioSession, stdioLabel, "stdio").meta(command[0], "/home/alice/project").init().
		toolCall(1, "read").result(1, time.Millisecond, `{"content":[]}`).String())
	feed(t, m, newLog(httpSession, httpLabel, "http").init().frame("s2c", time.Millisecond, `"status":502`).String())
	srv := httptest.NewServer((&Hub{Metrics: m}).Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	secrets := []string{"secret-tool", "hunter2", "/home/alice", "alice", "pw0rd", "tenant-42", "k3y",
		strings.TrimPrefix(stdioSession, stdioLabel), strings.TrimPrefix(httpSession, httpLabel)}
	for _, secret := range secrets {
		if bytes.Contains(body, []byte(secret)) {
			t.Errorf("the scrape shows %q", secret)
		}
	}
	if !bytes.Contains(body, []byte(`server="run.sh"`)) || !bytes.Contains(body, []byte(`server="10.1.2.3:8443"`)) {
		t.Errorf("servers not labelled:\n%s", body)
	}
}

// TestMetricsBounds: a 4 MiB tool name and 5,000 distinct names keep the
// scrape under 8 MB: the long name is cut to 128 bytes, past 2,000 series
// the rest count under (over-series-cap), and the totals stay right.
func TestMetricsBounds(t *testing.T) {
	m := NewMetrics()
	m.Count()
	l := newLog("big-1-aaaa", "big", "stdio").meta("srv", "/").init()
	huge := strings.Repeat("é", 2<<20) // 4 MiB, two bytes a character
	l.toolCall(1, huge).result(1, time.Millisecond, `{"content":[]}`)
	for i := 0; i < 5000; i++ {
		l.toolCall(i+2, "tool-"+itoa5(i)).result(i+2, time.Millisecond, `{"content":[]}`)
	}
	feed(t, m, l.String())
	fams, size := scrape(t, (&Hub{Metrics: m}).Handler())
	t.Logf("scrape at the series cap: %d bytes uncompressed, %d tool series", size, len(fams[MetricCalls].GetMetric()))
	if size >= 8<<20 {
		t.Errorf("scrape is %d bytes, want under 8 MB", size)
	}
	total, over, long := 0.0, 0.0, ""
	for _, mt := range fams[MetricCalls].GetMetric() {
		total += mt.GetCounter().GetValue()
		for _, lp := range mt.Label {
			if lp.GetName() != "tool" {
				continue
			}
			if lp.GetValue() == OverSeriesCap {
				over = mt.GetCounter().GetValue()
			}
			if strings.HasPrefix(lp.GetValue(), "é") {
				long = lp.GetValue()
			}
		}
	}
	if n := len(fams[MetricCalls].GetMetric()); n != MaxSeries+1 {
		t.Errorf("%d tool series, want %d and the cap's", n, MaxSeries)
	}
	if n := len(fams[MetricErrors].GetMetric()); n != 2*(MaxSeries+1) {
		t.Errorf("%d error series, want the zero pair of each of %d tools and of the cap", n, MaxSeries)
	}
	if total != 5001 || over != 5001-MaxSeries {
		t.Errorf("total %v (want 5001), over the cap %v (want %d)", total, over, 5001-MaxSeries)
	}
	if len(long) != MaxLabelBytes || long != strings.Repeat("é", MaxLabelBytes/2) {
		t.Errorf("the long name became %d bytes", len(long))
	}
	if h := sample(fams, MetricDuration, labels("tool", OverSeriesCap)).GetHistogram(); h.GetSampleCount() != uint64(5001-MaxSeries) {
		t.Errorf("over-cap histogram holds %d observations", h.GetSampleCount())
	}
}

func itoa5(i int) string {
	b := []byte("00000")
	for k := 4; k >= 0 && i > 0; k-- {
		b[k] = byte('0' + i%10)
		i /= 10
	}
	return string(b)
}

// TestBoundLabel: valid UTF-8 of at most 128 bytes, cut at a character.
func TestBoundLabel(t *testing.T) {
	for in, want := range map[string]string{
		"read":                        "read",
		strings.Repeat("a", 200):      strings.Repeat("a", 128),
		"x" + strings.Repeat("€", 60): "x" + strings.Repeat("€", 42), // 1 + 42*3 = 127
		"bad\xffbyte":                 "bad\uFFFDbyte",
		strings.Repeat("\xff", 1<<20): "\uFFFD", // a run of bad bytes is one replacement
	} {
		if got := boundLabel(in); got != want {
			t.Errorf("boundLabel(%.20q) = %.20q (%d bytes), want %d bytes", in, got, len(got), len(want))
		}
	}
}

// TestHubHistoryNotCounted: logs already there when the hub starts are
// loaded (their servers get zero samples) but not counted; what is
// written after, to them or to new logs, in the state folder or another
// one, is.
func TestHubHistoryNotCounted(t *testing.T) {
	state, other := t.TempDir(), t.TempDir()
	old := newLog("files-1-aaaa", "files", "stdio").meta("/srv/files", "/").init().
		toolCall(1, "read").result(1, 10*time.Millisecond, `{"content":[]}`).
		toolCall(2, "read") // answered after the hub started
	oldPath := filepath.Join(state, "files-1-aaaa.jsonl")
	os.WriteFile(oldPath, []byte(old.take()), 0o600)
	h := New([]string{state, other}, 100)
	var notices []string
	if err := h.Start(func(n string) { notices = append(notices, n) }); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	fid := ServerID("stdio", "files", []string{"/srv/files"}, "/")
	fams, _ := scrape(t, h.Handler())
	if got := counter(fams, MetricCalls, labels("tool", "read")); got != -1 {
		t.Errorf("history counted: %v calls", got)
	}
	if got := counter(fams, MetricTransport, labels("server", "files", "server_id", fid, "status", "")); got != 0 {
		t.Errorf("no zero sample for a server seen in history: %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx, func(n string) { notices = append(notices, n) })
	appendFile(t, oldPath, old.result(2, 40*time.Millisecond, `{"content":[]}`).take())
	appendFile(t, filepath.Join(other, "gw-2-bbbb.jsonl"), newLog("gw-2-bbbb", "gw", "http").init().
		toolCall(1, "search").rpcError(1, time.Millisecond).frame("s2c", time.Millisecond, `"status":503`).String())
	waitFor(t, "the live traffic's counts", func() bool {
		fams, _ = scrape(t, h.Handler())
		return counter(fams, MetricCalls, labels("tool", "read")) == 1 && counter(fams, MetricTransport, labels("server", "gw", "status", "503")) == 1 &&
			counter(fams, MetricErrors, labels("server", "gw", "tool", "search", "error_type", "protocol")) == 1
	})
	if hs := sample(fams, MetricDuration, labels("tool", "read")).GetHistogram(); hs.GetSampleCount() != 1 || hs.GetSampleSum() < 0.039 || hs.GetSampleSum() > 0.041 {
		t.Errorf("read latency: %d observations summing %v, want the one call answered live (0.040 s)", hs.GetSampleCount(), hs.GetSampleSum())
	}
	if counter(fams, MetricSessions, labels("server", "gw")) != 1 || counter(fams, MetricSessions, labels("server", "files")) != 0 {
		t.Errorf("sessions: gw %v (began live), files %v (from history)", counter(fams, MetricSessions, labels("server", "gw")), counter(fams, MetricSessions, labels("server", "files")))
	}
	if len(notices) > 0 {
		t.Errorf("notices: %v", notices)
	}
}

// TestHubBacklogNotCounted: with --history-limit 1, a log the limit left
// out that is written after the hub started counts what is new in it
// only: its calls from before the start are not new traffic, a call that
// began before and ends after counts (as for history), its session did
// not begin live, and its server has the id its meta frame gives.
func TestHubBacklogNotCounted(t *testing.T) {
	state := t.TempDir()
	old := newLog("files-1-aaaa", "files", "stdio").meta("/srv/files", "/").init().
		toolCall(1, "read").result(1, 10*time.Millisecond, `{"content":[]}`).
		toolCall(2, "read").result(2, 10*time.Millisecond, `{"content":[]}`).
		toolCall(3, "read") // answered after the hub started
	oldPath := filepath.Join(state, "files-1-aaaa.jsonl")
	os.WriteFile(oldPath, []byte(old.take()), 0o600)
	hourAgo := time.Now().Add(-time.Hour)
	os.Chtimes(oldPath, hourAgo, hourAgo)
	os.WriteFile(filepath.Join(state, "gw-1-bbbb.jsonl"), []byte(newLog("gw-1-bbbb", "gw", "http").init().String()), 0o600)

	h := New([]string{state}, 1)
	if err := h.Start(func(n string) { t.Errorf("notice: %s", n) }); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx, func(n string) {})
	appendFile(t, oldPath, old.result(3, 40*time.Millisecond, `{"content":[]}`).
		toolCall(4, "read").result(4, 20*time.Millisecond, `{"content":[]}`).take())
	fid := ServerID("stdio", "files", []string{"/srv/files"}, "/")
	var fams map[string]*dto.MetricFamily
	// A call after them, written later: once it is counted, everything
	// before it in the log was read.
	appendFile(t, oldPath, old.toolCall(5, "sentinel").result(5, time.Millisecond, `{"content":[]}`).take())
	waitFor(t, "the appended calls", func() bool {
		fams, _ = scrape(t, h.Handler())
		return counter(fams, MetricCalls, labels("tool", "sentinel")) == 1
	})
	if got := counter(fams, MetricCalls, labels("server", "files", "server_id", fid, "tool", "read")); got != 2 {
		t.Errorf("calls of the left-out log: %v, want 2 (the one answered live and the new one)", got)
	}
	if hs := sample(fams, MetricDuration, labels("tool", "read")).GetHistogram(); hs.GetSampleCount() != 2 || hs.GetSampleSum() < 0.059 || hs.GetSampleSum() > 0.061 {
		t.Errorf("latency: %d observations summing %v, want 2 summing 0.060 s", hs.GetSampleCount(), hs.GetSampleSum())
	}
	if got := counter(fams, MetricSessions, labels("server", "files", "server_id", fid)); got != 0 {
		t.Errorf("sessions of the left-out log: %v, want 0 (it began before the hub)", got)
	}
}

// TestServerIDStable: a long session keeps its server_id however many
// other sessions the hub sees meanwhile: its log keeps the identity its
// meta frame gave, where the hub's own record of sessions forgets.
func TestServerIDStable(t *testing.T) {
	m := NewMetrics()
	m.Count()
	long := newLog("long-1-aaaa", "files", "stdio").meta("/srv/files", "/home/me").init().
		toolCall(1, "read").result(1, time.Millisecond, `{"content":[]}`)
	eng := checker.New(m.Config("long.jsonl"))
	feedEngine(t, eng, long.take())
	for i := 0; i < maxSessions+100; i++ {
		feed(t, m, newLog("other-"+strconv.Itoa(i), "other", "stdio").frame("c2s", 0, `"raw":{"jsonrpc":"2.0","method":"notifications/initialized"}`).String())
	}
	feedEngine(t, eng, long.toolCall(2, "read").result(2, time.Millisecond, `{"content":[]}`).take())
	fams, _ := scrape(t, (&Hub{Metrics: m}).Handler())
	fid := ServerID("stdio", "files", []string{"/srv/files"}, "/home/me")
	if got := counter(fams, MetricCalls, labels("server", "files", "server_id", fid, "tool", "read")); got != 2 {
		t.Errorf("calls under the session's server_id: %v, want 2", got)
	}
	if n := len(fams[MetricSessions].GetMetric()); n != 2 {
		t.Errorf("%d servers in %s, want files and other", n, MetricSessions)
	}
}

// TestZeroSamplesOutsideTransportCap: the zero samples of the servers seen
// do not use up the transport series' cap: with MaxSeries-1 quiet
// servers, a failing one still gets its own series.
func TestZeroSamplesOutsideTransportCap(t *testing.T) {
	m := NewMetrics()
	m.Count()
	for i := 0; i < MaxSeries-1; i++ {
		feed(t, m, newLog("quiet-"+strconv.Itoa(i), "quiet-"+strconv.Itoa(i), "http").frame("c2s", 0, `"raw":{"jsonrpc":"2.0","method":"notifications/initialized"}`).String())
	}
	feed(t, m, newLog("gw-1-bbbb", "gw", "http").init().frame("s2c", time.Millisecond, `"status":502`).String())
	fams, _ := scrape(t, (&Hub{Metrics: m}).Handler())
	if got := counter(fams, MetricTransport, labels("server", "gw", "status", "502")); got != 1 {
		t.Errorf("gw's 502: %v, want 1 in its own series", got)
	}
	if got := counter(fams, MetricTransport, labels("server", OverSeriesCap)); got != -1 {
		t.Errorf("over-cap transport series: %v, want none", got)
	}
}

// TestHubReleasedLogKeepsIdentity: a log whose engine was released for
// idling and that is written again counts under the same server_id, and
// its session is not counted as one that began.
func TestHubReleasedLogKeepsIdentity(t *testing.T) {
	dir := t.TempDir()
	l := newLog("files-1-aaaa", "files", "stdio").meta("/srv/files", "/home/me").init()
	p := filepath.Join(dir, "files-1-aaaa.jsonl")
	os.WriteFile(p, []byte(l.take()), 0o600)
	h := New([]string{dir}, 0)
	if err := h.Start(func(n string) { t.Errorf("notice: %s", n) }); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	f := h.Follower
	f.poll(time.Now().Add(time.Hour), func(string) {})
	if f.engines != 0 {
		t.Fatalf("%d engines after the idle poll, want 0", f.engines)
	}
	appendFile(t, p, l.toolCall(1, "read").result(1, 5*time.Millisecond, `{"content":[]}`).take())
	f.drain(f.follow(p), func(Read) {})
	fams, _ := scrape(t, h.Handler())
	fid := ServerID("stdio", "files", []string{"/srv/files"}, "/home/me")
	if got := counter(fams, MetricCalls, labels("server", "files", "server_id", fid, "tool", "read")); got != 1 {
		t.Errorf("call after the release under the log's server_id: %v, want 1", got)
	}
	if n, s := len(fams[MetricSessions].GetMetric()), counter(fams, MetricSessions, labels("server_id", fid)); n != 1 || s != 0 {
		t.Errorf("%d servers, sessions begun %v; want one server and none begun live", n, s)
	}
}

// The transport failure series are capped too: past MaxSeries distinct
// (server, status) pairs the server's labels read OverSeriesCap.
func TestTransportSeriesCap(t *testing.T) {
	m := NewMetrics()
	m.Count()
	l := newLog("http-1-aaaa", "gw", "http").init()
	const extra = 5
	for i := range MaxSeries + extra {
		l.frame("s2c", time.Millisecond, `"status":`+strconv.Itoa(400+i))
	}
	feed(t, m, l.String())
	fams, _ := scrape(t, (&Hub{Metrics: m}).Handler())
	named, capped := 0, 0
	for _, mt := range fams[MetricTransport].GetMetric() {
		status := ""
		for _, lp := range mt.Label {
			if lp.GetName() == "status" {
				status = lp.GetValue()
			}
		}
		if status == "" {
			continue // the server's zero sample
		}
		if mt.GetCounter().GetValue() != 1 {
			t.Errorf("a series counted %v failures, want 1", mt.GetCounter().GetValue())
		}
		for _, lp := range mt.Label {
			if lp.GetName() == "server" {
				if lp.GetValue() == OverSeriesCap {
					capped++
				} else {
					named++
				}
			}
		}
	}
	if named != MaxSeries || capped != extra {
		t.Errorf("%d series name their server, %d read %s; want %d and %d", named, capped, OverSeriesCap, MaxSeries, extra)
	}
}
