package docsrun

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// repoRoot is the repository, two folders up from this package.
var repoRoot = filepath.Join("..", "..")

// blockTimeout bounds one block (a go run compiles; demo records for a
// few seconds): a block that hangs fails rather than stalling the suite.
const blockTimeout = 5 * time.Minute

// markdownFiles lists README.md and every Markdown file under docs/, as
// paths relative to the repository root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(repoRoot, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// allBlocks parses every runnable block of the docs.
func allBlocks(t *testing.T) []Block {
	t.Helper()
	var blocks []Block
	for _, f := range markdownFiles(t) {
		src, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b...)
	}
	return blocks
}

// TestRunnableDocs runs every runnable block of README.md and docs/.
func TestRunnableDocs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the blocks are bash scripts")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	readTree(t)
	blocks := allBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no runnable block in README.md or docs/")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	bin := testbin.Build(t, filepath.Join(repoRoot, "cmd", "mcpsnoop"))
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, b := range blocks {
		t.Run(b.Name(), func(t *testing.T) {
			if b.Skip != "" {
				t.Skip(b.Skip)
			}
			t.Parallel()
			env := blockEnv(t, path)
			dir := root
			if b.Dir == "" {
				dir = workDir(t, root)
			}
			if b.Lang == "sh" {
				runScript(t, &b, dir, env)
				return
			}
			runConsole(t, &b, dir, env)
		})
	}
}

// readTree reads every file of the module. The blocks run a binary built
// in another process and read fixtures through bash, which go test does
// not see; read here, a change to the program or a fixture invalidates a
// cached pass of this test, as a change to the docs does.
func readTree(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "tools", "dist", "node_modules":
				return filepath.SkipDir // not the module's, or not its sources
			}
			return nil
		}
		if d.Type().IsRegular() {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// blockEnv is the environment a block runs in: this process's, with a
// fresh state directory and temporary folder, and the mcpsnoop under test
// first on PATH.
func blockEnv(t *testing.T, path string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "PATH" || name == "MCPSNOOP_HOME" || name == "XDG_STATE_HOME" || name == "TMPDIR" ||
			strings.HasPrefix(name, "GITHUB_")
	})
	return append(env, "PATH="+path, "MCPSNOOP_HOME="+t.TempDir(), "TMPDIR="+t.TempDir())
}

// workDir is a fresh folder in which fixtures/ is the repository's, so
// that a block reads the bundled captures as it would in a clone and
// writes its outputs where they are thrown away.
func workDir(t *testing.T, root string) string {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "fixtures"), filepath.Join(dir, "fixtures")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs one bash script and returns its stdout, stderr and exit status.
func run(t *testing.T, script, dir string, env []string) (stdout, stderr string, code int) {
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("still running after %v:\n%s\nstdout:\n%s\nstderr:\n%s", blockTimeout, script, out.String(), errb.String())
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("bash: %v", err)
	}
	return out.String(), errb.String(), code
}

func runScript(t *testing.T, b *Block, dir string, env []string) {
	stdout, stderr, code := run(t, b.Script, dir, env)
	if code != b.Exit {
		t.Errorf("exit %d, want %d (write exit=%d in its fence if that is right):\n%s\nstdout:\n%s\nstderr:\n%s",
			code, b.Exit, code, b.Script, stdout, stderr)
	}
}

func runConsole(t *testing.T, b *Block, dir string, env []string) {
	cmds, err := b.Commands()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		stdout, stderr, code := run(t, c.Cmd, dir, env)
		if code != b.Exit {
			t.Errorf("line %d: $ %s: exit %d, want %d\nstderr:\n%s", c.Line, c.Cmd, code, b.Exit, stderr)
		}
		if stdout != c.Stdout {
			t.Errorf("line %d: $ %s: stdout is not what the block shows\n--- the block\n%s--- the command\n%s--- stderr\n%s",
				c.Line, c.Cmd, c.Stdout, stdout, stderr)
		}
	}
}

// TestREADMECommands: the README gives the two commands (the check of a
// bundled capture, runnable, and the test command .ci/run calls, listed
// but not run from inside the tests).
func TestREADMECommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := Parse("README.md", src)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var check bool
	tests := ""
	for _, b := range blocks {
		check = check || (b.Skip == "" && b.Dir == "repo" && strings.HasPrefix(b.Script, "go run ./cmd/mcpsnoop check "))
		if b.Skip != "" && strings.HasPrefix(b.Script, "go test ") {
			tests, _, _ = strings.Cut(b.Script, "#")
			tests = strings.TrimSpace(tests)
		}
	}
	if !check || tests == "" {
		t.Fatalf("README.md: a runnable dir=repo block running go run ./cmd/mcpsnoop check: %v; a skipped block with go test: %q", check, tests)
	}
	// CI runs the README's test command itself, with an explicit timeout
	// so that a hang fails with the stuck test's stack.
	if !strings.Contains(tests, "-timeout ") || !strings.HasSuffix(tests, " ./...") {
		t.Errorf("README.md's test command %q does not set -timeout and run ./...", tests)
	}
	if !strings.Contains(string(ci), tests+"\n") {
		t.Errorf(".ci/run does not run README.md's test command %q", tests)
	}
}
