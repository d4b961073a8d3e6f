package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// Each piece starts with the log's leading meta frames and gets a session
// id of its own (the log's, plus the scenario's name) and seq numbers from
// 1 without gaps, so that it reads as a whole capture: check neither counts
// the other scenarios' frames as lost nor merges two pieces as copies of
// one session. Every other byte of a frame is kept. A frame before the
// first scenario began is an error: something other than the suite talked
// to the proxy.
func Split(logPath string, results []Result, outDir string) ([]Piece, error) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	type out struct {
		piece  Piece
		frames [][]byte
	}
	outs := make([]*out, len(results))
	for i, r := range results {
		if i > 0 && r.Start.Before(results[i-1].Start) {
			return nil, fmt.Errorf("split %s: scenarios out of order (%s began before %s)", logPath, r.Scenario, results[i-1].Scenario)
		}
		outs[i] = &out{piece: Piece{Scenario: r.Scenario, Path: filepath.Join(outDir, filepath.FromSlash(r.Scenario)+".jsonl")}}
	}
	var header [][]byte // the leading meta frames
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
		outs[current].frames = append(outs[current].frames, line)
		if f.Direction != "meta" {
			outs[current].piece.Frames++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", logPath, err)
	}
	pieces := make([]Piece, len(outs))
	for i, o := range outs {
		if err := writePiece(o.piece, append(append([][]byte(nil), header...), o.frames...)); err != nil {
			return nil, err
		}
		pieces[i] = o.piece
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
	for i, line := range frames {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(line, &fields); err != nil {
			return err
		}
		var session string
		if err := json.Unmarshal(fields["session_id"], &session); err != nil {
			return fmt.Errorf("%s: a frame without a session id: %s", p.Path, line)
		}
		fields["session_id"], _ = json.Marshal(session + suffix)
		fields["seq"] = json.RawMessage(fmt.Sprint(i + 1))
		if err := enc.Encode(fields); err != nil {
			return err
		}
	}
	return os.WriteFile(p.Path, buf.Bytes(), 0o644)
}
