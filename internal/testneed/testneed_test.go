package testneed

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of
// ending it, so both outcomes of Missing can be seen from one test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = f }
func (r *recorder) Skip(a ...any)             { r.skip = a[0].(string) }

func TestMissing(t *testing.T) {
	for _, tt := range []struct {
		env       string
		wantFatal bool
	}{
		{"", false},
		{"0", false},
		{"1", true},
	} {
		t.Run("require="+tt.env, func(t *testing.T) {
			t.Setenv(RequireEnv, tt.env)
			r := &recorder{TB: t}
			Missing(r, "tmux is not installed (%s)", "apt-get install tmux")
			if got := r.fatal != ""; got != tt.wantFatal {
				t.Fatalf("fatal %q, skip %q; want fatal %v", r.fatal, r.skip, tt.wantFatal)
			}
			if !tt.wantFatal && r.skip != "tmux is not installed (apt-get install tmux)" {
				t.Errorf("skip message %q", r.skip)
			}
			if tt.wantFatal && !strings.Contains(r.fatal, "a missing prerequisite fails the test") {
				t.Errorf("fatal message %q", r.fatal)
			}
		})
	}
}
