// echoserver: a minimal MCP-ish stdio server for shim overhead measurements.
//
// It reads newline-delimited JSON-RPC on stdin and answers every request
// immediately on stdout (one write per response, no buffering delay):
//
//	initialize  -> a small InitializeResult
//	tools/list  -> one tool ("echo")
//	tools/call  -> {"content":[{"type":"text","text":<the "text" argument, echoed verbatim>}]}
//	other       -> {} ; notifications (no id) get no answer
//
// To keep the server's own cost out of the figure it does not run a JSON
// parser: it slices the id and the "text" argument out of the line with byte
// searches, which is exact for the frames the driver sends.
//
// A copy of ../shared/bench/rtt's, kept here so that bench/shim.sh and
// bench/otlp.sh run from a clone.
package main

import (
	"bufio"
	"bytes"
	"os"
)

var (
	keyID     = []byte(`"id":`)
	keyMethod = []byte(`"method":"`)
	keyText   = []byte(`"text":"`)
)

// idOf returns the raw JSON id value (number or string) or nil for a notification.
func idOf(line []byte) []byte {
	i := bytes.Index(line, keyID)
	if i < 0 {
		return nil
	}
	v := line[i+len(keyID):]
	end := bytes.IndexAny(v, ",}")
	if end < 0 {
		return nil
	}
	return v[:end]
}

func methodOf(line []byte) []byte {
	i := bytes.Index(line, keyMethod)
	if i < 0 {
		return nil
	}
	v := line[i+len(keyMethod):]
	end := bytes.IndexByte(v, '"')
	if end < 0 {
		return nil
	}
	return v[:end]
}

// textOf returns the still-escaped JSON string body of the "text" argument.
func textOf(line []byte) []byte {
	i := bytes.Index(line, keyText)
	if i < 0 {
		return nil
	}
	v := line[i+len(keyText):]
	for j := 0; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return v[:j]
		}
	}
	return nil
}

func main() {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := make([]byte, 0, 1<<16)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			id := idOf(line)
			if id != nil {
				out = append(out[:0], `{"jsonrpc":"2.0","id":`...)
				out = append(out, id...)
				switch string(methodOf(line)) {
				case "initialize":
					out = append(out, `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echoserver","version":"1.0.0"}}}`...)
				case "tools/list":
					out = append(out, `,"result":{"tools":[{"name":"echo","description":"Echo the text argument","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}}`...)
				case "tools/call":
					out = append(out, `,"result":{"content":[{"type":"text","text":"`...)
					out = append(out, textOf(line)...)
					out = append(out, `"}]}}`...)
				default:
					out = append(out, `,"result":{}}`...)
				}
				out = append(out, '\n')
				if _, werr := os.Stdout.Write(out); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}
