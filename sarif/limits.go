package sarif

import (
	"fmt"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Code scanning's limits on one upload, kept by Write so that a report is
// never refused whole: a message is cut at MaxMessageChars characters, and
// results are left out, least severe first, until the file is at most
// MaxFileBytes. Each cut says so: a cut message ends in a note of its
// length, and left-out results are counted by the truncation result.
const (
	// MaxMessageChars is the most characters of a finding's message a
	// result carries. A server's error message can be megabytes long.
	MaxMessageChars = 1000
	// MaxFileBytes is the most bytes a SARIF file may have: code scanning
	// accepts 10 MB. Counted before compression, so that the file is under
	// the limit however the upload compresses it.
	MaxFileBytes = 10_000_000
)

// capMessage cuts a message past MaxMessageChars characters and says so.
func capMessage(msg string) string {
	n := utf8.RuneCountInString(msg)
	if n <= MaxMessageChars {
		return msg
	}
	cut, i := 0, 0
	for i = range msg {
		if cut == MaxMessageChars {
			break
		}
		cut++
	}
	return fmt.Sprintf("%s… [message cut: %d characters, the first %d kept]", msg[:i], n, MaxMessageChars)
}

// fitSize renders the log with as many results as fit in MaxFileBytes
// (the most severe kept, as for the result cap), the last one saying how
// many were left out. Write calls it once the log with every result was
// too big.
func fitSize(rep *checker.Report, opts Options) ([]byte, error) {
	// Binary search on the number of results: the largest that fits.
	// Only a pathological capture gets here, and each try is one render.
	lo, hi := 1, MaxResults // render(lo) fits (one truncation result); render(hi) does not
	best, err := render(rep, opts, lo)
	if err != nil {
		return nil, err
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		b, err := render(rep, opts, mid)
		if err != nil {
			return nil, err
		}
		if len(b) <= MaxFileBytes {
			lo, best = mid, b
		} else {
			hi = mid
		}
	}
	if len(best) > MaxFileBytes {
		return nil, fmt.Errorf("sarif: the report does not fit in %d bytes even without results", MaxFileBytes)
	}
	return best, nil
}
