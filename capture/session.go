package capture

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLabelBytes is the longest server label accepted.
const maxLabelBytes = 200

// launchers are commands that start the real server: the label skips them
// to name what they launch (`npx -y @scope/server-foo` is `server-foo`).
var launchers = map[string]bool{
	"npx": true, "npm": true, "pnpm": true, "yarn": true, "bunx": true, "bun": true,
	"node": true, "deno": true, "python": true, "python3": true, "uv": true, "uvx": true,
	"pipx": true, "sh": true, "bash": true, "env": true, "go": true,
}

// DeriveLabel names a stdio server after the command that starts it: the
// first argument that looks like a server (contains "server" or "mcp",
// starts with "@", or is a .js, .ts or .py file), else the first argument
// that is not a flag, a launcher or a subcommand word like "run", keeping
// only the part after the last slash. `python3 server.py` is "server.py".
func DeriveLabel(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	var candidates []string
	for i, tok := range argv {
		if tok == "" || strings.HasPrefix(tok, "-") || tok == "run" || tok == "exec" {
			continue
		}
		if (i == 0 || len(candidates) == 0) && launchers[baseName(tok)] {
			continue
		}
		candidates = append(candidates, tok)
	}
	pick := argv[0]
	if len(candidates) > 0 {
		pick = candidates[0]
		for _, c := range candidates {
			l := strings.ToLower(c)
			if strings.Contains(l, "server") || strings.Contains(l, "mcp") || strings.HasPrefix(c, "@") ||
				strings.HasSuffix(l, ".js") || strings.HasSuffix(l, ".ts") || strings.HasSuffix(l, ".py") {
				pick = c
				break
			}
		}
	}
	if l := baseName(pick); l != "" {
		return l
	}
	return baseName(argv[0])
}

// baseName is the part of s after its last slash or backslash.
func baseName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		return s[i+1:]
	}
	return s
}

// ValidateLabel rejects labels that cannot be part of a log file name: a
// slash or backslash, NUL or another control character, a leading dash, or
// more than 200 bytes. ".." inside a label is fine: it never stands alone.
func ValidateLabel(label string) error {
	switch {
	case label == "":
		return errors.New("the label is empty")
	case len(label) > maxLabelBytes:
		return fmt.Errorf("label %q is %d bytes, longer than %d", label[:40]+"...", len(label), maxLabelBytes)
	case strings.HasPrefix(label, "-"):
		return fmt.Errorf("label %q starts with a dash", label)
	case strings.ContainsAny(label, `/\`):
		return fmt.Errorf("label %q contains a slash", label)
	case !utf8.ValidString(label):
		return fmt.Errorf("label %q is not valid UTF-8", label)
	}
	for _, r := range label {
		if r == 0 || unicode.IsControl(r) {
			return fmt.Errorf("label %q contains a control character", label)
		}
	}
	return nil
}

// NewSessionID mints the id of one capture run: <label>-<pid>-<12 hex>,
// with the label in its portable form (PortableName), since the id names
// the log's file. The random part keeps two runs apart when a process id is
// reused (containers start every process at a low pid).
func NewSessionID(label string) string {
	var nonce [6]byte
	_, _ = rand.Read(nonce[:]) // crypto/rand.Read never fails on supported platforms
	return PortableName(label) + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(nonce[:])
}

// PortableName is s made safe for a file name on every platform: each
// character other than a letter, a digit, '.', '_' or '-' becomes '_'
// (a label "127.0.0.1:38081" gives "127.0.0.1_38081", "exit 7" gives
// "exit_7"). Windows refuses ':' and other punctuation in file names, and a
// space is a trap in every shell.
func PortableName(s string) string {
	portable := func(r rune) bool {
		return r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	if strings.IndexFunc(s, func(r rune) bool { return !portable(r) }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if portable(r) {
			return r
		}
		return '_'
	}, s)
}
