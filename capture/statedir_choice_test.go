package capture

import (
	"path/filepath"
	"testing"
)

// Where the state directory is, by platform, environment and what exists:
// on Windows the usual place is %LOCALAPPDATA%\mcpsnoop, and a state
// directory an older version made under the home folder keeps being used.
func TestChooseStateDir(t *testing.T) {
	home := filepath.Join("C:", "Users", "me")
	old := filepath.Join(home, ".local", "state", "mcpsnoop")
	local := filepath.Join(home, "AppData", "Local")
	for _, tt := range []struct {
		name, goos string
		env        map[string]string
		home       string
		dirs       []string
		want       string
		src        stateSource
	}{
		{"linux", "linux", nil, "/home/me", nil, "/home/me/.local/state/mcpsnoop", stateFromHome},
		{"linux, XDG", "linux", map[string]string{"XDG_STATE_HOME": "/x"}, "/home/me", nil, "/x/mcpsnoop", stateFromXDG},
		{"linux, no home", "linux", nil, "", nil, "", stateFromTemp},
		{"darwin, MCPSNOOP_HOME", "darwin", map[string]string{"MCPSNOOP_HOME": "/s", "XDG_STATE_HOME": "/x"}, "/Users/me", nil, "/s", stateFromEnv},
		{"windows", "windows", map[string]string{"LOCALAPPDATA": local}, home, nil, filepath.Join(local, "mcpsnoop"), stateFromHome},
		{"windows, the old place exists", "windows", map[string]string{"LOCALAPPDATA": local}, home, []string{old}, old, stateFromOldHome},
		{"windows, both exist", "windows", map[string]string{"LOCALAPPDATA": local}, home, []string{old, filepath.Join(local, "mcpsnoop")}, old, stateFromOldHome},
		{"windows, MCPSNOOP_HOME over the old place", "windows", map[string]string{"MCPSNOOP_HOME": `D:\state`, "LOCALAPPDATA": local}, home, []string{old}, `D:\state`, stateFromEnv},
		{"windows, XDG over the old place", "windows", map[string]string{"XDG_STATE_HOME": `D:\xdg`, "LOCALAPPDATA": local}, home, []string{old}, filepath.Join(`D:\xdg`, "mcpsnoop"), stateFromXDG},
		{"windows, no LOCALAPPDATA", "windows", nil, home, nil, filepath.Join(home, "AppData", "Local", "mcpsnoop"), stateFromHome},
		{"windows, nothing", "windows", nil, "", nil, "", stateFromTemp},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exists := map[string]bool{}
			for _, d := range tt.dirs {
				exists[d] = true
			}
			got, src := chooseStateDir(tt.goos, func(k string) string { return tt.env[k] }, tt.home, func(d string) bool { return exists[d] })
			if got != tt.want || src != tt.src {
				t.Errorf("got %s (%d), want %s (%d)", got, src, tt.want, tt.src)
			}
		})
	}
}
