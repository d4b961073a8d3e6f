package capturecli

import (
	"errors"
	"fmt"
	"io"
)

// Failure is how a capture command ends other than with 0: Code is the
// exit status; Msg, when set, the one line to print on stderr.
type Failure struct {
	Code int
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// ExitCode is the status a program exits with for err when it is a
// Failure, once its message is on stderr; ok is false for any other error.
func ExitCode(err error, stderr io.Writer) (code int, ok bool) {
	var f *Failure
	if !errors.As(err, &f) {
		return 0, false
	}
	if f.Msg != "" {
		fmt.Fprintln(stderr, f.Msg)
	}
	return f.Code, true
}

// shimFail is a usage error of the shim: exit 2, one line on stderr.
func shimFail(format string, args ...any) error {
	return &Failure{Code: 2, Msg: "mcpsnoop: " + fmt.Sprintf(format, args...)}
}
