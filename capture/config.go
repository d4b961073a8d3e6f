package capture

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// ConfigFile is the project config the shim reads from the working
// directory (never from a parent).
const ConfigFile = ".mcpsnoop.toml"

// Config is what a .mcpsnoop.toml sets. Pointers and nil lists are keys the
// file does not mention.
type Config struct {
	Label         *string
	TraceFile     *string
	LogDir        *string
	MaxLogSize    *int64
	NoTrace       *bool
	RedactSecrets *bool
	RedactKeys    []string
	RedactValues  []string
	RedactPaths   []string
	OTLPEndpoint  *string
	OTLPHeaders   []string
}

// configKeys are the keys a config file may set; the repeatable ones
// accumulate over lines and take arrays too.
var configKeys = map[string]bool{
	"label": false, "trace-file": false, "log-dir": false, "max-log-size": false, "no-trace": false,
	"redact-secrets": false, "redact-key": true, "redact-value": true, "redact-path": true,
	"otlp-endpoint": false, "otlp-header": true,
}

const knownConfigKeys = "label, trace-file, log-dir, max-log-size, no-trace, redact-secrets, redact-key, redact-value, redact-path, otlp-endpoint, otlp-header"

// MaxConfigSize is the largest config file read: a project's config
// comes with the repository, so its size is bounded like any input's.
const MaxConfigSize = 1 << 20

// LoadConfig reads path; a missing file is no config (nil, nil). The file
// must be a regular file (a link to one is followed) of at most
// MaxConfigSize bytes: a FIFO would hang the shim before its server
// starts, and a link to /dev/zero would fill its memory.
func LoadConfig(path string) (*Config, error) {
	data, err := ReadConfigFile(path)
	if data == nil || err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ReadConfigFile reads a config file as LoadConfig does: nil, nil when it
// is missing.
func ReadConfigFile(path string) ([]byte, error) {
	f, err := openForRead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s, not a regular file; a config is read only from a regular file", path, fileKind(info.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("%s: larger than %s; a config file is at most that", path, FormatSize(MaxConfigSize))
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// ParseConfig reads a config file's text; name prefixes its errors.
//
// The format is the one mcpsnoop has always read: `key = value` lines, blank
// lines and # comments, where redact-key, redact-value and redact-path may
// repeat to add values. Strict TOML forbids a repeated key, so a TOML
// library would reject files that work today; this parser reads that form
// and also what TOML users write: arrays of strings (on one line or
// several) for the repeatable keys, 'literal' strings and trailing
// comments. Inside "double quotes" a backslash is kept as written (no
// escapes), so a pattern like "sk-\d+" means what it says.
//
// It reads the text once, front to back: an array over many lines is
// scanned from its opening bracket to its closing one, never again from
// its start as each line is added (which made a 40,000-line array take
// minutes).
func ParseConfig(name string, data []byte) (*Config, error) {
	c := &Config{}
	seen := map[string]int{}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := 0 // the number of the line at pos
	for pos := 0; pos < len(text); {
		n++
		end := lineEnd(text, pos)
		raw := text[pos:end]
		lineNo := n
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s: line %d: %s", name, lineNo, fmt.Sprintf(format, args...))
		}
		next := end + 1
		t := strings.TrimSpace(raw)
		if pos == 0 {
			t = strings.TrimPrefix(t, "\uFEFF")
		}
		if t == "" || t[0] == '#' {
			pos = next
			continue
		}
		if t[0] == '[' {
			return nil, fail("tables are not supported; write key = value lines")
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			return nil, fail("expected key = value, got %q", t)
		}
		key, val = unquoteKey(strings.TrimSpace(key)), strings.TrimSpace(val)
		repeatable, known := configKeys[key]
		if !known {
			return nil, fail("unknown key %q (the keys are %s)", key, knownConfigKeys)
		}
		if prev, dup := seen[key]; dup && !repeatable {
			return nil, fail("%s is already set on line %d", key, prev)
		}
		seen[key] = lineNo
		var values []string
		if strings.HasPrefix(val, "[") {
			if !repeatable {
				return nil, fail("%s takes one value, not an array", key)
			}
			eq := strings.IndexByte(raw, '=')
			open := pos + eq + 1 + strings.IndexByte(raw[eq+1:], '[')
			items, closed, err := scanArray(text[open:])
			if err == nil {
				after := open + closed // just past the closing bracket
				end = lineEnd(text, after)
				err = onlyComment(text[after:end])
				n += strings.Count(text[pos:after], "\n")
				next = end + 1
			}
			if err != nil {
				return nil, fail("%s: %v", key, err)
			}
			values = items
		} else {
			v, err := parseScalar(val)
			if err != nil {
				return nil, fail("%s: %v", key, err)
			}
			values = []string{v}
		}
		if err := c.set(key, values); err != nil {
			return nil, fail("%v", err)
		}
		pos = next
	}
	return c, nil
}

// lineEnd is the index of the newline that ends the line at pos, or the
// text's length.
func lineEnd(text string, pos int) int {
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(text)
}

func (c *Config) set(key string, values []string) error {
	one := values[0]
	switch key {
	case "label":
		c.Label = &one
	case "trace-file":
		c.TraceFile = &one
	case "log-dir":
		if one == "" {
			return errors.New("log-dir is empty")
		}
		c.LogDir = &one
	case "max-log-size":
		n, err := ParseSize(one)
		if err != nil {
			return fmt.Errorf("max-log-size: %v", err)
		}
		c.MaxLogSize = &n
	case "no-trace", "redact-secrets":
		b, err := strconv.ParseBool(one)
		if err != nil {
			return fmt.Errorf("%s must be true or false, got %q", key, one)
		}
		if key == "no-trace" {
			c.NoTrace = &b
		} else {
			c.RedactSecrets = &b
		}
	case "otlp-endpoint":
		if one == "" {
			return errors.New("otlp-endpoint is empty")
		}
		c.OTLPEndpoint = &one
	case "otlp-header":
		for _, v := range values {
			if name, _, ok := strings.Cut(v, "="); !ok || strings.TrimSpace(name) == "" {
				// Never the value: it may hold a token.
				return errors.New("otlp-header must be NAME=VALUE")
			}
		}
		c.OTLPHeaders = append(c.OTLPHeaders, values...)
	case "redact-key":
		c.RedactKeys = append(c.RedactKeys, values...)
	case "redact-value":
		for _, v := range values {
			if _, err := regexp.Compile(v); err != nil {
				return fmt.Errorf("invalid redact pattern %q: %v", v, err)
			}
		}
		c.RedactValues = append(c.RedactValues, values...)
	case "redact-path":
		for _, v := range values {
			if _, err := ParseRedactPath(v); err != nil {
				return err
			}
		}
		c.RedactPaths = append(c.RedactPaths, values...)
	}
	return nil
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		return k[1 : len(k)-1]
	}
	return k
}

// parseScalar reads one value: "text" (backslashes kept), 'text', or bare
// text, each optionally followed by a # comment.
func parseScalar(v string) (string, error) {
	if v == "" {
		return "", errors.New("missing value")
	}
	if v[0] == '"' || v[0] == '\'' {
		s, rest, err := quoted(v)
		if err != nil {
			return "", err
		}
		if err := onlyComment(rest); err != nil {
			return "", err
		}
		return s, nil
	}
	if strings.HasPrefix(v, "[") {
		return "", errors.New("arrays are for redact-key, redact-value, redact-path and otlp-header")
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		if i == 0 || (v[i-1] != ' ' && v[i-1] != '\t') {
			return "", fmt.Errorf("%q has a # inside; quote the value", v)
		}
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}

// quoted reads the string v starts with and returns the text after it.
func quoted(v string) (string, string, error) {
	q := v[0]
	end := strings.IndexByte(v[1:], q)
	if end < 0 {
		return "", "", fmt.Errorf("%s has no closing %c", v, q)
	}
	return v[1 : 1+end], v[2+end:], nil
}

func onlyComment(rest string) error {
	rest = strings.TrimSpace(rest)
	if rest != "" && rest[0] != '#' {
		return fmt.Errorf("unexpected %q after the value", rest)
	}
	return nil
}

var errOpenArray = errors.New("the array is never closed")

// scanArray reads an array of strings that starts text ('['), which may
// span lines and hold comments and a trailing comma, and returns its
// items and the index just past its closing bracket. It reads each byte
// of text once at most.
func scanArray(text string) (items []string, end int, err error) {
	i := 1 // past '['
	wantValue := true
	for {
		for i < len(text) && strings.IndexByte(" \t\r\n", text[i]) >= 0 {
			i++
		}
		if i >= len(text) {
			return nil, 0, errOpenArray
		}
		switch c := text[i]; {
		case c == '#':
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				return nil, 0, errOpenArray
			}
			i += nl
		case c == ']':
			return items, i + 1, nil
		case c == ',':
			if wantValue {
				return nil, 0, errors.New("an array has an empty element")
			}
			wantValue = true
			i++
		case c == '"' || c == '\'':
			if !wantValue {
				return nil, 0, errors.New("array elements must be separated by commas")
			}
			// The string ends on its line: look no further than that.
			line := text[i:lineEnd(text, i)]
			s, after, qerr := quoted(line)
			if qerr != nil {
				return nil, 0, fmt.Errorf("an array string has no closing %c on its line", c)
			}
			items = append(items, s)
			i += len(line) - len(after)
			wantValue = false
		default:
			return nil, 0, errors.New("array elements must be quoted strings")
		}
	}
}
