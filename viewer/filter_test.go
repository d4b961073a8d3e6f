package viewer

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestParseFilter(t *testing.T) {
	tests := []struct {
		in      string
		want    string // the terms, field=value, space-separated
		wantErr string
	}{
		{in: "", want: ""},
		{in: "  echo  ", want: "text=echo"},
		{in: "tool:Search status:pending", want: "tool=search status=pending"},
		{in: "t:echo m:tools/call s:err", want: "tool=echo method=tools/call status=error"},
		{in: "status:error status:fail status:err", want: "status=error status=error status=error"},
		{in: "status:cancel status:call_cancelled", want: "status=cancel status=cancel"},
		{in: "status:late status:late_result status:cancelled", want: "status=late_result status=late_result status=cancelled"},
		{in: "status:bad status:warn status:mismatch status:ok", want: "status=invalid status=warn status=mismatch status=ok"},
		{in: "status:401", want: "status=http:401"},
		{in: "dir:s2c kind:req", want: "dir=s2c kind=request"},
		{in: "d:client d:-> d:out d:<- d:err", want: "dir=c2s dir=c2s dir=s2c dir=s2c dir=stderr"},
		{in: "k:resp k:ntf k:notify k:corrupt k:transport", want: "kind=response kind=notification kind=notification kind=invalid kind=transport"},
		{in: `id:"two" id:7`, want: `id="two" id=7`},
		{in: `id:two`, want: `id="two"`},
		{in: `id:-3`, want: `id=-3`},
		{in: "foo:bar", want: "text=foo:bar"},
		{in: "status:bogus", wantErr: "status:bogus: status is"},
		{in: "dir:up", wantErr: "dir:up: dir is"},
		{in: "kind:x", wantErr: "kind:x: kind is"},
		{in: "tool:", wantErr: "give a value"},
		{in: "status:99", wantErr: "status:99"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := ParseFilter(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFilter(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tm := range f.terms {
				v := tm.value
				if tm.code != 0 {
					v += ":" + strconv.Itoa(tm.code)
				}
				got = append(got, tm.field+"="+v)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("ParseFilter(%q) = %q, want %q", tt.in, g, tt.want)
			}
			if f.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v", f.Empty())
			}
		})
	}
}

// loadFixture reads a log of ../fixtures into a store.
func loadFixture(t *testing.T, name string) *Store {
	t.Helper()
	p := filepath.Join("..", "fixtures", name)
	st, err := Load([]capture.Input{{Path: p, Name: name}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestFilterMatch runs filters over the store example
// (capture-store-export.md 6.15) and lists the seqs they select.
func TestFilterMatch(t *testing.T) {
	st := loadFixture(t, "store-example.jsonl")
	tests := []struct{ filter, seqs string }{
		{"status:error", "20 21"},
		{"method:tools/call status:error", "20 21"},
		{"status:pending", "24"},
		{"status:late", "6 7 8"},
		{"status:cancel", "6 7 8"},
		{"status:superseded", "11"},
		{"status:warn", "3 5 12"},
		{"status:invalid", "27"},
		{"kind:invalid", "27"},
		{"dir:stderr", "14"},
		{"dir:s2c kind:notify", "19"},
		{"kind:req tool:ech", "2 9 11 12 24"},
		{"tool:echo id:4", "11 12 13"},
		{`id:"1"`, "3"},   // the string id only
		{`id:1`, "2 4 5"}, // the number only
		{`id:1 status:warn`, "5"},
		{"warming", "14"},
		{"this kind:invalid", "27"},
		{"user gave up", "7"},
		{"TASKS/get", "17 18"},
		{"kind:other", "25"},
		{"status:ok tool:report", "15 16"},
		{"status:401", ""},
	}
	for _, tt := range tests {
		f, err := ParseFilter(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range st.Sessions[0].Rows {
			if f.Match(r) {
				got = append(got, strconv.FormatUint(r.Seq, 10))
			}
		}
		if g := strings.Join(got, " "); g != tt.seqs {
			t.Errorf("%s selects %q, want %q", tt.filter, g, tt.seqs)
		}
	}
}

// TestWriteTextGolden is the stream as open prints it without a terminal.
// go test ./viewer -update rewrites testdata/*.stream.
func TestWriteTextGolden(t *testing.T) {
	for _, tc := range []struct{ name, fixture, filter string }{
		{"store-example", "store-example.jsonl", ""},
		{"mrtr", "mrtr.jsonl", ""},
		{"elicit", "elicit.jsonl", ""},
		{"devtools-web-search", "devtools-60calls.jsonl", "tool:web_search kind:resp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFilter(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := WriteText(&b, loadFixture(t, tc.fixture), f); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".stream")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./viewer -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("stream differs from %s:\n%s", golden, b.String())
			}
		})
	}
}

// TestFilterTextNoAlloc: a plain-text token matches the body case-
// insensitively without lowering (copying) it for every row and key press.
func TestFilterTextNoAlloc(t *testing.T) {
	body := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("abc ", 5000) + `Needle ÄÖ KELVIN ` + "\u212ax" + `"}}`
	r := testStrings.Row(&checker.FrameEvent{Frame: &capture.Frame{SessionID: "s", Raw: []byte(body)}, Kind: "notification", Method: "notifications/message", CallIndex: -1})
	for _, tc := range []struct {
		text string
		want bool
	}{{"needle", true}, {"NEEDLE", true}, {"äö", true}, {"kelvin", true}, {"kx", true}, {"needles", false}, {"ÄÖx", false}} {
		f, err := ParseFilter(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(r); got != tc.want {
			t.Errorf("%q matches %v, want %v", tc.text, got, tc.want)
		}
		if n := testing.AllocsPerRun(20, func() { f.Match(r) }); n != 0 {
			t.Errorf("%q: %v allocations per match", tc.text, n)
		}
	}
}
