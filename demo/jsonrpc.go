package demo

import (
	"encoding/json"
	"fmt"
)

// The protocol revisions the peers speak: the session era, newest first.
// Modern is the revision server/discover is asked in, as dual-era clients
// probe with it.
var legacyVersions = []string{"2025-11-25", "2025-06-18"}

const modernVersion = "2026-07-28"

// JSON-RPC and MCP error codes.
const (
	codeInvalidRequest             = -32600
	codeMethodNotFound             = -32601
	codeInvalidParams              = -32602
	codeInternalError              = -32603
	codeUnsupportedProtocolVersion = -32022
)

// _meta keys of 2026-07-28 requests and results.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// incoming is a message as read, its parts left raw.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// RPCError is a JSON-RPC error: a call that failed as a protocol error
// rather than as a tool's isError result.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

func rpcError(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// implementation is an MCP Implementation: who a peer is.
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// textContent is a tool result's text.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// CallResult is a tools/call result.
type CallResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

// Text is the result's text, its parts joined.
func (r *CallResult) Text() string {
	s := ""
	for _, c := range r.Content {
		s += c.Text
	}
	return s
}
