package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/demo"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/mcpsnoop/mcpsnoop/viewer"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newDemoCmd) }

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Record a scripted MCP session and show it",
		Long: `demo starts a small MCP server (a made-up weather service with four tools)
and a scripted MCP client inside this process, which speak MCP over
Streamable HTTP (revision 2025-11-25, with a session), and puts mcpsnoop's
HTTP capture proxy between them on loopback. It records into a
new temporary directory (mcpsnoop-demo-* under $TMPDIR), never into
MCPSNOOP_HOME or the usual state directory, and prints its path first.

The client makes nine requests, the 9 calls the viewer's header counts:
server/discover, initialize, tools/list and six tool calls: forecast and
convert (quick, ok), alerts (the tool fails: isError), radar (no such tool:
a JSON-RPC error), history (slow, about 1.5s) and forecast again.

On a terminal the live viewer follows the session as it is recorded (press ?
for the keys, e to export it as HTML into DIR/exports, q to quit). Otherwise
demo prints the report mcpsnoop check gives for the session, and exits 0
whatever the report says. The directory is kept afterwards (delete it when
done), so "mcpsnoop open DIR/sessions" shows the session again.`,
		Args: cobra.NoArgs,
		RunE: runDemo,
	}
}

// demoPause is the pause between the demo client's steps on a terminal, so
// the frames can be seen arriving (a test hook).
var demoPause = 400 * time.Millisecond

// demoSlow is how long the slow tool takes.
var demoSlow = 1500 * time.Millisecond

func runDemo(cmd *cobra.Command, _ []string) error {
	out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	state, err := os.MkdirTemp("", "mcpsnoop-demo-")
	if err != nil {
		return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
	}
	sessions := filepath.Join(state, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
	}
	fmt.Fprintf(stderr, "mcpsnoop demo: recording into %s\n", state)
	if !isTerminal(out) {
		logPath, err := recordDemo(cmd.Context(), sessions, 0)
		if err != nil {
			return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
		}
		eng := checker.New(checker.Config{Baseline: baseline.Store{Dir: filepath.Join(state, "tool-baselines")}})
		if err := ingestInput(eng, capture.Input{Path: logPath, Name: logPath}, nil); err != nil {
			return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
		}
		if err := report.WriteText(out, eng.Report(), report.TextOptions{}); err != nil {
			return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
		}
		fmt.Fprintf(stderr, "mcpsnoop demo: the session log is %s (mcpsnoop open %s)\n", logPath, logPath)
		return nil
	}

	fol := viewer.NewFollower([]string{sessions}, 0)
	if err := fol.Start(); err != nil {
		return &exitError{code: 1, msg: "mcpsnoop demo: " + err.Error()}
	}
	defer fol.Close()
	m := viewer.New(viewer.NewStore(viewer.LiveLimits), viewer.Options{
		Live: true, Title: "mcpsnoop demo", Export: viewerExporter(nil), ExportDir: filepath.Join(state, "exports"),
	})
	var logPath string
	err = runViewer(m, out, func(ctx context.Context, send func(tea.Msg)) {
		recorded := make(chan struct{})
		defer func() { <-recorded }() // logPath is read once the viewer is done
		go func() {
			defer close(recorded)
			p, err := recordDemo(ctx, sessions, demoPause)
			msg := "demo finished: press enter on the session, / to filter (try status:error), s for tools, e to export, q to quit"
			if err != nil && ctx.Err() == nil {
				msg = "demo failed: " + err.Error()
			}
			logPath = p
			send(viewer.Batch{Notices: []string{msg}})
		}()
		followInto(ctx, fol, send)
	})
	if logPath != "" {
		fmt.Fprintf(stderr, "mcpsnoop demo: the session log is %s (mcpsnoop open %s)\n", logPath, logPath)
	}
	return err
}

// recordDemo runs the demo exchange through mcpsnoop's HTTP capture proxy
// into a new log in dir and returns the log's path. pause separates the
// client's steps.
func recordDemo(ctx context.Context, dir string, pause time.Duration) (string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	backLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	server := demo.NewServer(demoSlow)
	back := &http.Server{Handler: server, ReadHeaderTimeout: 10 * time.Second}
	go back.Serve(backLn)
	defer func() {
		back.Close()
		server.Close()
	}()

	target, err := httpcapture.ParseTarget("http://" + backLn.Addr().String() + serve.DefaultPath)
	if err != nil {
		return "", err
	}
	sid := capture.NewSessionID("demo")
	f, logPath, err := capture.OpenLogFile(filepath.Join(dir, sid+".jsonl"))
	if err != nil {
		return "", err
	}
	log := httpcapture.NewLog(f, httpcapture.LogOptions{SessionID: sid, Label: "demo", Path: logPath})
	proxy := httpcapture.NewProxy(httpcapture.ProxyOptions{Target: target, Log: log})
	frontLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Close()
		return "", err
	}
	front := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go front.Serve(frontLn)
	defer func() {
		proxy.CloseStreams()
		front.Close()
		proxy.Wait()
		log.Close()
	}()

	wait := func(ctx context.Context) error {
		select {
		case <-time.After(pause):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The failing calls fail on purpose: the log is what the demo is for.
	_, _, err = demo.Play(ctx, "http://"+frontLn.Addr().String()+serve.DefaultPath, wait)
	return logPath, err
}
