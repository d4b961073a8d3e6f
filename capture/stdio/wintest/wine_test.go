//go:build e2e

package wintest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/wincmd"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The requests of a raw session, in the order sent; those with an id get
// one response line each. The text holds escaped line breaks and
// characters past ASCII, which must cross wine's pipes unchanged.
var rawSession = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wintest","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\nb\r\nc\ttab é 中 \u2028"}}}`,
}

// exchange runs cmd (a server, or the shim in front of one), sends the raw
// session a request at a time, waiting for each response, then ends its
// input and returns every byte it wrote to stdout and its stderr.
func exchange(t *testing.T, cmd *exec.Cmd) (stdout []byte, stderr string) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(out)
	var got bytes.Buffer
	for _, req := range rawSession {
		if _, err := io.WriteString(in, req+"\n"); err != nil {
			t.Fatalf("writing %s: %v", req, err)
		}
		if !strings.Contains(req, `"id"`) {
			continue
		}
		line, err := r.ReadBytes('\n')
		got.Write(line)
		if err != nil {
			t.Fatalf("no response to %s: %v; stderr:\n%s", req, err, errb.String())
		}
	}
	in.Close()
	rest, _ := io.ReadAll(r)
	got.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, errb.String())
	}
	return got.Bytes(), errb.String()
}

// A session through the shim under wine: what the server writes reaches
// the client byte for byte (no \n became \r\n), what the client writes
// reaches the log as it was sent, the "logging" line quotes the server's
// spaced path by Windows' rules, and check and version run.
func TestWineSession(t *testing.T) {
	w := setup(t)
	server := w.exe("winserver.exe")
	direct, _ := exchange(t, w.command(server, "serve"))
	// Both binaries that run the shim: mcpsnoop-shim is what wrap writes
	// into a Windows client's config.
	for _, shim := range []string{"mcpsnoop.exe", "mcpsnoop-shim.exe"} {
		t.Run(shim, func(t *testing.T) { testWineSession(t, w, shim, server, direct) })
	}
	// Both report the same version, which wrap compares.
	shimOut, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop-shim.exe"), "--version")
	fullOut, _, _ := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "--version")
	if v, ok := strings.CutPrefix(strings.TrimSpace(shimOut), "mcpsnoop-shim "); code != 0 || !ok || v != strings.TrimPrefix(strings.TrimSpace(fullOut), "mcpsnoop ") {
		t.Errorf("mcpsnoop-shim.exe --version: exit %d %q%s; mcpsnoop.exe --version: %q", code, shimOut, errOut, fullOut)
	}
}

func testWineSession(t *testing.T, w *wine, shim, server string, direct []byte) {
	logDir := filepath.Join(w.root, "session logs of "+strings.TrimSuffix(shim, ".exe"))
	shimmed, stderr := exchange(t, w.command(w.exe(shim), "--log-dir", win(logDir), "--", server, "serve"))
	if !bytes.Equal(direct, shimmed) {
		t.Errorf("through the shim the client read\n%q\nthe server alone wrote\n%q", shimmed, direct)
	}
	if bytes.Contains(shimmed, []byte("\r\n")) || bytes.Count(shimmed, []byte("\n")) != 3 {
		t.Errorf("the responses are not three \\n-ended lines:\n%q", shimmed)
	}
	if !strings.Contains(string(shimmed), `a\nb\r\nc\ttab é 中 \u2028`) {
		t.Errorf("the echo came back changed:\n%s", shimmed)
	}
	want := `mcpsnoop: logging "` + server + `" serve to ` + win(logDir) + `\`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}

	logs, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs in %s: %v", logDir, logs)
	}
	var sent []string
	f, err := os.Open(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = capture.ReadLog(f, logs[0], func(fr *capture.Frame, _ int) bool {
		if fr.Direction == capture.ClientToServer {
			sent = append(sent, string(fr.Raw))
		}
		return true
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sent, "\n") != strings.Join(rawSession, "\n") {
		t.Errorf("the log holds the client's lines as\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(rawSession, "\n"))
	}
	if out, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "check", win(logs[0])); code != 0 {
		t.Errorf("check %s: exit %d\n%s%s", logs[0], code, out, errOut)
	}
	if out, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "version"); code != 0 || !strings.Contains(out, "mcpsnoop") {
		t.Errorf("version: exit %d\n%s%s", code, out, errOut)
	}
}

// The official Go SDK's client runs a session through the shim under
// wine, as a client on Windows starts its servers.
func TestWineSDKClient(t *testing.T) {
	w := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := w.command(w.exe("mcpsnoop.exe"), "--no-trace", "--", w.exe("winserver.exe"), "serve")
	client := mcp.NewClient(&mcp.Implementation{Name: "wintest", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := "C:\\Program Files\\x\r\n\"quoted\" & | % ^"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != text {
		t.Errorf("echo returned %+v", res.Content)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// lines sends each line r reads to the channel, closing it at the end.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	return ch
}

// waitFor reads lines until one contains want; what it read comes back.
func waitFor(t *testing.T, ch <-chan string, want string) string {
	t.Helper()
	var seen strings.Builder
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("ended before %q:\n%s", want, seen.String())
			}
			seen.WriteString(l + "\n")
			if strings.Contains(l, want) {
				return seen.String()
			}
		case <-timeout:
			t.Fatalf("no %q within 2 minutes:\n%s", want, seen.String())
		}
	}
}

func readPids(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// The shim killed outright (no chance to pass anything on) takes the
// server's whole tree with it: the server, which ignores the end of its
// input, and the child it started (as npx.cmd starts node).
func TestWineShimKilledEndsTheTree(t *testing.T) {
	w := setup(t)
	pidFile := filepath.Join(w.root, "killed.pids")
	shim := w.command(w.exe("mcpsnoop.exe"), "--no-trace", "--",
		w.exe("winserver.exe"), "serve", "-stay", "-spawn", "-pids", win(pidFile))
	in, err := shim.StdinPipe() // held open: the server is not ended by the end of its input
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	errR, err := shim.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := shim.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, lines(errR), "winserver: serving")
	pids := readPids(t, pidFile)
	if len(pids) != 2 || !w.running(t, pids...) {
		t.Fatalf("the server and its child (%v) do not run", pids)
	}
	// wine runs each Windows process as a Linux one: this is the shim's
	// own process, killed as TerminateProcess or a crash would end it.
	if err := shim.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = shim.Wait()
	if alive := w.gone(t, pids...); len(alive) > 0 {
		t.Errorf("processes %v of the server's tree outlived the killed shim", alive)
	}
}

// A server that exits at the end of its input but leaves a child running
// (in its job) does not leave it behind: the shim ends what is left of the
// tree once the server has exited, and exits itself.
func TestWineLeftoversEnd(t *testing.T) {
	w := setup(t)
	pidFile := filepath.Join(w.root, "leftover.pids")
	_, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "--no-trace", "--",
		w.exe("winserver.exe"), "serve", "-spawn", "-pids", win(pidFile))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	pids := readPids(t, pidFile)
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	if alive := w.gone(t, pids[1]); len(alive) > 0 {
		t.Errorf("the server's child %v outlived the session", alive)
	}
}

// A client that dies while the shim's pipes stay open (something else
// holds them) is seen through its process handle: the shim says so and
// ends the server, which would otherwise wait for input for ever.
func TestWineClientGone(t *testing.T) {
	w := setup(t)
	shimPidFile := filepath.Join(w.root, "shim.pid")
	pidFile := filepath.Join(w.root, "orphan.pids")
	client := w.command(w.exe("winserver.exe"), "launch", win(shimPidFile),
		w.exe("mcpsnoop.exe"), "--no-trace", "--", w.exe("winserver.exe"), "serve", "-stay", "-pids", win(pidFile))
	// stdin and stderr on pipes of our own, which Wait leaves open (exec's
	// StdinPipe and StderrPipe would be closed by it): the shim inherits
	// them, its input never ends, and it still writes to stderr once the
	// client is gone.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer errR.Close()
	client.Stdin, client.Stderr = inR, errW
	err = client.Start()
	inR.Close()
	errW.Close()
	if err != nil {
		t.Fatal(err)
	}
	ch := lines(errR)
	waitFor(t, ch, "winserver: serving")
	pids := append(readPids(t, shimPidFile), readPids(t, pidFile)...)
	if !w.running(t, pids...) {
		t.Fatalf("the shim and the server (%v) do not run", pids)
	}
	if err := client.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = client.Wait()
	said := waitFor(t, ch, "mcpsnoop: the client is gone")
	if !regexp.MustCompile(`the client is gone \(its process \(pid \d+\) has exited\); ending the server`).MatchString(said) {
		t.Errorf("the shim said:\n%s", said)
	}
	if alive := w.gone(t, pids...); len(alive) > 0 {
		t.Errorf("processes %v (the shim, the server) outlived the client", alive)
	}
}

// The batch file tests' arguments: each would start a second command, or
// lose its boundaries, if cmd.exe read it unescaped. The injections write
// a file whose existence gives them away.
func hostileArgs(marker string) []string {
	return []string{
		"plain", "two words", "", `C:\Program Files\`, `\\server\share\dir\`,
		"a&echo injected>" + marker, "a|echo injected>" + marker, `"&echo injected>` + marker + `&"`,
		`\"&echo injected>` + marker, "(x)", "<in", "^", "^&echo injected>" + marker,
		`say "hi"`, `"`, `""`, "!PATH!", "a,b;c=d", "tab\there", "é 中",
	}
}

// Arguments holding %: Windows' cmd.exe leaves %VAR% in them alone (the
// %cd:~,% escape), but wine's cmd.exe expands a batch file's %* a second
// time (a % pair spanning two arguments included), so under wine they are
// checked only for starting no command; the escape itself is checked
// against a model of cmd.exe in internal/wincmd's tests.
func percentArgs(marker string) []string {
	return []string{"%PATH%", "100%", "%%", "%cd:~,%", "%ComSpec%&echo injected>" + marker}
}

// A batch file found through PATH and PATHEXT by its bare name (as configs
// say "npx" for npx.cmd), given hostile arguments: it runs through cmd.exe
// and passes on, through %*, exactly the arguments the shim was given; no
// argument starts a second command.
func TestWineBatchFileArguments(t *testing.T) {
	w := setup(t)
	script := filepath.Join(w.bin, "argsrv.cmd")
	body := "@echo off\r\n\"%~dp0winserver.exe\" args %*\r\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(w.root, "injected.txt")
	exact, percent := hostileArgs(win(marker)), percentArgs(win(marker))
	for _, name := range []string{"argsrv", win(script)} {
		for _, set := range []struct {
			args  []string
			exact bool
		}{{exact, true}, {percent, false}} {
			env := []string{"WINEPATH=" + win(w.bin)} // wine adds it to the Windows PATH
			out, errOut, code := w.run(t, "", env, w.exe("mcpsnoop.exe"), append([]string{"--no-trace", "--", name}, set.args...)...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s%s", name, code, out, errOut)
			}
			var line string
			if err := json.Unmarshal([]byte(out), &line); err != nil {
				t.Fatalf("%s: the server printed %q: %v\n%s", name, out, err, errOut)
			}
			got := wincmd.Split(line)
			if len(got) < 2 || got[1] != "args" {
				t.Fatalf("%s: the server's command line is %s", name, line)
			}
			got = got[2:]
			if set.exact && len(got) != len(set.args) {
				t.Errorf("%s: the server got %d arguments, want %d:\n%q\nfrom %s", name, len(got), len(set.args), got, line)
			} else if set.exact {
				for i := range got {
					if got[i] != set.args[i] {
						t.Errorf("%s: argument %d arrived as %q, want %q (command line %s)", name, i+1, got[i], set.args[i], line)
					}
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s: an argument started a second command (%s exists); command line %s", name, marker, line)
			}
		}
	}
}

// The shim's command not found: 127, with a message that names it.
func TestWineCommandNotFound(t *testing.T) {
	w := setup(t)
	_, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "--no-trace", "--", "no-such-server")
	if code != 127 || !strings.Contains(errOut, "no-such-server") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
