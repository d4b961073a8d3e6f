package baseline_test

import "flag"

// update rewrites the golden baseline files under testdata/:
// go test ./baseline/ -update
var update = flag.Bool("update", false, "rewrite golden files")
