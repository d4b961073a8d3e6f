// Package secrets is mcpsnoop's one catalogue of what a credential looks
// like on the wire: the names it travels under (an object key, a
// command-line flag, a KEY=value pair, a header) and the formats of
// well-known credentials that give themselves away wherever they appear.
// Redaction (--redact-secrets) hides what it matches before a log is
// written; a check that looks for credentials in what was logged reads the
// same lists. docs/reference/secrets.md lists both, and a test keeps it
// complete.
//
// The package holds data and matching only and imports nothing of
// mcpsnoop, so that the capture and the checker can both use it.
package secrets

import (
	"regexp"
	"sort"
	"strings"
)

// Keys are the names a secret travels under, as they are usually spelt.
// A name matches when it equals one of them once both are normalized
// (Normalize): case, '-' and '_' do not count, so accessToken,
// access_token, ACCESS-TOKEN and Access-Token are one name.
var Keys = []string{
	"token", "access_token", "refresh_token", "id_token", "auth_token", "session_token",
	"api_key", "x-api-key",
	"client_secret", "secret", "secret_key", "private_key",
	"password", "passwd",
	"authorization", "proxy-authorization",
	"cookie", "set-cookie",
}

// restOfLine are the (normalized) names whose value, written after the
// name in a line of text, runs to the end of the line: HTTP headers whose
// values hold blanks and separators of their own.
var restOfLine = map[string]bool{"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true}

var keySet = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range Keys {
		m[Normalize(k)] = true
	}
	return m
}()

// Normalize is name lower-cased, without '-' and '_': how names are
// compared.
func Normalize(name string) string {
	if !strings.ContainsAny(name, "-_ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsKey reports whether name is one of Keys.
func IsKey(name string) bool {
	if len(name) > 64 {
		return false // no name of the list is anywhere near this long
	}
	return keySet[Normalize(name)]
}

// TakesRestOfLine reports whether the value that follows name in a line of
// text ("Authorization: Bearer abc", "Cookie: a=1; b=2") runs to the end
// of the line rather than to the next blank.
func TakesRestOfLine(name string) bool { return restOfLine[Normalize(name)] }

// A Format is a well-known credential format: one that tells itself from
// ordinary text by its prefix and its length, wherever it appears.
type Format struct {
	Name string
	// Pattern is an RE2 expression with exactly one capture group, the
	// secret: the whole credential, or the part after a scheme word
	// ("Bearer <token>") or inside a URL ("scheme://user:<password>@").
	Pattern string
	// Literals are strings one of which every match holds, within
	// windowBefore bytes of its start: a text is searched for them first,
	// and the pattern runs only around where they are.
	Literals []string
}

// Formats are the credential formats, most specific first.
var Formats = []Format{
	{"GitHub token", `\b(gh[pousr]_[A-Za-z0-9]{36,255})\b`, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
	{"GitHub fine-grained token", `\b(github_pat_[A-Za-z0-9_]{22,255})\b`, []string{"github_pat_"}},
	{"GitLab personal access token", `\b(glpat-[A-Za-z0-9_-]{20,})`, []string{"glpat-"}},
	{"AWS access key ID", `\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b`, []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{"Slack token", `\b(xox[abposr]-[A-Za-z0-9-]{10,})`, []string{"xox"}},
	{"Stripe key", `\b([rs]k_(?:live|test)_[A-Za-z0-9]{16,})`, []string{"k_live_", "k_test_"}},
	{"OpenAI or Anthropic API key", `\b(sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})`, []string{"sk-"}},
	{"Google API key", `\b(AIza[0-9A-Za-z_-]{35})`, []string{"AIza"}},
	{"Hugging Face token", `\b(hf_[A-Za-z0-9]{30,})`, []string{"hf_"}},
	{"npm token", `\b(npm_[A-Za-z0-9]{36})\b`, []string{"npm_"}},
	{"JSON Web Token", `\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`, []string{"eyJ"}},
	{"private key", `(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY-----)`, []string{"-----BEGIN "}},
	{"Bearer credentials", `(?i:\bbearer)\s+([A-Za-z0-9._~+/-]{16,}=*)`, []string{"earer", "EARER"}},
	{"Basic credentials", `(?i:\bbasic)\s+([A-Za-z0-9+/]{16,}={0,2})`, []string{"asic", "ASIC"}},
	{"password in a URL", `(?i:\b[a-z][a-z0-9+.-]*)://[^\s:/@"']+:([^\s/@"']+)@`, []string{"://"}},
}

// How far around a literal a pattern is run: a match starts at most
// windowBefore bytes before its literal and is looked for at most
// windowAfter bytes past it. A credential longer than that (a private key
// block is the only one) is found as far as it goes.
const (
	windowBefore = 64
	windowAfter  = 16 << 10
)

// compiled are the Formats' patterns.
var compiled = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(Formats))
	for i, f := range Formats {
		out[i] = regexp.MustCompile(f.Pattern)
	}
	return out
}()

// Match is one credential found in a text: s[Start:End], of Formats[Format].
type Match struct {
	Start, End int
	Format     int
}

// Find returns the credentials in s that a Format matches, in order and
// not overlapping. A text without any Format's literals costs a few
// substring searches; a pattern runs only on windows around them, so
// that a long text is never handed to the (linear, but not fast) regular
// expression engine whole.
func Find(s string) []Match {
	var out []Match
	for fi, f := range Formats {
		re := compiled[fi]
		scanned := 0 // s[:scanned] was searched already
		for _, lit := range f.Literals {
			scanned = 0
			for from := 0; from < len(s); {
				k := strings.Index(s[from:], lit)
				if k < 0 {
					break
				}
				at := from + k
				ws, we := max(at-windowBefore, scanned-windowBefore, 0), min(at+len(lit)+windowAfter, len(s))
				for _, m := range re.FindAllStringSubmatchIndex(s[ws:we], -1) {
					if m[2] >= 0 {
						out = append(out, Match{Start: ws + m[2], End: ws + m[3], Format: fi})
					}
				}
				scanned = we
				from = max(at+len(lit), we-windowBefore)
			}
		}
	}
	if len(out) < 2 {
		return out
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].End > out[j].End
	})
	kept := out[:1]
	for _, m := range out[1:] {
		if m.Start >= kept[len(kept)-1].End {
			kept = append(kept, m)
		}
	}
	return kept
}

// Contains reports whether s holds a credential of a Format.
func Contains(s string) bool {
	for _, f := range Formats {
		for _, lit := range f.Literals {
			if strings.Contains(s, lit) {
				return len(Find(s)) > 0
			}
		}
	}
	return false
}

// Replace returns s with every credential Find finds replaced by
// placeholder, and whether there was any.
func Replace(s, placeholder string) (string, bool) {
	ms := Find(s)
	if len(ms) == 0 {
		return s, false
	}
	var b strings.Builder
	done := 0
	changed := false
	for _, m := range ms {
		if s[m.Start:m.End] == placeholder {
			continue
		}
		b.WriteString(s[done:m.Start])
		b.WriteString(placeholder)
		done = m.End
		changed = true
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[done:])
	return b.String(), true
}
