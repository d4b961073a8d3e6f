package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/hub"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/spf13/cobra"
)

// Test hooks of the metrics hub: where its stop signals come from, and
// who hears the address it listens on.
var (
	hubSignals = func() (<-chan os.Signal, func()) {
		c := make(chan os.Signal, 2)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
		return c, func() { signal.Stop(c) }
	}
	hubListening func(addr net.Addr)
)

// runHub is `mcpsnoop --metrics-listen ADDR [folder...]`: a headless hub
// that follows the live view's log folders and the folders given,
// and serves Prometheus metrics on ADDR until SIGINT or SIGTERM.
func runHub(cmd *cobra.Command, folders []string, limit int, addr string) error {
	if limit < 0 {
		return shimFail("--history-limit must be 0 (all) or more, got %d", limit)
	}
	if cmd.ArgsLenAtDash() >= 0 {
		return shimFail("--metrics-listen runs the metrics hub, which takes folders of session logs, not a server command after --")
	}
	if addr == "" {
		return shimFail("--metrics-listen needs an address, e.g. 127.0.0.1:9464")
	}
	for _, dir := range folders {
		info, err := os.Stat(dir)
		if err != nil {
			return shimFail("--metrics-listen: cannot follow %s: %v", dir, atomicfile.PlainError(err))
		}
		if !info.IsDir() {
			return shimFail("--metrics-listen: %s is not a folder (give folders of session logs)", dir)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return shimFail("--metrics-listen: cannot listen on %s: %v", addr, err)
	}
	defer ln.Close()
	stderr := cmd.ErrOrStderr()
	notice := func(s string) { fmt.Fprintln(stderr, "mcpsnoop: "+termsafe.Clean(s, false)) }
	dirs := followedFolders(folders...)
	h := hub.New(dirs, limit)
	if err := h.Start(notice); err != nil {
		return &exitError{code: 1, msg: "mcpsnoop: following " + strings.Join(dirs, ", ") + ": " + err.Error()}
	}
	defer h.Close()
	fmt.Fprintf(stderr, "mcpsnoop: serving metrics on http://%s/metrics (no authentication: anyone who can reach it reads the servers' labels and tool names), following %s\n",
		ln.Addr(), termsafe.Clean(strings.Join(dirs, ", "), false))
	if hubListening != nil {
		hubListening(ln.Addr())
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	followed := make(chan struct{})
	go func() { defer close(followed); h.Run(ctx, notice) }()

	sigs, stop := hubSignals()
	defer stop()
	var serveErr error
	select {
	case serveErr = <-served:
	case sig := <-sigs:
		fmt.Fprintf(stderr, "mcpsnoop: %s: stopping the metrics hub\n", stdio.SignalName(sig))
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = srv.Shutdown(sctx)
		scancel()
	}
	cancel()
	<-followed
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &exitError{code: 1, msg: "mcpsnoop: metrics hub: " + serveErr.Error()}
	}
	return nil
}
