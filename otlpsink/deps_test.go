package otlpsink_test

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyDeps are what the OpenTelemetry collector's pdata would bring into
// the binary (every shim's start-up time and memory): the OTLP/JSON of
// the export and of the live stream is written by export/otlp itself.
// pdata stays the oracle of the tests only.
var heavyDeps = []string{
	"go.opentelemetry.io/collector/",
	"github.com/json-iterator/",
	"github.com/modern-go/",
	"google.golang.org/grpc",
}

// TestNoPdataLinked: the live sink and the export format it builds on
// link none of heavyDeps.
func TestNoPdataLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mcpsnoop/mcpsnoop/otlpsink", "github.com/mcpsnoop/mcpsnoop/export/otlp").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(out), "github.com/mcpsnoop/mcpsnoop/export/otlp\n") {
		t.Fatalf("go list -deps does not list export/otlp:\n%s", out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, heavy := range heavyDeps {
			if strings.HasPrefix(pkg, heavy) {
				t.Errorf("otlpsink links %s", pkg)
			}
		}
	}
}
