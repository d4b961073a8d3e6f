// Package capturecli is the command line of mcpsnoop's captures: the stdio
// shim's flags and run, the log, redaction and OTLP flags that `mcpsnoop
// http`, `bridge` and `mock` share with it, and how flags merge with a
// project's .mcpsnoop.toml. Both programs that run the shim build it from
// here: mcpsnoop, and mcpsnoop-shim, the shim's own binary, which links
// none of the checker's schemas, renderers or viewer, so that a client
// starting ten servers starts ten small processes.
package capturecli
