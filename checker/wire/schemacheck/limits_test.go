package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// toolsList is a tools/list result of n tools, each {"name":1}: a wrong
// type and a missing inputSchema apiece.
func toolsList(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":1}`)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// Validation collects at most MaxCollected issues and then says it
// stopped; the finding lists MaxIssues of them and counts the rest.
func TestValidationStopsAfterMaxCollectedIssues(t *testing.T) {
	f, err := Validate(wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: toolsList(150)})
	if err != nil || f == nil {
		t.Fatalf("%v %v", f, err)
	}
	if len(f.Issues) != wire.MaxIssues || f.Omitted != wire.MaxCollected-wire.MaxIssues || f.Stopped != "after 100 issues" {
		t.Errorf("issues %d omitted %d stopped %q", len(f.Issues), f.Omitted, f.Stopped)
	}
	if !strings.Contains(f.Text(), "; and 97 more; validation stopped after 100 issues (2025-06-18 ListToolsResult)") {
		t.Errorf("text %q", f.Text())
	}
	// Fewer issues than that: no stop.
	f, _ = Validate(wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: toolsList(10)})
	if f == nil || f.Stopped != "" || f.Omitted != 2*10-wire.MaxIssues {
		t.Errorf("10 tools: %+v", f)
	}
}

// A message of more values than validation takes is validated as far as
// maxValues: what was decoded is judged (an issue in it is found), the
// container cut short is not (no "missing property" for what was left
// out), and the finding says where validation stopped. A message valid
// as far as it was validated is ErrStopped, not valid.
func TestValidationStopsPastMaxValues(t *testing.T) {
	tools := make([]string, 60_000)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)
	}
	bad := strings.Replace(strings.Join(tools, ","), `{"name":"t7",`, `{"name":7,`, 1)
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + bad + `]}}`)
	f, err := Validate(wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: msg})
	if err != nil || f == nil {
		t.Fatalf("%v %v", f, err)
	}
	if len(f.Issues) != 1 || f.Issues[0].Pointer != "/result/tools/7/name" || !strings.HasPrefix(f.Stopped, "after 100000 values, at /result/tools/") {
		t.Errorf("issues %+v stopped %q", f.Issues, f.Stopped)
	}
	good := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`)
	f, err = Validate(wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: good})
	if f != nil || !errors.Is(err, wire.ErrStopped) || !strings.Contains(err.Error(), ": the rest of the message was not validated") {
		t.Errorf("%+v %v", f, err)
	}
}

// visits counts schema-node visits: a vocabulary whose keyword every
// schema object has, installed in a compiler of the test's own.
type visits struct{ n *int }

func (v visits) Validate(*jsonschema.ValidatorContext, any) { *v.n++ }

// A 12 MB result of 800,000 bad tools, which once took the validator 35 s
// and 2.2 GB, costs at most 10^6 schema-node visits: what validation is
// handed stops at maxValues. Counted by a metered compiler of the same
// schema, on the instance the validator is given.
func TestValidationVisitsAreBounded(t *testing.T) {
	const rev = "2025-06-18"
	raw := toolsList(800_000)
	data, err := schemaFS.ReadFile("schemas/" + rev + ".json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCompiler(rev, doc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	c.AssertVocabs()
	c.RegisterVocabulary(&jsonschema.Vocabulary{URL: "urn:mcpsnoop:visits", Compile: func(*jsonschema.CompilerContext, map[string]any) (jsonschema.SchemaExt, error) {
		return visits{&n}, nil
	}})
	s, err := c.Compile(schemaBase + rev + ".json#/definitions/ListToolsResult")
	if err != nil {
		t.Fatal(err)
	}
	d := decoder{b: raw}
	msg := d.message("", "structuredContent").(map[string]any)
	_ = s.Validate(msg["result"])
	if n == 0 || n > 1_000_000 {
		t.Errorf("%d schema-node visits", n)
	}
	t.Logf("%d values handed over, %d schema-node visits", d.values, n)
	f, err := Validate(wire.Message{Revision: rev, Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: raw})
	if err != nil || f == nil || !strings.Contains(f.Stopped, "after 100000 values") || f.Omitted != wire.MaxCollected-wire.MaxIssues {
		t.Errorf("%+v %v", f, err)
	}
}

// Around MaxIssues: a finding lists every issue up to MaxIssues, and past
// it lists MaxIssues and counts the rest, one by one.
func TestFindingListsAtMostMaxIssues(t *testing.T) {
	for _, tt := range []struct {
		tools          string // each {"name":1} is two issues, each {"name":"x"} one
		listed, counts int
	}{
		{`{"name":"x"}`, 1, 0},
		{`{"name":1}`, 2, 0},
		{`{"name":1},{"name":"x"}`, wire.MaxIssues, 0},
		{`{"name":1},{"name":1}`, wire.MaxIssues, 1},
		{`{"name":1},{"name":1},{"name":"x"}`, wire.MaxIssues, 2},
	} {
		raw := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tt.tools + `]}}`)
		f, err := Validate(wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: raw})
		if err != nil || f == nil {
			t.Fatalf("%s: %v %v", tt.tools, f, err)
		}
		if len(f.Issues) != tt.listed || f.Omitted != tt.counts {
			t.Errorf("%s: %d issues listed, %d counted; want %d and %d", tt.tools, len(f.Issues), f.Omitted, tt.listed, tt.counts)
		}
	}
}
