package capturecli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Failure is how a capture command ends other than with 0: Code is the
// exit status; Msg, when set, the one line to print on stderr.
type Failure struct {
	Code int
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// Run executes root, the command of mcpsnoop or of mcpsnoop-shim, with
// args and returns the status to exit with: 0; a Failure's own, its line
// on stderr; what exitCode makes of a program's own error (ok false for
// none of its); else 2, for cobra's usage errors (an unknown flag, a bad
// value), said as mcpsnoop says them.
func Run(root *cobra.Command, args []string, stderr io.Writer, exitCode func(error) (code int, ok bool)) int {
	if args == nil {
		args = []string{} // cobra would read os.Args for nil
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var f *Failure
	if errors.As(err, &f) {
		if f.Msg != "" {
			fmt.Fprintln(stderr, f.Msg)
		}
		return f.Code
	}
	if exitCode != nil {
		if code, ok := exitCode(err); ok {
			return code
		}
	}
	fmt.Fprintf(stderr, "mcpsnoop: %v\n", err)
	return 2
}

// shimFail is a usage error of the shim: exit 2, one line on stderr.
func shimFail(format string, args ...any) error {
	return &Failure{Code: 2, Msg: "mcpsnoop: " + fmt.Sprintf(format, args...)}
}
