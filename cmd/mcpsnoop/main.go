// Command mcpsnoop captures and checks MCP (Model Context Protocol) traffic.
// This package only wires cobra commands to the packages that do the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"

	// Every command that checks validates against the spec's schemas;
	// the package registers itself with checker/wire (mcpsnoop-shim, the
	// shim's own binary, leaves it out).
	_ "github.com/mcpsnoop/mcpsnoop/checker/wire/schemacheck"
)

// exitError carries an exit code and, when msg is set, the one line to print
// on stderr.
type exitError struct {
	code int
	msg  string
	// err is the error msg says, when a caller needs more of it than
	// its words (GitHub mode's summary of a check that found no logs).
	err error
}

func (e *exitError) Error() string { return e.msg }

// shimFail is a usage error of the root command (the shim, the live view,
// the metrics hub): exit 2, one line on stderr.
func shimFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop: " + fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes mcpsnoop with args and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return capturecli.Run(newRootCmd(stdin, stdout, stderr), args, stderr, func(err error) (int, bool) {
		var ee *exitError
		if !errors.As(err, &ee) {
			return 0, false
		}
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		return ee.code, true
	})
}
