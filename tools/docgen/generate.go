package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Where the generated references go, relative to the repository.
const (
	cliDir    = "docs/cli"
	rulesFile = "docs/reference/rules.md"
)

// module is the main module's path, as its go.mod names it.
const module = "github.com/mcpsnoop/mcpsnoop"

// generated is every generated file: its path relative to the repository
// and its bytes.
type generated struct {
	cli   map[string][]byte // file name in cliDir -> content
	rules []byte
}

// generate makes every reference from the repository at root.
func generate(root string) (*generated, error) {
	cli, err := cliPages(root)
	if err != nil {
		return nil, err
	}
	return &generated{cli: cli, rules: rulesPage()}, nil
}

// write replaces the committed references with g: docs/cli is made to hold
// exactly g's pages (a page of a command that is gone is removed).
func (g *generated) write(root string) error {
	dir := filepath.Join(root, cliDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, keep := g.cli[filepath.Base(f)]; !keep {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for _, name := range g.names() {
		if err := os.WriteFile(filepath.Join(dir, name), g.cli[name], 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(root, rulesFile), g.rules, 0o644)
}

// names lists the CLI pages in order.
func (g *generated) names() []string {
	names := make([]string, 0, len(g.cli))
	for n := range g.cli {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// stale compares g with the files committed under root and describes
// every difference: a page missing, one too many, or one whose bytes
// differ (with its first differing line).
func (g *generated) stale(root string) ([]string, error) {
	var out []string
	dir := filepath.Join(root, cliDir)
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	for _, f := range old {
		if _, ok := g.cli[filepath.Base(f)]; !ok {
			out = append(out, fmt.Sprintf("%s/%s: no command has this page any more", cliDir, filepath.Base(f)))
		}
	}
	for _, name := range g.names() {
		if d := differs(filepath.Join(dir, name), g.cli[name]); d != "" {
			out = append(out, cliDir+"/"+name+": "+d)
		}
	}
	if d := differs(filepath.Join(root, rulesFile), g.rules); d != "" {
		out = append(out, rulesFile+": "+d)
	}
	return out, nil
}

// differs says how the file at path differs from want ("" when it holds
// exactly want).
func differs(path string, want []byte) string {
	have, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "missing"
	}
	if err != nil {
		return err.Error()
	}
	if bytes.Equal(have, want) {
		return ""
	}
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(h), len(w)) {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d is\n\t%q\n  and would be\n\t%q", i+1, hl, wl)
		}
	}
	return "differs"
}

// findRoot walks up from the working directory to the main module's
// folder: the one whose go.mod declares module github.com/mcpsnoop/mcpsnoop.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isMainModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no folder above the working directory holds mcpsnoop's go.mod; give -root")
		}
		dir = parent
	}
}

func isMainModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return fields[1] == module
		}
	}
	return false
}
