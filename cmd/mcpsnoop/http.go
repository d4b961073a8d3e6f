package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newHTTPCmd) }

// httpOptions are the flags of `mcpsnoop http`.
type httpOptions struct {
	target       string
	listen       string
	allowOrigins []string
	shim         capturecli.Options // label, trace-file, no-trace and redaction, as the shim reads them
}

// How long in-flight exchanges get to finish after SIGINT or SIGTERM
// before their connections are closed. The server's GET event streams
// never finish on their own, so they are ended at once.
const httpShutdownGrace = 2 * time.Second // as the reference (capture-store-export.md 4.1)

func newHTTPCmd() *cobra.Command {
	var o httpOptions
	cmd := &cobra.Command{
		Use:   "http --target URL [--listen ADDR]",
		Short: "Record an MCP server's streamable-HTTP traffic as a reverse proxy",
		Long: `mcpsnoop http is a reverse proxy for one MCP server that speaks streamable
HTTP. Point your client at the listening address instead of the server:
every request and response is forwarded unchanged, responses stream as they
arrive, and each JSON-RPC message is logged as a frame of one session log
in <state>/sessions/<label>-<pid>-<random>.jsonl (label: the target's
host:port unless --label says otherwise), which mcpsnoop check reads.

Statuses without a JSON-RPC answer (202, a 401 challenge, a 403 for an
Origin, a 502 when the target cannot be reached) are logged too, with the
id of the request they answer. The log starts with a meta frame naming the
target (scheme, host and port), and each request's Host and Origin are
logged with it.

On a loopback --listen (the default), a request whose Host header is not
localhost, 127.0.0.0/8 or [::1] (any port), or whose Origin header is
present and names another host, is refused with a 403 of mcpsnoop's own
and never forwarded: a web page cannot reach the server by having its name
resolve to 127.0.0.1 (DNS rebinding). Requests without an Origin (command
line clients, SDKs) pass. --allow-origin widens the check; a non-loopback
--listen has none. The refusal is logged with "by_proxy": true. Compressed responses are logged decoded.
Authorization, cookies, Mcp-Session-Id and Last-Event-ID are forwarded and
never logged. SIGINT or SIGTERM stops listening, ends event streams and
upgraded connections, gives other exchanges in flight 2s to finish, and
flushes the log. Flags may also come from a .mcpsnoop.toml
in the working directory; flags on the command line win. Until you trust
that file ("mcpsnoop trust"), the settings in it that would send data off
this machine or write outside its folder are ignored.

With --otlp-endpoint each call that ends is also sent as a span to an
OTLP/HTTP collector, in the background: a dead collector costs spans
(counted on stderr at exit), never traffic.`,
		Example: `  mcpsnoop http --target http://127.0.0.1:8080/mcp
  mcpsnoop http --target https://mcp.example.com/mcp --listen 127.0.0.1:7001 --redact-secrets`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runHTTP(cmd, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "", "URL of the MCP server to forward to (required), e.g. http://127.0.0.1:8080/mcp")
	f.StringVar(&o.listen, "listen", "127.0.0.1:7000", "address to listen on (host:port; port 0 picks a free one)")
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "on a loopback --listen, also answer requests with this Origin, scheme://host[:port] or null (repeatable); its host is accepted as the Host too")
	f.StringVar(&o.shim.Label, "label", "", "server label in the log and its file name (default: the target's host:port)")
	o.shim.RegisterLogFlags(f)
	o.shim.Redact.Register(f)
	o.shim.OTLP.Register(f)
	return cmd
}

// httpFail is a usage error: exit 2, one line on stderr.
func httpFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop http: " + fmt.Sprintf(format, args...)}
}

func runHTTP(cmd *cobra.Command, o *httpOptions) error {
	capture.BoundMemory() // the heap near what is live, whatever the traffic
	if o.target == "" {
		return httpFail("--target is required")
	}
	target, err := httpcapture.ParseTarget(o.target)
	if err != nil {
		return httpFail("%v", err)
	}
	cfg, notice, err := capturecli.LoadProjectConfig("mcpsnoop http")
	if err != nil {
		return httpFail("%v", err)
	}
	st, err := capturecli.MergeSettings(cmd, &o.shim, cfg, httpcapture.DefaultLabel(target), "http")
	if err != nil {
		return httpFail("%v", err)
	}
	// Everything the proxy says goes through one queue that never waits:
	// the log's warnings and the proxy's lines are written while requests
	// are forwarded, and the shutdown line when a signal comes, and stderr
	// may be a full pipe nobody reads. Closed last, after the sink's words.
	notes := capture.NewNotices(cmd.ErrOrStderr())
	defer notes.Close(capture.NoticeFlush)
	if notice != "" {
		notes.Say(notice)
	}
	if st.Sink, err = o.shim.OTLP.Open("mcpsnoop http", notes); err != nil {
		return httpFail("%v", err)
	}
	defer capturecli.CloseSink(st.Sink, notes, "mcpsnoop http") // after the log is closed below
	l, err := listenHTTP("mcpsnoop http", o.listen, o.allowOrigins, notes)
	if err != nil {
		return httpFail("%v", err)
	}
	fmt.Fprintf(notes, "mcpsnoop http: listening on %s, forwarding to %s\n", l.Addr(), target.Redacted())
	var log *httpcapture.Log
	if !st.NoTrace {
		log = openHTTPLog(st, notes, notes)
	} else if st.Sink != nil {
		log = httpcapture.NewLog(capturecli.SpanOnlyLog(st.Sink), httpcapture.LogOptions{
			SessionID: capture.NewSessionID(st.Label), Label: st.Label, Path: "(no log)", Redactor: st.Redactor,
		})
	}
	proxy := httpcapture.NewProxy(httpcapture.ProxyOptions{Target: target, Log: log, Warn: notes, Guard: l.guard})
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 30 * time.Second}
	serveErr := l.serve(srv, notes, func(sigs <-chan os.Signal) { shutdownHTTP(srv, proxy, sigs) })
	if log != nil {
		if lost := log.Close(); lost > 0 {
			notes.Say(fmt.Sprintf("mcpsnoop http: %d frame(s) were dropped from the log %s; it is incomplete\n", lost, log.Path()))
		}
	}
	if serveErr != nil {
		return &exitError{code: 1, msg: "mcpsnoop http: " + serveErr.Error()}
	}
	return nil
}

// shutdownHTTP stops listening, ends the event streams and upgraded
// connections, and gives the exchanges in flight httpShutdownGrace (or
// until a second signal) before closing their connections; then waits for
// their handlers to return, so that all they observed has reached the log.
// It is bounded: past the grace period the proxy ends every exchange and
// waits only a moment more (Proxy.Shutdown); upgraded connections, which
// http.Server neither waits for nor closes, are ended by the proxy.
func shutdownHTTP(srv *http.Server, proxy *httpcapture.Proxy, sigs <-chan os.Signal) {
	proxy.CloseStreams()
	shutdownServer(srv, httpShutdownGrace, sigs, func(ctx context.Context) { _ = proxy.Shutdown(ctx) })
}

// openHTTPLog creates the session's log and says where it goes. A log that
// cannot be opened costs the log, not the proxy.
func openHTTPLog(st capturecli.Settings, stderr io.Writer, warn *capture.Notices) *httpcapture.Log {
	f, path, sid := capturecli.OpenLog(st, stderr, "mcpsnoop http")
	if f == nil {
		if st.Sink == nil {
			return nil
		}
		return httpcapture.NewLog(capturecli.SpanOnlyLog(st.Sink), httpcapture.LogOptions{SessionID: sid, Label: st.Label, Path: "(no log)", Redactor: st.Redactor})
	}
	fmt.Fprintf(stderr, "mcpsnoop http: logging to %s (session %s)\n", path, sid)
	return httpcapture.NewLog(capturecli.TapLog(st.Sink, f), httpcapture.LogOptions{
		SessionID: sid, Label: st.Label, Path: path, Redactor: st.Redactor, Warn: warn, MaxSize: st.MaxLogSize,
	})
}
