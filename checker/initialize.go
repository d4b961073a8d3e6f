package checker

// W57: an initialize request without the fields every revision requires.
// It is in the default gate (wire validation, which would also say so, is
// opt in); when validation runs too, the schema finding leaves out what
// W57 already reports, so a missing field is one finding, not two.

import (
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/tidwall/gjson"
)

// initializeRules applies W57 to a client's initialize request.
func (s *session) initializeRules(fc *frameCtx) {
	m := &fc.msg
	if m.kind != kindRequest || m.method != "initialize" || fc.f.Direction != capture.ClientToServer {
		return
	}
	var missing []string
	if !m.params.IsObject() {
		missing = []string{"params"}
	} else {
		if !m.paramField("protocolVersion").Exists() {
			missing = append(missing, "protocolVersion")
		}
		if !m.paramField("capabilities").Exists() {
			missing = append(missing, "capabilities")
		}
		switch info := m.paramField("clientInfo"); {
		case !info.Exists():
			missing = append(missing, "clientInfo")
		case info.IsObject() && !info.Get("name").Exists():
			missing = append(missing, "clientInfo.name")
		}
	}
	if len(missing) == 0 {
		return
	}
	fc.initMissing = true
	fc.warn("W57", "initialize is missing required <fields>", "initialize is missing required "+strings.Join(missing, ", "))
}

// w57Covers reports a schema issue of an initialize request that only
// names fields W57 reports missing.
func w57Covers(is wire.Issue) bool {
	if is.Keyword != "required" {
		return false
	}
	var covered map[string]bool
	switch is.Pointer {
	case "":
		covered = map[string]bool{"params": true}
	case "/params":
		covered = map[string]bool{"protocolVersion": true, "capabilities": true, "clientInfo": true}
	case "/params/clientInfo":
		covered = map[string]bool{"name": true}
	default:
		return false
	}
	names := quotedNames(is.Message)
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		if !covered[n] {
			return false
		}
	}
	return true
}

// quotedNames are the Go-quoted names in a schema issue's message.
func quotedNames(msg string) []string {
	var out []string
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			return out
		}
		v := gjson.Parse(msg[i:])
		if v.Type != gjson.String {
			return out
		}
		out = append(out, v.Str)
		msg = msg[i+len(v.Raw):]
	}
}

// withoutW57 is a schema finding of an initialize request that W57 also
// reported, less the issues W57 covers; nil when nothing else is wrong.
func withoutW57(f *wire.Finding) *wire.Finding {
	var rest []wire.Issue
	for _, is := range f.Issues {
		if !w57Covers(is) {
			rest = append(rest, is)
		}
	}
	switch {
	case len(rest) == len(f.Issues):
		return f
	case len(rest) == 0 && f.Omitted == 0:
		return nil
	}
	out := *f
	out.Issues = rest
	return &out
}
