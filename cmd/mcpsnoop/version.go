package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// commit and date are set by release builds with
// -ldflags "-X main.commit=<full commit hash> -X main.date=<commit date>"
// (see .goreleaser.yaml), beside main.version.
var (
	commit = ""
	date   = ""
)

func init() { registerCommand(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpsnoop's version, the commit it was built from and the Go toolchain",
		Long: `Version prints "mcpsnoop <version>" on the first line, the way
"mcpsnoop --version" does, then the Go version, operating system and
architecture of the build, then the commit it was built from and that
commit's date, for bug reports. A release build knows its commit from the
release; a build from a clone reads it from the version control data Go
records (go build's -buildvcs, on by default in a git checkout), and says
"modified" when the checkout had uncommitted changes. A build that knows
no commit leaves that line out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			var out bytes.Buffer
			writeVersion(&out, appVersion(), sourceOf(commit, date, bi))
			if _, err := cmd.OutOrStdout().Write(out.Bytes()); err != nil {
				return &exitError{code: 2, msg: "mcpsnoop version: writing the version: " + err.Error()}
			}
			return nil
		},
	}
}

// buildSource is the commit a build was made from, as far as it knows.
type buildSource struct {
	Commit   string // full hash; empty when unknown
	Date     string // the commit's date, RFC 3339; may be empty
	Modified bool   // the checkout had uncommitted changes
}

// sourceOf prefers what the release build set with -ldflags, then the VCS
// settings the go command stamped into the binary (vcs.revision, vcs.time,
// vcs.modified). A hash from the linker wins whole: its date is never mixed
// with another commit's. A linker value that is not a hash (GoReleaser says
// "none" when it could not read git) counts as unset.
func sourceOf(ldCommit, ldDate string, bi *debug.BuildInfo) buildSource {
	if isHash(ldCommit) {
		return buildSource{Commit: ldCommit, Date: ldDate}
	}
	var s buildSource
	if bi == nil {
		return s
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Commit = kv.Value
		case "vcs.time":
			s.Date = kv.Value
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	if s.Commit == "" {
		return buildSource{}
	}
	return s
}

func isHash(s string) bool {
	if len(s) < 7 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func writeVersion(w io.Writer, v string, src buildSource) {
	fmt.Fprintf(w, "mcpsnoop %s\n", v)
	fmt.Fprintf(w, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if src.Commit == "" {
		return
	}
	fmt.Fprintf(w, "commit %s", src.Commit)
	switch {
	case src.Date != "" && src.Modified:
		fmt.Fprintf(w, " (%s, modified)", src.Date)
	case src.Date != "":
		fmt.Fprintf(w, " (%s)", src.Date)
	case src.Modified:
		fmt.Fprint(w, " (modified)")
	}
	fmt.Fprintln(w)
}
