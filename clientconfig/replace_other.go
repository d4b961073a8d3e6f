//go:build !windows

package clientconfig

import "github.com/mcpsnoop/mcpsnoop/internal/atomicfile"

// replace gives the config's name a new file holding out (temp + rename),
// the lock's handle still open.
func (c *config) replace(out []byte) error {
	return atomicfile.Write(c.path, out, c.info.Mode().Perm())
}
