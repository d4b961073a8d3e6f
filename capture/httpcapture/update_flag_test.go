package httpcapture

import "flag"

// This package keeps no golden files; the flag is accepted so that
// "go test ./... -update" works across the module.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
