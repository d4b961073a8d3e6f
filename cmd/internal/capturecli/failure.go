package capturecli

import "fmt"

// Failure is how a capture command ends other than with 0: Code is the
// exit status; Msg, when set, the one line to print on stderr.
type Failure struct {
	Code int
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// shimFail is a usage error of the shim: exit 2, one line on stderr.
func shimFail(format string, args ...any) error {
	return &Failure{Code: 2, Msg: "mcpsnoop: " + fmt.Sprintf(format, args...)}
}
