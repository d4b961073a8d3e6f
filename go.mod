module github.com/mcpsnoop/mcpsnoop

go 1.26

require (
	github.com/jstemmer/go-junit-report/v2 v2.1.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/cobra v1.10.2
	github.com/tidwall/gjson v1.20.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
