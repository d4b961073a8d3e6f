// Command docgen writes the generated references under docs/: one page per
// command of mcpsnoop in docs/cli (by cobra/doc, from the real command
// tree) and the rule catalogue in docs/reference/rules.md (from the
// checker's catalogue). Run it from anywhere in the repository after
// changing a command, a flag or a rule:
//
//	go -C tools/docgen run .
//
// Its test regenerates both into a temporary folder and fails when the
// committed files differ.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := flag.String("root", "", "the repository (default: found from the working directory)")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return err
		}
	}
	gen, err := generate(root)
	if err != nil {
		return err
	}
	if err := gen.write(root); err != nil {
		return err
	}
	fmt.Printf("docgen: wrote %s and %s\n", filepath.Join(root, cliDir), filepath.Join(root, rulesFile))
	return nil
}
