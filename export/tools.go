package export

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/tidwall/gjson"
)

// Tools is the tools format: per session, one JSON object on a line,
// {"session", "label", "tools", "prompts", "resources"}, the definitions
// the session's server listed (tools/list, prompts/list, resources/list;
// resource templates are resources too, with their uriTemplate), as it
// sent them, for scanners that read tools/list snapshots. A listing is
// rebuilt as the checker rebuilds the tool inventory: an answer to a
// request without a cursor replaces the kind's list, a cursored page
// extends it. A kind never listed is [].
type Tools struct{}

// NewTools returns the tools format.
func NewTools() Format { return &Tools{} }

// toolsListings are the list methods, with the member of their result
// that holds the items and the member of the output they go to.
var toolsListings = map[string][2]string{
	"tools/list":               {"tools", "tools"},
	"prompts/list":             {"prompts", "prompts"},
	"resources/list":           {"resources", "resources"},
	"resources/templates/list": {"resourceTemplates", "resources"},
}

// Event keeps nothing: the listings come from the calls.
func (f *Tools) Event(*checker.FrameEvent) ([]byte, error) { return nil, nil }

// toolsPage is one list answer, as kept between Call and Session.
type toolsPage struct {
	Method   string            `json:"m"`
	Cursored bool              `json:"c"`
	Items    []json.RawMessage `json:"i"`
}

// Call keeps a list call's answer.
func (f *Tools) Call(r *checker.CallRecord) ([]byte, error) {
	l, ok := toolsListings[r.Method]
	if !ok || len(r.Result) == 0 || r.Direction != "c2s" {
		return nil, nil
	}
	res := gjson.ParseBytes(r.Result)
	if !res.IsObject() || res.Get("resultType").Str == "input_required" {
		return nil, nil
	}
	page := toolsPage{Method: r.Method, Items: []json.RawMessage{}}
	if c := gjson.GetBytes(r.Params, "cursor"); c.Exists() && c.Type != gjson.Null {
		page.Cursored = true
	}
	res.Get(l[0]).ForEach(func(_, item gjson.Result) bool {
		if item.IsObject() {
			page.Items = append(page.Items, json.RawMessage(item.Raw))
		}
		return true
	})
	return json.Marshal(page)
}

// Begin writes nothing: every line stands alone.
func (f *Tools) Begin(io.Writer, *Output) error { return nil }

// End writes nothing.
func (f *Tools) End(io.Writer, *Output) error { return nil }

// Session writes the session's line.
func (f *Tools) Session(w io.Writer, s *Session) error {
	lists := map[string][]json.RawMessage{}
	for m := range toolsListings {
		lists[m] = []json.RawMessage{}
	}
	err := EachKept(s.Calls, func(_, _ int, b []byte) error {
		var p toolsPage
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		if !p.Cursored {
			lists[p.Method] = lists[p.Method][:0:0]
		}
		lists[p.Method] = append(lists[p.Method], p.Items...)
		return nil
	})
	if err != nil {
		return err
	}
	doc := struct {
		Session   string            `json:"session"`
		Label     string            `json:"label"`
		Tools     []json.RawMessage `json:"tools"`
		Prompts   []json.RawMessage `json:"prompts"`
		Resources []json.RawMessage `json:"resources"`
	}{
		Session: s.Report.ID, Label: s.Report.Label,
		Tools: lists["tools/list"], Prompts: lists["prompts/list"],
		Resources: append(lists["resources/list"], lists["resources/templates/list"]...),
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return bw.Flush()
}
