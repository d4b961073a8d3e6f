package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// TestHTMLEmbeddingIsInert feeds the page hostile text everywhere a capture
// can put it (session id and label, payloads, stderr) and checks that the
// page still has exactly its own elements: no value closes a script
// element, opens a comment or breaks a line inside the embedded data.
func TestHTMLEmbeddingIsInert(t *testing.T) {
	evil := `</script><script>alert(1)</script><!--<img src=x onerror=alert(2)>` + "\u2028\u2029&amp;"
	q, _ := json.Marshal(evil)
	line := func(seq int, dir, body string) string {
		return `{"session_id":"s\"><b>x</b>","server_label":` + string(q) + `,"seq":` + string(rune('0'+seq)) +
			`,"ts":"2026-07-28T12:00:0` + string(rune('0'+seq)) + `Z","direction":"` + dir + `","transport":"stdio",` + body + "}\n"
	}
	log := line(1, "c2s", `"raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`+string(q)+`,"arguments":{"x":`+string(q)+`}}}`) +
		line(2, "s2c", `"raw":{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":`+string(q)+`}}`) +
		line(3, "stderr", `"text":`+string(q))
	path := filepath.Join(t.TempDir(), "evil.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	page := string(exportBytes(t, NewHTML(), fixtureInputsAt(path), Options{}))

	// The page's own script elements: the meta data, one session, the error
	// trap and the application.
	if n := strings.Count(page, "<script"); n != 4 {
		t.Errorf("%d <script openings, want 4", n)
	}
	if n := strings.Count(page, "</script>"); n != 4 {
		t.Errorf("%d </script> closings, want 4", n)
	}
	for _, bad := range []string{"<!--", "\u2028", "\u2029", "<img", "<b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	m := regexp.MustCompile(`(?s)class="mcpsnoop-session"[^>]*>(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no session data")
	}
	var d struct {
		Session struct{ ID, Label string } `json:"session"`
		Events  []struct {
			Raw  string `json:"raw"`
			Text string `json:"text"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	if d.Session.Label != evil || d.Session.ID != `s"><b>x</b>` || len(d.Events) != 3 || d.Events[2].Text != evil {
		t.Errorf("the data did not survive the escaping: %+v", d)
	}
	if !strings.Contains(d.Events[0].Raw, `"name":`+string(q)) {
		t.Errorf("raw frame changed: %s", d.Events[0].Raw)
	}
}

func fixtureInputsAt(path string) []capture.Input {
	return []capture.Input{{Path: path, Name: path}}
}
