package clientconfig

import (
	"errors"
	"io/fs"

	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// replace gives the config's name a new file holding out (temp + rename).
// The lock's handle is opened to be shared for deletion, which lets NTFS
// replace the file under it; a file system that refuses to replace a file
// that is open at all (wine's, some network shares) gets the rename again
// once that handle is closed. An mcpsnoop that then takes the lock reads
// the file before or after the rename, and checks that it is unchanged
// before writing its own: no edit is lost.
func (c *config) replace(out []byte) error {
	err := atomicfile.Write(c.path, out, c.info.Mode().Perm())
	if err == nil || c.f == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	c.f.Close()
	c.f = nil
	return atomicfile.Write(c.path, out, c.info.Mode().Perm())
}
