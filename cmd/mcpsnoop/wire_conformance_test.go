package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// check --wire over every capture under fixtures/ and every conformance
// case: the wire findings are exactly those in
// testdata/wire-fixtures.txt (rewrite it with -update, then read the
// diff). Each is a frame that really breaks its revision's schema:
//
//   - the hand-written 2026-07-28 conformance cases list tools without
//     cacheScope (ListToolsResult requires ttlMs and cacheScope), and some
//     break the rule they test on purpose (a bad ttlMs, cacheScope or
//     resultType; a server's request in a stateless session, and the
//     client's answer to it, which carries no resultType);
//   - the legacy captures and the other cases pass, or do not tell their
//     revision (no initialize exchange, no 2026-07-28 _meta) and are not
//     validated;
//   - sdk-ts/ holds real TypeScript SDK traffic (@modelcontextprotocol/sdk
//     1.32.2: its client and server at 2025-11-25, its server under the
//     go-sdk client at 2024-11-05 to 2025-11-25), through the shim: every
//     frame validates.
func TestWireOverFixtures(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	root := filepath.Join("..", "..", "fixtures")
	logs, _ := filepath.Glob(filepath.Join(root, "*.jsonl"))
	for _, pattern := range []string{"run-*/*.jsonl", "sdk-ts/*.jsonl", "conformance/*.jsonl"} {
		more, _ := filepath.Glob(filepath.Join(root, pattern))
		logs = append(logs, more...)
	}
	sort.Strings(logs)
	if len(logs) < 80 {
		t.Fatalf("only %d logs under %s", len(logs), root)
	}
	var b strings.Builder
	validated := 0
	for _, log := range logs {
		report := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := checkRun(t, "", "--wire", "--fail-on", "incomplete", "--json", report, log)
		if code == 2 {
			continue // a case of an unreadable input
		}
		if code != 0 && !strings.Contains(stdout, "check failed: incomplete") || stderr != "" {
			t.Fatalf("%s: exit %d\n%s%s", log, code, stdout, stderr)
		}
		var doc struct {
			Sessions []struct {
				Wire struct {
					Validated int `json:"validated_frames"`
				} `json:"wire"`
			} `json:"sessions"`
			Findings []struct {
				Signal, Message string
				Line            int
			} `json:"findings"`
		}
		data, _ := os.ReadFile(report)
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", log, err)
		}
		for _, s := range doc.Sessions {
			validated += s.Wire.Validated
		}
		for _, f := range doc.Findings {
			if f.Signal == "wire" && !strings.Contains(f.Message, "not validated") {
				rel, _ := filepath.Rel(root, log)
				b.WriteString(filepath.ToSlash(rel) + ":" + itoa(f.Line) + ": " + f.Message[strings.Index(f.Message, "wire: "):] + "\n")
			}
		}
	}
	if validated < 200 {
		t.Errorf("only %d frames validated", validated)
	}
	golden := filepath.Join("testdata", "wire-fixtures.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("wire findings over fixtures/ differ from %s (-update rewrites it):\n%s", golden, firstDiff(string(want), b.String()))
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
