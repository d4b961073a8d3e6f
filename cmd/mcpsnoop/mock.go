package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/mcpsnoop/mcpsnoop/serve/mock"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newMockCmd) }

// mockOptions are the flags of `mcpsnoop mock`.
type mockOptions struct {
	listen          string
	match           string
	session         string
	failOnUnmatched bool
	answerTimeout   time.Duration
	allowOrigins    []string
	sessionIdle     time.Duration
	label           string
	traceFile       string
	logDir          string
	maxLogSize      string
}

const mockUsage = "mock [--listen ADDR] [--match method-params|sequential|exact] [--fail-on-unmatched] RECORDING"

func newMockCmd() *cobra.Command {
	var o mockOptions
	cmd := &cobra.Command{
		Use:   mockUsage,
		Short: "Answer MCP clients from a recorded session, over stdio or Streamable HTTP",
		Long: `mcpsnoop mock plays the server of a recorded session (a log mcpsnoop
captured) to a live client, so that a client or an agent can be tested
without the server it was recorded against: one that needs credentials, a
database or a paid API.

Without --listen it speaks MCP's stdio transport on its standard input and
output: a client runs "mcpsnoop mock RECORDING" as its server command. With
--listen it serves Streamable HTTP at http://ADDR/mcp: a client of revision
2025-11-25 or earlier gets a session (an Mcp-Session-Id) per initialize,
each answered from the start of the recording; requests that declare
2026-07-28 share one conversation, with no session.

initialize and server/discover get the recorded server's answer, with the
client's own id. Every other request gets the recorded answer of the
request that matches it (--match):
  method-params  the same method and params, ignoring _meta and the id (the
                 default); of several, the first not answered yet, else the
                 last one answered
  sequential     the next recorded request, when its method is the same
  exact          the same method and params, _meta included
An MRTR retry (params with inputResponses or requestState) matches the
recorded retry of the same request, whatever its requestState. The answer's
result is the recorded bytes; only the id is the client's.

The server's notifications and requests recorded with a request are sent
with it, before or after its answer as they were recorded (a progress
notification with the client's own progress token); the client's answers to
the server's requests are awaited at most --answer-timeout each.

A request nothing matches is answered -32601 when no recorded request has
its method, else -32602; the message names the closest recorded request.
With --fail-on-unmatched the command exits 1 at the end when any request
went unmatched, so a client test in CI fails.

The mock's own traffic is recorded only when --trace-file or --log-dir is
given (one log per HTTP session), written as the shim writes its logs, so
"mcpsnoop check" can gate the client on it.

It ends when the client closes its input (stdio), or on SIGINT or SIGTERM.
Exit codes: 0 ended, 1 something went unmatched under --fail-on-unmatched
(or the HTTP server failed), 2 bad usage or a recording that cannot be read.`,
		Example: `  mcpsnoop mock recording.jsonl
  mcpsnoop mock --fail-on-unmatched --log-dir artifacts/mock testdata/server.jsonl
  mcpsnoop mock --listen 127.0.0.1:7002 --match sequential testdata/server.jsonl`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runMock(cmd, args, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "", "serve Streamable HTTP at http://ADDR/mcp (host:port; port 0 picks a free one) instead of stdio")
	f.StringVar(&o.match, "match", "method-params", "how a request finds its recorded one: method-params, sequential or exact")
	f.StringVar(&o.session, "session", "", "the session of the recording to answer from, when its log holds several (default: the first)")
	f.BoolVar(&o.failOnUnmatched, "fail-on-unmatched", false, "exit 1 at the end when any request had no recorded match")
	f.DurationVar(&o.answerTimeout, "answer-timeout", mock.DefaultAnswerTimeout, "how long to wait for the client's answer to each recorded server request")
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "with a loopback --listen, also answer requests with this Origin, scheme://host[:port] or null (repeatable)")
	f.DurationVar(&o.sessionIdle, "session-idle", 10*time.Minute, "with --listen, end a session that has had nothing in flight for this long (0: only DELETE ends it)")
	f.StringVar(&o.label, "label", "", "server label of the mock's logs and their file names (default: the recording's)")
	f.StringVar(&o.traceFile, "trace-file", "", "record the mock's session to this file, appending")
	f.StringVar(&o.logDir, "log-dir", "", "record each mock session in this folder (created if missing) as <session-id>.jsonl")
	f.StringVar(&o.maxLogSize, "max-log-size", capture.FormatSize(capture.DefaultMaxLogSize), "stop recording a session past this size (0: no bound)")
	return cmd
}

// mockFail is a usage error: exit 2, one line on stderr.
func mockFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop mock: " + fmt.Sprintf(format, args...)}
}

func runMock(cmd *cobra.Command, args []string, o *mockOptions) error {
	if len(args) == 0 {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return mockFail("no recording to answer from: mcpsnoop %s", mockUsage)
	}
	if len(args) > 1 {
		return mockFail("one recording at a time, got %d", len(args))
	}
	mode, err := mock.ParseMode(o.match)
	if err != nil {
		return mockFail("--match: %v", err)
	}
	if o.answerTimeout <= 0 {
		return mockFail("--answer-timeout must be positive, got %s", o.answerTimeout)
	}
	if o.sessionIdle < 0 {
		return mockFail("--session-idle must not be negative, got %s", o.sessionIdle)
	}
	st, err := mockLogSettings(cmd, o)
	if err != nil {
		return mockFail("%v", err)
	}
	in := capture.Input{Path: args[0], Name: args[0]}
	if args[0] == "-" {
		if o.listen == "" {
			return mockFail("the recording cannot be standard input: the stdio mock's input is the client's")
		}
		in = capture.Input{Name: "stdin", Stdin: true}
	}
	rec, err := mock.Load(in, cmd.InOrStdin(), o.session)
	if err != nil {
		return mockFail("%v", err)
	}
	if st.Label == "" {
		st.Label = rec.Label
		if capture.ValidateLabel(st.Label) != nil {
			st.Label = "mock"
		}
	}
	if st.TraceFile != "" && capturecli.SameFile(st.TraceFile, cmd.OutOrStdout()) {
		return mockFail("--trace-file %s is the mock's own stdout, which carries its messages to the client; name another file", st.TraceFile)
	}
	notes := capture.NewNotices(cmd.ErrOrStderr())
	defer notes.Close(capture.NoticeFlush)
	if rec.Unattached > 0 {
		fmt.Fprintf(notes, "mcpsnoop mock: %s: %d message(s) of the server's came before any request of the client's; nothing the mock answers carries them\n", in.Name, rec.Unattached)
	}
	e := mock.New(rec, mock.Options{Mode: mode, AnswerTimeout: o.answerTimeout, Notices: notes})
	meta := stdio.NewMeta([]string{"mcpsnoop", "mock", args[0]})
	openLog := func() *capture.LogWriter { return openMockLog(st, meta, notes) }
	if o.listen == "" {
		err = serveMockStdio(cmd, e, openLog)
	} else {
		err = serveMockHTTP(e, o, openLog, notes)
	}
	return mockVerdict(e, o, notes, err)
}

// mockLogSettings reads the flags that say where the mock's logs go. The
// mock records nothing unless asked: its sessions are a client's tests,
// not captures of a server to keep in the state directory.
func mockLogSettings(cmd *cobra.Command, o *mockOptions) (capturecli.Settings, error) {
	st := capturecli.Settings{Label: o.label, TraceFile: o.traceFile, LogDir: o.logDir, MaxLogSize: capture.DefaultMaxLogSize}
	if cmd.Flags().Changed("label") {
		if err := capture.ValidateLabel(o.label); err != nil {
			return st, err
		}
	}
	if st.TraceFile != "" && st.LogDir != "" {
		return st, errors.New("--trace-file and --log-dir both say where the log goes; give one")
	}
	if cmd.Flags().Changed("log-dir") && o.logDir == "" {
		return st, errors.New("--log-dir is empty")
	}
	if cmd.Flags().Changed("max-log-size") {
		n, err := capture.ParseSize(o.maxLogSize)
		if err != nil {
			return st, fmt.Errorf("--max-log-size: %v", err)
		}
		st.MaxLogSize = n
	}
	st.NoTrace = st.TraceFile == "" && st.LogDir == ""
	return st, nil
}

// openMockLog opens the log of one mock session; nil when none was asked
// for, or it cannot be opened (the session goes on without it).
func openMockLog(st capturecli.Settings, meta capture.SessionMeta, notes *capture.Notices) *capture.LogWriter {
	if st.NoTrace {
		return nil
	}
	f, path, sid := capturecli.OpenLog(st, notes, "mcpsnoop mock")
	if f == nil {
		return nil
	}
	fmt.Fprintf(notes, "mcpsnoop mock: recording to %s (session %s)\n", path, sid)
	return mock.NewLog(f, capture.LogOptions{SessionID: sid, Label: st.Label, Path: path, Warn: notes, MaxSize: st.MaxLogSize}, meta)
}

// serveMockStdio answers one client on standard input and output.
func serveMockStdio(cmd *cobra.Command, e *mock.Engine, openLog func() *capture.LogWriter) error {
	log := openLog()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// With SIGPIPE caught, a client that stopped reading makes a write to
	// stdout fail (and the mock end) instead of killing it before its log
	// is flushed.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	sigs, stopSignals := httpSignals()
	defer stopSignals()
	go func() {
		select {
		case <-sigs:
			stop()
		case <-ctx.Done():
		}
	}()
	s := &mock.Stdio{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: log}
	err := s.Serve(ctx, e)
	closeMockLog(log)
	if errors.Is(err, context.Canceled) {
		return nil // a signal: the end, as the client's input closing is
	}
	return err
}

// closeMockLog flushes a log (a loss was told through notices as it
// happened).
func closeMockLog(log *capture.LogWriter) {
	if log != nil {
		log.Close()
	}
}

// serveMockHTTP serves Streamable HTTP until SIGINT or SIGTERM.
func serveMockHTTP(e *mock.Engine, o *mockOptions, openLog func() *capture.LogWriter, notes *capture.Notices) error {
	l, err := listenHTTP("mcpsnoop mock", o.listen, o.allowOrigins, notes)
	if err != nil {
		return mockFail("%v", err)
	}
	b := mock.NewBackend(e, func(bool) *capture.LogWriter { return openLog() })
	h := serve.NewHandler(serve.Options{Name: "mcpsnoop mock", Backend: b, Guard: l.guard, Notices: notes, SessionIdle: o.sessionIdle})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(notes, "mcpsnoop mock: serving the recording at http://%s%s\n", l.Addr(), serve.DefaultPath)
	serveErr := l.serve(srv, notes, func(sigs <-chan os.Signal) {
		h.Close()
		shutdownServer(srv, httpShutdownGrace, sigs, nil)
	})
	b.Wait()
	if serveErr != nil {
		return &exitError{code: 1, msg: "mcpsnoop mock: " + serveErr.Error()}
	}
	return nil
}

// mockVerdict says what went unmatched and decides the exit code.
func mockVerdict(e *mock.Engine, o *mockOptions, notes *capture.Notices, err error) error {
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: 1, msg: "mcpsnoop mock: " + err.Error()}
	}
	u := e.Unmatched()
	line := fmt.Sprintf("mcpsnoop mock: answered %d request(s) from the recording; %d went unmatched", e.Answered(), len(u))
	if n := e.Unanswered(); n > 0 {
		line += fmt.Sprintf("; the client left %d of the server's requests unanswered", n)
	}
	fmt.Fprintln(notes, line)
	if len(u) > 0 && o.failOnUnmatched {
		return &exitError{code: 1, msg: fmt.Sprintf("mcpsnoop mock: %d request(s) had no recorded match (--fail-on-unmatched)", len(u))}
	}
	return nil
}
