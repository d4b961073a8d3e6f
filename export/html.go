package export

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// HTML is the html format (capture-store-export.md 7.4): one self-contained
// page for every session (inline style and script, nothing fetched), with a
// session picker, the summary, per-tool and call tables, the
// multi-round-trip interactions, the elicitation ledger and the frame
// timeline, each raw frame expandable, filtered by the tokens of 7.4.
//
// The data sits in <script type="application/json"> elements, one per
// session, and the page's script builds the view from it with text nodes
// only (never innerHTML), so a payload cannot become markup. The embedded
// JSON is HTML-safe as well (<, >, & and U+2028/U+2029 escaped), so not even
// "</script>" in a payload ends the element early. A frame longer than
// frameCap and a call body (params, result, error) longer than bodyCap are
// cut, and once a session's page holds sessionBudget bytes of them, later
// ones are cut to smallCap, so that a browser can still open the page of a
// long capture; the page says what was cut.
type HTML struct {
	buf  []byte
	cuts map[string]*cutCount
}

// What the page holds of one frame (frameCap) and of one call body
// (bodyCap); once a session's payloads pass sessionBudget, each is cut to
// smallCap, so that a long capture still opens in a browser.
const (
	frameCap      = 16 << 10
	bodyCap       = 4 << 10
	sessionBudget = 32 << 20
	smallCap      = 512
)

// cutCount is what a session's page has cut so far, and how many payload
// bytes it holds.
type cutCount struct {
	frames, bodies int
	held           int
}

// limit is the cap for the next payload of a session.
func (c *cutCount) limit(full int) int {
	if c.held >= sessionBudget {
		return smallCap
	}
	return full
}

// NewHTML returns the html format.
func NewHTML() Format { return &HTML{cuts: map[string]*cutCount{}} }

//go:embed assets/page.css
var pageCSS string

//go:embed assets/page.js
var pageJS string

func (h *HTML) cut(session string) *cutCount {
	c := h.cuts[session]
	if c == nil {
		c = &cutCount{}
		h.cuts[session] = c
	}
	return c
}

// capped writes v under k as a string, cut to limit bytes; a cut one also
// gets k_bytes, its full length.
func capped(o *objWriter, k string, v []byte, limit int) bool {
	cut := cutUTF8(v, limit)
	o.key(k)
	o.b = appendString(o.b, string(cut), true)
	if len(cut) < len(v) {
		o.int(k+"_bytes", int64(len(v)))
		return true
	}
	return false
}

// Event renders one frame for the timeline.
func (h *HTML) Event(ev *checker.FrameEvent) ([]byte, error) {
	if ev.Kind == checker.EventMeta {
		return nil, nil
	}
	o := newObj(h.buf[:0], true)
	eventFields(&o, ev)
	f := ev.Frame
	cc := h.cut(ev.SessionID)
	var payload []byte
	key := "raw"
	switch {
	case len(f.Raw) > 0:
		payload = f.Raw
	case f.Text != "":
		payload, key = []byte(f.Text), "text"
	}
	if payload != nil {
		limit := cc.limit(frameCap)
		if capped(&o, key, payload, limit) {
			cc.frames++
		}
		cc.held += min(len(payload), limit)
	}
	h.buf = o.close()
	return h.buf, nil
}

// Call renders one row of the calls table.
func (h *HTML) Call(r *checker.CallRecord) ([]byte, error) {
	o := newObj(h.buf[:0], true)
	cc := h.cut(r.SessionID)
	callFields(&o, r, func(o *objWriter, k string, v []byte) {
		limit := cc.limit(bodyCap)
		if capped(o, k, v, limit) {
			cc.bodies++
		}
		cc.held += min(len(v), limit)
	})
	h.buf = o.close()
	return h.buf, nil
}

// pageHead is everything before the first session's data.
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="generator" content="mcpsnoop">
<title>mcpsnoop export</title>
<style>
`

// pageBody opens the body: the header the script fills in, and the error
// trap that must exist before anything else runs.
const pageBody = `</style>
</head>
<body>
<header id="top">
<div class="bar">
<h1 id="title">mcpsnoop export</h1>
<label class="picker" id="picker-label">Session <select id="session-picker"></select></label>
<input id="filter" type="search" placeholder="filter: tool:echo status:err dir:s2c words..." autocomplete="off" spellcheck="false">
</div>
<div id="meta" class="meta"></div>
</header>
<noscript><p class="note">This page needs JavaScript to show the sessions; the data is in its source.</p></noscript>
<ul id="page-errors"></ul>
<script>
window.onerror = function (msg, src, line, col) {
  var li = document.createElement("li");
  li.textContent = "script error: " + msg + " (line " + line + ":" + col + ")";
  document.getElementById("page-errors").appendChild(li);
  document.documentElement.setAttribute("data-errors", "1");
};
</script>
<main id="app"></main>
`

type pageMeta struct {
	GeneratedAt time.Time    `json:"generated_at"`
	Version     string       `json:"version"`
	Sessions    int          `json:"sessions"`
	Run         *checker.Run `json:"run,omitempty"`
	FrameCap    int          `json:"frame_cap"`
	BodyCap     int          `json:"body_cap"`
	Budget      int          `json:"session_budget"`
	SmallCap    int          `json:"small_cap"`
}

// Begin writes the page up to the sessions' data.
func (h *HTML) Begin(w io.Writer, o *Output) error {
	meta, err := json.Marshal(pageMeta{
		GeneratedAt: o.GeneratedAt.UTC(), Version: o.Version,
		Sessions: o.Sessions, Run: o.Run, FrameCap: frameCap, BodyCap: bodyCap,
		Budget: sessionBudget, SmallCap: smallCap,
	})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(pageHead)
	bw.WriteString(pageCSS)
	bw.WriteString(pageBody)
	bw.WriteString(`<script type="application/json" id="mcpsnoop-export">`)
	bw.Write(meta) // json.Marshal escapes <, >, &, U+2028 and U+2029
	bw.WriteString("</script>\n")
	return bw.Flush()
}

// Session writes one session's data element.
func (h *HTML) Session(w io.Writer, s *Session) error {
	r := s.Report
	cuts := h.cut(r.ID)
	head := []member{
		{"session", newSessionDoc(s)},
		{"summary", newSummaryDoc(s)},
		{"capabilities", newCapabilitiesDoc(&r.Capabilities)},
		{"interactions", nonNil(r.Interactions)},
		{"interactions_truncated", r.InteractionsTruncated},
		{"elicitations", nonNil(r.Elicitations)},
		{"elicitations_truncated", r.ElicitationsTruncated},
		{"schema_findings", nonNil(r.SchemaFindings)},
		{"cut_frames", cuts.frames},
		{"cut_bodies", cuts.bodies},
		{"budget_spent", cuts.held >= sessionBudget},
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	// The picker's entry comes from attributes, so the page parses only the
	// session on show; data-failed marks a session that fails the default
	// gate (or an assertion), which the page opens on and the picker marks.
	failed := ""
	if r.Failed() {
		failed = ` data-failed="1"`
	}
	fmt.Fprintf(bw, `<script type="application/json" class="mcpsnoop-session" id="session-%d" data-id="%s" data-label="%s" data-calls="%d"%s>{`,
		s.Index, attr(r.ID), attr(r.Label), r.Calls, failed)
	for i, m := range head {
		b, err := json.Marshal(m.v) // HTML-escaped, U+2028/U+2029 too
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(strconv.Quote(m.key) + ":")
		bw.Write(b)
	}
	for _, part := range []struct {
		key  string
		recs Records
	}{{"calls", s.Calls}, {"events", s.Events}} {
		bw.WriteString(`,"` + part.key + `":[`)
		err := EachKept(part.recs, func(_, n int, b []byte) error {
			if n > 0 {
				bw.WriteByte(',')
			}
			_, err := bw.Write(b)
			return err
		})
		if err != nil {
			return err
		}
		bw.WriteByte(']')
	}
	bw.WriteString("}</script>\n")
	return bw.Flush()
}

// attrEscaper escapes an attribute value, U+2028 and U+2029 included
// (harmless there, but a page is easier to audit without them).
var attrEscaper = strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;",
	"\u2028", "&#x2028;", "\u2029", "&#x2029;")

func attr(s string) string { return attrEscaper.Replace(s) }

// End writes the script that builds the page, and closes it.
func (h *HTML) End(w io.Writer, o *Output) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("<script>\n")
	bw.WriteString(pageJS)
	bw.WriteString("</script>\n</body>\n</html>\n")
	return bw.Flush()
}
