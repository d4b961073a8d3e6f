//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// serve is the server the shims wrap: it stamps its start first, then
// answers every request line with a small result until its input ends.
func serve() int {
	started := monotonic()
	if p := os.Getenv("FOOTPRINT_STAMP"); p != "" {
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%d %d\n", os.Getpid(), started)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "footprint server: %v\n", err)
			return 1
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification, or not JSON
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, resultFor(req.Method))
		if out.Flush() != nil {
			return 1
		}
	}
	return 0
}

func resultFor(method string) string {
	switch method {
	case "initialize":
		return `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"footprint","version":"1"}}`
	case "tools/list":
		return `{"tools":[{"name":"echo","description":"Echoes its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`
	case "tools/call":
		return `{"content":[{"type":"text","text":"hello"}]}`
	}
	return `{}`
}
