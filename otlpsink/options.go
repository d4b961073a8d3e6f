// Package otlpsink streams a capture's calls to an OpenTelemetry collector
// while the capture runs: each call that ends becomes a span, mapped as
// `mcpsnoop export -T otlp` maps it (package export/otlp), and is sent as
// OTLP/HTTP JSON to the collector's traces endpoint.
//
// Delivery is best effort and never in the way of traffic. The sink reads
// what the session log is given (Tap wraps the log's output and, as a
// capture.LineObserver, is shown each redacted frame the log writer
// encodes, on its goroutine, whether or not the file takes it: a full disk
// or --max-log-size loses frames from the log, not from the stream), turns
// them into spans on a goroutine of its own, and
// hands them to a Sender: a bounded queue (2,048 spans) drained in batches
// (up to 512, or every 5 s), retried in the background with backoff on
// 429, 502, 503, 504 and network failures, honouring Retry-After. A full
// queue drops the new span and counts it. At exit the sender flushes for
// at most 2 s and drops what is left, counted; the session log stays the
// durable record.
package otlpsink

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Defaults of Options.
const (
	DefaultQueueSize      = 2048
	DefaultBatchSize      = 512
	DefaultBatchDelay     = 5 * time.Second
	DefaultFlushTimeout   = 2 * time.Second
	DefaultRequestTimeout = 10 * time.Second
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	// MaxRetryAfter caps the wait a collector's Retry-After can ask for.
	MaxRetryAfter = 5 * time.Minute
)

// Options configure a Sender. Zero values take the defaults above.
type Options struct {
	// Endpoint is the collector's OTLP/HTTP traces URL, e.g.
	// http://localhost:4318/v1/traces (see ParseEndpoint).
	Endpoint *url.URL
	// Header is sent with every request (collector auth, tenant). It is
	// never logged.
	Header http.Header

	QueueSize      int           // spans waiting to be sent
	BatchSize      int           // spans per request at most
	BatchDelay     time.Duration // how long a span waits for its batch to fill
	FlushTimeout   time.Duration // how long Close may take
	RequestTimeout time.Duration // one request's limit
	MinBackoff     time.Duration // first retry delay (doubled per failure)
	MaxBackoff     time.Duration // longest retry delay without a Retry-After

	// Client sends the requests; nil for a client of the sender's own.
	Client *http.Client
	// Warn gets one line the first time delivery fails (nil: nowhere).
	Warn io.Writer
	// Who prefixes that line ("mcpsnoop", "mcpsnoop http").
	Who string
}

func (o *Options) defaults() {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&o.QueueSize, DefaultQueueSize)
	set(&o.BatchSize, DefaultBatchSize)
	setD(&o.BatchDelay, DefaultBatchDelay)
	setD(&o.FlushTimeout, DefaultFlushTimeout)
	setD(&o.RequestTimeout, DefaultRequestTimeout)
	setD(&o.MinBackoff, DefaultMinBackoff)
	setD(&o.MaxBackoff, DefaultMaxBackoff)
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: noRedirects}
	}
	if o.Who == "" {
		o.Who = "mcpsnoop"
	}
}

// ParseEndpoint checks an --otlp-endpoint value: an absolute http or https
// URL with a host. The path is used as given (an OTLP/HTTP collector takes
// traces on /v1/traces).
func ParseEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a token
		}
		return nil, fmt.Errorf("--otlp-endpoint: not a URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("--otlp-endpoint %s: want an http:// or https:// URL, e.g. http://localhost:4318/v1/traces", ShowURL(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--otlp-endpoint %s: no host", ShowURL(u))
	}
	return u, nil
}

// ParseHeaders reads --otlp-header values (K=V each). An error names the
// header by its position and name, never its value, which may be a secret.
func ParseHeaders(kvs []string) (http.Header, error) {
	h := http.Header{}
	for i, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok {
			return nil, fmt.Errorf("--otlp-header #%d has no '=': want NAME=VALUE", i+1)
		}
		if !httpguts.ValidHeaderFieldName(k) {
			if k == "" {
				return nil, fmt.Errorf("--otlp-header #%d has an empty name: want NAME=VALUE", i+1)
			}
			return nil, fmt.Errorf("--otlp-header #%d: %q is not a valid header name", i+1, k)
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, fmt.Errorf("--otlp-header %s: the value holds a control character (a line break, NUL, escape or DEL), which no header may", k)
		}
		h.Add(k, strings.TrimSpace(v))
	}
	return h, nil
}

// ShowURL is how messages name the endpoint: scheme, host and path, with
// no user info or query, either of which may carry a token.
func ShowURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// noRedirects keeps the sender's client from following a redirect: a
// collector's headers (a token, a tenant) would go to wherever it points,
// another host included. The redirect itself is the answer, a failure
// that names where it pointed.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// errClosed is returned by a delivery cut short by Close.
var errClosed = errors.New("closed")
