package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// Upgrades. Baselines used to be keyed by label alone, and default labels
// used to come from the script's file name (`node build/index.js` was
// "index.js"). A server's first check after either change finds its
// baseline where it was and moves it to its key, so that the upgrade
// reports no drift and records nothing afresh:
//
//   - a baseline of the label without a server name (written before the
//     name was part of the key, or for a session whose server gave none)
//     goes to the server's name;
//   - a baseline of the old label (BaselineKey.OldLabel: the old rule
//     applied to the command in the log's meta frame) without a server
//     name goes to the new label.
//
// Only files without a server name move: one with a name was written by
// this version for a server that has it. Several servers that shared an
// old label shared its baseline too; it goes to the first one checked.

// upgrade finds the key's baseline where an older version kept it. ok is
// false when there is none. A log the store may not write for (own.go) is
// compared with it where it is.
func (s Store) upgrade(key checker.BaselineKey, own bool) (obs checker.BaselineObservation, ok bool, err error) {
	type source struct {
		label      string
		reportsBad bool // a corrupt file is the label's own baseline error
	}
	var sources []source
	if key.ServerName != "" {
		sources = append(sources, source{key.Label, true})
	}
	if key.OldLabel != "" && key.OldLabel != key.Label {
		sources = append(sources, source{key.OldLabel, false})
	}
	for _, src := range sources {
		path := s.Path(src.label)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return obs, false, err
		}
		f, tools, err := decodeFile(src.label, data)
		if err != nil {
			if src.reportsBad {
				return obs, false, err
			}
			continue // an old label's broken file is nobody's now
		}
		if f.ServerName != "" {
			continue
		}
		obs = checker.BaselineObservation{Version: f.Version, Tools: tools}
		if !own {
			return obs, true, nil
		}
		return s.move(path, f.Version, key, obs)
	}
	return obs, false, nil
}

// move writes the baseline found at from as the key's (its version kept:
// a version 1 file still cannot answer for the fields it lacks) and
// removes from. Another writer that got the key's file first wins.
func (s Store) move(from string, version int, key checker.BaselineKey, obs checker.BaselineObservation) (checker.BaselineObservation, bool, error) {
	data, err := encodeFile(version, key.Label, key.ServerName, obs.Tools)
	if err != nil {
		return obs, false, err
	}
	created, err := atomicfile.WriteNew(s.PathFor(key.Label, key.ServerName), data, fileMode)
	if err != nil {
		return obs, false, err
	}
	if !created {
		obs, err = s.observation(key.Label, key.ServerName)
		return obs, true, err
	}
	if err := os.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return obs, false, fmt.Errorf("moved the tool baseline %s to %s, and could not remove it: %w", from, s.PathFor(key.Label, key.ServerName), err)
	}
	return obs, true, nil
}
