// Command checkworkers prints how many workers `mcpsnoop check` starts by
// default for the given logs on this machine (ingest.Plan: cores, memory
// budget, open-file limit, the logs' sizes), and why:
//
//	go run ./bench/checkworkers LOG...
//
// bench/check-parallel.sh prints it beside its timings.
package main

import (
	"fmt"
	"os"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/ingest"
)

func main() {
	var inputs []capture.Input
	for _, p := range os.Args[1:] {
		inputs = append(inputs, capture.Input{Path: p, Name: p})
	}
	if len(inputs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: checkworkers LOG...")
		os.Exit(2)
	}
	fmt.Println("default workers:", ingest.DescribeWorkers(inputs))
}
