package viewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/report"
)

// panelContent renders one of the session panels from the engine's
// summary of the session.
func panelContent(which string, s *Session, rep *checker.SessionReport) (title, body string) {
	var b strings.Builder
	switch which {
	case "tools":
		writeTools(&b, rep)
	case "capabilities":
		writeCapabilities(&b, rep)
	case "interactions":
		writeInteractions(&b, rep)
	case "elicitations":
		writeElicitations(&b, rep)
	}
	return which + " · " + s.ID, b.String()
}

// writeTools is the per-tool summary: calls, errors, pending, latency
// percentiles, round trips and result sizes; then what each advertised
// tool costs a client's context. A tool's name is the server's: it is
// escaped here, on one line, since the page keeps line breaks and a name
// holding one would break its row.
func writeTools(b *strings.Builder, rep *checker.SessionReport) {
	if len(rep.Tools) == 0 {
		b.WriteString("No tools/call in this session.\n")
	} else {
		// SCHEMA names what the checker found in the tool's advertised
		// definition, when there is a listing.
		schema := map[string]string{}
		for _, d := range rep.Definitions {
			schema[d.Name] = strings.Join(d.Findings, ", ")
		}
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TOOL\tCALLS\tERRORS\tPENDING\tP50\tP95\tP99\tTRIPS\tRESULT BYTES\tMAX RESULT\tSCHEMA")
		for _, t := range rep.Tools {
			sc := "-"
			if f := schema[t.Name]; f != "" {
				sc = f
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", clean(t.Name, false), t.Calls, t.Errors, t.Pending,
				ms(t.P50Ms), ms(t.P95Ms), ms(t.P99Ms), t.RoundTrips, t.ResultBytes, t.MaxResultBytes, sc)
		}
		tw.Flush()
	}
	if len(rep.Definitions) > 0 {
		b.WriteString("\nAdvertised tools, heaviest first (compact JSON bytes):\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TOOL\tBYTES\tDESCRIPTION BYTES\tSCHEMA BYTES\tSCHEMA FINDINGS")
		for _, d := range rep.Definitions {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", clean(d.Name, false), d.Bytes, d.DescriptionBytes, d.SchemaBytes, strings.Join(d.Findings, ", "))
		}
		tw.Flush()
		if !rep.Listing.Complete {
			b.WriteString("(the listing is incomplete: its last page had a nextCursor)\n")
		}
	}
}

func ms(v float64) string {
	if v == 0 {
		return "-"
	}
	return FormatDuration(time.Duration(v * float64(time.Millisecond)))
}

// writeCapabilities shows what the two sides said about themselves.
func writeCapabilities(b *strings.Builder, rep *checker.SessionReport) {
	c := rep.Capabilities
	if !c.Seen() {
		b.WriteString("Nothing seen yet: no initialize exchange, server/discover or _meta capabilities in this session.\n")
		return
	}
	if c.ProtocolVersion != "" {
		fmt.Fprintf(b, "protocol version  %s\n", c.ProtocolVersion)
	}
	section := func(name string, raw json.RawMessage) {
		if raw == nil {
			return
		}
		fmt.Fprintf(b, "\n%s\n", name)
		var out bytes.Buffer
		if json.Indent(&out, raw, "  ", "  ") == nil {
			b.WriteString("  " + out.String() + "\n")
		} else {
			b.WriteString("  " + string(raw) + "\n")
		}
	}
	section("client", c.ClientInfo)
	section("client capabilities", c.Client)
	section("server", c.ServerInfo)
	section("server capabilities", c.Server)
	if c.HasInstructions {
		fmt.Fprintf(b, "\ninstructions\n  %s\n", strings.ReplaceAll(c.Instructions, "\n", "\n  "))
	}
}

// writeInteractions lists the multi-round-trip operations: the round
// trips, the wall clock split between server and client, hop by hop.
func writeInteractions(b *strings.Builder, rep *checker.SessionReport) {
	if len(rep.Interactions) == 0 {
		b.WriteString("No multi-round-trip interactions (MRTR) in this session.\n")
		return
	}
	for _, it := range rep.Interactions {
		writeItem(b, report.InteractionLines(it))
	}
	if rep.InteractionsTruncated > 0 {
		fmt.Fprintf(b, "(%d more interactions not listed)\n", rep.InteractionsTruncated)
	}
}

// writeElicitations is the ledger of questions put to the user: the
// operation each interrupted, the mode, what was asked and what the user
// did. It never shows a submitted value.
func writeElicitations(b *strings.Builder, rep *checker.SessionReport) {
	if len(rep.Elicitations) == 0 {
		b.WriteString("No elicitations: the server asked the user nothing in this session.\n")
		return
	}
	for _, e := range rep.Elicitations {
		writeItem(b, report.ElicitationLines(e))
	}
	if rep.ElicitationsTruncated > 0 {
		fmt.Fprintf(b, "(%d more elicitations not listed)\n", rep.ElicitationsTruncated)
	}
}

// writeItem writes an item's summary line, its details indented under it,
// and a blank line.
func writeItem(b *strings.Builder, lines []string) {
	for i, l := range lines {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(clean(l, false))
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// helpText is the keys page.
func helpText(live bool) string {
	var b strings.Builder
	b.WriteString(`Sessions list
  ↑/↓ j/k      move             enter        open the session's stream
  s t c i l    panels of the session under the cursor (see below)
  e            export the session under the cursor as HTML

Stream
  ↑/↓ j/k      move             pgup/pgdown  a page      g/G  first/last
  enter        inspect the frame: metadata and the raw JSON, pretty-printed
  /            filter (enter keeps it, esc restores the previous one)
  esc          clear the filter, then back to the sessions list
  e            export this session as HTML (to <state>/exports/<session-id>.html)
`)
	if live {
		b.WriteString("  f            follow new frames on/off (moving to the last row follows)\n")
	}
	b.WriteString(`
Panels (from the list, the stream or another panel)
  s t          tools: calls, errors, pending, p50/p95/p99, round trips, result sizes
  c            capabilities: protocol version, client and server info and capabilities
  i            interactions: multi-round-trip (MRTR) operations, hop by hop
  l            elicitations: what the server asked the user, and what they did

Commands (type : anywhere, enter runs, esc cancels)
  :export FORMAT [PATH]   export the session as json, html, text, har or otlp to
                          PATH (a file or a folder), by default
                          <state>/exports/<session-id>.json|.html|.txt|.har|.otlp.json;
                          the path written, or the error, shows in the status line

Inspector and panels
  ↑/↓ pgup/pgdown  scroll        ←/→  scroll sideways
  g/G home/end     top/bottom    n/p  next/previous frame (inspector)
  esc backspace    back

  ?            this page         q    quit (ctrl+c anywhere)

Filter tokens (space-separated, all must match)
  tool:NAME    t:NAME    the tool (or operation) name contains NAME
  method:M     m:M       the method contains M
  id:ID                  the JSON-RPC id is ID exactly: id:1 the number 1, id:"1" the
                         string "1", id:two the string "two"
  dir:D        d:D       c2s (client, in, req, ->), s2c (server, out, resp, <-),
                         stderr (err), meta
  kind:K       k:K       req (request), resp (response), notify (ntf, notification),
                         stderr, invalid (corrupt, bad), transport, other
  status:S     s:S       pending, ok, error (err, fail, failed), cancel (the client gave up,
                         answered late or not), late (late_result), cancelled (a task),
                         superseded, streaming, warn (warning), mismatch, invalid (bad),
                         or an HTTP code (401)
  TEXT                   method, tool, id, warning, observation or payload contains TEXT

  tool:search status:pending       in-flight calls to one search tool
  method:tools/call status:error   tool calls that failed
  dir:s2c kind:req                 server-initiated requests
`)
	return b.String()
}
