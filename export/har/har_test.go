package har_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/export/har"
	"github.com/mcpsnoop/mcpsnoop/export/internal/formattest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the HAR 1.2 JSON Schema of the har-schema npm package
// (v2.0.0, ISC licence, testdata/har-schema/LICENSE), copied unchanged. It
// checks the required fields and their types; checkHAR adds the rules the
// schema leaves out (timings not negative and adding up to time, page
// references).
const schemaFile = "testdata/har-schema/har.json"

// doc is the part of a HAR document the tests read.
type doc struct {
	Log struct {
		Version string `json:"version"`
		Creator struct {
			Name, Version string
		} `json:"creator"`
		Pages []struct {
			ID              string `json:"id"`
			Title           string `json:"title"`
			StartedDateTime string `json:"startedDateTime"`
			Comment         string `json:"comment"`
		} `json:"pages"`
		Entries []struct {
			Pageref         string      `json:"pageref"`
			StartedDateTime string      `json:"startedDateTime"`
			Time            json.Number `json:"time"`
			Request         struct {
				Method   string `json:"method"`
				URL      string `json:"url"`
				BodySize int    `json:"bodySize"`
				PostData *struct {
					MimeType, Text string
				} `json:"postData"`
			} `json:"request"`
			Response struct {
				Status     int    `json:"status"`
				StatusText string `json:"statusText"`
				BodySize   int    `json:"bodySize"`
				Content    struct {
					Size int    `json:"size"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"response"`
			Timings map[string]json.Number `json:"timings"`
			Comment string                 `json:"comment"`
		} `json:"entries"`
		Comment string `json:"comment"`
	} `json:"log"`
}

func exportHAR(t *testing.T, paths ...string) (doc, []byte) {
	t.Helper()
	res := formattest.Run(t, har.New(), paths...)
	checkHAR(t, res.Output)
	var d doc
	if err := json.Unmarshal(res.Output, &d); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, s := range res.Report.Sessions {
		calls += s.Calls
	}
	if len(d.Log.Entries) != calls {
		t.Errorf("%d entries for %d calls", len(d.Log.Entries), calls)
	}
	return d, res.Output
}

// ms reads a HAR time (milliseconds, exact decimal) as a duration.
func ms(t *testing.T, n json.Number) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(string(n) + "ms")
	if err != nil {
		t.Fatalf("time %q: %v", n, err)
	}
	return d
}

// checkHAR validates a document against the HAR 1.2 schema and the rules
// of the HAR 1.2 spec the schema does not express.
func checkHAR(t *testing.T, out []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid HAR 1.2: %v", err)
	}
	var d doc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Log.Version != "1.2" || d.Log.Creator.Name != "mcpsnoop" || d.Log.Creator.Version == "" {
		t.Errorf("log head: %+v %+v", d.Log.Version, d.Log.Creator)
	}
	pages := map[string]bool{}
	for _, p := range d.Log.Pages {
		if pages[p.ID] {
			t.Errorf("page id %q twice", p.ID)
		}
		pages[p.ID] = true
	}
	for i, e := range d.Log.Entries {
		if !pages[e.Pageref] {
			t.Errorf("entry %d: pageref %q names no page", i, e.Pageref)
		}
		var sum time.Duration
		for name, v := range e.Timings {
			d := ms(t, v)
			switch {
			case name == "comment":
			case (name == "send" || name == "wait" || name == "receive") && d < 0:
				t.Errorf("entry %d: timings.%s = %v", i, name, v)
			case d < 0 && d != -time.Millisecond:
				t.Errorf("entry %d: timings.%s = %v", i, name, v)
			case d >= 0:
				sum += d
			}
		}
		if total := ms(t, e.Time); total < 0 || sum != total {
			t.Errorf("entry %d: timings add up to %v, time is %v", i, sum, e.Time)
		}
		if pd := e.Request.PostData; pd != nil && len(pd.Text) != e.Request.BodySize {
			t.Errorf("entry %d: request bodySize %d for %d bytes", i, e.Request.BodySize, len(pd.Text))
		}
		if c := e.Response.Content; c.Size != len(c.Text) || e.Response.BodySize != c.Size {
			t.Errorf("entry %d: response sizes %d/%d for %d bytes", i, c.Size, e.Response.BodySize, len(c.Text))
		}
		if e.Request.Method != "POST" || !strings.HasPrefix(e.Request.URL, "mcp://") {
			t.Errorf("entry %d: request %s %s", i, e.Request.Method, e.Request.URL)
		}
	}
}

func TestStoreExample(t *testing.T) {
	d, out := exportHAR(t, "../../fixtures/store-example.jsonl")
	formattest.Golden(t, "store-example.har", out)
	type row struct {
		url    string
		status int
		text   string
		time   string
	}
	want := []row{
		{"mcp://server.py/tools/call/echo", 200, "OK", "20"},
		{"mcp://server.py/tools/call/slow", 200, "Late Result", "300"},
		{"mcp://server.py/tools/call/echo", 200, "OK", "12"},
		{"mcp://server.py/tools/call/echo", 0, "superseded", "0"},
		{"mcp://server.py/tools/call/echo", 200, "OK", "10"},
		{"mcp://server.py/tools/call/report", 200, "OK", "200"},
		{"mcp://server.py/tasks/get", 200, "OK", "5"},
		{"mcp://server.py/tools/call/fail", 500, "Error", "10"},
		{"mcp://server.py/tools/call/echo", 0, "pending", "0"},
	}
	if len(d.Log.Entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(d.Log.Entries), len(want))
	}
	for i, w := range want {
		e := d.Log.Entries[i]
		got := row{e.Request.URL, e.Response.Status, e.Response.StatusText, string(e.Time)}
		if got != w {
			t.Errorf("entry %d: %+v, want %+v", i, got, w)
		}
		if e.Timings["wait"] != e.Time || e.Timings["blocked"] != "" {
			t.Errorf("entry %d: single round trip timings %v, time %v", i, e.Timings, e.Time)
		}
	}
	if e := d.Log.Entries[7]; !strings.Contains(e.Response.Content.Text, `"code":-32602`) {
		t.Errorf("error entry content %q", e.Response.Content.Text)
	}
	if e := d.Log.Entries[8]; e.Response.Content.Text != "" || e.Request.PostData == nil {
		t.Errorf("pending entry: %+v", e)
	}
	if c := d.Log.Comment; !strings.Contains(c, "2 frame(s) were dropped") || !strings.Contains(c, "store-example: 2") {
		t.Errorf("log.comment = %q", c)
	}
	if len(d.Log.Pages) != 1 || d.Log.Pages[0].ID != "store-example" || d.Log.Pages[0].Title != "server.py" {
		t.Errorf("pages = %+v", d.Log.Pages)
	}
}

// TestMRTRTimings: a three-hop call is 38.2s of which the server spent
// 1.2s; HAR shows 1.2s of wait and 37s blocked, not 38.2s of wait.
func TestMRTRTimings(t *testing.T) {
	d, out := exportHAR(t, "../../fixtures/mrtr.jsonl")
	formattest.Golden(t, "mrtr.har", out)
	if len(d.Log.Entries) != 2 {
		t.Fatalf("%d entries", len(d.Log.Entries))
	}
	book, price := d.Log.Entries[0], d.Log.Entries[1]
	if book.Time != "38200" || book.Timings["wait"] != "1200" || book.Timings["blocked"] != "37000" ||
		book.Timings["send"] != "0" || book.Timings["receive"] != "0" {
		t.Errorf("book_flight: time %v timings %v", book.Time, book.Timings)
	}
	if !strings.Contains(book.Comment, "3 round trips") {
		t.Errorf("book_flight comment %q", book.Comment)
	}
	if price.Time != "200" || price.Timings["wait"] != "200" || price.Timings["blocked"] != "" {
		t.Errorf("lookup_price: time %v timings %v", price.Time, price.Timings)
	}
	if d.Log.Comment != "" {
		t.Errorf("log.comment on a complete capture: %q", d.Log.Comment)
	}
	if bytes.Contains(out, []byte(`"comment"`)) && !bytes.Contains(out, []byte("round trips")) {
		t.Error("unexpected comment")
	}
}

// TestSessionsArePages: several sessions share one log, each a page.
func TestSessionsArePages(t *testing.T) {
	d, out := exportHAR(t, "../../fixtures/run-traced")
	formattest.Golden(t, "run-traced.har", out)
	var ids []string
	for _, p := range d.Log.Pages {
		ids = append(ids, p.ID+"="+p.Title)
	}
	want := "files-97144-f2a752e6b438=files github-97145-6513269e0d37=github search-97146-0c5ca6a3a450=search"
	if strings.Join(ids, " ") != want {
		t.Errorf("pages %v", ids)
	}
	count := map[string]int{}
	for _, e := range d.Log.Entries {
		count[e.Pageref]++
		host := strings.SplitN(strings.TrimPrefix(e.Request.URL, "mcp://"), "/", 2)[0]
		if !strings.HasPrefix(e.Pageref, host+"-") {
			t.Errorf("entry of page %s has url %s", e.Pageref, e.Request.URL)
		}
	}
	for _, p := range d.Log.Pages {
		if count[p.ID] != 3 {
			t.Errorf("page %s has %d entries, want 3", p.ID, count[p.ID])
		}
	}
}

// TestEmpty: no session still gives a valid HAR document.
func TestEmpty(t *testing.T) {
	f := har.New()
	var b bytes.Buffer
	o := &export.Output{GeneratedAt: formattest.GeneratedAt, Version: "dev"}
	if err := f.Begin(&b, o); err != nil {
		t.Fatal(err)
	}
	if err := f.End(&b, o); err != nil {
		t.Fatal(err)
	}
	checkHAR(t, b.Bytes())
	if !strings.Contains(b.String(), `"entries": []`) {
		t.Errorf("output:\n%s", b.String())
	}
}

func TestURLEscaping(t *testing.T) {
	for _, tt := range []struct{ host, method, tool, want string }{
		{"server.py", "tools/call", "echo", "mcp://server.py/tools/call/echo"},
		{"my server", "tools/call", "a/b c", "mcp://my%20server/tools/call/a%2Fb%20c"},
		{"s", "ping", "", "mcp://s/ping"},
	} {
		if got := har.CallURL(tt.host, tt.method, tt.tool); got != tt.want {
			t.Errorf("CallURL(%q, %q, %q) = %q, want %q", tt.host, tt.method, tt.tool, got, tt.want)
		}
	}
}

// TestSchemaBites: the schema check does reject a document missing a
// required field, so passing it means something.
func TestSchemaBites(t *testing.T) {
	res := formattest.Run(t, har.New(), "../../fixtures/mrtr.jsonl")
	broken := bytes.Replace(res.Output, []byte(`"cache": {},`), nil, 1)
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(broken))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(inst) == nil {
		t.Error("an entry without cache passed the HAR schema")
	}
}

// TestClockSteppedBack: a call whose answer carries an earlier time than
// its request (the capture clock stepped back, or the writer's offset
// changed under it) gets time 0, not a negative time HAR forbids; so does
// a multi-round-trip one.
func TestClockSteppedBack(t *testing.T) {
	log := `{"session_id":"s","server_label":"s","seq":1,"ts":"2026-01-01T00:00:01Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"session_id":"s","server_label":"s","seq":2,"ts":"2026-01-01T00:00:00.5+02:00","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{}}}
`
	path := filepath.Join(t.TempDir(), "back.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	res := formattest.Run(t, har.New(), path)
	checkHAR(t, res.Output)
	var d doc
	if err := json.Unmarshal(res.Output, &d); err != nil {
		t.Fatal(err)
	}
	if e := d.Log.Entries[0]; e.Time != "0" || e.Timings["wait"] != "0" {
		t.Errorf("time %s, wait %s; want 0", e.Time, e.Timings["wait"])
	}
}
