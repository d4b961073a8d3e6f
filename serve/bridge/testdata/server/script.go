package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// The scripted peer of the routing tests: it holds each tools/call of the
// tool "hold" until it holds the number its arguments name, and then, with
// all of them in flight, sends the client a message tied to none of them
// (a log notification, or a roots/list request, as the arguments ask),
// answers them in the order they came, and, when asked, sends a log
// notification "mark" once nothing is in flight, which tells the test that
// everything before it has been routed. It says on stderr what it received,
// for the test to wait on: "script: holding LABEL" for each call, and
// "script: lone-item answered CODE MESSAGE" for the answer to its request.

// holdArgs are the arguments of the tool "hold".
type holdArgs struct {
	Text string `json:"text"` // the call's label, echoed in its answer
	N    int    `json:"n"`    // how many calls to hold before sending
	Emit string `json:"emit"` // "notification" or "request"
	Mark bool   `json:"mark"` // send the mark after the answers
}

// loneID is the id of the script's request, and the text of its log
// notification: the test looks for it on every stream.
const loneID = "lone-item"

type scriptMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Name            string          `json:"name"`
		Arguments       holdArgs        `json:"arguments"`
		Meta            json.RawMessage `json:"_meta"`
	} `json:"params"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func runScript() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(m map[string]any) { _ = out.Encode(m) }
	var held []scriptMessage
	for in.Scan() {
		var m scriptMessage
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.ID != nil && m.Method == "" && string(m.ID) == `"`+loneID+`"`:
			if m.Error != nil {
				fmt.Fprintf(os.Stderr, "script: %s answered %d %s\n", loneID, m.Error.Code, m.Error.Message)
			} else {
				fmt.Fprintf(os.Stderr, "script: %s answered with a result\n", loneID)
			}
		case m.ID == nil || m.Method == "":
			// a notification, or an answer to nothing asked
		case m.Method == "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": m.Params.ProtocolVersion,
				"capabilities":    map[string]any{"logging": map[string]any{}, "tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "script", "version": "1"},
			}})
		case m.Method == "tools/call" && m.Params.Name == "hold":
			fmt.Fprintf(os.Stderr, "script: holding %s\n", m.Params.Arguments.Text)
			held = append(held, m)
			if a := m.Params.Arguments; len(held) >= a.N {
				sendLone(send, a.Emit)
				for _, h := range held {
					result := map[string]any{"content": []any{map[string]any{"type": "text", "text": h.Params.Arguments.Text}}}
					if h.Params.Meta != nil {
						result["resultType"] = "complete" // a 2026-07-28 call's
					}
					send(map[string]any{"jsonrpc": "2.0", "id": h.ID, "result": result})
				}
				held = nil
				if a.Mark {
					send(logMessage("mark"))
				}
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
}

// sendLone sends the message tied to no request.
func sendLone(send func(map[string]any), kind string) {
	if kind == "request" {
		send(map[string]any{"jsonrpc": "2.0", "id": loneID, "method": "roots/list"})
		return
	}
	send(logMessage(loneID))
}

func logMessage(data string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "logger": "script", "data": data}}
}
