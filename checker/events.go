package checker

import (
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Event kinds, as exports name them (capture-store-export.md 6.2), plus
// "meta" for the control frame a capture starts with.
const (
	EventMeta         = "meta"
	EventRequest      = "request"
	EventResponse     = "response"
	EventNotification = "notification"
	EventStderr       = "stderr"
	EventInvalid      = "invalid"
	EventTransport    = "transport"
	EventOther        = "other"
)

// FrameEvent is what the engine made of one frame, handed to Config.OnFrame
// once the frame's rules have run. It lets exports and the viewer show the
// stream without parsing it a second time. Frame and every string in the
// event may alias the reader's buffer: they are valid only during the
// callback (capture.Frame.Clone and strings.Clone keep them).
type FrameEvent struct {
	SessionID string
	Frame     *capture.Frame
	Pos       Position
	// Ordinal is the frame's position within its session (meta included).
	Ordinal int
	Kind    string
	// Method of a request or notification; for a response, the method of
	// the call it answers ("" when it answers none).
	Method string
	// Tool is the tool or operation name of the call the frame belongs to.
	Tool string
	ID   string // raw JSON id text, "" when the frame has none
	// Warning joins the frame's warnings with ", " (the warn signal).
	Warning string
	// Observation notes something that is not a warning: how late a late
	// result came ("result arrived 250ms after cancellation").
	Observation string
	Mismatch    bool
	// Deprecated is the deprecation note, "" when the frame uses nothing
	// 2026-07-28 deprecated.
	Deprecated string
	// Errors lists the error findings counted on this frame.
	Errors []string
	// Cache hints of a result: CacheTTLMs is valid when HasCacheTTL.
	HasCacheTTL bool
	CacheTTLMs  int64
	CacheScope  string
	// CacheStaleRefetch marks a cacheable request sent while the answer to
	// the same request was still fresh by its ttlMs: a note, not a warning.
	CacheStaleRefetch bool
	// CallIndex is the index of the call the frame belongs to (request,
	// answer, cancellation, MRTR retry); -1 when it belongs to none.
	CallIndex int
}

// emitEvent hands a frame that no rule judged (meta, stderr, truncated) to
// Config.OnFrame.
func (s *session) emitEvent(f *capture.Frame, pos Position, ordinal int, kind string) {
	on := s.e.cfg.OnFrame
	if on == nil {
		return
	}
	on(&FrameEvent{SessionID: s.id, Frame: f, Pos: pos, Ordinal: ordinal, Kind: kind, CallIndex: -1})
}

// event builds the FrameEvent of a judged frame from its context.
func (fc *frameCtx) event(warning string) *FrameEvent {
	ev := &FrameEvent{
		SessionID: fc.s.id, Frame: fc.f, Pos: fc.pos, Ordinal: fc.ordinal,
		Kind: fc.eventKind(), Tool: fc.tool, Warning: warning, Mismatch: fc.mismatch,
		Deprecated: fc.deprecated, Observation: fc.observation, CallIndex: fc.callIndex,
		HasCacheTTL: fc.hasCacheTTL, CacheTTLMs: fc.cacheTTL, CacheScope: fc.cacheScope,
		CacheStaleRefetch: fc.staleFetch,
	}
	switch fc.msg.kind {
	case kindRequest, kindNotification:
		ev.Method = fc.msg.method
	default:
		ev.Method = fc.method
	}
	if fc.msg.hasID {
		ev.ID = fc.msg.idText()
	}
	for _, e := range fc.errs {
		ev.Errors = append(ev.Errors, e.text)
	}
	return ev
}

// eventKind classifies a judged frame (capture-store-export.md 6.2).
func (fc *frameCtx) eventKind() string {
	if !fc.f.HasBody() {
		return EventTransport
	}
	switch fc.msg.kind {
	case kindRequest:
		return EventRequest
	case kindResponse:
		return EventResponse
	case kindNotification:
		return EventNotification
	case kindOther:
		return EventOther
	}
	if fc.f.Status >= 400 {
		return EventTransport
	}
	return EventInvalid
}

// lateObservation is the observation a late result carries.
func lateObservation(delay time.Duration) string {
	return "result arrived " + delay.String() + " after cancellation"
}
