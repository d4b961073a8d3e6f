// Package testserver is the MCP server (official Go SDK) that the replay
// and verify tests record and replay against, over stdio (as a program
// built from replay/testdata/replayserver) and over streamable HTTP (in
// the test process). It comes in two builds: V1, and V2 with one tool
// renamed, one result changed, one tool made slower and one call that now
// fails, so a test can verify a recording of V1 against either.
//
// Every tool but delete_item is annotated read-only or idempotent and not
// destructive, so that a replay sends it by default.
package testserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The builds.
const (
	V1 = "v1"
	V2 = "v2"
)

// SlowV1 and SlowV2 are how long the slow tool takes in each build: V2 is
// past diff's default thresholds (100 ms and 2x) unless the recording of
// V1 itself took half a second.
const (
	SlowV1 = time.Millisecond
	SlowV2 = time.Second
)

var (
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}
	notFalse = false
	safeRedo = &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &notFalse}
	yes      = true
	harmful  = &mcp.ToolAnnotations{DestructiveHint: &yes}
)

type textArgs struct {
	Text string `json:"text"`
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type keyArgs struct {
	Key string `json:"key"`
}

// New returns the server of one build (V1 or V2).
func New(variant string) *mcp.Server {
	v2 := variant == V2
	s := mcp.NewServer(&mcp.Implementation{Name: "replayserver", Version: variant}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
			sum := a.A + a.B
			if v2 {
				sum++ // the changed result
			}
			return text(fmt.Sprintf("%d+%d=%d", a.A, a.B, sum)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Take a while", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			d := SlowV1
			if v2 {
				d = SlowV2
			}
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return text("done"), nil, nil
		})
	lookup := "lookup"
	if v2 {
		lookup = "find" // the renamed tool
	}
	mcp.AddTool(s, &mcp.Tool{Name: lookup, Description: "Look a key up", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a keyArgs) (*mcp.CallToolResult, any, error) {
			return text("value of " + a.Key), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flaky", Description: "Works in v1", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			if v2 {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "flaky: broken in v2"}}}, nil, nil
			}
			return text("fine"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "stamp", Description: "A value and when it was made", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fixed"}}}, map[string]any{
				"value": "fixed", "createdAt": time.Now().UTC().Format(time.RFC3339Nano),
			}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "nonce", Description: "A fresh random value each call", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured content"}}},
				map[string]any{"nonce": hex.EncodeToString(b), "kind": "nonce"}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "shuffle", Description: "The same items in any order", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			items := []string{"a", "b", "c", "d", "e", "f"}
			for {
				mrand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
				if items[0] != "a" { // never the sorted order, so an order check always sees a change
					break
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "items"}}}, map[string]any{"items": items}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_item", Description: "Delete an item", Annotations: harmful},
		func(ctx context.Context, req *mcp.CallToolRequest, a keyArgs) (*mcp.CallToolResult, any, error) {
			return text("deleted " + a.Key), nil, nil
		})
	// ask puts a server-to-client elicitation request (before 2026-07-28).
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user, with a request of the server's own", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: a.Text, RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"seat": map[string]any{"type": "string"}},
			}})
			if err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("user said %s %v", res.Action, res.Content["seat"])), nil, nil
		})
	// book asks twice through MRTR (2026-07-28) and says what it was told.
	mcp.AddTool(s, &mcp.Tool{Name: "book", Description: "Book, asking twice", Annotations: safeRedo},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			switch req.Params.RequestState {
			case "":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm " + a.Text + "?"}}, RequestState: "st-1"}, nil, nil
			case "st-1":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"seat": &mcp.ElicitParams{Message: "Window or aisle?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"seat": map[string]any{"type": "string"}},
				}}}, RequestState: "st-2"}, nil, nil
			}
			return text("booked " + a.Text + " " + answers(req.Params.InputResponses)), nil, nil
		})
	// book_flight and lookup_price answer fixtures/mrtr.jsonl as recorded.
	mcp.AddTool(s, &mcp.Tool{Name: "book_flight", Description: "Book a flight, asking twice", Annotations: safeRedo},
		func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			switch req.Params.RequestState {
			case "":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm $840?"}}, RequestState: "st-1"}, nil, nil
			case "st-1":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"seat": &mcp.ElicitParams{Message: "Window or aisle?"}}, RequestState: "st-2"}, nil, nil
			}
			return text("booked"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_price", Description: "Nothing to say", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
		})
	// weather carries its region in an Mcp-Param-Region header over HTTP
	// (x-mcp-header), which the SDK checks against the body.
	s.AddTool(&mcp.Tool{Name: "weather", Description: "The weather in a region", Annotations: readOnly,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"city":{"type":"string"}},"required":["region"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Region, City string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text("sunny in " + a.City + ", " + a.Region), nil
		})
	return s
}

// answers says what each input of an MRTR retry came to.
func answers(in mcp.InputResponseMap) string {
	var parts []string
	for _, k := range []string{"confirm", "seat"} {
		if r, ok := in[k].(*mcp.ElicitResult); ok {
			part := k + "=" + r.Action
			if v, ok := r.Content["seat"]; ok {
				part += ":" + fmt.Sprint(v)
			}
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, " ")
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
