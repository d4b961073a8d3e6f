package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Piece is one scenario's share of a proxy log, written as a log of its own.
type Piece struct {
	Scenario string
	Path     string
	Frames   int // frames other than meta frames
}

// Split cuts the log one `mcpsnoop http` wrote while the suite ran the
// scenarios of results one after another into one log per scenario, under
// outDir. The suite stamps a scenario's start (to the millisecond) before
// it sends anything and writes its checks.json (End, to the nanosecond)
// when it is done, and runs the next only then; the proxy stamps a frame
// when it sees it. So a frame belongs to the scenario before the cut
// between two, which falls at the later of the first's End and the
// second's Start: a frame of the first may share the second's starting
// millisecond, and one the first left behind (an answer to a request it
// did not wait for) still belongs to it until the second began.
//
// bySession is for a log Merge made of the bridge's: there a session that
// opens with initialize is one 2025-11-25 MCP session, a server process of
// its own, and all of it belongs to the scenario it began in, however late
// the server answers (the suite reads a session id from the response
// headers and moves on without the body). Other sessions (the shared
// 2026-07-28 process) are cut by time.
//
// Each piece starts with the log's leading meta frames and gets a session
// id of its own (the log's, plus the scenario's name) and seq numbers from
// 1 without gaps (per session), so that it reads as a whole capture: check
// neither counts the other scenarios' frames as lost nor merges two pieces
// as copies of one session. Every other byte of a frame is kept. A frame
// before the first scenario began is an error: something other than the
// suite talked to the proxy.
func Split(logPath string, results []Result, outDir string, bySession bool) ([]Piece, error) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	for i, r := range results {
		if i > 0 && r.Start.Before(results[i-1].Start) {
			return nil, fmt.Errorf("split %s: scenarios out of order (%s began before %s)", logPath, r.Scenario, results[i-1].Scenario)
		}
	}
	type frame struct {
		line    []byte
		session string
		meta    bool
		piece   int // by time
	}
	var header [][]byte // the leading meta frames
	var frames []frame
	opens := map[string]int{} // a session opening with initialize: the piece it began in
	seen := map[string]bool{} // a session whose first client frame was read
	current := -1
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var f struct {
			TS        time.Time `json:"ts"`
			Direction string    `json:"direction"`
			Session   string    `json:"session_id"`
			Raw       struct {
				Method string `json:"method"`
			} `json:"raw"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", logPath, n, err)
		}
		line = append([]byte(nil), line...)
		if f.Direction == "meta" && current < 0 {
			header = append(header, line)
			continue
		}
		for current+1 < len(results) && !cut(results, current).After(f.TS) {
			current++
		}
		if current < 0 {
			return nil, fmt.Errorf("%s:%d: a %s frame at %s, before the first scenario (%s) began at %s", logPath, n, f.Direction, f.TS.Format(time.RFC3339Nano), results[0].Scenario, results[0].Start.Format(time.RFC3339Nano))
		}
		if f.Direction == "c2s" && !seen[f.Session] {
			seen[f.Session] = true
			if bySession && f.Raw.Method == "initialize" {
				opens[f.Session] = current
			}
		}
		frames = append(frames, frame{line: line, session: f.Session, meta: f.Direction == "meta", piece: current})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", logPath, err)
	}
	pieces := make([]Piece, len(results))
	lines := make([][][]byte, len(results))
	for i, r := range results {
		pieces[i] = Piece{Scenario: r.Scenario, Path: filepath.Join(outDir, filepath.FromSlash(r.Scenario)+".jsonl")}
		lines[i] = append([][]byte(nil), header...)
	}
	for _, f := range frames {
		i := f.piece
		if p, ok := opens[f.session]; ok {
			i = p
		}
		lines[i] = append(lines[i], f.line)
		if !f.meta {
			pieces[i].Frames++
		}
	}
	for i := range pieces {
		if err := writePiece(pieces[i], lines[i]); err != nil {
			return nil, err
		}
	}
	return pieces, nil
}

// cut is where scenario i+1's frames begin (i = -1: the first's).
func cut(results []Result, i int) time.Time {
	next := results[i+1].Start
	if i >= 0 && !results[i].End.Before(next) {
		return results[i].End.Add(time.Nanosecond) // a frame stamped at End is the first's
	}
	return next
}

// writePiece writes frames as p's log, renumbered and renamed.
func writePiece(p Piece, frames [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep peer text byte for byte
	suffix := "-" + strings.ReplaceAll(p.Scenario, "/", "-")
	seqs := map[string]int{} // per session: a merged log holds several
	for _, line := range frames {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(line, &fields); err != nil {
			return err
		}
		var session string
		if err := json.Unmarshal(fields["session_id"], &session); err != nil {
			return fmt.Errorf("%s: a frame without a session id: %s", p.Path, line)
		}
		fields["session_id"], _ = json.Marshal(session + suffix)
		seqs[session]++
		fields["seq"] = json.RawMessage(fmt.Sprint(seqs[session]))
		if err := enc.Encode(fields); err != nil {
			return err
		}
	}
	return os.WriteFile(p.Path, buf.Bytes(), 0o644)
}

// Merge writes the frames of several logs (the bridge's: one per server
// process) to out as one log, in the order of their timestamps (a log's
// own order where two are equal), for Split. Every byte of a frame is
// kept.
func Merge(paths []string, out string) error {
	type frame struct {
		ts   time.Time
		line []byte
	}
	var frames []frame
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var f struct {
				TS time.Time `json:"ts"`
			}
			if err := json.Unmarshal(line, &f); err != nil {
				return fmt.Errorf("%s:%d: %w", path, n, err)
			}
			frames = append(frames, frame{f.TS, append([]byte(nil), line...)})
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].ts.Before(frames[j].ts) })
	var buf bytes.Buffer
	for _, f := range frames {
		buf.Write(f.line)
		buf.WriteByte('\n')
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
