package checker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func readDir(t *testing.T, dir string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", dir, "*.jsonl"))
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func meta(sid string, seq int, ts, ppid, start string) string {
	raw := `{"command":["srv"],"cwd":"/w"`
	if ppid != "" {
		raw += `,"ppid":` + ppid + `,"ppid_start":"` + start + `"`
	}
	return `{"session_id":"` + sid + `","server_label":"` + sid + `","seq":` + itoa(seq) + `,"ts":"` + ts + `","direction":"meta","transport":"stdio","raw":` + raw + "}}\n"
}

func tracedCall(sid string, seq, id int, ts, traceparent string) string {
	return `{"session_id":"` + sid + `","server_label":"` + sid + `","seq":` + itoa(seq) + `,"ts":"` + ts + `","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":` + itoa(id) +
		`,"method":"tools/call","params":{"name":"x","_meta":{"traceparent":"` + traceparent + `"}}}}` + "\n"
}

const (
	traceA = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	traceB = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
)

func runSummary(rep *checker.Report) string {
	var lines []string
	for _, r := range rep.Runs {
		lines = append(lines, r.ID+" "+r.KeyKind+" ["+r.Label+"] "+strings.Join(r.SessionIDs, ",")+" requests="+itoa(r.Requests)+" errors="+itoa(r.Errors))
	}
	for _, s := range rep.Sessions {
		lines = append(lines, s.ID+": "+strings.Join(s.RunIDs, ","))
	}
	return strings.Join(lines, "\n")
}

func TestRuns(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			name: "the seed's traced run: one trace, three servers",
			log:  readDir(t, "run-traced"),
			want: "t-4bf92f3577b34da6 trace [trace 4bf92f3577b34da6a3ce929d0e0e4736] files-97144-f2a752e6b438,github-97145-6513269e0d37,search-97146-0c5ca6a3a450 requests=9 errors=1\n" +
				"files-97144-f2a752e6b438: t-4bf92f3577b34da6\ngithub-97145-6513269e0d37: t-4bf92f3577b34da6\nsearch-97146-0c5ca6a3a450: t-4bf92f3577b34da6",
		},
		{
			name: "the same run untraced: grouped by the client process",
			log:  readDir(t, "run-untraced"),
			want: "p-97001-1785601212 process [client 97001 since 2026-08-01T16:20:12Z] files-97484-d23f128b2f33,github-97485-1818892f902b,search-97486-95315d9dc9f8 requests=9 errors=1\n" +
				"files-97484-d23f128b2f33: p-97001-1785601212\ngithub-97485-1818892f902b: p-97001-1785601212\nsearch-97486-95315d9dc9f8: p-97001-1785601212",
		},
		{
			name: "a session carrying two traces is listed under each with its per-trace count",
			log: tracedCall("s", 1, 1, "2026-01-01T00:00:01Z", traceA) + tracedCall("s", 2, 2, "2026-01-01T00:00:02Z", traceB) +
				tracedCall("s", 3, 3, "2026-01-01T00:00:03Z", traceB),
			want: "t-0af7651916cd43dd trace [trace 0af7651916cd43dd8448eb211c80319c] s requests=2 errors=0\n" +
				"t-4bf92f3577b34da6 trace [trace 4bf92f3577b34da6a3ce929d0e0e4736] s requests=1 errors=0\n" +
				"s: t-4bf92f3577b34da6,t-0af7651916cd43dd",
		},
		{
			name: "a reused pid with another start time is another run",
			log:  meta("a", 1, "2026-01-01T00:00:00Z", "500", "2026-01-01T00:00:00Z") + meta("b", 1, "2026-01-02T00:00:00Z", "500", "2026-01-02T00:00:00Z"),
			want: "p-500-1767312000 process [client 500 since 2026-01-02T00:00:00Z] b requests=0 errors=0\n" +
				"p-500-1767225600 process [client 500 since 2026-01-01T00:00:00Z] a requests=0 errors=0\n" +
				"a: p-500-1767225600\nb: p-500-1767312000",
		},
		{
			name: "an old log without the process fields, and an invalid traceparent, stay ungrouped",
			log:  meta("old", 1, "2026-01-01T00:00:00Z", "", "") + tracedCall("old", 2, 1, "2026-01-01T00:00:01Z", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
			want: "old: ",
		},
		{
			// The run is the client's: a trace id a server puts on what it
			// sends (its own requests and notifications) groups nothing.
			name: "a server-sent traceparent is not a run key",
			log: strings.ReplaceAll(tracedCall("srv", 1, 1, "2026-01-01T00:00:01Z", traceA), `"direction":"c2s"`, `"direction":"s2c"`) +
				`{"session_id":"srv","server_label":"srv","seq":2,"ts":"2026-01-01T00:00:02Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x","_meta":{"traceparent":"` + traceB + `"}}}}` + "\n",
			want: "srv: ",
		},
		{
			name: "runs are ordered by time, never by seq",
			log: meta("late", 1, "2026-03-01T00:00:00Z", "7", "2026-01-01T00:00:00Z") +
				meta("early", 99, "2026-02-01T00:00:00Z", "8", "2026-01-01T00:00:00Z"),
			want: "p-7-1767225600 process [client 7 since 2026-01-01T00:00:00Z] late requests=0 errors=0\n" +
				"p-8-1767225600 process [client 8 since 2026-01-01T00:00:00Z] early requests=0 errors=0\n" +
				"late: p-7-1767225600\nearly: p-8-1767225600",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runSummary(check(t, checker.Config{}, tt.log)); got != tt.want {
				t.Errorf("runs:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestFindRunAndSessionFilter(t *testing.T) {
	log := readDir(t, "run-traced") + meta("other", 1, "2020-01-01T00:00:00Z", "9", "2020-01-01T00:00:00Z")
	rep := check(t, checker.Config{}, log)
	r, ok := checker.FindRun(rep.Runs, "latest")
	if !ok || r.ID != "t-4bf92f3577b34da6" {
		t.Fatalf("latest = %+v", r)
	}
	if _, ok := checker.FindRun(rep.Runs, "t-nope"); ok {
		t.Error("an unknown run was found")
	}
	only := map[string]bool{}
	for _, sid := range r.SessionIDs {
		only[sid] = true
	}
	filtered := check(t, checker.Config{Sessions: only}, log)
	if len(filtered.Sessions) != 3 {
		t.Errorf("filtered sessions = %d", len(filtered.Sessions))
	}
}
