package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// tool is one of the weather server's tools. Each takes one argument, so
// its input schema is an object with that one required property.
type tool struct {
	name, description     string
	arg, argType, argHelp string
	run                   func(ctx context.Context, arg any) (string, error)
}

// weatherTools are the server's tools, in the order tools/list gives them
// (by name, as the Go SDK lists them). slow is how long history takes.
func weatherTools(slow time.Duration) []tool {
	return []tool{
		{name: "alerts", description: "Severe weather alerts for a region",
			arg: "region", argType: "string", argHelp: "a region code such as EU or US",
			run: func(_ context.Context, region any) (string, error) {
				// A tool-level failure: the result says isError.
				return "", fmt.Errorf("no alert feed for region %q", region)
			}},
		{name: "convert", description: "Celsius to Fahrenheit",
			arg: "celsius", argType: "number", argHelp: "a temperature in degrees Celsius",
			run: func(_ context.Context, c any) (string, error) {
				return fmt.Sprintf("%.1f°F", c.(float64)*9/5+32), nil
			}},
		{name: "forecast", description: "Tomorrow's weather for a city",
			arg: "city", argType: "string", argHelp: "the city to forecast",
			run: func(_ context.Context, city any) (string, error) {
				return fmt.Sprintf("Sunny in %s, 21°C", city), nil
			}},
		{name: "history", description: "Ten years of daily temperatures for a city (slow)",
			arg: "city", argType: "string", argHelp: "a city",
			run: func(ctx context.Context, city any) (string, error) {
				if err := pause(ctx, slow); err != nil {
					return "", err
				}
				return fmt.Sprintf("3652 days of temperatures for %s", city), nil
			}},
	}
}

// listed is the tool as tools/list gives it.
func (t tool) listed() map[string]any {
	return map[string]any{
		"name":        t.name,
		"description": t.description,
		"inputSchema": map[string]any{
			"type":                 "object",
			"properties":           map[string]any{t.arg: map[string]any{"type": t.argType, "description": t.argHelp}},
			"required":             []string{t.arg},
			"additionalProperties": false,
		},
	}
}

// argument reads the tool's one argument from a call's arguments, as its
// input schema has it.
func (t tool) argument(raw json.RawMessage) (any, error) {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, fmt.Errorf("%s takes an object {%q: %s}", t.name, t.arg, t.argType)
	}
	for k := range args {
		if k != t.arg {
			return nil, fmt.Errorf("%s has no argument %q", t.name, k)
		}
	}
	v, ok := args[t.arg]
	switch v.(type) {
	case string:
		ok = ok && t.argType == "string"
	case float64:
		ok = ok && t.argType == "number"
	default:
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("%s needs %q, a %s", t.name, t.arg, t.argType)
	}
	return v, nil
}

// call runs the tool: a failure, its own or its arguments', is a result
// marked isError, as MCP asks of tool errors.
func (t tool) call(ctx context.Context, arguments json.RawMessage) (*CallResult, error) {
	arg, err := t.argument(arguments)
	var text string
	if err == nil {
		text, err = t.run(ctx, arg)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return &CallResult{Content: []textContent{{Type: "text", Text: err.Error()}}, IsError: true}, nil
	}
	return &CallResult{Content: []textContent{{Type: "text", Text: text}}}, nil
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
