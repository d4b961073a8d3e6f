package capturecli

import (
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/spf13/pflag"
)

// RedactFlags are the --redact-* flags, shared by every command that
// writes or reads frames.
type RedactFlags struct {
	secrets bool
	keys    []string
	values  []string
	paths   []string
}

// Register adds the flags to f.
func (r *RedactFlags) Register(f *pflag.FlagSet) {
	f.BoolVar(&r.secrets, "redact-secrets", false, "replace with [REDACTED] the values of secret names (token, api_key, x-api-key, accessToken, password, authorization, cookie, ... in any case, with - or _; also key=value, --flag value and headers in text) and credentials of well-known formats (GitHub, AWS, OpenAI keys, JWTs, Bearer ...); see docs/reference/secrets.md")
	f.StringArrayVar(&r.keys, "redact-key", nil, "replace the value of this object key, at any depth, case-insensitively (repeatable, or a comma-separated list)")
	f.StringArrayVar(&r.values, "redact-value", nil, "replace every match of this regular expression (RE2) in string values, stderr and non-JSON lines (repeatable)")
	f.StringArrayVar(&r.paths, "redact-path", nil, "replace what this JSONPath (RFC 9535, over the JSON-RPC message) selects (repeatable)")
}

// Options are the flags as the capture package takes them.
func (r *RedactFlags) Options() capture.RedactOptions {
	return capture.RedactOptions{Secrets: r.secrets, Keys: r.keys, Values: r.values, Paths: r.paths}
}

// Redactor compiles the flags; nil when none is set.
func (r *RedactFlags) Redactor() (*capture.Redactor, error) {
	return capture.NewRedactor(r.Options())
}

// Args spells the flags out again, for a shim this command starts.
func (r *RedactFlags) Args() []string {
	var out []string
	if r.secrets {
		out = append(out, "--redact-secrets")
	}
	for _, k := range r.keys {
		out = append(out, "--redact-key", k)
	}
	for _, v := range r.values {
		out = append(out, "--redact-value", v)
	}
	for _, p := range r.paths {
		out = append(out, "--redact-path", p)
	}
	return out
}
