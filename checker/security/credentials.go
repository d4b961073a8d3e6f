package security

import (
	"strconv"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/internal/secrets"
	"github.com/tidwall/gjson"
)

// A Credential is a value of a well-known credential format (S7), as a
// report may show it: never whole.
type Credential struct {
	Pointer string
	Format  string // the catalogue's name of its format
	Shown   string // the first 4 characters, "…" and the length
}

// maxCredentials is how many credentials one message reports: a dump of
// keys is one problem, not a thousand findings.
const maxCredentials = 8

// Credentials finds the credentials in every string of a message (values,
// at any depth), with the shared catalogue (package internal/secrets).
// A value redacted at capture is "[REDACTED]" and matches no format.
func Credentials(msg gjson.Result) []Credential {
	var out []Credential
	Strings(msg, "", func(ptr, s string) {
		if len(out) >= maxCredentials || !secrets.Contains(s) {
			return
		}
		for _, m := range secrets.Find(s) {
			if len(out) >= maxCredentials {
				return
			}
			out = append(out, Credential{Pointer: ptr, Format: secrets.Formats[m.Format].Name, Shown: Shown(s[m.Start:m.End])})
		}
	})
	return out
}

// Shown is how a credential is shown: its first 4 characters, "…" and its
// length in characters.
func Shown(v string) string {
	n := utf8.RuneCountInString(v)
	head := v
	for i := range v {
		if utf8.RuneCountInString(v[:i]) == 4 {
			head = v[:i]
			break
		}
	}
	return head + "…(" + strconv.Itoa(n) + ")"
}
