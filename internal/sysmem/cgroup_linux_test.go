package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

// The memory limit of this process's control group is the lowest on its
// path, v2 or v1, whether the group is the root a cgroup namespace shows
// or a group below it.
func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string // under the cgroup mount
		self   string            // /proc/self/cgroup
		want   uint64
		wantOK bool
	}{
		{"v2, a container's namespace: root", map[string]string{"memory.max": "4294967296\n"}, "0::/\n", 4 << 30, true},
		{"v2, no limit", map[string]string{"memory.max": "max\n"}, "0::/\n", 0, false},
		{"v2, a systemd slice below the root", map[string]string{
			"user.slice/memory.max":           "max\n",
			"user.slice/job.scope/memory.max": "2147483648\n",
			"system.slice/memory.max":         "1073741824\n",
		}, "0::/user.slice/job.scope\n", 2 << 30, true},
		{"v2, the lowest on the path", map[string]string{
			"a/memory.max":   "1073741824\n",
			"a/b/memory.max": "2147483648\n",
		}, "0::/a/b\n", 1 << 30, true},
		{"v1, a group below the root", map[string]string{
			"memory/memory.limit_in_bytes":               "9223372036854771712\n",
			"memory/process_api/x/memory.limit_in_bytes": "3221225472\n",
		}, "9:name=systemd:/\n4:memory:/process_api/x\n3:cpuset:/\n", 3 << 30, true},
		{"v1, memory among other controllers", map[string]string{
			"memory/g/memory.limit_in_bytes": "536870912\n",
		}, "5:cpuacct,memory:/g\n", 512 << 20, true},
		{"v1, unlimited", map[string]string{
			"memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, "4:memory:/\n", 0, false},
		{"nothing mounted", nil, "0::/a\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, data := range tc.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := cgroupLimit(root, tc.self)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("cgroupLimit = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
