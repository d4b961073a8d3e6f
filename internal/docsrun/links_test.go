package docsrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestLinks: every relative link of README.md, CHANGELOG.md,
// CONTRIBUTING.md and docs/ names a file that exists and, for a Markdown
// file, an anchor one of its headings makes, so moving a section cannot
// leave a link behind.
func TestLinks(t *testing.T) {
	files := append(markdownFiles(t), "CHANGELOG.md", "CONTRIBUTING.md")
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range links(string(src)) {
			if strings.Contains(link, ":") && !strings.HasPrefix(link, "#") {
				continue // a URL
			}
			path, frag, _ := strings.Cut(link, "#")
			target := f
			if path != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
			}
			if _, err := os.Stat(filepath.Join(repoRoot, target)); err != nil {
				t.Errorf("%s: link %q: %s does not exist", f, link, target)
				continue
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if anchors[target] == nil {
				b, err := os.ReadFile(filepath.Join(repoRoot, target))
				if err != nil {
					t.Fatal(err)
				}
				anchors[target] = headingAnchors(string(b))
			}
			if !anchors[target][frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", f, link, target, frag)
			}
		}
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// links lists the targets of the Markdown links outside fenced blocks.
func links(src string) []string {
	var out []string
	for _, line := range proseLines(src) {
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives the headings: lower case,
// punctuation other than - and _ dropped, spaces made hyphens.
func headingAnchors(src string) map[string]bool {
	out := map[string]bool{}
	for _, line := range proseLines(src) {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(line[level:])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// proseLines are the lines outside fenced blocks.
func proseLines(src string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if marks := strings.TrimRight(trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))], " "); len(marks) >= 3 {
			switch {
			case fence == "":
				fence = marks
			case len(marks) >= len(fence) && strings.Trim(trimmed, "` ") == "":
				fence = ""
			}
			continue
		}
		if fence == "" {
			out = append(out, line)
		}
	}
	return out
}
