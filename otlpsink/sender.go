package otlpsink

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Sender delivers spans to a collector from a goroutine of its own.
// Enqueue never blocks: a full queue drops the span and counts it.
type Sender struct {
	o     Options
	queue chan otlp.Span

	// closing is closed by Close: flush what is queued, then stop.
	// stop ends FlushTimeout later (or when the flush is done): it
	// cancels the request in flight and every wait.
	closing chan struct{}
	stop    context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	closed  atomic.Bool
	once    sync.Once

	enqueued, sent, droppedFull, refused, droppedExit atomic.Int64

	mu      sync.Mutex
	problem string // the first delivery failure, for the warning and Stats
	warned  bool
}

// Stats are a sender's counts once it is closed. Every span handed to
// Enqueue is in exactly one of Sent, DroppedFull, Refused and DroppedAtExit.
type Stats struct {
	Spans         int64 // handed to Enqueue
	Sent          int64 // accepted by the collector
	DroppedFull   int64 // dropped because the queue was full
	Refused       int64 // refused by the collector (a 4xx other than 429, or partial success)
	DroppedAtExit int64 // still unsent when Close's flush time ran out
	// Problem describes the first failed delivery ("" when none failed).
	Problem string
	// FramesSkipped counts log frames the sink could not trace (its read
	// queue was full); their calls may be missing from the spans.
	FramesSkipped int64
}

// Dropped is how many spans never reached the collector.
func (s Stats) Dropped() int64 { return s.DroppedFull + s.Refused + s.DroppedAtExit }

// NewSender starts a sender for o.Endpoint.
func NewSender(o Options) *Sender {
	o.defaults()
	s := &Sender{o: o, queue: make(chan otlp.Span, o.QueueSize), closing: make(chan struct{}), done: make(chan struct{})}
	s.stop, s.cancel = context.WithCancel(context.Background())
	go s.run()
	return s
}

// Enqueue queues sp for delivery and reports whether it fit. It never
// blocks; after Close it drops sp (counted as dropped at exit).
func (s *Sender) Enqueue(sp otlp.Span) bool {
	s.enqueued.Add(1)
	if s.closed.Load() {
		s.droppedExit.Add(1)
		return false
	}
	select {
	case s.queue <- sp:
		return true
	default:
		s.droppedFull.Add(1)
		return false
	}
}

// Close stops taking spans, sends what is queued for at most
// FlushTimeout, drops the rest and returns the counts.
func (s *Sender) Close() Stats {
	s.once.Do(func() {
		s.closed.Store(true)
		close(s.closing)
		// A request in flight is not cut short at once, only when the
		// flush time is up: a collector that has taken it may be
		// answering, and sending it again would duplicate its spans.
		t := time.AfterFunc(s.o.FlushTimeout, s.cancel)
		<-s.done
		t.Stop()
		s.cancel()
		// Spans that raced with Close into the queue after the flush.
		for {
			select {
			case <-s.queue:
				s.droppedExit.Add(1)
				continue
			default:
			}
			break
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{
		Spans: s.enqueued.Load(), Sent: s.sent.Load(), DroppedFull: s.droppedFull.Load(),
		Refused: s.refused.Load(), DroppedAtExit: s.droppedExit.Load(), Problem: s.problem,
	}
}

// run batches the queue until Close, then flushes.
func (s *Sender) run() {
	defer close(s.done)
	batch := make([]otlp.Span, 0, s.o.BatchSize)
	var due <-chan time.Time // armed by the first span of a batch
	var timer *time.Timer
	for {
		select {
		case sp := <-s.queue:
			batch = append(batch, sp)
			if len(batch) == 1 {
				timer = time.NewTimer(s.o.BatchDelay)
				due = timer.C
			}
			if len(batch) < s.o.BatchSize {
				continue
			}
		case <-due:
		case <-s.closing:
			if timer != nil {
				timer.Stop()
			}
			s.flush(batch)
			return
		}
		if timer != nil {
			timer.Stop()
		}
		due = nil
		if s.deliver(batch) == errClosed {
			s.dropRest(len(batch))
			return
		}
		batch = batch[:0]
	}
}

// flush sends the batch in hand and the queue until the flush time is up,
// then counts what it could not send.
func (s *Sender) flush(batch []otlp.Span) {
	for {
		for len(batch) < s.o.BatchSize {
			select {
			case sp := <-s.queue:
				batch = append(batch, sp)
				continue
			default:
			}
			break
		}
		if len(batch) == 0 {
			return
		}
		if s.deliver(batch) == errClosed {
			s.dropRest(len(batch))
			return
		}
		batch = batch[:0]
	}
}

// dropRest counts a batch of n and the queue as dropped at exit.
func (s *Sender) dropRest(n int) {
	s.droppedExit.Add(int64(n))
	for {
		select {
		case <-s.queue:
			s.droppedExit.Add(1)
			continue
		default:
		}
		return
	}
}

// deliver sends one batch, retrying while the failure is temporary. It
// returns nil once the batch is settled (sent or refused) and errClosed
// when the flush time ran out first (the batch is still unsent). A retry
// waiting when Close comes is tried at once.
func (s *Sender) deliver(batch []otlp.Span) error {
	body, err := otlp.AppendTraces(nil, batch)
	if err != nil {
		s.fail(fmt.Sprintf("encoding spans: %v", err), false)
		s.refused.Add(int64(len(batch)))
		return nil
	}
	n := int64(len(batch))
	closing := s.closing
	select {
	case <-closing:
		closing = nil // flushing already: every wait runs its course
	default:
	}
	for attempt := 0; ; attempt++ {
		res := s.post(s.stop, body)
		switch {
		case res.ok:
			s.sent.Add(n - res.rejected)
			s.refused.Add(res.rejected)
			if res.rejected > 0 {
				s.fail(fmt.Sprintf("the collector rejected %d span(s)", res.rejected), false)
			}
			return nil
		case !res.retry:
			s.fail(res.problem, false)
			s.refused.Add(n)
			return nil
		}
		s.fail(res.problem, true)
		if s.stop.Err() != nil {
			return errClosed
		}
		wait := backoff(attempt, s.o.MinBackoff, s.o.MaxBackoff)
		if res.retryAfter >= 0 {
			wait = res.retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-closing:
			closing = nil // once: later waits run their course
		case <-s.stop.Done():
			t.Stop()
			return errClosed
		}
		t.Stop()
	}
}

// result is what one request came to.
type result struct {
	ok         bool
	rejected   int64 // spans refused in a partial success
	retry      bool
	retryAfter time.Duration // -1 when the collector named none
	problem    string
}

// post sends body once.
func (s *Sender) post(ctx context.Context, body []byte) result {
	ctx, cancel := context.WithTimeout(ctx, s.o.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.o.Endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return result{problem: err.Error(), retryAfter: -1}
	}
	for k, vs := range s.o.Header {
		if strings.EqualFold(k, "Host") && len(vs) > 0 {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.o.Client.Do(req)
	if err != nil {
		// Refused, reset, timed out: the collector may come back.
		return result{retry: true, retryAfter: -1, problem: plainError(err)}
	}
	defer resp.Body.Close()
	// The collector's answer is small; read a bounded part of it.
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return result{ok: true, rejected: partialRejected(answer), retryAfter: -1}
	}
	r := result{retryAfter: -1, problem: "the collector answered " + status(resp)}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		r.problem += redirectNote(resp)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		r.retry = true
		r.retryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return r
}

// status is the answer's status line as a problem shows it: its code and
// at most 128 bytes of the reason the collector gave.
func status(resp *http.Response) string {
	return otlp.CutLive(resp.Status, 128)
}

// redirectNote says where a redirect pointed (scheme, host and path: its
// query and user info may hold a token) and that it was not followed.
func redirectNote(resp *http.Response) string {
	loc, err := resp.Location()
	if err != nil {
		return " without a location (redirects are not followed)"
	}
	return " to " + otlp.CutLive(ShowURL(loc), 512) + " (redirects are not followed: give --otlp-endpoint the final URL)"
}

// partialRejected reads an OTLP partial success: how many spans the
// collector refused although it answered 2xx.
func partialRejected(answer []byte) int64 {
	var ps struct {
		PartialSuccess struct {
			RejectedSpans json.Number `json:"rejectedSpans"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(answer, &ps) != nil {
		return 0
	}
	n, err := ps.PartialSuccess.RejectedSpans.Int64()
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// fail notes a failed delivery; the first one is warned about once.
// retrying says whether the spans are tried again or dropped.
func (s *Sender) fail(problem string, retrying bool) {
	s.mu.Lock()
	first := s.problem == ""
	if first {
		s.problem = problem
	}
	warn := first && !s.warned && s.o.Warn != nil
	s.warned = s.warned || warn
	s.mu.Unlock()
	if warn {
		then := "they are dropped"
		if retrying {
			then = "retrying in the background"
		}
		fmt.Fprintf(s.o.Warn, "%s: otlp: warning: sending spans to %s failed (%s); %s, traffic is not affected\n",
			s.o.Who, termsafe.Clean(ShowURL(s.o.Endpoint), false), termsafe.Clean(problem, false), then)
	}
}
