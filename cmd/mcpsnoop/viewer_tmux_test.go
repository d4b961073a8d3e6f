package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The viewer in a real terminal: tmux runs the built binary in a detached
// 200x50 session, send-keys types, capture-pane reads the screen.

type tmuxTerm struct {
	t    *testing.T
	sock string
}

// startTmux runs shell in a new detached tmux server of its own. The
// test is skipped when tmux is not installed.
func startTmux(t *testing.T, shell string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the terminal viewer tests need it (apt-get install tmux)")
	}
	var b [6]byte
	rand.Read(b[:])
	tt := &tmuxTerm{t: t, sock: "mcpsnoop-test-" + hex.EncodeToString(b[:])}
	// The shell keeps the pane open after the viewer exits, and says how
	// it exited.
	cmd := shell + `; echo "viewer exited $?"; sleep 600`
	tt.run("new-session", "-d", "-x", "200", "-y", "50", "-s", "v", "sh", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", tt.sock, "kill-server").Run() })
	return tt
}

func (tt *tmuxTerm) run(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends key names (Enter, Escape, Down) or single characters.
func (tt *tmuxTerm) keys(keys ...string) {
	tt.run(append([]string{"send-keys", "-t", "v"}, keys...)...)
}

// typeText types text literally.
func (tt *tmuxTerm) typeText(s string) { tt.run("send-keys", "-t", "v", "-l", s) }

func (tt *tmuxTerm) screen() string { return tt.run("capture-pane", "-p", "-t", "v") }

// waitFor waits until the screen shows every one of want, and returns it.
func (tt *tmuxTerm) waitFor(want ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tt.screen()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the screen never showed %q:\n%s", missing, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestOpenViewerInTmux opens the store example, filters status:error,
// inspects the failed call's answer, opens the tool panel and quits.
func TestOpenViewerInTmux(t *testing.T) {
	t.Parallel()
	t.Log("mcpsnoop open in a tmux terminal")
	bin := mcpsnoopBinary(t)
	fixture, _ := filepath.Abs("../../fixtures/store-example.jsonl")
	home := t.TempDir()
	tt := startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin)+" open --redact-key arguments "+shellQuote(fixture))
	tt.waitFor("24 frames · 9 calls · 1 pending · 1 error · 3 warnings · 2 missing", "notifications/cancelled", "filter: none")

	// e exports the session as HTML into <state>/exports; :export json
	// writes another format to a path; both redacted as open was told.
	tt.keys("e")
	html := filepath.Join(home, "exports", "store-example.html")
	tt.waitFor("exported html to " + html)
	tt.keys(":")
	out := filepath.Join(home, "out.json")
	tt.typeText("export json " + out)
	tt.keys("Enter")
	tt.waitFor("exported json to " + out)
	for _, p := range []string{html, out} {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), "[REDACTED]") {
			t.Fatalf("%s: %v, redacted %v", p, err, strings.Contains(string(b), "[REDACTED]"))
		}
	}

	// A bad filter says why, on the line under the prompt.
	tt.keys("/")
	tt.typeText("dir:sideways")
	tt.keys("Enter")
	tt.waitFor("dir:sideways: dir is c2s, s2c, stderr or meta")
	tt.keys("Escape")
	tt.waitFor("filter: none")

	tt.keys("/")
	tt.typeText("status:error")
	tt.keys("Enter")
	s := tt.waitFor("filter: status:error · 2 of 24 frames")
	if strings.Contains(s, "echo") || !strings.Contains(s, "fail") {
		t.Fatalf("status:error shows other calls:\n%s", s)
	}

	tt.keys("Down", "Enter")
	tt.waitFor("frame #21", "call          #7 error, 10.0ms", `"message": "Invalid params"`)

	// Escape and t in one write would read as alt+t: wait in between.
	tt.keys("Escape")
	tt.waitFor("filter: status:error · 2 of 24 frames")
	tt.keys("s")
	tt.waitFor("tools · store-example", "TOOL    CALLS  ERRORS  PENDING", "fail    1      1       0")

	tt.keys("q")
	tt.waitFor("viewer exited 0")
}

// TestLiveViewInTmux starts the live view on an empty state directory,
// then writes a session log the way a shim does, in two parts: the view
// picks up the new log and then its answer.
func TestLiveViewInTmux(t *testing.T) {
	t.Parallel()
	t.Log("the live view following a shim session in a tmux terminal")
	bin := mcpsnoopBinary(t)
	home := t.TempDir()
	tt := startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin))
	tt.waitFor("live · 0 sessions", "no sessions yet")

	dir := filepath.Join(home, "sessions")
	log := filepath.Join(dir, "files-77-0123456789ab.jsonl")
	line := func(seq int, dir, raw string) string {
		return `{"session_id":"files-77-0123456789ab","server_label":"files","seq":` + strconv.Itoa(seq) +
			`,"ts":"2026-03-02T10:00:0` + strconv.Itoa(seq) + `Z","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
	}
	write := func(s string) {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(line(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file"}}`))
	tt.waitFor("live · 1 session", "files-77-0123456789ab")
	tt.keys("Enter")
	tt.waitFor("following · 1 frame · 1 call · 1 pending", "read_file")

	write(line(2, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no such file"}}`))
	tt.waitFor("following · 2 frames · 1 call · 0 pending · 1 error", "1.00s")
	tt.keys("q")
	tt.waitFor("viewer exited 0")
}

// TestDemoInTmux runs the demo in a terminal: the viewer follows the
// recorded session until the script ends, and the session's stream holds
// the failed and the slow calls.
func TestDemoInTmux(t *testing.T) {
	t.Parallel()
	t.Log("mcpsnoop demo in a tmux terminal")
	bin := mcpsnoopBinary(t)
	tmp := t.TempDir()
	tt := startTmux(t, "TMPDIR="+shellQuote(tmp)+" "+shellQuote(bin)+" demo")
	tt.waitFor("mcpsnoop demo", "demo finished")
	tt.keys("Enter")
	tt.waitFor("21 frames · 9 calls · 0 pending · 2 errors", "alerts", "history")
	tt.keys("/")
	tt.typeText("status:error")
	tt.keys("Enter")
	tt.waitFor("4 of 21 frames")
	tt.keys("q")
	s := tt.waitFor("viewer exited 0")
	if !strings.Contains(s, "mcpsnoop demo: the session log is "+tmp) {
		t.Errorf("the demo does not say where its log is:\n%s", s)
	}
}

// TestStreamNoteInTmux: the stream's columns are as wide as what they
// show, so NOTE gets the rest of the terminal: at 150 columns the store
// example's warnings read whole (the method, tool and status columns no
// longer hold room their cells never use), and a long stderr line is
// quoted as far as the column reaches, not cut at 60 runes.
func TestStreamNoteInTmux(t *testing.T) {
	t.Parallel()
	t.Log("the viewer's NOTE column in a tmux terminal")
	bin := mcpsnoopBinary(t)
	home := t.TempDir()
	fixture, _ := filepath.Abs("../../fixtures/store-example.jsonl")
	tt := startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin)+" open "+shellQuote(fixture))
	tt.run("resize-window", "-t", "v", "-x", "150", "-y", "40")
	s := tt.waitFor("filter: none", "warning: response id has no matching request", "warning: duplicate response for the same id", "warning: request reuses an id already in flight")
	if strings.Contains(s, "warning: response id has …") {
		t.Errorf("a note is cut:\n%s", s)
	}
	tt.keys("q")
	tt.waitFor("viewer exited 0")

	said := "server: " + strings.Repeat("reticulating splines ", 5) + "done" // 117 runes: past 60, within the column
	log := filepath.Join(t.TempDir(), "stderr.jsonl")
	writeFile(t, log, []byte(`{"session_id":"s","server_label":"srv","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"stderr","transport":"stdio","text":"`+said+`"}`+"\n"))
	tt = startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin)+" open "+shellQuote(log))
	tt.waitFor("filter: none", `"`+said+`"`)
}
