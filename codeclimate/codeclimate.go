// Package codeclimate renders a checker.Report as a GitLab Code Quality
// report: the JSON array of Code Climate issues that a job publishes with
// `artifacts: reports: codequality:` so that a merge request shows the
// findings.
//
// GitLab reads a subset of the Code Climate issue format: description,
// check_name, fingerprint, severity, location.path and location.lines.begin.
// It keeps one issue per fingerprint, so fingerprints here are unique within
// a report, and it matches issues across pipelines by fingerprint, so they
// are built from the finding's own re-capture-stable fingerprint (see
// checker/fingerprint.go), never from session ids, timestamps or line numbers.
// Like the other renderers it decides no verdicts and writes to an io.Writer
// only.
package codeclimate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Severities of the Code Climate format, least to most severe.
const (
	SeverityInfo     = "info"
	SeverityMinor    = "minor"
	SeverityMajor    = "major"
	SeverityCritical = "critical"
	SeverityBlocker  = "blocker"
)

// Severities lists every severity GitLab accepts.
var Severities = []string{SeverityInfo, SeverityMinor, SeverityMajor, SeverityCritical, SeverityBlocker}

// CheckTruncated is the check_name of the one issue that says the engine
// kept fewer findings than it found.
const CheckTruncated = "mcpsnoop/report-truncated"

// StdinPath is the location.path of findings read from standard input when
// no log name was given: GitLab needs a path on every issue.
const StdinPath = "stdin"

// Issue is one Code Quality entry.
type Issue struct {
	Description string   `json:"description"`
	CheckName   string   `json:"check_name"`
	Fingerprint string   `json:"fingerprint"`
	Severity    string   `json:"severity"`
	Location    Location `json:"location"`
	// Party is who is at fault (server, client, transport, run): not a
	// field GitLab reads, so the description starts with it too.
	Party string `json:"party,omitempty"`
}

// Location is where an issue points: a repository-relative path and a line.
type Location struct {
	Path  string `json:"path"`
	Lines Lines  `json:"lines"`
}

// Lines holds the issue's first line (1-based).
type Lines struct {
	Begin int `json:"begin"`
}

// Options configure rendering.
type Options struct {
	// LogName is the path given to findings read from stdin; "" means
	// StdinPath.
	LogName string
	// WorkDir is the directory paths are made relative to (GitLab resolves
	// them against the repository root, where a job starts); "" means the
	// process's working directory.
	WorkDir string
}

// Issues turns every finding the report kept into an issue, in report
// order, plus one info issue when the engine left findings out.
func Issues(rep *checker.Report, opts Options) ([]Issue, error) {
	out := []Issue{}
	if rep == nil {
		return out, nil
	}
	paths := pathMapper{opts: opts, cache: map[string]string{}}
	seen := map[string]int{}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		p, err := paths.relative(f.Path)
		if err != nil {
			return nil, err
		}
		key := f.Fingerprint
		if key == "" {
			// Every engine finding has one; this keeps a hand-built report
			// renderable without colliding issues.
			key = f.Rule() + "\x00" + f.Message
		}
		desc := f.Message
		if f.Party != "" {
			desc = "[" + string(f.Party) + "] " + desc
		}
		out = append(out, Issue{
			Description: desc,
			Party:       string(f.Party),
			CheckName:   f.Rule(),
			Fingerprint: fingerprint(key, seen),
			Severity:    severity(f),
			Location:    Location{Path: p, Lines: Lines{Begin: max(f.Line, 1)}},
		})
	}
	if dropped := rep.FindingsTruncated; dropped > 0 {
		p := StdinPath
		if len(rep.Findings) > 0 {
			p = out[0].Location.Path
		}
		out = append(out, Issue{
			Description: fmt.Sprintf("the check found %d findings and kept %d; %d are not in this report (the counters of the text and JSON reports are exact)", rep.FindingsTotal, len(rep.Findings), dropped),
			CheckName:   CheckTruncated,
			Fingerprint: fingerprint(CheckTruncated, seen),
			Severity:    SeverityInfo,
			Location:    Location{Path: p, Lines: Lines{Begin: 1}},
		})
	}
	return out, nil
}

// Write renders rep as an indented JSON array ending in a newline; a clean
// run is "[]".
func Write(w io.Writer, rep *checker.Report, opts Options) error {
	issues, err := Issues(rep, opts)
	if err != nil {
		return err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(issues); err != nil {
		return fmt.Errorf("codeclimate: %w", err)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// severity maps a finding's level: what fails the gate (gated signals and
// assertions) is major, an ungated observation is info. A gated security
// finding keeps its rule's severity: critical stays critical, high is
// major, medium and low are minor, so the merge request widget ranks them.
func severity(f *checker.Finding) string {
	if f.Level != checker.LevelError {
		return SeverityInfo
	}
	if f.Security != nil {
		switch f.Security.Severity {
		case "critical":
			return SeverityCritical
		case "medium", "low":
			return SeverityMinor
		}
	}
	return SeverityMajor
}

// fingerprint is 32 hex digits of sha256 over key and how often key came
// before in this report, so that two sessions of one server with the same
// finding still give two issues.
func fingerprint(key string, seen map[string]int) string {
	n := seen[key]
	seen[key] = n + 1
	sum := sha256.Sum256([]byte("mcpsnoop/codeclimate/v1\x00" + key + "\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

// pathMapper makes log paths repository-relative and slash-separated.
type pathMapper struct {
	opts  Options
	base  string // absolute work dir, once known
	cwd   string // the directory relative log paths were opened from
	cache map[string]string
}

// relative is path relative to the work dir, or the path itself (slash
// form) when it lies outside; findings without a path get the log name.
func (m *pathMapper) relative(path string) (string, error) {
	if path == "" {
		if m.opts.LogName != "" {
			return filepath.ToSlash(m.opts.LogName), nil
		}
		return StdinPath, nil
	}
	if p, ok := m.cache[path]; ok {
		return p, nil
	}
	if m.base == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("codeclimate: making log paths relative: %w", err)
		}
		m.cwd, m.base = cwd, cwd
		if m.opts.WorkDir != "" {
			m.base = m.opts.WorkDir
			if !filepath.IsAbs(m.base) {
				m.base = filepath.Join(cwd, m.base)
			}
		}
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(m.cwd, abs)
	}
	out := filepath.ToSlash(filepath.Clean(path))
	if rel, err := filepath.Rel(m.base, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		out = filepath.ToSlash(rel)
	}
	m.cache[path] = out
	return out, nil
}
