package checker

import (
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// rev20260728 is the revision that introduced most of the rules in warn and
// mismatch. Revisions compare as strings ("2026-07-28" >= "2025-11-25").
const rev20260728 = "2026-07-28"

// atLeast20260728 reports whether a declared revision is 2026-07-28 or later.
func atLeast20260728(rev string) bool { return rev >= rev20260728 }

// metaField returns params._meta[key] of a request or notification.
func (m *message) metaField(key string) gjson.Result {
	meta := m.paramField("_meta")
	if !meta.IsObject() {
		return gjson.Result{}
	}
	return member(meta, key) // the keys hold dots: no gjson path to build
}

// declaredRevision is what a request declares: its _meta protocolVersion
// when non-empty, else its MCP-Protocol-Version header; never inferred from
// other requests. "" means a legacy request.
func declaredRevision(m *message, f *capture.Frame) string {
	if v := m.metaField("io.modelcontextprotocol/protocolVersion"); v.Type == gjson.String && v.Str != "" {
		return v.Str
	}
	return f.McpProtocolVersion
}

// revisionName names the frame's revision in a message: the revision, or
// "the specification" when the session's frames do not tell it.
func (fc *frameCtx) revisionName() string {
	if rev := fc.revision(); rev != "" {
		return rev
	}
	return "the specification"
}
