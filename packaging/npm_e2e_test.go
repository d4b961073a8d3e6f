//go:build e2e

package packaging_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmInstall is the seven packages built, packed and installed.
type npmInstall struct {
	Version  string
	Tarballs map[string]string // package name -> .tgz
	Project  string            // a project with mcpsnoop installed offline
	Cache    string            // its npm cache (empty of registry data)
}

var npmOnce struct {
	once sync.Once
	in   npmInstall
	err  error
	log  string
}

// installed builds the npm packages from the snapshot with
// packaging/npm/build.mjs, packs all seven with npm pack, and installs the
// launcher and this machine's platform package into a new project with
// npm install --offline --ignore-scripts, from the tarballs alone.
func installed(t *testing.T) npmInstall {
	t.Helper()
	s := release(t)
	needNode(t)
	npmOnce.once.Do(func() {
		var log strings.Builder
		defer func() { npmOnce.log = log.String() }()
		work, err := os.MkdirTemp("", "mcpsnoop-npm-e2e-")
		if err != nil {
			npmOnce.err = err
			return
		}
		in := npmInstall{Version: s.Version, Tarballs: map[string]string{}, Cache: filepath.Join(work, "cache"), Project: filepath.Join(work, "project")}
		run := func(dir string, name string, args ...string) (string, error) {
			cmd := exec.Command(name, args...)
			cmd.Dir = dir
			cmd.Env = npmEnv(in.Cache)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			fmt.Fprintf(&log, "$ %s %s\n%s%s", name, strings.Join(args, " "), out, stderr.String())
			if err != nil {
				return "", fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
			}
			return string(out), nil
		}
		out, err := run(repoRoot(t), "node", "packaging/npm/build.mjs", "--dist", s.Dist, "--out", filepath.Join(work, "packages"))
		if err != nil {
			npmOnce.err = err
			return
		}
		folders := strings.Fields(out)
		if len(folders) != 7 {
			npmOnce.err = fmt.Errorf("build.mjs printed %d folders, want 7", len(folders))
			return
		}
		tgz := filepath.Join(work, "tarballs")
		os.MkdirAll(tgz, 0o755)
		for _, dir := range folders {
			out, err := run(tgz, "npm", "pack", "--json", dir)
			if err != nil {
				npmOnce.err = err
				return
			}
			var packed []struct {
				Name     string `json:"name"`
				Filename string `json:"filename"`
			}
			if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
				npmOnce.err = fmt.Errorf("npm pack --json %s: %v %q", dir, err, out)
				return
			}
			in.Tarballs[packed[0].Name] = filepath.Join(tgz, packed[0].Filename)
		}
		os.MkdirAll(in.Project, 0o755)
		os.WriteFile(filepath.Join(in.Project, "package.json"), []byte(`{"private":true}`), 0o644)
		platform := in.Tarballs["mcpsnoop-"+npmPlatform()]
		if platform == "" {
			npmOnce.err = fmt.Errorf("no package for %s", npmPlatform())
			return
		}
		// The other five platforms' packages are optional dependencies
		// npm cannot fetch offline: it skips them, as it skips those whose
		// os and cpu do not match online.
		if _, err := run(in.Project, "npm", "install", "--offline", "--ignore-scripts", in.Tarballs["mcpsnoop"], platform); err != nil {
			npmOnce.err = err
			return
		}
		npmOnce.in = in
	})
	if npmOnce.err != nil {
		t.Fatalf("%v\n%s", npmOnce.err, npmOnce.log)
	}
	return npmOnce.in
}

// tarballFiles lists an npm tarball: path inside package/ -> mode, and the
// package.json it holds.
func tarballFiles(t *testing.T, path string) (map[string]os.FileMode, map[string]any) {
	t.Helper()
	files := archiveFiles(t, path)
	var pkg map[string]any
	f, _ := os.Open(path)
	defer f.Close()
	data := readTarFile(t, f, "package/package.json")
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("%s: package.json: %v", path, err)
	}
	return files, pkg
}

func TestNPMPackages(t *testing.T) {
	in := installed(t)
	if len(in.Tarballs) != 7 {
		t.Fatalf("packed %v", in.Tarballs)
	}
	var optional = map[string]any{}
	for _, os := range []string{"darwin", "linux", "win32"} {
		for _, cpu := range []string{"arm64", "x64"} {
			name := "mcpsnoop-" + os + "-" + cpu
			optional[name] = in.Version
			files, pkg := tarballFiles(t, in.Tarballs[name])
			exes := []string{"package/bin/mcpsnoop", "package/bin/mcpsnoop-shim"}
			if os == "win32" {
				exes = []string{"package/bin/mcpsnoop.exe", "package/bin/mcpsnoop-shim.exe"}
			}
			names := slices.Sorted(mapKeys(files))
			if !slices.Equal(names, slices.Sorted(slices.Values(append([]string{"package/README.md", "package/package.json"}, exes...)))) {
				t.Errorf("%s holds %v", name, names)
			}
			for _, exe := range exes {
				if files[exe]&0o111 == 0 {
					t.Errorf("%s: %s is not executable (%v)", name, exe, files[exe])
				}
			}
			want := map[string]any{"name": name, "version": in.Version, "os": []any{os}, "cpu": []any{cpu}, "files": []any{"bin/"}}
			for k, v := range want {
				if fmt.Sprint(pkg[k]) != fmt.Sprint(v) {
					t.Errorf("%s: package.json %s = %v, want %v", name, k, pkg[k], v)
				}
			}
			if _, ok := pkg["scripts"]; ok {
				t.Errorf("%s has scripts: %v", name, pkg["scripts"])
			}
		}
	}
	files, pkg := tarballFiles(t, in.Tarballs["mcpsnoop"])
	names := slices.Sorted(mapKeys(files))
	if !slices.Equal(names, slices.Sorted(slices.Values([]string{"package/README.md", "package/bin/mcpsnoop.js", "package/package.json"}))) {
		t.Errorf("mcpsnoop holds %v", names)
	}
	if files["package/bin/mcpsnoop.js"]&0o111 == 0 {
		t.Errorf("the launcher is not executable")
	}
	if fmt.Sprint(pkg["optionalDependencies"]) != fmt.Sprint(optional) || pkg["version"] != in.Version {
		t.Errorf("mcpsnoop's optionalDependencies %v (version %v), want %v", pkg["optionalDependencies"], pkg["version"], optional)
	}
	if _, ok := pkg["scripts"]; ok {
		t.Errorf("mcpsnoop has scripts (an install script would not run under --ignore-scripts): %v", pkg["scripts"])
	}
	if fmt.Sprint(pkg["bin"]) != "map[mcpsnoop:bin/mcpsnoop.js]" {
		t.Errorf("bin = %v", pkg["bin"])
	}
}

// npx runs `npx --offline mcpsnoop args...` in the project.
func (in npmInstall) npx(home string, args ...string) *exec.Cmd {
	cmd := exec.Command("npx", append([]string{"--offline", "mcpsnoop"}, args...)...)
	cmd.Dir = in.Project
	cmd.Env = npmEnv(in.Cache, "MCPSNOOP_HOME="+home)
	return cmd
}

// launcher runs the installed bin (node_modules/.bin/mcpsnoop) directly.
func (in npmInstall) launcher(home string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(in.Project, "node_modules", ".bin", "mcpsnoop"), args...)
	cmd.Dir = in.Project
	cmd.Env = npmEnv(in.Cache, "MCPSNOOP_HOME="+home)
	return cmd
}

func TestNPMVersion(t *testing.T) {
	in := installed(t)
	out, err := in.npx(t.TempDir(), "version").Output()
	if err != nil {
		t.Fatalf("npx mcpsnoop version: %v", exitDetail(err))
	}
	checkVersionOutput(t, string(out), release(t))
}

func exitDetail(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("%v: %s", err, ee.Stderr)
	}
	return err.Error()
}

// everything is the installed server-everything's entry point, or skips.
func everything(t *testing.T) string {
	t.Helper()
	p := os.Getenv("MCPSNOOP_E2E_EVERYTHING")
	if p == "" {
		missing(t, "MCPSNOOP_E2E_EVERYTHING is not set: install @modelcontextprotocol/server-everything and name its dist/index.js (.ci/run does)")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("MCPSNOOP_E2E_EVERYTHING: %v", err)
	}
	return p
}

// recordEverything drives server-everything through cmd (a capture
// command ending in `-- node <everything> stdio`) with the Go SDK's client:
// it lists the tools and calls two.
//
// server-everything keeps running once its stdin is closed (its timers keep
// Node busy), so the client's shutdown goes on as the MCP spec says: after
// TerminateDuration it sends SIGTERM. That signal must travel down to the
// server (npx, its shell, the launcher, mcpsnoop) and the exit status come
// back up; if it does not, Close ends in SIGKILL or an unresponsive
// process and the test fails.
func recordEverything(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	ctx := withTimeout(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "echo") || !slices.Contains(names, "get-sum") {
		t.Fatalf("server-everything lists %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "through npx"}})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Echo: through npx" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}}); err != nil || res.IsError {
		t.Fatalf("get-sum: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil && !endedBySIGTERM(err) {
		t.Fatalf("close: %v\n%s", err, stderr.String())
	}
}

// endedBySIGTERM: the process died of SIGTERM, or exited 143 as a shell (and
// mcpsnoop) reports a child that did.
func endedBySIGTERM(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal() == syscall.SIGTERM
	}
	return ee.ExitCode() == 143
}

// sessionLogs are the logs in home's state directory.
func sessionLogs(t *testing.T, home string) []string {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(logs)
	return logs
}

// metaOf is the meta frame's raw value of a log.
func metaOf(t *testing.T, log string) (ppid int, ppidStart string, command []string) {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s: %v", log, err)
	}
	var frame struct {
		Direction string `json:"direction"`
		Raw       struct {
			Command   []string `json:"command"`
			PPID      int      `json:"ppid"`
			PPIDStart string   `json:"ppid_start"`
		} `json:"raw"`
	}
	if err := json.Unmarshal(line, &frame); err != nil || frame.Direction != "meta" {
		t.Fatalf("%s: first line %q is no meta frame (%v)", log, line, err)
	}
	return frame.Raw.PPID, frame.Raw.PPIDStart, frame.Raw.Command
}

// TestNPMCaptureEverything records server-everything, a Node MCP server,
// through `npx mcpsnoop -- node ...` under the Go SDK's client, and checks
// the log with `npx mcpsnoop check`.
func TestNPMCaptureEverything(t *testing.T) {
	server := everything(t)
	in := installed(t)
	home := t.TempDir()
	recordEverything(t, in.npx(home, "--label", "everything", "--", "node", server, "stdio"))

	logs := sessionLogs(t, home)
	if len(logs) != 1 || !strings.HasPrefix(filepath.Base(logs[0]), "everything-") {
		t.Fatalf("logs %v", logs)
	}
	ppid, _, command := metaOf(t, logs[0])
	if !slices.Equal(command, []string{"node", server, "stdio"}) {
		t.Errorf("meta command %q", command)
	}
	// The client is this test, past npx, its shell and the launcher.
	if ppid != os.Getpid() {
		t.Errorf("meta ppid %d, want the client's pid %d", ppid, os.Getpid())
	}

	// The gate is on the recording itself: every frame whole and in
	// sequence. The conversation has findings of its own, which the report
	// must show: the server's tools name draft-07 (one schema note). The
	// Go SDK's client opens with server/discover, which this server does
	// not know, and falls back to initialize: spec-legal, so no finding
	// (before the probe fallback was understood, an error). Later the
	// server asks the client for roots/list (deprecated; left pending when
	// it comes as the client hangs up, so not asserted).
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := in.npx(home, "check", "--fail-on", "invalid,incomplete", "--json", report, logs[0])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npx mcpsnoop check: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "check passed") || !strings.Contains(string(out), "invalid=0") || !strings.Contains(string(out), "missing_frames=0") {
		t.Errorf("check printed:\n%s", out)
	}
	var rep struct {
		Verdict  string `json:"verdict"`
		Findings []struct {
			Signal  string `json:"signal"`
			Message string `json:"message"`
		} `json:"findings"`
		Sessions []struct {
			Label string `json:"server_label"`
			Tools []struct {
				Name  string `json:"name"`
				Calls int    `json:"calls"`
			} `json:"tools"`
		} `json:"sessions"`
	}
	data, _ := os.ReadFile(report)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "passed" || len(rep.Sessions) != 1 || rep.Sessions[0].Label != "everything" {
		t.Fatalf("report %s", data)
	}
	calls := map[string]int{}
	for _, tool := range rep.Sessions[0].Tools {
		calls[tool.Name] = tool.Calls
	}
	if calls["echo"] != 1 || calls["get-sum"] != 1 {
		t.Errorf("calls %v, want echo and get-sum once each", calls)
	}
	var seen []string
	for _, f := range rep.Findings {
		switch {
		case strings.Contains(f.Message, "server/discover"):
			seen = append(seen, f.Signal+": "+f.Message)
		case strings.Contains(f.Message, `dialect "http://json-schema.org/draft-07/schema#"`):
			seen = append(seen, f.Signal)
		}
	}
	if !slices.Equal(seen, []string{"schema"}) {
		t.Errorf("the report's findings of the conversation %q, want the one schema note and nothing of the probe:\n%s", seen, data)
	}
}

// TestNPMRunGrouping starts server-everything three times from this one
// client: through npx, through the installed launcher, and through the
// binary itself. All three sessions name this test as their client
// process, so they are one run.
func TestNPMRunGrouping(t *testing.T) {
	server := everything(t)
	in := installed(t)
	home := t.TempDir()
	recordEverything(t, in.npx(home, "--label", "a-npx", "--", "node", server, "stdio"))
	recordEverything(t, in.launcher(home, "--label", "b-launcher", "--", "node", server, "stdio"))
	direct := exec.Command(filepath.Join(in.Project, "node_modules", "mcpsnoop-"+npmPlatform(), "bin", "mcpsnoop"), "--label", "c-direct", "--", "node", server, "stdio")
	direct.Env = npmEnv(in.Cache, "MCPSNOOP_HOME="+home)
	recordEverything(t, direct)

	logs := sessionLogs(t, home)
	if len(logs) != 3 {
		t.Fatalf("logs %v", logs)
	}
	var starts []string
	for _, log := range logs {
		ppid, start, _ := metaOf(t, log)
		if ppid != os.Getpid() || start == "" {
			t.Errorf("%s: ppid %d (start %q), want this test, pid %d", filepath.Base(log), ppid, start, os.Getpid())
		}
		starts = append(starts, start)
	}
	if starts[0] != starts[1] || starts[1] != starts[2] {
		t.Errorf("ppid_start differs: %q", starts)
	}
	out, err := in.npx(home, "check", "--runs").CombinedOutput()
	if err != nil {
		t.Fatalf("check --runs: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n") // a header, then one run
	want := "p-" + strconv.Itoa(os.Getpid()) + "-"
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN ") || !strings.HasPrefix(lines[1], want) || len(strings.Fields(lines[1])) < 3 ||
		strings.Fields(lines[1])[len(strings.Fields(lines[1]))-3] != "3" {
		t.Errorf("check --runs, want one run %s... of 3 sessions:\n%s", want, out)
	}
}

// rawPayloads are the bytes a client and a server exchange in the
// byte-exactness test: JSON-RPC frames and what a proxy might be tempted
// to touch (CRLF, invalid UTF-8, NUL, a long line, no final newline).
func rawPayloads() (client, server []byte) {
	long := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 300_000) + `"}}}`
	client = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r\n" +
		"\xff\xfe not utf-8 \x00 nul\n" +
		long + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	server = []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"raw","version":"1"}}}` + "\n" +
		"stray text on stdout\r\n" +
		"\x1b[31mred\x1b[0m \xc3\x28\n" +
		`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 200_000) + `"}]}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}`)
	return client, server
}

// TestNPMByteExact sends bytes through the launcher (and through npx) to a
// server that records them, and back: both directions arrive unchanged,
// and the server's exit code is the launcher's.
func TestNPMByteExact(t *testing.T) {
	in := installed(t)
	script := filepath.Join(repoRoot(t), "packaging", "testdata", "raw-server.js")
	clientBytes, serverBytes := rawPayloads()
	for _, tc := range []struct {
		name string
		via  func(home string, args ...string) *exec.Cmd
		code int
	}{
		{"launcher", in.launcher, 0},
		{"launcher exit 7", in.launcher, 7},
		{"npx exit 3", in.npx, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			send, got := filepath.Join(dir, "send"), filepath.Join(dir, "got")
			os.WriteFile(send, serverBytes, 0o644)
			cmd := tc.via(t.TempDir(), "--label", "raw", "--", "node", script, "bytes", send, got, strconv.Itoa(tc.code))
			cmd.Stdin = bytes.NewReader(clientBytes)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want the server's %d\nstderr: %s", code, tc.code, stderr.String())
			}
			if !bytes.Equal(stdout.Bytes(), serverBytes) {
				t.Errorf("the client got %d bytes, the server sent %d: they differ at %d", stdout.Len(), len(serverBytes), firstDiff(stdout.Bytes(), serverBytes))
			}
			received, err := os.ReadFile(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(received, clientBytes) {
				t.Errorf("the server got %d bytes, the client sent %d: they differ at %d", len(received), len(clientBytes), firstDiff(received, clientBytes))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestNPMLauncherFindsItsBinary: MCPSNOOP_BINARY wins; a wrong one, or a
// missing platform package, is a clear error.
func TestNPMLauncherFindsItsBinary(t *testing.T) {
	in := installed(t)
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	args := filepath.Join(t.TempDir(), "args")
	fake := filepath.Join(t.TempDir(), "fake")
	os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$MCPSNOOP_LAUNCHER\" \"$@\" > \""+args+"\"\nexit 5\n"), 0o755)
	cmd := in.launcher(t.TempDir(), "check", "a b", "")
	cmd.Env = append(cmd.Env, "MCPSNOOP_BINARY="+fake)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 {
		t.Fatalf("exit %v, want the stand-in's 5", err)
	}
	data, _ := os.ReadFile(args)
	lines := strings.Split(string(data), "\n")
	if len(lines) != 5 || lines[1] != "check" || lines[2] != "a b" || lines[3] != "" {
		t.Errorf("the binary got %q", data)
	}
	// "<launcher pid>:<client pid>", the client being this test.
	launcher, client, _ := strings.Cut(lines[0], ":")
	if client != strconv.Itoa(os.Getpid()) || launcher != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("MCPSNOOP_LAUNCHER=%q, want %d:%d", lines[0], cmd.Process.Pid, os.Getpid())
	}

	// A bare name is the file in the current folder, not a program in
	// PATH (there it is not found, or it is the launcher itself).
	cmd = in.launcher(t.TempDir(), "version")
	cmd.Dir = filepath.Dir(fake)
	cmd.Env = append(cmd.Env, "MCPSNOOP_BINARY="+filepath.Base(fake))
	if out, err := cmd.CombinedOutput(); !errors.As(err, &ee) || ee.ExitCode() != 5 {
		t.Errorf("MCPSNOOP_BINARY=%s in its folder: %v %q, want the stand-in's exit 5", filepath.Base(fake), err, out)
	}
	if data, _ := os.ReadFile(args); !strings.Contains(string(data), "\nversion\n") {
		t.Errorf("the stand-in named by a bare name got %q", data)
	}

	cmd = in.launcher(t.TempDir(), "version")
	cmd.Env = append(cmd.Env, "MCPSNOOP_BINARY=/no/such/mcpsnoop")
	out, err := cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || string(out) != "mcpsnoop: MCPSNOOP_BINARY is \"/no/such/mcpsnoop\", which does not exist\n" {
		t.Errorf("a missing MCPSNOOP_BINARY: %v %q", err, out)
	}

	// The launcher alone, without its platform package (npm --omit=optional).
	bare := t.TempDir()
	os.WriteFile(filepath.Join(bare, "package.json"), []byte(`{"private":true}`), 0o644)
	install := exec.Command("npm", "install", "--offline", "--ignore-scripts", "--omit=optional", in.Tarballs["mcpsnoop"])
	install.Dir, install.Env = bare, npmEnv(in.Cache)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --omit=optional: %v\n%s", err, out)
	}
	cmd = exec.Command(filepath.Join(bare, "node_modules", ".bin", "mcpsnoop"), "version")
	cmd.Env = npmEnv(in.Cache)
	out, err = cmd.CombinedOutput()
	want := "mcpsnoop: the package mcpsnoop-" + npmPlatform() + ", which holds the binary for " + npmPlatform() + ", is not installed."
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.HasPrefix(string(out), want) {
		t.Errorf("without the platform package: %v %q", err, out)
	}
}

// readTarFile reads one file out of a .tar.gz.
func readTarFile(t *testing.T, r io.Reader, name string) []byte {
	t.Helper()
	data, err := tarFile(r, name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
