package checker

import (
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/tidwall/gjson"
)

// A failed call is reported in the server's own words: the message of a
// JSON-RPC error, or the first text content of a result marked isError.
// Only error frames pay for it.

// MaxServerWords is how many characters of a server's message a finding
// quotes; a longer one is cut and ends in "…".
const MaxServerWords = 200

// serverWords makes a server's message fit a finding: redacted by
// Config.RedactText, cut to MaxServerWords characters, control characters
// escaped (termsafe), so that it stays one line in every report.
func (s *session) serverWords(text string) string {
	if red := s.e.cfg.RedactText; red != nil {
		text = red(text)
	}
	cut := false
	if len(text) > MaxServerWords && utf8.RuneCountInString(text) > MaxServerWords {
		n, i := 0, 0
		for i = range text {
			if n == MaxServerWords {
				break
			}
			n++
		}
		text, cut = text[:i], true
	}
	text = termsafe.Clean(text, false)
	if cut {
		text += "…"
	}
	return clone(text)
}

// errorDetail renders a JSON-RPC error object as "<message> (code <n>)".
func (s *session) errorDetail(errVal gjson.Result) string {
	if !errVal.IsObject() {
		return "the call failed"
	}
	msg := s.serverWords(errVal.Get("message").String())
	code := errVal.Get("code")
	switch {
	case !code.Exists():
		return msg
	case msg == "":
		return "(code " + code.Raw + ")"
	}
	return msg + " (code " + code.Raw + ")"
}

// toolErrorDetail describes a result marked isError, quoting its first
// text content when it has one.
func (s *session) toolErrorDetail(result gjson.Result) string {
	const marked = "the result is marked isError"
	if text := firstText(result); text != "" {
		return marked + ": " + s.serverWords(text)
	}
	return marked
}

// firstText is the text of a result's first content item of type "text".
func firstText(result gjson.Result) string {
	text := ""
	result.Get("content").ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").Str == "text" {
			if t := item.Get("text"); t.Type == gjson.String {
				text = t.Str
				return false
			}
		}
		return true
	})
	return text
}
