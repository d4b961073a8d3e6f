package capture

import (
	"os"
	"path/filepath"
	"strings"
)

// ProjectConfig is a project's .mcpsnoop.toml as a capture loads it from
// its working directory. The project folder is the folder that holds the
// file, with its links resolved. A client often starts the shim in a
// repository it cloned, so the file is untrusted input: what it may do
// depends on whether the user trusts it (mcpsnoop trust).
type ProjectConfig struct {
	Path    string  // the file: the project folder joined with ConfigFile
	Dir     string  // the project folder, links resolved
	Digest  string  // the SHA-256 of its content (ConfigDigest)
	Config  *Config // everything it sets
	Trusted bool    // recorded in trusted.json with this content
	Changed bool    // recorded, but with another content: changed since it was trusted
	// TrustErr is why trusted.json could not be read or believed (it
	// then trusts nothing); nil when it could.
	TrustErr error
}

// LoadProjectConfig reads ConfigFile in dir (the working directory: the
// shim never looks in parent folders). nil, nil when there is none.
func LoadProjectConfig(dir string) (*ProjectConfig, error) {
	path, abs, err := ProjectConfigPath(dir)
	if err != nil {
		return nil, err
	}
	data, err := ReadConfigFile(path)
	if data == nil || err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(ConfigFile, data)
	if err != nil {
		return nil, err
	}
	p := &ProjectConfig{Path: path, Dir: abs, Digest: ConfigDigest(data), Config: cfg}
	p.Trusted, p.Changed, p.TrustErr = lookupTrust(path, p.Digest)
	return p, nil
}

// ProjectConfigPath is the config file of the project folder dir as trust
// records it, and the folder: absolute, with its links resolved.
func ProjectConfigPath(dir string) (path, folder string, err error) {
	folder, err = filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	if real, err := filepath.EvalSymlinks(folder); err == nil {
		folder = real
	}
	return filepath.Join(folder, ConfigFile), folder, nil
}

// An Ignored setting is one an untrusted config may not make: Key is the
// key, Value what the file set, and Outside, for a path, where it
// resolved to outside the project folder.
type Ignored struct {
	Key     string
	Value   string
	Outside string
}

// Effective is the config a capture applies. A trusted file applies
// whole. An untrusted one applies without the keys that would send data
// off the machine (otlp-endpoint, otlp-header) or write outside the
// project folder (trace-file or log-dir resolving outside it, links
// followed, or into its .git folder); those are returned, to be reported.
// A trace-file or log-dir it keeps is made the absolute path it was
// checked as, so that what is opened is what was judged.
func (p *ProjectConfig) Effective() (*Config, []Ignored) {
	if p == nil {
		return nil, nil
	}
	if p.Trusted {
		return p.Config, nil
	}
	c := *p.Config
	var ignored []Ignored
	if c.OTLPEndpoint != nil {
		ignored = append(ignored, Ignored{Key: "otlp-endpoint", Value: *c.OTLPEndpoint})
		c.OTLPEndpoint = nil
	}
	if c.OTLPHeaders != nil {
		ignored = append(ignored, Ignored{Key: "otlp-header"})
		c.OTLPHeaders = nil
	}
	for _, kv := range []struct {
		key string
		val **string
	}{{"trace-file", &c.TraceFile}, {"log-dir", &c.LogDir}} {
		if *kv.val == nil || **kv.val == "" {
			continue
		}
		resolved := ResolvePath(p.Dir, **kv.val)
		if Within(p.Dir, resolved) {
			*kv.val = &resolved
			continue
		}
		ignored = append(ignored, Ignored{Key: kv.key, Value: **kv.val, Outside: resolved})
		*kv.val = nil
	}
	return &c, ignored
}

// maxLinks bounds the links ResolvePath follows, as the system does
// (a loop of links resolves to nothing).
const maxLinks = 255

// ResolvePath is where p (relative to base, an absolute folder with its
// links resolved) leads: every symbolic link along it followed, as far as
// it exists, ".." taken after the link before it is followed, as the
// system does; what does not exist yet is taken as written (a log folder
// to be made, a trace file to be created). A dangling link counts: the
// file would be created where it points. "" when links loop.
func ResolvePath(base, p string) string {
	budget := maxLinks
	return resolveFrom(base, p, &budget)
}

func resolveFrom(cur, p string, budget *int) string {
	if filepath.IsAbs(p) {
		vol := filepath.VolumeName(p)
		cur, p = vol+string(filepath.Separator), p[len(vol):]
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator })
	exists := true
	for _, part := range parts {
		switch part {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		if !exists {
			cur = next
			continue
		}
		info, err := os.Lstat(next)
		switch {
		case err != nil:
			exists = false
			cur = next
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(next)
			*budget--
			if err != nil || *budget < 0 {
				return ""
			}
			cur = resolveFrom(cur, target, budget)
			if cur == "" {
				return ""
			}
		default:
			cur = next
		}
	}
	return cur
}

// Within reports whether path (resolved, as ResolvePath gives it) is dir
// or inside it, and not inside its .git folder, which a repository must
// not write to (git reads its config and hooks from there).
func Within(dir, path string) bool {
	if path == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first != ".." && !strings.EqualFold(first, ".git") && !filepath.IsAbs(rel)
}
