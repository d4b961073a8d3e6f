package schemacheck

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// corpus is every JSON-RPC message of the captures under fixtures/, as
// the kind, sender and method the engine would hand Validate (a response
// as the answer to each of a few methods).
func corpus(t *testing.T) []wire.Message {
	t.Helper()
	var logs []string
	for _, p := range []string{"*.jsonl", "*/*.jsonl"} {
		more, _ := filepath.Glob(filepath.Join("..", "..", "..", "fixtures", p))
		logs = append(logs, more...)
	}
	var out []wire.Message
	for _, log := range logs {
		f, err := os.Open(log)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var env struct {
				Direction string          `json:"direction"`
				Raw       json.RawMessage `json:"raw"`
			}
			if json.Unmarshal(sc.Bytes(), &env) != nil || len(env.Raw) == 0 || env.Raw[0] != '{' || (env.Direction != "c2s" && env.Direction != "s2c") {
				continue
			}
			var head struct {
				Method string          `json:"method"`
				ID     json.RawMessage `json:"id"`
				Error  json.RawMessage `json:"error"`
			}
			json.Unmarshal(env.Raw, &head)
			m := wire.Message{Raw: env.Raw, Sender: wire.Client, Method: head.Method}
			if env.Direction == "s2c" {
				m.Sender = wire.Server
			}
			switch {
			case head.Method != "" && head.ID != nil:
				m.Kind = wire.Request
			case head.Method != "":
				m.Kind = wire.Notification
			case head.Error != nil:
				m.Kind = wire.Error
			default:
				m.Kind = wire.Result
			}
			if m.Kind == wire.Result || m.Kind == wire.Error {
				for _, method := range []string{"", "tools/call", "tools/list", "initialize", "elicitation/create"} {
					m.Method = method
					out = append(out, m)
				}
				continue
			}
			out = append(out, m)
		}
		f.Close()
	}
	if len(out) < 500 {
		t.Fatalf("only %d messages in the corpus", len(out))
	}
	return out
}

// uncached validates without the shape cache.
func uncached(t *testing.T, m wire.Message) string {
	t.Helper()
	r := revisions[m.Revision]
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	v := validation{r: r, m: &m}
	f, err := v.run()
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		return ""
	}
	return f.Text()
}

// What a shape leaves out cannot change a verdict: replacing any string the
// shape empties (one not under a property some definition constrains by
// const or enum) by other strings, among them constants the schemas use,
// gives every message of the corpus, under every revision, the finding it
// had.
func TestShapeLeavesOutOnlyWhatCannotMatter(t *testing.T) {
	alternatives := []any{"", "text", "2.0", "input_required", strings.Repeat("é", 300)}
	numbers := []any{0, -1, 1.5, 1e300}
	checked := 0
	for _, rev := range wire.Revisions {
		r := revisions[rev]
		if err := r.load(); err != nil {
			t.Fatal(err)
		}
		for _, m := range corpus(t) {
			if len(m.Raw) > 4096 {
				continue // the large results have no other kinds of strings
			}
			m.Revision = rev
			want := uncached(t, m)
			var doc any
			json.Unmarshal(m.Raw, &doc)
			var paths [][]any
			collectLeaves(doc, "", nil, r, &paths)
			for _, path := range paths {
				orig := get(doc, path)
				alts := alternatives
				if _, isNum := orig.(float64); isNum {
					alts = numbers
				}
				for _, alt := range alts {
					set(doc, path, alt)
					m2 := m
					m2.Raw, _ = json.Marshal(doc)
					if got := uncached(t, m2); got != want {
						t.Fatalf("%s %s %s: the value at %v set to %v changes\n%s\nto\n%s\nin %s", rev, m.Method, []string{"request", "notification", "result", "error"}[m.Kind], path, alt, want, got, m.Raw)
					}
					checked++
				}
				set(doc, path, orig)
			}
		}
	}
	if checked < 5000 {
		t.Errorf("only %d replacements checked", checked)
	}
}

// collectLeaves finds the paths of the strings and numbers a shape
// empties: those whose nearest key is not sensitive.
func collectLeaves(v any, key string, path []any, r *revision, out *[][]any) {
	switch n := v.(type) {
	case string:
		if !r.strKeys[key] {
			*out = append(*out, append([]any(nil), path...))
		}
	case float64:
		if !r.numKeys[key] && key != "id" {
			*out = append(*out, append([]any(nil), path...))
		}
	case map[string]any:
		for k, e := range n {
			collectLeaves(e, k, append(path, k), r, out)
		}
	case []any:
		for i, e := range n {
			collectLeaves(e, key, append(path, i), r, out)
		}
	}
}

func get(doc any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			doc = doc.(map[string]any)[k]
		case int:
			doc = doc.([]any)[k]
		}
	}
	return doc
}

func set(doc any, path []any, v any) {
	parent := get(doc, path[:len(path)-1])
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[k] = v
	case int:
		parent.([]any)[k] = v
	}
}

// Messages of one shape share the cache; the corpus has many.
func TestShapesRepeat(t *testing.T) {
	r := revisions["2025-06-18"]
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, m := range corpus(t) {
		m.Revision = "2025-06-18"
		if k, ok := r.shape(&m, nil); ok {
			counts[string(k)]++
		}
	}
	repeated := 0
	for _, n := range counts {
		if n > 1 {
			repeated += n
		}
	}
	if repeated < 100 {
		t.Errorf("only %d messages share a shape", repeated)
	}
	for _, key := range []string{"type", "method", "jsonrpc", "role", "level", "action"} {
		if !r.strKeys[key] {
			t.Errorf("%q is not sensitive", key)
		}
	}
	for _, key := range []string{"text", "name", "uri", "message", "data"} {
		if r.strKeys[key] {
			t.Errorf("%q is sensitive", key)
		}
	}
	for _, key := range []string{"maxTokens", "priority", "progressToken", "total"} {
		if !r.numKeys[key] {
			t.Errorf("%q: its number is not kept", key)
		}
	}
	for _, key := range []string{"progress"} { // total is an integer in CompleteResult
		if r.numKeys[key] {
			t.Errorf("%q: its number is kept", key)
		}
	}
}

// A faulty message is validated in full every time; a message of a shape
// that validated is answered from the cache, and the cache stays bounded.
func TestShapeCache(t *testing.T) {
	bad := wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text"}]}}`)}
	for i := range 3 {
		if f, _ := Validate(bad); f == nil {
			t.Fatalf("validation %d of a faulty message passed", i+1)
		}
	}
	r := revisions["2025-11-25"]
	good := wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"first"}]}}`)}
	key, ok := r.shape(&good, nil)
	if !ok {
		t.Fatal("no shape")
	}
	if f, _ := Validate(good); f != nil || !r.shapes.has(key) {
		t.Fatalf("a valid message's shape was not remembered: %v", f)
	}
	other := good
	other.Raw = []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"another text altogether"}]}}`)
	if k, _ := r.shape(&other, nil); string(k) != string(key) {
		t.Errorf("shapes differ:\n%s\n%s", key, k)
	}
	video := good
	video.Raw = []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"video","text":"first"}]}}`)
	if k, _ := r.shape(&video, nil); string(k) == string(key) {
		t.Error("a different content type has the same shape")
	}
	var c shapeCache
	for i := range maxShapes + 10 {
		c.add([]byte{byte(i), byte(i >> 8)})
	}
	if c.size() != maxShapes {
		t.Errorf("cache holds %d shapes, want at most %d", c.size(), maxShapes)
	}
}

// The answer to a task-augmented request is judged as a CreateTaskResult,
// a plain answer by its method's result: one shape seen both ways gets
// both verdicts, whichever came first, never the other's from the cache.
func TestShapeCacheKeepsTaskAugmentedApart(t *testing.T) {
	const rev = "2025-11-25"
	content := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}`)
	task := []byte(`{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}`)
	for _, tc := range []struct {
		name string
		raw  []byte
		// valid plain (a CallToolResult) or task-augmented (a CreateTaskResult)
		plain, augmented bool
	}{
		{"content", content, true, false},
		{"a task", task, false, true},
	} {
		for _, firstAugmented := range []bool{false, true} {
			revisions[rev].shapes = shapeCache{} // a cache that remembers nothing yet
			for _, augmented := range []bool{firstAugmented, !firstAugmented} {
				m := wire.Message{Revision: rev, Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: tc.raw, TaskAugmented: augmented}
				f, err := Validate(m)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.plain
				if augmented {
					want = tc.augmented
				}
				if (f == nil) != want {
					t.Errorf("%s, task-augmented %v (after %v): finding %v, want valid %v", tc.name, augmented, !augmented, f, want)
				}
			}
		}
	}
}
