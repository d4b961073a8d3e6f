// Command mcpsnoop captures and checks MCP (Model Context Protocol) traffic.
// This package only wires cobra commands to the packages that do the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
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

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes mcpsnoop with args and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	if args == nil {
		args = []string{} // cobra would read os.Args for nil
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		return ee.code
	}
	// Usage errors from cobra itself: unknown flags, bad flag values.
	fmt.Fprintf(stderr, "mcpsnoop: %v\n", err)
	return 2
}
