//go:build ignore

// This file is not part of any build of this repository: docgen lays it
// over cmd/mcpsnoop (go build -overlay) to build a binary whose hidden
// __docgen command hands the real command tree to cobra/doc. The shipped
// binary never holds it, nor cobra/doc.

package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() {
	registerCommand(func() *cobra.Command {
		return &cobra.Command{
			Use:    "__docgen DIR",
			Hidden: true,
			Args:   cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				root := cmd.Root()
				root.DisableAutoGenTag = true // no dates: the pages are compared byte for byte
				prepend := func(string) string {
					return "<!-- Generated from the command definitions in cmd/mcpsnoop by go -C tools/docgen run . -- do not edit. -->\n\n"
				}
				link := func(name string) string { return name } // the pages sit side by side
				return doc.GenMarkdownTreeCustom(root, args[0], prepend, link)
			},
		}
	})
}
