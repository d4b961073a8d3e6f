// Package appversion says which release a binary of mcpsnoop's is: the
// version the release build set with the linker, else the module version
// `go install ...@version` recorded, else 0.0.0-dev. mcpsnoop and
// mcpsnoop-shim both report it, and wrap compares the two.
package appversion

import "runtime/debug"

// Of is the build's version, linked being what the linker set ("" when
// nothing was).
func Of(linked string) string {
	if linked != "" {
		return linked
	}
	if bi, ok := debug.ReadBuildInfo(); ok && len(bi.Main.Version) > 1 && bi.Main.Version[0] == 'v' {
		return bi.Main.Version[1:]
	}
	return "0.0.0-dev"
}
