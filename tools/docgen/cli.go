package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	// The overlay's import, here too so that this module's go.mod and
	// go.sum pin cobra/doc and what it needs (go mod tidy keeps them).
	_ "github.com/spf13/cobra/doc"
)

// overlayCmd is the file laid over cmd/mcpsnoop: a hidden command that
// runs cobra/doc on the command tree. cmd/mcpsnoop is package main, which
// nothing can import, so the tree is reached from inside: the binary is
// built with this one more file, in a temporary Go workspace of both
// modules, so that cobra/doc resolves through this module's go.mod and
// go.sum and the rest through the main module's. The repository's
// cmd/mcpsnoop is not touched.
//
//go:embed overlay/docgen_cmd.go
var overlayCmd string

// cliPages builds mcpsnoop with the overlay and returns the pages cobra/doc
// writes, by file name.
func cliPages(root string) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "mcpsnoop-docgen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "mcpsnoop")
	if err := buildWithOverlay(root, tmp, bin); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "cli")
	if err := os.Mkdir(out, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "__docgen", out)
	cmd.Dir = tmp
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mcpsnoop __docgen: %v\n%s", err, b)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	pages := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			return nil, err
		}
		pages[e.Name()] = b
	}
	if len(pages) == 0 {
		return nil, errors.New("cobra/doc wrote no page")
	}
	return pages, nil
}

// buildWithOverlay builds cmd/mcpsnoop of the repository at root, with the
// overlay file added, into bin; tmp holds the workspace and overlay files.
func buildWithOverlay(root, tmp, bin string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	goVersion, err := goDirective(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	work := fmt.Sprintf("go %s\n\nuse (\n\t%s\n\t%s\n)\n", goVersion, root, filepath.Join(root, "tools", "docgen"))
	if err := os.WriteFile(filepath.Join(tmp, "go.work"), []byte(work), 0o644); err != nil {
		return err
	}
	hook := filepath.Join(tmp, "docgen_cmd.go")
	src := strings.Replace(overlayCmd, "//go:build ignore\n", "", 1)
	if err := os.WriteFile(hook, []byte(src), 0o644); err != nil {
		return err
	}
	overlay, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(root, "cmd", "mcpsnoop", "zz_docgen_cmd.go"): hook},
	})
	if err != nil {
		return err
	}
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-buildvcs=false", "-overlay", ov, "-o", bin, module+"/cmd/mcpsnoop")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(tmp, "go.work"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build of cmd/mcpsnoop with the docgen command: %v\n%s", err, b)
	}
	return nil
}

// goDirective reads the go version a go.mod asks for.
func goDirective(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s: no go directive", gomod)
}
