package clientconfig

import (
	"bytes"
	"slices"
)

// restoreFromBackup gives the entry of server name that Unwrap took out of
// data (out is the result) the very bytes the backup holds for it, when
// the wrapped entry in data is exactly what Wrap makes of the backup's
// entry: nothing was edited in it since the wrap, so wrap's re-encoding
// (keys sorted, its own layout) is undone as well. An entry edited since,
// or one the backup lacks or has wrapped already, keeps Unwrap's result.
// Only the entry's bytes are put back: every other byte of out, with the
// user's edits since the wrap, stays.
func restoreFromBackup(data, out, backup []byte, name string, keys []string) []byte {
	d, err := parse(data, keys)
	if err != nil {
		return out
	}
	m, e, err := d.server(name)
	if err != nil {
		return out
	}
	sep := separator(e.command, e.args)
	if sep < 0 {
		return out
	}
	bd, err := parse(backup, []string{d.key})
	if err != nil {
		return out
	}
	bm, be, err := bd.server(name)
	if err != nil {
		return out
	}
	if _, wrapped := shimArgsAt(be.command, be.args); wrapped {
		return out
	}
	_, changed, entry, err := Wrap(backup, name, WrapOptions{Keys: []string{d.key}, Binary: e.command, ShimArgs: e.args[:sep]})
	if err != nil || !changed {
		return out
	}
	if !bytes.Equal(entry, data[m.valStart:m.valEnd]) {
		return out
	}
	od, err := parse(out, []string{d.key})
	if err != nil {
		return out
	}
	om, _, err := od.server(name)
	if err != nil {
		return out
	}
	restored := slices.Concat(out[:om.valStart], backup[bm.valStart:bm.valEnd], out[om.valEnd:])
	if od.verify(restored, name, be.command, be.args) != nil {
		return out
	}
	return restored
}
