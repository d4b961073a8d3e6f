package main

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// The shim's binary links none of what only the other commands use: each
// of these costs a client start-up time or memory on every server it
// starts (package init, a larger binary to map). Its test binary links
// what it does, so the checker here runs without schemas.
func TestLinksOnlyTheShim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	info, err := buildinfo.ReadFile(testbin.Build(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	heavy := []string{
		"github.com/santhosh-tekuri/jsonschema", // the checker's schema validation
		"github.com/prometheus/",                // the metrics hub
		"charm.land/",                           // the viewer
		"github.com/modelcontextprotocol/go-sdk",
		"golang.org/x/oauth2", // demo, bridge, mock
		"go.opentelemetry.io/",
		"google.golang.org/protobuf", // OTLP export
		"github.com/owenrumney/go-sarif",
		"github.com/jstemmer/go-junit-report",
		"github.com/sethvargo/go-githubactions", // reports and the action
	}
	for _, d := range info.Deps {
		for _, h := range heavy {
			if strings.HasPrefix(d.Path, h) {
				t.Errorf("mcpsnoop-shim links %s %s", d.Path, d.Version)
			}
		}
	}
}

// Without the validator linked, the checker refuses to judge frames it
// cannot validate; the shim's live span sink asks for none.
func TestCheckerWithoutSchemas(t *testing.T) {
	if wire.Linked() {
		t.Fatal("the schema validator is linked into the shim")
	}
	if _, err := wire.Validate(wire.Message{Revision: "2025-11-25", Raw: []byte(`{}`)}); err != wire.ErrNoValidator {
		t.Errorf("Validate: %v, want ErrNoValidator", err)
	}
	mustPanic := func(name string, cfg checker.Config, want string) {
		t.Helper()
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), want) {
				t.Errorf("%s: panic %v, want one saying %q", name, r, want)
			}
		}()
		checker.New(cfg)
	}
	mustPanic("a check", checker.Config{}, "no schema validator linked")
	mustPanic("wire without schemas", checker.Config{WithoutSchemas: true, Wire: true}, "WithoutSchemas")
	checker.New(checker.Config{WithoutSchemas: true}) // what the span sink makes
}

// Usage errors and --version, as mcpsnoop's shim gives them, in this
// binary's name.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"--version"}, 0, "mcpsnoop-shim 0.0.0-dev\n", ""},
		{[]string{"--label", "x"}, 2, "", "mcpsnoop: no server command to run: mcpsnoop-shim [flags] -- <server command> [args...]\n"},
		{[]string{"--kill-grace", "0s", "--", "true"}, 2, "", "mcpsnoop: --kill-grace must be positive, got 0s\n"},
		{[]string{"--no-such-flag"}, 2, "", "mcpsnoop: unknown flag: --no-such-flag\n"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errOut)
		if code != tc.code || out.String() != tc.out || errOut.String() != tc.err {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
	}
	var out bytes.Buffer
	if code := run(nil, strings.NewReader(""), &out, &out); code != 0 || !strings.Contains(out.String(), "Usage:\n  mcpsnoop-shim [flags] -- <server command> [args...]") {
		t.Errorf("no arguments: exit %d\n%s", code, out.String())
	}
}
