//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record of trusted files that someone else could have written is not
// believed: it trusts nothing, and says why.
func TestTrustRecordNotBelieved(t *testing.T) {
	dir := project(t, "otlp-endpoint = \"http://collector.example/v1/traces\"\n")
	p, err := LoadProjectConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(p.Path, p.Digest); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(os.Getenv("MCPSNOOP_HOME"), TrustFile)
	for _, tt := range []struct {
		name  string
		spoil func() error
		want  string
	}{
		{"writable by others", func() error { return os.Chmod(record, 0o666) }, "others may write in it"},
		{"another user's", func() error {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			os.Chmod(record, 0o600)
			return os.Chown(record, 4242, 4242)
		}, "belongs to another user"},
		{"a link", func() error {
			real := record + ".real"
			data, _ := os.ReadFile(record)
			os.Remove(record)
			if err := os.WriteFile(real, data, 0o600); err != nil {
				return err
			}
			return os.Symlink(real, record)
		}, "is a symbolic link"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.spoil(); err != nil {
				t.Fatal(err)
			}
			p, err := LoadProjectConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Trusted || p.TrustErr == nil || !strings.Contains(p.TrustErr.Error(), tt.want) {
				t.Errorf("trusted %v, err %v; want %q", p.Trusted, p.TrustErr, tt.want)
			}
		})
	}
}
