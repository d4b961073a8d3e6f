package sarif

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

// locator turns a finding's log path and line into a result location
// (check.md 8.3).
type locator struct {
	logName string
	workDir string // as given; resolved against cwd on first use
	base    string // absolute directory relative URIs start from
	cwd     string
	cwdErr  error
	cwdDone bool
	uris    map[string]string // path -> uri, since most findings share a log
}

func newLocator(opts Options) *locator {
	return &locator{logName: opts.LogName, workDir: opts.WorkDir, uris: map[string]string{}}
}

// location returns the one location of a finding from log path (or, for
// stdin, the log name) at line, with a region only when line > 0. It
// returns nil when there is nothing to point at: the result then has no
// locations key at all, since code scanning rejects an empty array.
func (l *locator) location(path string, line int) (*gosarif.Location, error) {
	if path == "" {
		path = l.logName
	}
	if path == "" {
		return nil, nil
	}
	uri, err := l.uri(path)
	if err != nil {
		return nil, err
	}
	phys := gosarif.NewPhysicalLocation().
		WithArtifactLocation(gosarif.NewSimpleArtifactLocation(uri))
	if line > 0 {
		phys.WithRegion(gosarif.NewRegion().WithStartLine(line))
	}
	return gosarif.NewLocationWithPhysicalLocation(phys), nil
}

// uri is path relative to the work dir as a URI reference, or an absolute
// file:// URI when the relative path would climb out of the work dir
// (code scanning cannot resolve "../" against the checkout). A relative
// path is taken relative to the process's working directory, like any path
// given on the command line.
func (l *locator) uri(path string) (string, error) {
	if u, ok := l.uris[path]; ok {
		return u, nil
	}
	abs := filepath.Clean(path)
	if !filepath.IsAbs(abs) {
		cwd, err := l.getwd()
		if err != nil {
			return "", err
		}
		abs = filepath.Join(cwd, abs)
	}
	base, err := l.baseDir()
	if err != nil {
		return "", err
	}
	var u string
	if rel, err := filepath.Rel(base, abs); err == nil && !climbsOut(rel) {
		u = relativeURI(rel)
	} else {
		u = fileURI(abs)
	}
	l.uris[path] = u
	return u, nil
}

// baseDir is the absolute work dir: Options.WorkDir, resolved against the
// process's working directory when relative, or that directory itself.
func (l *locator) baseDir() (string, error) {
	if l.base != "" {
		return l.base, nil
	}
	base := l.workDir
	if !filepath.IsAbs(base) {
		cwd, err := l.getwd()
		if err != nil {
			return "", err
		}
		base = filepath.Join(cwd, base)
	}
	l.base = filepath.Clean(base)
	return l.base, nil
}

// getwd asks the OS once, and only if a path needs it.
func (l *locator) getwd() (string, error) {
	if !l.cwdDone {
		l.cwd, l.cwdErr = os.Getwd()
		l.cwdDone = true
		if l.cwdErr != nil {
			l.cwdErr = fmt.Errorf("sarif: making log paths relative: %w", l.cwdErr)
		}
	}
	return l.cwd, l.cwdErr
}

// climbsOut reports whether a filepath.Rel result leaves its base.
func climbsOut(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relativeURI escapes a relative path as a URI path: slash-separated, with
// space, '#', '?', '%' and non-ASCII bytes percent-encoded
// ("a dir#x/l.jsonl" -> "a%20dir%23x/l.jsonl"). url.URL also prefixes
// "./" when the first segment holds a ':', so that it is not read as a
// scheme.
func relativeURI(rel string) string {
	return (&url.URL{Path: filepath.ToSlash(rel)}).String()
}

// fileURI is the file:// URI of an absolute path; a Windows path gets a
// leading slash (file:///C:/logs/s1.jsonl).
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
