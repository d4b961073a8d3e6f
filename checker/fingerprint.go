package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// fingerprintTuple is what identifies a finding across re-captures of the
// same scenario: no session id, seq, timestamp or request id goes in, so a
// code-scanning alert survives a fresh capture.
type fingerprintTuple struct {
	rule, method, tool, kind string
}

// fingerprint is the first 16 hex digits of sha256 over the server label,
// rule id, method, tool or operation name, kind and the occurrence index of
// that tuple within its session, joined by NUL.
func fingerprint(label string, t fingerprintTuple, occurrence int) string {
	h := sha256.New()
	for _, part := range []string{label, t.rule, t.method, t.tool, t.kind} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write([]byte(strconv.Itoa(occurrence)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}
