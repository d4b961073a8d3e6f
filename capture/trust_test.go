package capture

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// project makes a project folder holding a config with text, and a state
// directory of its own.
func project(t *testing.T, text string) string {
	t.Helper()
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An untrusted config keeps its settings except those that send data off
// the machine or write outside the project; trusting it lets them apply;
// changing it makes it untrusted again; revoking forgets it.
func TestProjectConfigTrust(t *testing.T) {
	outside := t.TempDir()
	text := "label = \"repo\"\nredact-key = \"token\"\notlp-endpoint = \"http://collector.example:4318/v1/traces\"\notlp-header = \"authorization=Bearer x\"\ntrace-file = \"" + filepath.Join(outside, "bashrc") + "\"\n"
	dir := project(t, text)
	load := func() *ProjectConfig {
		t.Helper()
		p, err := LoadProjectConfig(dir)
		if err != nil || p == nil || p.TrustErr != nil {
			t.Fatalf("%+v %v", p, err)
		}
		return p
	}
	p := load()
	if p.Trusted || p.Changed || p.Path != filepath.Join(dir, ConfigFile) || p.Dir != dir {
		t.Fatalf("%+v", p)
	}
	cfg, ignored := p.Effective()
	if cfg.OTLPEndpoint != nil || cfg.OTLPHeaders != nil || cfg.TraceFile != nil {
		t.Errorf("untrusted settings apply: %+v", cfg)
	}
	if *cfg.Label != "repo" || !reflect.DeepEqual(cfg.RedactKeys, []string{"token"}) {
		t.Errorf("the other settings do not: %+v", cfg)
	}
	want := []Ignored{{Key: "otlp-endpoint", Value: "http://collector.example:4318/v1/traces"}, {Key: "otlp-header"},
		{Key: "trace-file", Value: filepath.Join(outside, "bashrc"), Outside: filepath.Join(outside, "bashrc")}}
	if !reflect.DeepEqual(ignored, want) {
		t.Errorf("ignored %+v\nwant    %+v", ignored, want)
	}

	if changed, err := Trust(p.Path, p.Digest); err != nil || !changed {
		t.Fatalf("trust: %v %v", changed, err)
	}
	if changed, err := Trust(p.Path, p.Digest); err != nil || changed {
		t.Errorf("trusting again changed the record: %v %v", changed, err)
	}
	p = load()
	if cfg, ignored := p.Effective(); !p.Trusted || ignored != nil || cfg.OTLPEndpoint == nil || *cfg.TraceFile != filepath.Join(outside, "bashrc") {
		t.Errorf("trusted: %+v, %+v, ignored %v", p, cfg, ignored)
	}
	if info, err := os.Stat(filepath.Join(os.Getenv("MCPSNOOP_HOME"), TrustFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the record: %v %v", info, err)
	}

	if err := os.WriteFile(p.Path, []byte(text+"# one more line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p = load(); p.Trusted || !p.Changed {
		t.Errorf("a changed file is trusted: %+v", p)
	}
	if removed, err := Revoke(p.Path); err != nil || !removed {
		t.Fatalf("revoke: %v %v", removed, err)
	}
	if p = load(); p.Trusted || p.Changed {
		t.Errorf("revoked: %+v", p)
	}
	if removed, err := Revoke(p.Path); err != nil || removed {
		t.Errorf("revoking again: %v %v", removed, err)
	}
}

// Where trace-file and log-dir lead is decided with every link followed
// and ".." taken as the system takes it; a path that stays inside is kept,
// made the absolute path it was judged as.
func TestEffectiveLogPaths(t *testing.T) {
	dir := project(t, "")
	outside := t.TempDir()
	if real, err := filepath.EvalSymlinks(outside); err == nil {
		outside = real
	}
	other := filepath.Join(outside, "deep", "er")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ name, target string }{
		{"out", outside},    // a folder link leading out
		{"deeplink", other}, // "deeplink/../x" is outside/deep/x, not dir/x
		{"trace.jsonl", filepath.Join(outside, "rc")}, // a dangling link: created where it points
		{"inner", "sub"}, // a link that stays inside
		{"loop", "loop"},
	} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		value string
		keep  string // the path kept; "" when it is ignored
	}{
		{"logs/trace.jsonl", filepath.Join(dir, "logs", "trace.jsonl")},
		{"./sub/../a.jsonl", filepath.Join(dir, "a.jsonl")},
		{filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "b.jsonl")},
		{"inner/c.jsonl", filepath.Join(dir, "sub", "c.jsonl")},
		{"../escape.jsonl", ""},
		{filepath.Join(outside, "abs.jsonl"), ""},
		{"out/x.jsonl", ""},
		{"deeplink/../x.jsonl", ""},
		{"trace.jsonl", ""},
		{".git/hooks/pre-commit", ""},
		{"loop/x", ""},
	} {
		for _, key := range []string{"trace-file", "log-dir"} {
			p := &ProjectConfig{Dir: dir, Config: &Config{}}
			v := tt.value
			if key == "trace-file" {
				p.Config.TraceFile = &v
			} else {
				p.Config.LogDir = &v
			}
			cfg, ignored := p.Effective()
			got := cfg.TraceFile
			if key == "log-dir" {
				got = cfg.LogDir
			}
			switch {
			case tt.keep == "" && (got != nil || len(ignored) != 1 || ignored[0].Key != key):
				t.Errorf("%s = %q: kept %v, ignored %+v", key, tt.value, got, ignored)
			case tt.keep != "" && (got == nil || *got != tt.keep || ignored != nil):
				t.Errorf("%s = %q: kept %v, want %s (ignored %+v)", key, tt.value, got, tt.keep, ignored)
			}
		}
	}
}

// Trusting several files at once records each: trusted.json is edited
// under its lock.
func TestTrustAtOnce(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Trust(filepath.Join("/projects", string(rune('a'+i)), ConfigFile), "digest"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	files, err := TrustedConfigs()
	if err != nil || len(files) != n {
		t.Errorf("%d records, %v", len(files), err)
	}
}
