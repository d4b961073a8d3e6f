package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
)

// Test hooks of http, bridge and mock: where signals come from, and who
// hears the listening address once the server is about to serve.
var (
	httpSignals = func() (<-chan os.Signal, func()) {
		c := make(chan os.Signal, 2)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
		return c, func() { signal.Stop(c) }
	}
	httpListening func(addr net.Addr)
)

// httpListener is what `http`, `bridge` and `mock` serve on: a listening
// socket, the Host/Origin guard its address calls for, and the signals
// that end serving on it.
type httpListener struct {
	name        string // the command, as its notes name it
	ln          net.Listener
	guard       *hostcheck.Policy
	sigs        <-chan os.Signal
	stopSignals func()
}

// listenHTTP takes SIGINT and SIGTERM before it listens, so that a
// supervisor that stops the command as soon as it says where it listens
// gets a flushed log and exit 0, not a process killed mid-start. It warns
// when --allow-origin cannot apply (the address is not loopback).
func listenHTTP(name, addr string, allowOrigins []string, notes io.Writer) (*httpListener, error) {
	sigs, stopSignals := httpSignals()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		stopSignals()
		return nil, err
	}
	guard, err := hostcheck.New(ln.Addr().String(), allowOrigins)
	if err != nil {
		ln.Close()
		stopSignals()
		return nil, err
	}
	if !guard.Active() && len(allowOrigins) > 0 {
		fmt.Fprintf(notes, "%s: warning: --allow-origin does nothing here: %s is not a loopback address, so no request's Host or Origin is checked\n", name, ln.Addr())
	}
	return &httpListener{name: name, ln: ln, guard: guard, sigs: sigs, stopSignals: stopSignals}, nil
}

// Addr is where it listens.
func (l *httpListener) Addr() net.Addr { return l.ln.Addr() }

// serve runs srv until it fails or a signal comes, then calls shutdown
// with the signal channel (a second signal cuts its grace short) and
// returns once srv.Serve has. The error is srv's own, nil when it ended by
// the signal.
func (l *httpListener) serve(srv *http.Server, notes io.Writer, shutdown func(sigs <-chan os.Signal)) error {
	defer l.stopSignals()
	if httpListening != nil {
		httpListening(l.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l.ln) }()
	var err error
	select {
	case err = <-served:
		shutdown(l.sigs)
	case sig := <-l.sigs:
		fmt.Fprintf(notes, "%s: %s: shutting down\n", l.name, stdio.SignalName(sig))
		shutdown(l.sigs)
		err = <-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// shutdownServer gives the exchanges in flight grace, or until a second
// signal, to finish before their connections are closed; then, when given,
// calls after with what is left of the grace.
func shutdownServer(srv *http.Server, grace time.Duration, sigs <-chan os.Signal, after func(context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	if after != nil {
		after(ctx)
	}
}
