package sessions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// A word on the command line of check, open, export or diff that is not a
// path names a session in the state directory's sessions folder:
//
//  1. an exact session id: the log <id>.jsonl, or a log whose session has
//     that id;
//  2. else a label: the newest session with that server label (the label
//     as recorded, or as spelled in the log's name);
//  3. else the start of an id, when exactly one session's id starts with
//     it. When several do, the word is refused with the candidates.

// AmbiguousError is a word that starts the ids of several sessions.
type AmbiguousError struct {
	Word       string
	Dir        string
	Candidates []string // their ids, sorted
}

// maxCandidates bounds the ids an AmbiguousError names.
const maxCandidates = 10

func (e *AmbiguousError) Error() string {
	shown := e.Candidates
	more := ""
	if len(shown) > maxCandidates {
		more = fmt.Sprintf(" and %d more", len(shown)-maxCandidates)
		shown = shown[:maxCandidates]
	}
	// The ids are file names anyone could have given a log: escaped.
	return fmt.Sprintf("session %q is ambiguous: the ids of %d sessions in %s start with it (%s%s); give more of the id",
		e.Word, len(e.Candidates), e.Dir, termsafe.Clean(strings.Join(shown, ", "), false), more)
}

// NotFoundError is a word that names no session.
type NotFoundError struct{ Word, Dir string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("session log %q not found, and no session in %s has the label %q or an id starting with it",
		filepath.Join(e.Dir, e.Word+".jsonl"), e.Dir, e.Word)
}

// IsWord says whether arg would be looked up as a session rather than read
// as a path: not "-", not an existing file or folder, no slash, no .jsonl.
func IsWord(arg string) bool {
	if arg == "" || arg == "-" || strings.HasSuffix(arg, ".jsonl") || strings.ContainsAny(arg, `/`+string(filepath.Separator)) {
		return false
	}
	_, err := os.Stat(arg)
	return errors.Is(err, os.ErrNotExist)
}

// ResolveWords replaces each word of args (see IsWord) by the log it
// names in dir; paths, "-" and exact ids are passed on as they are (an
// exact id is found by capture.ResolveInputs).
func ResolveWords(args []string, dir string) ([]string, error) {
	out := slices.Clone(args)
	var heads []head
	scanned := false
	for i, arg := range args {
		if !IsWord(arg) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, arg+".jsonl")); err == nil {
			continue
		}
		if !scanned {
			heads, scanned = readHeads(dir), true
		}
		p, err := resolve(arg, dir, heads)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// Resolve finds the log that word names in dir.
func Resolve(word, dir string) (string, error) {
	if p := filepath.Join(dir, word+".jsonl"); fileExists(p) {
		return p, nil
	}
	return resolve(word, dir, readHeads(dir))
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// head is what a log's first frame says.
type head struct {
	path, stem, id, label string
	start, mod            time.Time
}

// readHeads reads the first frame of every log in dir. Logs whose first
// line is not a frame are left out: they name nothing.
func readHeads(dir string) []head {
	logs, err := Logs(dir)
	if err != nil {
		return nil
	}
	var out []head
	for _, in := range logs {
		f, err := os.Open(in.Path)
		if err != nil {
			continue
		}
		fr, _, err := capture.NewReader(f, in.Name).Next()
		info, serr := f.Stat()
		f.Close()
		if err != nil || serr != nil {
			continue
		}
		out = append(out, head{
			path: in.Path, stem: strings.TrimSuffix(filepath.Base(in.Path), ".jsonl"),
			id: fr.SessionID, label: fr.ServerLabel, start: fr.TS, mod: info.ModTime(),
		})
	}
	return out
}

// idSuffix is what capture's session ids end in: -<pid>-<12 hex digits>.
var idSuffix = regexp.MustCompile(`-[0-9]+-[0-9a-f]{12}$`)

// fileLabel is the label as spelled in a log's name (<label>-<pid>-<hex>).
func fileLabel(stem string) string {
	if loc := idSuffix.FindStringIndex(stem); loc != nil {
		return stem[:loc[0]]
	}
	return ""
}

func resolve(word, dir string, heads []head) (string, error) {
	var exact, labelled []head
	prefixed := map[string]head{}
	for _, h := range heads {
		switch {
		case h.id == word:
			exact = append(exact, h)
		case h.label == word || fileLabel(h.stem) == word:
			labelled = append(labelled, h)
		}
		if strings.HasPrefix(h.stem, word) || strings.HasPrefix(h.id, word) {
			prefixed[h.path] = h
		}
	}
	if len(exact) > 0 {
		return newest(exact).path, nil
	}
	if len(labelled) > 0 {
		return newest(labelled).path, nil
	}
	switch len(prefixed) {
	case 0:
		return "", &NotFoundError{Word: word, Dir: dir}
	case 1:
		for _, h := range prefixed {
			return h.path, nil
		}
	}
	var ids []string
	for _, h := range prefixed {
		ids = append(ids, h.stem)
	}
	slices.Sort(ids)
	return "", &AmbiguousError{Word: word, Dir: dir, Candidates: ids}
}

// newest is the session that started last (then the log written last,
// then the greatest name, so the pick never depends on the folder's order).
func newest(hs []head) head {
	return slices.MaxFunc(hs, func(a, b head) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
}
