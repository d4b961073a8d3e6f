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
// path names a session in the folders the logs are in (the state
// directory's sessions, and the log folders the user named; the command
// says which), all of them searched together:
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
	Dirs       []string
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
		e.Word, len(e.Candidates), folders(e.Dirs, "and"), termsafe.Clean(strings.Join(shown, ", "), false), more)
}

// NotFoundError is a word that names no session.
type NotFoundError struct {
	Word string
	Dirs []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no session %q: it is no file here, and no log in %s has that id or label, or an id starting with it",
		e.Word, folders(e.Dirs, "or"))
}

// folders names the folders searched, escaped (a folder may come from a
// repository's .mcpsnoop.toml).
func folders(dirs []string, conj string) string {
	clean := make([]string, len(dirs))
	for i, d := range dirs {
		clean[i] = termsafe.Clean(d, false)
	}
	if len(clean) < 2 {
		return strings.Join(clean, "")
	}
	return strings.Join(clean[:len(clean)-1], ", ") + " " + conj + " " + clean[len(clean)-1]
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
// names in dirs; paths and "-" are passed on as they are.
func ResolveWords(args []string, dirs ...string) ([]string, error) {
	out := slices.Clone(args)
	var heads []head
	scanned := false
	for i, arg := range args {
		if !IsWord(arg) {
			continue
		}
		if p, ok := exactFile(arg, dirs); ok {
			out[i] = p
			continue
		}
		if !scanned {
			heads, scanned = readHeads(dirs), true
		}
		p, err := resolve(arg, dirs, heads)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// Resolve finds the log that word names in dirs.
func Resolve(word string, dirs ...string) (string, error) {
	if p, ok := exactFile(word, dirs); ok {
		return p, nil
	}
	return resolve(word, dirs, readHeads(dirs))
}

// exactFile is the log <word>.jsonl (or the file of the word's portable
// form, as captures name theirs) in the first folder holding one.
func exactFile(word string, dirs []string) (string, bool) {
	for _, dir := range dirs {
		for _, name := range []string{capture.PortableName(word), word} {
			if p := filepath.Join(dir, name+".jsonl"); fileExists(p) {
				return p, true
			}
		}
	}
	return "", false
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

// readHeads reads the first frame of every log in dirs. Logs whose first
// line is not a frame are left out: they name nothing.
func readHeads(dirs []string) []head {
	var logs []capture.Input
	for _, dir := range dirs {
		in, err := Logs(dir)
		if err == nil {
			logs = append(logs, in...)
		}
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

func resolve(word string, dirs []string, heads []head) (string, error) {
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
		return "", &NotFoundError{Word: word, Dirs: dirs}
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
	return "", &AmbiguousError{Word: word, Dirs: dirs, Candidates: ids}
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
