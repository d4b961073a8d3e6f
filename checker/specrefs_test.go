package checker_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Every rule id a rule file warns with is in the catalogue, and every warn
// rule of the catalogue is warned with somewhere.
func TestCatalogueMatchesRuleFiles(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	used := map[string]bool{}
	re := regexp.MustCompile(`\.warn\("(W\d+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			used[m[1]] = true
		}
	}
	if len(used) < 45 {
		t.Fatalf("found only %d rule ids in the rule files", len(used))
	}
	known := map[string]bool{}
	for _, r := range checker.Rules() {
		known[r.ID] = true
		if r.Signal == checker.SignalWarn && !used[r.ID] {
			t.Errorf("%s is in the catalogue but no rule warns with it", r.ID)
		}
		if r.Text == "" || r.Example == "" || r.Family == "" || r.Gate == "" {
			t.Errorf("%s: incomplete entry %+v", r.ID, r)
		}
		for _, rev := range r.Revisions() {
			if u := r.SpecURL(rev); !strings.HasPrefix(u, checker.SpecBase) || strings.HasSuffix(u, "/") {
				t.Errorf("%s: spec URL %q for %s", r.ID, u, rev)
			}
		}
		// A revision the rule does not apply to links the first one it does.
		for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
			if !r.AppliesTo(rev) && r.SpecURL(rev) != r.SpecURL(r.Since) {
				t.Errorf("%s under %s links %s, not its %s page", r.ID, rev, r.SpecURL(rev), r.Since)
			}
		}
	}
	var unknown []string
	for id := range used {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("rule files warn with ids the catalogue lacks: %v", unknown)
	}
}

func TestRuleSpecURL(t *testing.T) {
	base := checker.SpecBase
	tests := []struct {
		id, rev, want string
		applies       bool
	}{
		// The JSON-RPC rules: basic/messages in 2024-11-05, the base
		// protocol's overview after.
		{"W1", "2024-11-05", base + "2024-11-05/basic/messages", true},
		{"W1", "2025-03-26", base + "2025-03-26/basic/index#messages", true},
		{"W24", "2024-11-05", base + "2024-11-05/basic/messages#responses", true},
		{"W24", "2025-06-18", base + "2025-06-18/basic/index#responses", true},
		{"W29", "2024-11-05", base + "2024-11-05/basic/messages#requests", true},
		{"W33", "2025-11-25", base + "2025-11-25/basic/utilities/progress", true},
		{"W33", "2026-07-28", base + "2026-07-28/basic/patterns/progress", true},
		// A rule judged only from 2026-07-28 links that revision.
		{"W13", "2025-06-18", base + "2026-07-28/basic/index#resulttype", false},
		{"W13", "2026-07-28", base + "2026-07-28/basic/index#resulttype", true},
		// An unknown revision links the newest.
		{"W29", "", base + "2026-07-28/basic/index#requests", true},
		{"W29", "2099-01-01", base + "2026-07-28/basic/index#requests", true},
		// Streamable HTTP has a page of its own from 2026-07-28.
		{"W46", "2024-11-05", base + "2025-03-26/basic/transports#streamable-http", true},
		{"W46", "2025-11-25", base + "2025-11-25/basic/transports#streamable-http", true},
		{"W46", "2026-07-28", base + "2026-07-28/basic/transports/streamable-http#sending-messages", true},
	}
	for _, tt := range tests {
		r, ok := checker.LookupRule(strings.ToLower(tt.id))
		if !ok {
			t.Fatalf("no rule %s", tt.id)
		}
		if got := r.SpecURL(tt.rev); got != tt.want {
			t.Errorf("%s at %q: %s, want %s", tt.id, tt.rev, got, tt.want)
		}
		if tt.rev != "" && r.AppliesTo(tt.rev) != tt.applies {
			t.Errorf("%s applies to %s: %v, want %v", tt.id, tt.rev, !tt.applies, tt.applies)
		}
	}
	if _, ok := checker.LookupRule("W99"); ok {
		t.Error("W99 found: no such rule")
	}
}

// Warn and mismatch findings name their rules with the spec section of the
// frame's revision; the session counts the frames per rule.
func TestFindingRules(t *testing.T) {
	frames := append(initialize("2025-06-18", "2025-06-18"),
		"s2c 10 "+rpcResult("7", `{}`),       // W24: answers nothing
		"c2s 11 "+`{"id":2,"method":"ping"}`, // W1
		"s2c 12 "+`{"id":2,"result":{}}`,     // W1
	)
	rep := check(t, checker.Config{}, logOf("s", numbered(frames...)...))
	var got []string
	for _, f := range rep.Findings {
		for _, r := range f.Rules {
			got = append(got, f.Message+" -> "+r.ID+" "+r.SpecURL)
		}
	}
	base := checker.SpecBase + "2025-06-18/basic/index"
	sameLines(t, "rules", got, []string{
		"session s line 4: response id has no matching request -> W24 " + base + "#responses",
		"session s line 5: missing jsonrpc=2.0 -> W1 " + base + "#messages",
		"session s line 6: missing jsonrpc=2.0 -> W1 " + base + "#messages",
	})
	var hits []string
	for _, h := range onlySession(t, rep).RuleHits {
		hits = append(hits, h.ID+" "+strings.Repeat("x", h.Frames)+" "+h.SpecURL)
	}
	sameLines(t, "rule hits", hits, []string{"W1 xx " + base + "#messages", "W24 x " + base + "#responses"})
}

// A mismatch finding names the routing rules that flagged its frame, and
// M1 for the server's own -32020.
func TestMismatchRules(t *testing.T) {
	log := `{"session_id":"s","server_label":"srv","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"c2s","transport":"http","mcp_method":"tools/list","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",` + meta2026 + `}}}` + "\n" +
		`{"session_id":"s","server_label":"srv","seq":2,"ts":"2026-07-28T12:00:01Z","direction":"s2c","transport":"http","raw":{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}}` + "\n"
	rep := check(t, checker.Config{}, log)
	var got []string
	for _, f := range rep.Findings {
		if f.Signal != checker.SignalMismatch && f.Signal != checker.SignalWarn {
			continue
		}
		var ids []string
		for _, r := range f.Rules {
			ids = append(ids, r.ID)
		}
		got = append(got, string(f.Signal)+" "+strings.Join(ids, ","))
	}
	sameLines(t, "rules", got, []string{"warn W37,W40", "mismatch W37,W40", "mismatch M1"})
}
