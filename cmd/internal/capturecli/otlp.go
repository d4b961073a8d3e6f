package capturecli

import (
	"fmt"
	"io"

	"github.com/mcpsnoop/mcpsnoop/otlpsink"
	"github.com/spf13/pflag"
)

// OTLPFlags are --otlp-endpoint and --otlp-header, shared by the stdio
// shim and `mcpsnoop http`: stream each call that ends to a collector.
type OTLPFlags struct {
	endpoint string
	headers  []string
}

// Register adds the flags to f.
func (o *OTLPFlags) Register(f *pflag.FlagSet) {
	f.StringVar(&o.endpoint, "otlp-endpoint", "", "also stream each call that ends as a span to this OTLP/HTTP JSON traces URL, e.g. http://localhost:4318/v1/traces (best effort: never delays traffic)")
	f.StringArrayVar(&o.headers, "otlp-header", nil, "header NAME=VALUE sent to the OTLP endpoint, for collector auth or tenants (repeatable; never logged)")
}

// Open starts the sink the flags ask for: nil when no endpoint is given.
// An error is a usage error naming the flag (never a header's value).
func (o *OTLPFlags) Open(who string, stderr io.Writer) (*otlpsink.Sink, error) {
	if o.endpoint == "" {
		if len(o.headers) > 0 {
			return nil, errString("--otlp-header needs --otlp-endpoint")
		}
		return nil, nil
	}
	u, err := otlpsink.ParseEndpoint(o.endpoint)
	if err != nil {
		return nil, err
	}
	h, err := otlpsink.ParseHeaders(o.headers)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "%s: streaming spans to %s\n", who, otlpsink.ShowURL(u))
	return otlpsink.New(otlpsink.Options{Endpoint: u, Header: h, Warn: stderr, Who: who}), nil
}

type errString string

func (e errString) Error() string { return string(e) }

// TapLog routes a log's file through the sink, so that the spans come
// from exactly the redacted frames the log is given, whether or not the
// file keeps them; out unchanged without a sink.
func TapLog(sink *otlpsink.Sink, out io.WriteCloser) io.WriteCloser {
	if sink == nil {
		return out
	}
	return sink.Tap(out)
}

// SpanOnlyLog is what a capture with no log file (--no-trace, or a log
// that could not be opened) writes to when it streams spans: the sink's
// tap over nothing.
func SpanOnlyLog(sink *otlpsink.Sink) io.WriteCloser { return sink.Tap(nopCloser{io.Discard}) }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// CloseSink flushes the sink (at most its flush time) and says on stderr
// how many spans were lost, if any.
func CloseSink(sink *otlpsink.Sink, stderr io.Writer, who string) {
	if sink == nil {
		return
	}
	sink.Close().Report(stderr, who)
}
