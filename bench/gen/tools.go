package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// The tool catalogue of gen.py's tool_defs: what tools/list answers
// (tools.json, as gen.py writes it with indent=1; compacted here, which
// gives gen.py's compact form since the strings are kept byte for byte),
// and per tool its latency (median seconds and sigma of a log-normal), the
// style of its results, whether it reports progress, and how often it is
// called (gen.py's POPULARITY).
//
//go:embed tools.json
var toolsJSON []byte

type tool struct {
	name       string
	lat, sigma float64
	style      string
	progress   bool
	popularity float64
}

var tools = []tool{
	{"read_file", 0.004, 0.7, "code", false, 18},
	{"write_file", 0.006, 0.7, "log", false, 4},
	{"edit_file", 0.008, 0.7, "diff", false, 10},
	{"list_directory", 0.003, 0.7, "ls", false, 8},
	{"search_files", 0.035, 0.7, "ls", false, 6},
	{"grep", 0.025, 0.7, "grep", false, 12},
	{"run_command", 0.9, 1.1, "log", true, 10},
	{"git_status", 0.015, 0.7, "ls", false, 4},
	{"git_diff", 0.03, 0.7, "diff", false, 4},
	{"git_log", 0.02, 0.7, "gitlog", false, 2},
	{"fetch_url", 0.45, 0.8, "prose", true, 4},
	{"web_search", 0.9, 0.6, "prose", true, 4},
	{"query_database", 0.06, 0.9, "rows", true, 5},
	{"list_tables", 0.02, 0.7, "rows", false, 1},
	{"describe_table", 0.02, 0.7, "rows", false, 2},
	{"list_issues", 0.35, 0.7, "issues", false, 2},
	{"get_issue", 0.3, 0.7, "prose", false, 2},
	{"create_issue", 0.5, 0.7, "prose", false, 0.5},
	{"send_slack_message", 0.25, 0.7, "log", false, 0.5},
	{"get_weather", 0.2, 0.7, "weather", false, 1},
}

// toolList is the catalogue as compact JSON.
func toolList() rawJSON {
	var b bytes.Buffer
	if err := json.Compact(&b, toolsJSON); err != nil {
		panic("gen: tools.json: " + err.Error())
	}
	return rawJSON(b.String())
}
