package clientconfig

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Each client's config shape, before and after wrapping every server that
// can be wrapped (testdata/<client>/before.json and after.json). After an
// intended change to how entries are rewritten:
//
//	go test ./clientconfig -run Golden -update
//
// then read the diff of testdata before committing it.

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// logDir is the --log-dir the golden files are wrapped with.
const logDir = "/ci/artifacts/mcp"

func TestGoldenRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		client string
		remote map[string]string // remote servers: name -> url
	}{
		{"claude-desktop", nil},
		{"claude-code", map[string]string{"sentry": "https://mcp.sentry.dev/mcp"}},
		{"cursor", map[string]string{"docs": "https://docs.example.com/mcp?team=a&b"}},
		{"vscode", map[string]string{"remote": "https://api.example.com/mcp"}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			c, ok := LookupClient(tc.client)
			if !ok {
				t.Fatalf("no client %s", tc.client)
			}
			dir := filepath.Join("testdata", tc.client)
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			path, err := c.Path(Dirs{Work: filepath.Join(tmp, "project"), Home: filepath.Join(tmp, "home"), Config: filepath.Join(tmp, "config")}, false)
			if err != nil {
				t.Fatal(err)
			}
			writeConfigFile(t, path, before)

			servers, key, err := Servers(before, []string{c.Key})
			if err != nil || key != c.Key {
				t.Fatalf("Servers: key %q, err %v", key, err)
			}
			if auto, _ := Key(before, nil); auto != c.Key {
				t.Errorf("the shape is not recognised without the client: key %q, want %q", auto, c.Key)
			}
			var wrapped []string
			for _, s := range servers {
				if url, remote := tc.remote[s.Name]; remote {
					if s.URL != url || s.Err == nil {
						t.Errorf("%s: url %q, err %v; want the remote server %s", s.Name, s.URL, s.Err, url)
					}
					continue
				}
				if s.Err != nil || s.Wrapped {
					t.Fatalf("%s: %v, wrapped %v", s.Name, s.Err, s.Wrapped)
				}
				o := WrapOptions{Keys: []string{c.Key}, Binary: bin, ShimArgs: []string{"--label", s.Name, "--log-dir", logDir}}
				if _, err := WrapFile(path, s.Name, o, false); err != nil {
					t.Fatalf("wrap %s: %v", s.Name, err)
				}
				wrapped = append(wrapped, s.Name)
			}
			got := read(t, path)
			golden := filepath.Join(dir, "after.json")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("wrapped config differs from %s:\n%s", golden, got)
			}
			after, _, _ := Servers([]byte(got), nil)
			for _, s := range after {
				if s.Wrapped != slices.Contains(wrapped, s.Name) {
					t.Errorf("%s: wrapped %v after wrapping %v", s.Name, s.Wrapped, wrapped)
				}
			}

			// Without the backup, unwrap alone gives a config that means
			// the same; with it, the very bytes come back.
			data := []byte(got)
			for _, name := range wrapped {
				if data, _, _, err = Unwrap(data, name, []string{c.Key}); err != nil {
					t.Fatal(err)
				}
			}
			if !SameConfig(data, before) {
				t.Errorf("unwrapped without a backup, the config means something else:\n%s", data)
			}
			for i, name := range wrapped {
				o, err := UnwrapFile(path, name, nil, false)
				last := i == len(wrapped)-1
				if err != nil || !o.Changed || o.BackupRestored != last || o.BackupRemoved != last {
					t.Fatalf("unwrap %s: %+v, %v", name, o, err)
				}
			}
			if got := read(t, path); got != string(before) {
				t.Errorf("not restored byte for byte:\n%s", got)
			}
			if exists(BackupPath(path)) {
				t.Error("backup left behind")
			}
		})
	}
}

func writeConfigFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
