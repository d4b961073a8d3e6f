package httpcapture

import (
	"bytes"
	"encoding/json"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// framer turns the proxy's observations into frames for capture.LogWriter,
// on the writer's goroutine.
//
// A request's routing headers (Mcp-Method, Mcp-Name, Mcp-Param-*) ride
// only the first frame of a batch; the transport's (MCP-Protocol-Version,
// Content-Type, Accept, Origin, Host, the connection, and a response's
// status, challenge and Content-Type) ride every frame. A refusal of the
// proxy's own (by_proxy) carries the Host and Origin it refused. A response frame carries
// reply_to, the id of the exchange's request, when it says nothing a
// checker could match to that request by itself: no body, or a body that is
// not JSON-RPC on an HTTP error status; and a server's request that came on
// the response stream of a client's request carries it too, naming the
// call it arrived during.
type framer struct{}

// obsInfo is what the proxy attaches to an observation.
type obsInfo struct {
	kind   int
	x      *exchange
	resp   *responseInfo // s2c only
	coding string
	z      *zstream
	clean  bool
}

func (framer) Frames(ob *capture.Observation, out []capture.Frame) []capture.Frame {
	o, ok := ob.Info.(*obsInfo)
	if !ok { // the meta frame (Log.meta), which has no exchange
		return append(out, capture.Frame{TS: ob.TS, Direction: ob.Direction, Transport: capture.TransportHTTP, Raw: ob.Data})
	}
	x := o.x
	base := capture.Frame{TS: ob.TS, Transport: capture.TransportHTTP, ConnID: x.conn, HTTPMethod: x.httpMethod, HTTPPath: x.httpPath}
	if o.kind == obsRequest {
		base.Direction = capture.ClientToServer
		base.McpProtocolVersion = x.version
		base.ContentType, base.Accept, base.Origin, base.Host = x.contentType, x.accept, x.origin, x.host
	} else {
		base.Direction = capture.ServerToClient
		base.Status, base.AuthChallenge, base.ContentType = o.resp.status, o.resp.challenge, o.resp.contentType
		base.StreamEmpty = o.resp.streamEmpty
		if o.resp.byProxy {
			// The request may have had no body to log: its refusal says
			// what was refused.
			base.ByProxy, base.Host, base.Origin = true, x.host, x.origin
		}
	}
	var events []sseEvent
	switch o.kind {
	case obsZChunk:
		var ok bool
		if events, ok = o.z.chunk(ob.Data); !ok {
			ob.Lose("a compressed event stream decoded to more than " + capture.FormatSize(maxChunkDecoded) + " from one chunk")
		}
		if ob.Over {
			// Decoded to keep the stream whole, but not logged: each of
			// its events is lost, with a seq of its own.
			for range events {
				ob.Lose("an observation did not fit the write queue's memory budget")
			}
			return out
		}
	case obsZEnd:
		events = o.z.end(o.clean)
	default:
		body, truncated := ob.Data, ob.Truncated
		if o.coding != "" {
			body, truncated = decodeBody(o.coding, body, truncated, capture.MaxLogLine)
		}
		return appendBody(out, o, base, body, truncated)
	}
	for _, ev := range events {
		out = appendBody(out, o, base, ev.data, ev.truncated)
	}
	return out
}

// appendBody appends the frames of one body or event.
func appendBody(out []capture.Frame, o *obsInfo, base capture.Frame, body []byte, truncated bool) []capture.Frame {
	x := o.x
	parts, batch := splitBody(body, truncated)
	if len(parts) == 0 {
		if o.kind == obsRequest {
			return out // an empty request body is no message
		}
		f := base
		f.ReplyTo = x.replyTo
		return append(out, f)
	}
	for i, p := range parts {
		f := base
		f.Batch = batch
		if p.json {
			f.Raw = p.data
		} else {
			f.Text, f.Truncated = string(p.data), truncated
		}
		if o.kind == obsRequest && i == 0 {
			f.McpMethod, f.McpName = x.method, x.name
			if len(x.params) > 0 {
				f.McpParamHeaders = append([]capture.ParamHeader(nil), x.params...) // redaction edits its copy
			}
		}
		if o.kind != obsRequest && o.resp.status >= 400 && !batch && (!p.json || !looksJSONRPC(p.data) || answersNobody(p.data)) {
			f.ReplyTo = x.replyTo
		}
		if o.kind != obsRequest && len(x.replyTo) > 0 && p.json && !batch && requestID(p.data) != nil {
			// A server's request on the event stream of a client's
			// request: reply_to names the call it came in the middle of
			// (an elicitation asked during a tools/call).
			f.ReplyTo = x.replyTo
		}
		out = append(out, f)
	}
	return out
}

// Dropped is told of an observation the writer lost after it took its
// place: a chunk of a compressed event stream leaves a hole the decoder
// cannot go past, so the stream is decoded no further (its end is logged
// as a cut stream); the end of one stops its decoder.
func (framer) Dropped(info any) {
	switch o := info.(*obsInfo); o.kind {
	case obsZChunk:
		o.z.lose()
	case obsZEnd:
		o.z.end(false)
	}
}

// Written keeps the id of a request body that was exactly one JSON-RPC
// request, as redacted, for the frames that answer it (reply_to).
func (framer) Written(ob *capture.Observation, frames []capture.Frame) {
	if o, ok := ob.Info.(*obsInfo); ok && o.kind == obsRequest && len(frames) == 1 && !frames[0].Batch {
		o.x.replyTo = requestID(frames[0].Raw)
	}
}

// bodyPart is one value of an observed body: compact JSON, or text.
type bodyPart struct {
	data []byte
	json bool
}

// splitBody cuts an observed body into what the log keeps of it: each
// element of a non-empty JSON array (a batch), else one JSON value
// (compacted), else the text. A body of only whitespace has no part. A
// truncated body is kept as its fragment, unparsed.
func splitBody(body []byte, truncated bool) (parts []bodyPart, batch bool) {
	if truncated {
		return []bodyPart{{data: body}}, false
	}
	b := trimWS(body)
	if len(b) == 0 {
		return nil, false
	}
	if b[0] == '[' {
		if elems, ok := capture.ArrayElements(b); ok && len(elems) > 0 {
			for _, e := range elems {
				parts = append(parts, compactPart(e))
			}
			return parts, true
		}
	}
	return []bodyPart{compactPart(b)}, false
}

func compactPart(b []byte) bodyPart {
	var scratch bytes.Buffer
	raw, ok := capture.CompactJSON(b, &scratch)
	if !ok {
		return bodyPart{data: b}
	}
	return bodyPart{data: raw, json: true}
}

// trimWS trims JSON whitespace from both ends of b.
func trimWS(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// requestID is the raw id of a JSON-RPC request (a string method and an
// id, the first of each name as a checker reads them), else nil.
func requestID(raw []byte) json.RawMessage {
	var method, id []byte
	capture.ObjectMembers(raw, func(name string, v []byte) {
		switch {
		case name == "method" && method == nil:
			method = v
		case name == "id" && id == nil:
			id = v
		}
	})
	if len(method) == 0 || method[0] != '"' || id == nil {
		return nil
	}
	return bytes.Clone(id)
}

// looksJSONRPC reports whether raw is an object with a member only a
// JSON-RPC message has: jsonrpc, method, result or error.
func looksJSONRPC(raw []byte) bool {
	rpc := false
	capture.ObjectMembers(raw, func(name string, _ []byte) {
		switch name {
		case "jsonrpc", "method", "result", "error":
			rpc = true
		}
	})
	return rpc
}

// answersNobody reports a JSON-RPC response whose id is null or missing,
// as servers write when they refuse a request before reading its id (the
// TypeScript SDK's 400 and 404). The HTTP exchange still says which request
// it was, so the frame carries reply_to too.
func answersNobody(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != "" || (m.Result == nil && m.Error == nil) {
		return false
	}
	return len(m.ID) == 0 || string(m.ID) == "null"
}
