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
