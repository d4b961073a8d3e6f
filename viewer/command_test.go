package viewer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// fakeExport records what the viewer asked to export.
type fakeExport struct {
	format, session, dest string
	paths                 []string
	err                   error
}

func (f *fakeExport) fn(_ context.Context, format, session string, paths []string, dest string) error {
	f.format, f.session, f.paths, f.dest = format, session, paths, dest
	return f.err
}

// run runs a command the way bubbletea would and feeds its message back.
func run(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command to run")
	}
	m.Update(cmd())
}

// TestExportKeyAndCommand: e exports the session as HTML into the exports
// folder, :export writes any format to a path, and the status line says
// where, or why not.
func TestExportKeyAndCommand(t *testing.T) {
	var fx fakeExport
	dir := t.TempDir()
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{Export: fx.fn, ExportDir: dir}))
	cmd := press(t, m, "e")
	if !strings.Contains(screen(m), "exporting store-example as html") {
		t.Fatalf("no word of the export while it runs:\n%s", screen(m))
	}
	run(t, m, cmd)
	want := filepath.Join(dir, "store-example.html")
	if fx.format != "html" || fx.session != "store-example" || fx.dest != want || len(fx.paths) != 1 || !strings.HasSuffix(fx.paths[0], "store-example.jsonl") {
		t.Fatalf("export asked for %+v", fx)
	}
	if s := screen(m); !strings.Contains(s, "exported html to "+want) {
		t.Fatalf("the status line does not name the file:\n%s", s)
	}

	// : opens the command line in the footer.
	press(t, m, ":")
	if s := screen(m); !strings.Contains(s, ":") || !m.editing || !m.command {
		t.Fatalf("no command line:\n%s", s)
	}
	out := filepath.Join(dir, "x.json")
	run(t, m, press(t, m, "type:export otlp "+out, "enter"))
	if fx.format != "otlp" || fx.dest != out || m.editing {
		t.Fatalf("export asked for %+v", fx)
	}
	for format, ext := range map[string]string{"json": ".json", "text": ".txt", "har": ".har", "otlp": ".otlp.json", "HTML": ".html"} {
		run(t, m, press(t, m, ":", "type:export "+format, "enter"))
		if fx.dest != filepath.Join(dir, "store-example"+ext) {
			t.Errorf(":export %s writes %s", format, fx.dest)
		}
	}
	// A folder as the path: the default name inside it.
	run(t, m, press(t, m, ":", "type:export har "+dir, "enter"))
	if fx.dest != filepath.Join(dir, "store-example.har") {
		t.Errorf(":export har DIR writes %s", fx.dest)
	}

	// ~ is expanded before the folder test: ~/dir gets the default name too.
	home := t.TempDir()
	t.Setenv("HOME", home)
	run(t, m, press(t, m, ":", "type:export json ~", "enter"))
	if fx.dest != filepath.Join(home, "store-example.json") {
		t.Errorf(":export json ~ writes %s", fx.dest)
	}
	run(t, m, press(t, m, ":", "type:export json ~/x.json", "enter"))
	if fx.dest != filepath.Join(home, "x.json") {
		t.Errorf(":export json ~/x.json writes %s", fx.dest)
	}

	fx.err = errors.New("disk full")
	run(t, m, press(t, m, ":", "type:export json", "enter"))
	if s := screen(m); !strings.Contains(s, "export failed: disk full") {
		t.Fatalf("the error is not shown:\n%s", s)
	}
	if cmd := press(t, m, ":", "type:export pdf", "enter"); cmd != nil || !strings.Contains(screen(m), `unknown format "pdf" (want json, html, text, har or otlp)`) {
		t.Fatalf("an unknown format:\n%s", screen(m))
	}
	if press(t, m, ":", "type:frobnicate", "enter"); !strings.Contains(screen(m), `unknown command "frobnicate"`) {
		t.Fatalf("an unknown command:\n%s", screen(m))
	}
	// esc leaves the command line without running it.
	fx.format = ""
	if cmd := press(t, m, ":", "type:export json", "esc"); cmd != nil || m.editing || fx.format != "" {
		t.Fatal("esc ran the command")
	}

	// From the sessions list, e exports the session under the cursor.
	press(t, m, "esc")
	if m.screen != screenSessions {
		t.Fatalf("esc on an unfiltered stream of one session stays, screen %d", m.screen)
	}
	run(t, m, press(t, m, "e"))
	if fx.format != "html" || fx.session != "store-example" {
		t.Fatalf("e on the list exported %+v", fx)
	}

	// Without an exporter the viewer says where to go instead.
	m = sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	if cmd := press(t, m, "e"); cmd != nil || !strings.Contains(screen(m), "use mcpsnoop export") {
		t.Fatalf("e without an exporter:\n%s", screen(m))
	}
}

// TestFilterErrorVisibleAt80: the reason a filter does not parse, and what
// a good one selects, show on the line under the prompt even at 80
// columns and with a long filter.
func TestFilterErrorVisibleAt80(t *testing.T) {
	m := New(loadFixture(t, "store-example.jsonl"), Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(t, m, "/", "type:dir:sideways", "enter")
	s := screen(m)
	if !strings.Contains(s, "dir:sideways: dir is c2s, s2c, stderr or meta") || !m.editing {
		t.Fatalf("the filter error is not on screen:\n%s", s)
	}
	press(t, m, "esc", "/", "type:method:tools/call status:error tool:fail kind:request")
	s = screen(m)
	if !strings.Contains(s, "1 of 24 frames") {
		t.Fatalf("the count is not on screen:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("a line is %d wide: %q", w, l)
		}
	}
	if n := strings.Count(s, "\n") + 1; n != 24 {
		t.Errorf("the screen is %d lines, want 24", n)
	}
}

// TestToolsPanelKeysAndSchema: s opens the tools panel as t does, the ?
// page lists both, schema bytes say so, and the per-tool summary names
// the schema findings of each tool.
func TestToolsPanelKeysAndSchema(t *testing.T) {
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	press(t, m, "s")
	if s := screen(m); !strings.Contains(s, "tools · store-example") {
		t.Fatalf("s does not open the tools panel:\n%s", s)
	}
	press(t, m, "esc", "?")
	s := screen(m)
	if !strings.Contains(s, "s t          tools") || !strings.Contains(s, ":export FORMAT [PATH]") {
		t.Fatalf("the keys page:\n%s", s)
	}
	rep := &checker.SessionReport{
		Tools: []checker.ToolStats{{Name: "search", Calls: 2}, {Name: "fetch", Calls: 1}},
		Definitions: []checker.ToolCost{
			{Name: "search", Bytes: 900, DescriptionBytes: 100, SchemaBytes: 700, Findings: []string{"schema_no_type", "schema_unbounded"}},
			{Name: "fetch", Bytes: 90, DescriptionBytes: 10, SchemaBytes: 70},
		},
	}
	_, body := panelContent("tools", &Session{ID: "x"}, rep)
	lines := strings.Split(body, "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "SCHEMA") || !strings.Contains(lines[1], "schema_no_type, schema_unbounded") || !strings.HasSuffix(strings.TrimSpace(lines[2]), "-") {
		t.Errorf("the per-tool summary has no SCHEMA column:\n%s", body)
	}
	if !strings.Contains(body, "DESCRIPTION BYTES  SCHEMA BYTES  SCHEMA FINDINGS") {
		t.Errorf("the advertised tools' columns:\n%s", body)
	}
}

// TestMissingFrames: seq gaps show as "N missing" in the stream's header
// and the sessions list, from the engine's count or, live, from the gaps.
func TestMissingFrames(t *testing.T) {
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	if s := screen(m); !strings.Contains(s, "24 frames · 9 calls · 1 pending · 1 error · 3 warnings · 2 missing") {
		t.Fatalf("the header does not count the missing frames:\n%s", s)
	}
	press(t, m, "esc")
	s := screen(m)
	if !strings.Contains(s, "MISSING") || !strings.Contains(s, "1 session ") {
		t.Fatalf("the sessions list:\n%s", s)
	}
	// MISSING is the list's last column.
	if !strings.HasSuffix(strings.TrimRight(strings.Split(s, "\n")[2], " "), " 2") {
		t.Errorf("the list does not show 2 missing:\n%s", s)
	}

	// Live: the gaps in seq, counted as frames arrive.
	st := NewStore(LiveLimits)
	for _, seq := range []uint64{1, 2, 5, 4, 6, 9} {
		st.Apply([]Change{{SessionID: "s", Row: testRow(seq, -1, "{}")}})
	}
	if got := st.Session("s").MissingFrames(); got != 4 {
		t.Errorf("live missing = %d, want 4 (3 and 4, then 7 and 8; a late 4 adds nothing, as in the engine)", got)
	}
}

// TestNarrowColumns: at 80x24 the list keeps its counts and the stream
// its duration and note; at 200 the method and tool columns stay capped.
func TestNarrowColumns(t *testing.T) {
	m := New(loadFixture(t, "store-example.jsonl"), Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	s := screen(m)
	cols := strings.Split(s, "\n")[1]
	for _, c := range []string{"SEQ", "DIR", "METHOD", "TOOL", "STATUS", "DURATION", "NOTE"} {
		if !strings.Contains(cols, c) {
			t.Errorf("the stream at 80 columns lacks %s: %q", c, cols)
		}
	}
	if !strings.Contains(s, "2 missing") || !strings.Contains(s, "warning: dupl") || !strings.Contains(s, "20.0ms") {
		t.Errorf("the stream at 80 columns:\n%s", s)
	}
	press(t, m, "esc")
	cols = strings.Split(screen(m), "\n")[1]
	for _, c := range []string{"LABEL", "SESSION", "STARTED", "FRAMES", "CALLS", "PENDING", "ERRORS", "WARNINGS", "MISSING"} {
		if !strings.Contains(cols, c) {
			t.Errorf("the list at 80 columns lacks %s: %q", c, cols)
		}
	}
	if !strings.Contains(screen(m), "10:00:00") {
		t.Errorf("no start time:\n%s", screen(m))
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 24})
	if w := layout(200, sessionCols); w[0] > 24 {
		t.Errorf("LABEL is %d wide at 200 columns", w[0])
	}
	press(t, m, "enter")
	if w := m.streamWidths(); w[4] > 28 || w[5] > 20 || w[9] < 60 {
		t.Errorf("stream widths at 200: %v", w)
	}
}

// TestSmallFixes: the keys page lists the filter aliases; counts of one
// are singular.
func TestSmallFixes(t *testing.T) {
	m := sized(New(loadFixture(t, "elicit.jsonl"), Options{}))
	if s := screen(m); !strings.Contains(s, "12 frames · 3 calls · 0 pending · 1 error · 0 warnings") {
		t.Fatalf("header:\n%s", s)
	}
	press(t, m, "?")
	s := helpText(false)
	if m.screen != screenDetail || m.detailTitle != "keys" {
		t.Fatalf("? shows no keys page:\n%s", screen(m))
	}
	for _, w := range []string{"invalid (corrupt, bad)", "stderr (err), meta", `id:"1" the`, "esc          clear the filter, then back"} {
		if !strings.Contains(s, w) {
			t.Errorf("the keys page lacks %q", w)
		}
	}
	if plural(1, "session") != "1 session" || plural(0, "error") != "0 errors" {
		t.Error("plural")
	}
}
