package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/mcpsnoop/mcpsnoop/serve/bridge"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newBridgeCmd) }

// bridgeOptions are the flags of `mcpsnoop bridge`.
type bridgeOptions struct {
	listen       string
	allowOrigins []string
	sessionIdle  time.Duration
	shim         capturecli.Options // label, log, kill grace, redaction and OTLP, as the shim reads them
}

const bridgeUsage = "bridge [--listen ADDR] [flags] -- <server command> [args...]"

func newBridgeCmd() *cobra.Command {
	var o bridgeOptions
	cmd := &cobra.Command{
		Use:   bridgeUsage,
		Short: "Serve a stdio MCP server over Streamable HTTP, recording it as the shim does",
		Long: `mcpsnoop bridge runs a stdio MCP server behind a Streamable HTTP endpoint,
http://ADDR/mcp, so that a client or a test suite that speaks only HTTP (the
official conformance suite, say) reaches it. Each server process it starts
runs through the stdio shim and gets a session log of its own, as the shim
writes them (stdio transport, grouped into one run), so mcpsnoop check
judges the server on what it said on stdio, not the bridge.

Sessions: a client of revision 2025-11-25 or earlier gets a server process
per MCP session, started on initialize and named by the Mcp-Session-Id the
bridge answers with; DELETE ends the session and its process. Requests that
declare 2026-07-28 share one server process, started on the first of them,
with no Mcp-Session-Id; the bridge gives each request an id of its own on
stdio (and its progress token), so that concurrent clients never collide,
checks the revision's MCP-Protocol-Version, Mcp-Method and Mcp-Name
headers, which a stdio server cannot see, and answers its protocol errors
with 400 or 404.

Answers go as JSON or as an event stream, as the request's Accept asks. The
server's requests and notifications that belong to a request go on that
request's stream (a progress notification by its token; anything else to
the one request in flight when there is one); the rest go on the session's
GET stream when one is open, else are dropped and counted. A server request
under 2026-07-28, which that revision forbids on HTTP, is answered -32601
and noted in the log. A 2026-07-28 client that closes its stream cancels
the request: the server is sent notifications/cancelled. A server that
exits leaves its unanswered requests with a -32603 error, and its log with
those calls pending (the server's fault); its session is gone (404).

On a loopback --listen (the default), a request whose Host or Origin names
another host is refused with 403 (a guard against DNS rebinding);
--allow-origin widens it. Requests the bridge answers itself (refused, or
malformed for HTTP) never reach a server: they go to a log of the bridge's
own, with "by_proxy": true, which check reports as transport notes.

SIGINT or SIGTERM ends the servers as the stdio transport asks (their input
closes; SIGTERM after --kill-grace; SIGKILL a --kill-grace later) and
flushes the logs. The servers never outlive the bridge. Flags may also
come from a .mcpsnoop.toml in the working directory, as for the shim.`,
		Example: `  mcpsnoop bridge -- npx -y @modelcontextprotocol/server-everything stdio
  mcpsnoop bridge --listen 127.0.0.1:7001 --log-dir artifacts/mcp -- go run ./cmd/server
  npx @modelcontextprotocol/conformance server --url http://127.0.0.1:7001/mcp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runBridge(cmd, args, &o) },
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // flags after the server command are the server's
	f.StringVar(&o.listen, "listen", "127.0.0.1:7001", "address to listen on (host:port; port 0 picks a free one); the endpoint is /mcp")
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "on a loopback --listen, also answer requests with this Origin, scheme://host[:port] or null (repeatable); its host is accepted as the Host too")
	f.DurationVar(&o.sessionIdle, "session-idle", 10*time.Minute, "end a session (and its server) that has had no request in flight and no GET stream for this long (0: only DELETE ends it)")
	f.StringVar(&o.shim.Label, "label", "", "server label in the logs and their file names (default: named after the server, from the command)")
	o.shim.RegisterLogFlags(f)
	f.DurationVar(&o.shim.KillGrace, "kill-grace", stdio.DefaultKillGrace, "how long a server may take to exit once its input has ended before it gets SIGTERM, and after SIGTERM before it is killed")
	o.shim.Redact.Register(f)
	o.shim.OTLP.Register(f)
	return cmd
}

// bridgeFail is a usage error: exit 2, one line on stderr.
func bridgeFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop bridge: " + fmt.Sprintf(format, args...)}
}

func runBridge(cmd *cobra.Command, args []string, o *bridgeOptions) error {
	if len(args) == 0 {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return bridgeFail("no server command to run: mcpsnoop %s", bridgeUsage)
	}
	if o.shim.KillGrace <= 0 {
		return bridgeFail("--kill-grace must be positive, got %s", o.shim.KillGrace)
	}
	if o.sessionIdle < 0 {
		return bridgeFail("--session-idle must not be negative, got %s", o.sessionIdle)
	}
	cfg, notice, err := capturecli.LoadProjectConfig("mcpsnoop bridge")
	if err != nil {
		return bridgeFail("%v", err)
	}
	st, err := capturecli.MergeSettings(cmd, &o.shim, cfg, capture.DeriveLabel(args), "server")
	if err != nil {
		return bridgeFail("%v", err)
	}
	notes := capture.NewNotices(cmd.ErrOrStderr())
	defer notes.Close(capture.NoticeFlush)
	if notice != "" {
		notes.Say(notice)
	}
	if st.Sink, err = o.shim.OTLP.Open("mcpsnoop bridge", notes); err != nil {
		return bridgeFail("%v", err)
	}
	defer capturecli.CloseSink(st.Sink, notes, "mcpsnoop bridge") // after the logs are closed below
	l, err := listenHTTP("mcpsnoop bridge", o.listen, o.allowOrigins, notes)
	if err != nil {
		return bridgeFail("%v", err)
	}

	b := bridge.New(bridge.Options{
		Command: args, KillGrace: o.shim.KillGrace, Notices: notes,
		OpenLog: func(bool) (io.WriteCloser, capture.LogOptions) { return openBridgeLog(st, st.Label, notes) },
	})
	refusals := bridge.NewRefusalLog(args, func() (io.WriteCloser, capture.LogOptions) {
		return openBridgeLog(st, st.Label+"-bridge", notes)
	})
	h := serve.NewHandler(serve.Options{
		Name: "mcpsnoop bridge", Backend: b, Guard: l.guard, Notices: notes,
		OnRefuse: refusals.Record, SessionIdle: o.sessionIdle,
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(notes, "mcpsnoop bridge: serving %q at http://%s%s\n", strings.Join(st.Redactor.Command(args), " "), l.Addr(), serve.DefaultPath)
	// The servers are told first (their input ends), so that the streams
	// waiting on them end and the HTTP server's shutdown has nothing long
	// to wait for.
	serveErr := l.serve(srv, notes, func(sigs <-chan os.Signal) {
		h.Close()
		shutdownServer(srv, httpShutdownGrace, sigs, nil)
	})
	b.Wait()
	if lost := refusals.Close(); lost > 0 {
		notes.Say(fmt.Sprintf("mcpsnoop bridge: %d frame(s) were dropped from the log %s; it is incomplete\n", lost, refusals.Path()))
	}
	if n := h.Dropped(); n > 0 {
		notes.Say(fmt.Sprintf("mcpsnoop bridge: %d message(s) from the servers had no open stream to go to and were dropped (each is in its server's log)\n", n))
	}
	if serveErr != nil {
		return &exitError{code: 1, msg: "mcpsnoop bridge: " + serveErr.Error()}
	}
	return nil
}

// openBridgeLog opens the log of one server process (or the bridge's own,
// under label) and says where it goes. A log that cannot be opened costs
// the log, never the server.
func openBridgeLog(st capturecli.Settings, label string, notes *capture.Notices) (io.WriteCloser, capture.LogOptions) {
	st.Label = label
	if st.NoTrace {
		if st.Sink == nil {
			return nil, capture.LogOptions{}
		}
		return capturecli.SpanOnlyLog(st.Sink), capture.LogOptions{SessionID: capture.NewSessionID(label), Label: label, Path: "(no log)", Redactor: st.Redactor}
	}
	f, path, sid := capturecli.OpenLog(st, notes, "mcpsnoop bridge")
	if f == nil {
		if st.Sink == nil {
			return nil, capture.LogOptions{}
		}
		return capturecli.SpanOnlyLog(st.Sink), capture.LogOptions{SessionID: sid, Label: label, Path: "(no log)", Redactor: st.Redactor}
	}
	fmt.Fprintf(notes, "mcpsnoop bridge: logging to %s (session %s)\n", path, sid)
	return capturecli.TapLog(st.Sink, f), capture.LogOptions{
		SessionID: sid, Label: label, Path: path, Redactor: st.Redactor, Warn: notes, MaxSize: st.MaxLogSize,
	}
}
