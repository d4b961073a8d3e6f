// Package har writes an export as one HAR 1.2 document (the HTTP Archive
// format browser devtools open): one entry per call, in the order of the
// json export's calls, every session of the export in the same log. Each
// session is a page, and its entries name it in pageref.
//
// JSON-RPC is mapped onto HTTP as capture-store-export.md section 7.5 says:
// every request is a POST to mcp://<server label>/<method>[/<tool>], the
// params are the posted body, the result (or error) is the response body,
// and the call's status picks the HTTP status. The timings put the server's
// time in wait; for a multi-round-trip (MRTR) call the time the client spent
// between hops (answering the server's questions) goes into blocked, so a
// viewer no longer draws the user's think time as server latency. blocked,
// send, wait and receive always add up to the entry's time.
//
// Memory stays bounded: Call renders each call on its own (bodies
// included) into the exporter's disk-backed records, and Session streams
// the entries out one by one; only the small per-session page list is
// kept until End.
package har

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"
)

// New returns the har format. The creator version is the build's version
// from export.Output.
func New() export.Format { return &format{} }

type format struct {
	entries int    // entries written so far (for the commas)
	pages   []page // one per session, written by End
	missing []missing
}

// missing notes a session that lost frames, for log.comment.
type missing struct {
	session string
	frames  int
}

// The HAR 1.2 objects mcpsnoop writes, in the field order of the HAR spec.
// Fields are HAR's own names; nothing custom is added.
type (
	page struct {
		StartedDateTime string      `json:"startedDateTime"`
		ID              string      `json:"id"`
		Title           string      `json:"title"`
		PageTimings     pageTimings `json:"pageTimings"`
		Comment         string      `json:"comment,omitempty"`
	}
	pageTimings struct {
		OnContentLoad int `json:"onContentLoad"`
		OnLoad        int `json:"onLoad"`
	}
	entry struct {
		Pageref         string      `json:"pageref,omitempty"`
		StartedDateTime string      `json:"startedDateTime"`
		Time            json.Number `json:"time"`
		Request         request     `json:"request"`
		Response        response    `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         timings     `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
	}
	request struct {
		Method      string     `json:"method"`
		URL         string     `json:"url"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []struct{} `json:"cookies"`
		Headers     []struct{} `json:"headers"`
		QueryString []struct{} `json:"queryString"`
		PostData    *postData  `json:"postData,omitempty"`
		HeadersSize int        `json:"headersSize"`
		BodySize    int        `json:"bodySize"`
	}
	postData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	response struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []struct{} `json:"cookies"`
		Headers     []struct{} `json:"headers"`
		Content     content    `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int        `json:"headersSize"`
		BodySize    int        `json:"bodySize"`
	}
	content struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
	}
	timings struct {
		// Blocked is the client's turnaround between the hops of a
		// multi-round-trip call; absent (not applicable) otherwise.
		Blocked json.Number `json:"blocked,omitempty"`
		Send    json.Number `json:"send"`
		Wait    json.Number `json:"wait"`
		Receive json.Number `json:"receive"`
	}
)

const (
	httpVersion = "JSON-RPC/2.0"
	mimeJSON    = "application/json"
)

// Event keeps nothing: HAR has no place for frames that are not calls.
func (f *format) Event(*checker.FrameEvent) ([]byte, error) { return nil, nil }

// Call renders one call's entry.
func (f *format) Call(r *checker.CallRecord) ([]byte, error) {
	e := entry{
		StartedDateTime: r.Start.Format(time.RFC3339Nano),
		Time:            "0",
		Request: request{
			Method: "POST", HTTPVersion: httpVersion,
			Cookies: []struct{}{}, Headers: []struct{}{}, QueryString: []struct{}{},
			HeadersSize: -1, BodySize: len(r.Params),
		},
		Response: response{
			HTTPVersion: httpVersion, Cookies: []struct{}{}, Headers: []struct{}{},
			Content: content{MimeType: mimeJSON}, HeadersSize: -1,
		},
		Timings: timings{Send: "0", Wait: "0", Receive: "0"},
	}
	if len(r.Params) > 0 {
		e.Request.PostData = &postData{MimeType: mimeJSON, Text: string(r.Params)}
	}
	e.Response.Status, e.Response.StatusText = httpStatus(r.Status)
	switch {
	case len(r.Result) > 0:
		e.Response.Content.Text = string(r.Result)
	case len(r.Error) > 0:
		e.Response.Content.Text = string(r.Error)
	}
	e.Response.Content.Size = len(e.Response.Content.Text)
	e.Response.BodySize = e.Response.Content.Size
	if r.HasDuration {
		// HAR times are never negative; a call answered "before" it was
		// asked (the capture clock stepped back) takes no time.
		d := max(r.Duration, 0)
		e.Time = millis(d)
		e.Timings.Wait = e.Time
		if r.RoundTrips > 1 {
			server := min(max(r.ServerTime, 0), d)
			e.Timings.Wait = millis(server)
			e.Timings.Blocked = millis(d - server)
			e.Comment = fmt.Sprintf("mcpsnoop: %d round trips; wait is the server's time over all of them, "+
				"blocked is the client's turnaround between them", r.RoundTrips)
		}
	}
	// The server label in the url is known only once the session ends (the
	// last label seen wins): it is left as a mark that Session splices; the
	// rest is final.
	e.Pageref, e.Request.URL = r.SessionID, urlMark
	body, err := marshal(e)
	if err != nil {
		return nil, err
	}
	tool := ""
	if r.IsTool {
		tool = r.Name
	}
	out := binary.AppendUvarint(nil, uint64(len(r.Method)))
	out = append(out, r.Method...)
	out = binary.AppendUvarint(out, uint64(len(tool)))
	out = append(out, tool...)
	return append(out, body...), nil
}

// The mark Call leaves for the url. A JSON string in a payload cannot hold
// this byte sequence, since its own quotes would be escaped.
const urlMark = "\x00U"

var urlMarked = []byte(`"url":"\u0000U"`)

// splitKept reads back what Call kept.
func splitKept(b []byte) (method, tool string, entry []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return "", "", nil, errors.New("har: a kept call is damaged")
	}
	method, b = string(b[k:k+int(n)]), b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return "", "", nil, errors.New("har: a kept call is damaged")
	}
	return method, string(b[k : k+int(n)]), b[k+int(n):], nil
}

// httpStatus maps a call status to an HTTP status and its text.
func httpStatus(status string) (int, string) {
	switch status {
	case "ok":
		return 200, "OK"
	case "error":
		return 500, "Error"
	case "late_result":
		return 200, "Late Result"
	case "call_cancelled":
		return 0, "Cancelled"
	}
	return 0, status
}

// millis writes a duration in milliseconds exactly (nanosecond precision,
// no float rounding), so the timings of an entry add up to its time.
func millis(d time.Duration) json.Number {
	neg := d < 0
	if neg {
		d = -d
	}
	s := strconv.FormatInt(int64(d/time.Millisecond), 10)
	if frac := int64(d % time.Millisecond); frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

// Begin writes the log's head and opens its entries.
func (f *format) Begin(w io.Writer, o *export.Output) error {
	version := o.Version
	if version == "" {
		version = "dev"
	}
	creator, err := json.Marshal(struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}{"mcpsnoop", version})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": ")
	if err := json.Indent(&b, creator, "    ", "  "); err != nil {
		return err
	}
	b.WriteString(",\n    \"entries\": [")
	_, err = w.Write(b.Bytes())
	return err
}

// Session writes the session's entries and notes its page.
func (f *format) Session(w io.Writer, s *export.Session) error {
	rep := s.Report
	if rep == nil {
		return errors.New("har: session without a report")
	}
	host := rep.Label
	if host == "" {
		host = rep.ID
	}
	started := rep.First
	if started.IsZero() && s.Output != nil {
		started = s.Output.GeneratedAt
	}
	p := page{
		StartedDateTime: started.Format(time.RFC3339Nano), ID: rep.ID, Title: host,
		PageTimings: pageTimings{OnContentLoad: -1, OnLoad: -1},
	}
	if n := rep.Counters.MissingFrames; n > 0 {
		p.Comment = fmt.Sprintf("mcpsnoop: capture incomplete, %d frame(s) of this session were dropped", n)
		f.missing = append(f.missing, missing{rep.ID, n})
	}
	f.pages = append(f.pages, p)
	if s.Calls == nil {
		return nil
	}
	var compact, out []byte
	return export.EachKept(s.Calls, func(_, _ int, b []byte) error {
		method, tool, entry, err := splitKept(b)
		if err != nil {
			return err
		}
		u, err := marshal(callURL(host, method, tool))
		if err != nil {
			return err
		}
		compact = spliceMark(compact[:0], entry, urlMarked, `"url":`, u)
		out = out[:0]
		if f.entries > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n      "...)
		out = export.AppendIndent(out, compact, 3)
		f.entries++
		_, err = w.Write(out)
		return err
	})
}

// spliceMark appends src to dst with its first mark replaced by key and
// value.
func spliceMark(dst, src, mark []byte, key string, value []byte) []byte {
	i := bytes.Index(src, mark)
	if i < 0 {
		return append(dst, src...)
	}
	dst = append(dst, src[:i]...)
	dst = append(dst, key...)
	dst = append(dst, value...)
	return append(dst, src[i+len(mark):]...)
}

// callURL is mcp://<host>/<method>[/<tool>], each part escaped as a URL
// needs it (the slashes of a method stay path separators).
func callURL(host, method, tool string) string {
	u := "mcp://" + url.PathEscape(host) + "/"
	for i, part := range strings.Split(method, "/") {
		if i > 0 {
			u += "/"
		}
		u += url.PathEscape(part)
	}
	if tool != "" {
		u += "/" + url.PathEscape(tool)
	}
	return u
}

// End closes the entries and writes the pages and, when frames were lost,
// the log's comment.
func (f *format) End(w io.Writer, _ *export.Output) error {
	var b bytes.Buffer
	if f.entries > 0 {
		b.WriteString("\n    ")
	}
	b.WriteString("],\n    \"pages\": ")
	if f.pages == nil {
		f.pages = []page{}
	}
	pages, err := marshal(f.pages)
	if err != nil {
		return err
	}
	if err := json.Indent(&b, pages, "    ", "  "); err != nil {
		return err
	}
	if c := f.comment(); c != "" {
		text, err := marshal(c)
		if err != nil {
			return err
		}
		b.WriteString(",\n    \"comment\": ")
		b.Write(text)
	}
	b.WriteString("\n  }\n}\n")
	_, err = w.Write(b.Bytes())
	return err
}

// comment is log.comment: empty unless some session lost frames.
func (f *format) comment() string {
	total := 0
	var parts []string
	for _, m := range f.missing {
		total += m.frames
		parts = append(parts, fmt.Sprintf("%s: %d", m.session, m.frames))
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("mcpsnoop: capture incomplete, %d frame(s) were dropped before being recorded (%s). "+
		"The entry count is a lower bound, and a call whose answer was lost shows as pending.",
		total, strings.Join(parts, ", "))
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
