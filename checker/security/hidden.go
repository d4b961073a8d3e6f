package security

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// HiddenText finds text a user does not see and a model reads (S5):
// Unicode tag characters (decoded: they spell ASCII), zero-width
// characters, bidirectional controls, and in a definition ANSI escape
// sequences. Zero-width joiners and non-joiners are left alone: emoji
// sequences and Persian, Arabic and Indic scripts use them.
func HiddenText(text string, where Where) (Cue, bool) {
	var tags strings.Builder
	tagCount := 0
	other, otherAt := rune(0), -1
	for i, r := range text {
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			tagCount++
			if r >= 0xE0020 && r <= 0xE007E && tags.Len() < 200 {
				tags.WriteRune(r - 0xE0000)
			}
		case otherAt >= 0:
		case r == 0x200B, r >= 0x2060 && r <= 0x2064, r == 0xFEFF && i > 0,
			r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			other, otherAt = r, i
		case r == 0x1B && where == InDefinition && i+1 < len(text) && (text[i+1] == '[' || text[i+1] == ']'):
			other, otherAt = r, i
		}
	}
	switch {
	case tagCount > 0:
		return Cue{Rule: "S5", Why: "Unicode tag characters hide", Match: tags.String()}, true
	case otherAt >= 0:
		return Cue{Rule: "S5", Why: hiddenWhy(other), Match: around(text, otherAt, 24)}, true
	}
	return Cue{}, false
}

func hiddenWhy(r rune) string {
	name := "U+" + strings.ToUpper(strconv.FormatInt(int64(r), 16))
	switch {
	case r == 0x1B:
		return "ANSI escape sequence"
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return "bidirectional control " + name
	}
	return "zero-width character " + name
}

// around is the text within n bytes either side of i, cut at rune
// boundaries.
func around(text string, i, n int) string {
	from, to := max(0, i-n), min(len(text), i+n)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	return text[from:to]
}
