package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/clientconfig"
)

// Forty "mcpsnoop wrap --config F sNN" processes at once: each says it
// wrapped its server, and each did; then forty unwraps at once leave the
// file exactly as it was, with no backup.
func TestWrapAtOnceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin := mcpsnoopBinary(t)
	const n = 40
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range n {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    \"s%02d\": {\"command\": \"server\", \"args\": [\"%d\"]}%s\n", i, i, sep)
	}
	b.WriteString("  }\n}\n")
	original := b.String()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, []byte(original))

	all := func(verb, said string) {
		t.Helper()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("s%02d", i)
				out, err := exec.Command(bin, verb, "--config", cfg, name).CombinedOutput()
				if err != nil || !strings.Contains(string(out), said+" \""+name+"\"") {
					t.Errorf("%s %s: %v\n%s", verb, name, err, out)
				}
			}()
		}
		wg.Wait()
	}
	all("wrap", "wrapped")
	servers, _, err := clientconfig.Servers([]byte(readString(t, cfg)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missed []string
	for _, s := range servers {
		if !s.Wrapped {
			missed = append(missed, s.Name)
		}
	}
	if len(missed) > 0 {
		t.Fatalf("%d servers said wrapped but are not: %v", len(missed), missed)
	}
	if readString(t, cfg+".mcpsnoop.bak") != original {
		t.Error("the backup is not the file before the first wrap")
	}
	all("unwrap", "unwrapped")
	if got := readString(t, cfg); got != original {
		t.Errorf("not restored:\n%s", got)
	}
	if _, err := os.Stat(cfg + ".mcpsnoop.bak"); err == nil {
		t.Error("the backup is left")
	}
}

// wrap refuses a read-only config (exit 1, saying so) and writes nothing.
func TestWrapReadOnlyConfig(t *testing.T) {
	useFakeBinary(t)
	cfg := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	writeFile(t, cfg, []byte(oddConfig))
	if err := os.Chmod(cfg, 0o444); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := wrapRun(t, "wrap", "--config", cfg, "filesystem")
	if code != 1 || stdout != "" || stderr != "mcpsnoop wrap: "+cfg+" is read-only, so mcpsnoop leaves it as it is; make it writable (chmod u+w) to let mcpsnoop edit it\n" {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	if readString(t, cfg) != oddConfig {
		t.Error("the read-only config changed")
	}
	if _, err := os.Stat(cfg + ".mcpsnoop.bak"); err == nil {
		t.Error("a backup was made")
	}
}
