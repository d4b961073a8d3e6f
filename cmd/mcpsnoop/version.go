package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { registerCommand(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpsnoop's version and the Go toolchain it was built with",
		Long: `Version prints "mcpsnoop <version>" on the first line, the way
"mcpsnoop --version" does, then the Go version, operating system and
architecture of the build, for bug reports.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "mcpsnoop %s\n", appVersion())
			fmt.Fprintf(out, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
