// Package shellquote writes command lines as a POSIX shell reads them, for
// messages that show a command to run or say which one ran: a word that
// needs no quoting stays as it is, any other is single-quoted.
package shellquote

import "strings"

// Word quotes s for a POSIX shell when it needs it.
func Word(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces: a command line that
// runs args again, and that shows where one argument ends.
func Join(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Word(a)
	}
	return strings.Join(out, " ")
}
