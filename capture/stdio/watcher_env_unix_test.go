//go:build unix

package stdio

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The server started beside the watcher gets the shim's environment as it
// is, as a server started directly does: no shell stands between them to
// set PWD (dash and bash add it, or correct it to the working directory).
func TestWatcherLeavesTheEnvironmentAlone(t *testing.T) {
	envPath, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	if watcherShell() == "" {
		t.Skip("no shell to run the watcher")
	}
	for _, c := range []struct {
		name string
		pwd  string // "" for none
	}{
		{"no PWD", ""},
		{"PWD elsewhere", "/nonexistent/elsewhere"},
		{"PWD with spaces and quotes", "/tmp/a b/'c\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PWD", c.pwd)
			if c.pwd == "" {
				os.Unsetenv("PWD")
			}
			direct, err := exec.Command(envPath).Output()
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			_, tree, err := startServer([]string{envPath}, nil, w, nil, exited)
			w.Close()
			if err != nil {
				r.Close()
				t.Fatal(err)
			}
			watched, _ := io.ReadAll(r)
			r.Close()
			<-exited
			tree.release()
			if want, got := environ(direct), environ(watched); !slices.Equal(got, want) {
				t.Errorf("the server's environment under the watcher:\n%s\nstarted directly:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// environ is env's output as a sorted list.
func environ(out []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(lines)
	return lines
}
