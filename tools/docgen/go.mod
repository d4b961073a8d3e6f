// Module tools/docgen generates the references under docs/ from the
// program itself: docs/cli (every command and flag, by cobra/doc) and
// docs/reference/rules.md (the checker's rule catalogue). It is a module of
// its own so that cobra/doc and its dependencies never reach the main
// module's go.mod or the shipped binary.
module github.com/mcpsnoop/mcpsnoop/tools/docgen

go 1.26.7

require (
	github.com/mcpsnoop/mcpsnoop v0.0.0
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.6 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/theory/jsonpath v0.12.3 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace github.com/mcpsnoop/mcpsnoop => ../..
