package ghactions

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
)

// EnvActions is "true" in every step a GitHub Actions runner runs.
const EnvActions = "GITHUB_ACTIONS"

// Running reports whether getenv (usually os.Getenv) is a GitHub Actions
// step's environment, whose stdout and stderr the runner reads for
// workflow commands.
func Running(getenv func(string) string) bool { return getenv(EnvActions) == "true" }

// Guard writes text to a stream the runner reads between
// "::stop-commands::TOKEN" and "::TOKEN::", with a fresh random token, so
// that no line of it is obeyed as a workflow command: termsafe escapes
// what could drive a terminal, but "::error file=a.go::" or
// "::add-mask::" at the start of a server's stderr line is printable text
// a CI log would act on. The token is unguessable, so the text cannot
// close the guard early.
type Guard struct {
	w     io.Writer
	end   string
	begun bool
	last  byte // the last byte of the text written, 0 before any
}

// NewGuard guards w; nothing is written until the first Write or Close.
func NewGuard(w io.Writer) *Guard {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand, Go 1.24+)
	return &Guard{w: w, end: hex.EncodeToString(raw[:])}
}

// begin writes the opening line once.
func (g *Guard) begin() error {
	if g.begun {
		return nil
	}
	g.begun = true
	_, err := io.WriteString(g.w, "::stop-commands::"+g.end+"\n")
	return err
}

// Write writes text inside the guard.
func (g *Guard) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := g.begin(); err != nil {
		return 0, err
	}
	n, err := g.w.Write(p)
	if n > 0 {
		g.last = p[n-1]
	}
	return n, err
}

// Close ends the guard: the closing line goes on a line of its own, after
// a line break the text lacked. Nothing at all is written for no text.
func (g *Guard) Close() error {
	if !g.begun {
		return nil
	}
	end := "::" + g.end + "::\n"
	if g.last != '\n' {
		end = "\n" + end
	}
	_, err := io.WriteString(g.w, end)
	return err
}

// Guarded is text inside a guard of its own (empty text stays empty).
func Guarded(text []byte) []byte {
	if len(text) == 0 {
		return text
	}
	var b bytes.Buffer
	g := NewGuard(&b)
	_, _ = g.Write(text)
	_ = g.Close()
	return b.Bytes()
}
