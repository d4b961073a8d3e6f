package conformance

import (
	"flag"
	"os"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

var update = flag.Bool("update", false, "rewrite agreement.tsv from what this run observed (-tags e2e), and the captured fixtures' .expected")

// clientWrapper, set by the e2e build, runs this binary as the client
// command the suite starts (clients_e2e_test.go); ok is false when it is
// not one.
var clientWrapper func(args []string) (code int, ok bool)

func TestMain(m *testing.M) {
	if clientWrapper != nil {
		if code, ok := clientWrapper(os.Args[1:]); ok {
			os.Exit(code)
		}
	}
	flag.Parse()
	os.Exit(testbin.Run(m))
}
