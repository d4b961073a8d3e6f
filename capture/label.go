package capture

import (
	"os"
	"path/filepath"
	"strings"
)

// A stdio server's default label names the server, not the file that
// starts it: every Node server is `node build/index.js`, and a label of
// "index.js" would make unrelated servers share tool baselines and known
// findings. DeriveLabelIn applies these rules in order:
//
//  1. `python -m MODULE` (also through uv): the module.
//  2. A script (a .js, .ts, .py, ... argument, relative to the server's
//     working directory): the name in the nearest package.json (its npm
//     scope dropped) or pyproject.toml ([project] name), looked up from the
//     script's folder upward, stopping at the first such file or at the
//     folder holding .git; else, when the script's name is generic
//     (index, main, server, app or cli, with any extension), the folder it
//     is in, skipping dist, build, src, lib and bin; else the script's
//     file name.
//  3. Otherwise the rule labels always had (LegacyLabel): the package an
//     npx, uvx or pipx runs, or the command's most server-like argument.

// launchers are commands that start the real server: the label skips them
// to name what they launch (`npx -y @scope/server-foo` is `server-foo`).
var launchers = map[string]bool{
	"npx": true, "npm": true, "pnpm": true, "yarn": true, "bunx": true, "bun": true,
	"node": true, "deno": true, "python": true, "python3": true, "uv": true, "uvx": true,
	"pipx": true, "sh": true, "bash": true, "env": true, "go": true,
}

// scriptExts are the extensions of the files an interpreter runs as the
// server.
var scriptExts = map[string]bool{
	".js": true, ".mjs": true, ".cjs": true, ".jsx": true,
	".ts": true, ".mts": true, ".cts": true, ".tsx": true,
	".py": true, ".pyw": true, ".go": true, ".rb": true, ".php": true,
	".pl": true, ".lua": true, ".sh": true,
}

// genericScripts are script names (before the first dot) that say nothing
// about the server.
var genericScripts = map[string]bool{"index": true, "main": true, "server": true, "app": true, "cli": true}

// outputFolders hold a project's built or source files, not its name.
var outputFolders = map[string]bool{"dist": true, "build": true, "src": true, "lib": true, "bin": true}

// valueFlags are the launchers' options whose value is the next argument,
// so that it is not taken for the script (`node -r ./otel.js index.js`).
var valueFlags = map[string]bool{
	"-r": true, "--require": true, "--import": true, "--loader": true, "--experimental-loader": true,
	"-C": true, "--conditions": true, "-W": true, "-X": true,
	"--with": true, "--with-requirements": true, "--with-editable": true, "--directory": true,
	"--project": true, "--python": true, "-p": true, "--package": true, "--env-file": true, "--from": true,
}

// DeriveLabel is DeriveLabelIn the current working directory: the shim's,
// which the server inherits.
func DeriveLabel(argv []string) string {
	wd, err := os.Getwd()
	if err != nil {
		wd = ""
	}
	return DeriveLabelIn(wd, argv)
}

// DeriveLabelIn names a stdio server started by argv in the working
// directory dir (see the rules above). It reads at most two small files per
// folder on the way up from a script, and nothing for other commands.
func DeriveLabelIn(dir string, argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if m := pythonModule(argv); m != "" {
		return m
	}
	if script, base := scriptArg(argv); script != "" {
		if l := scriptLabel(resolveIn(resolveIn(dir, base), script)); l != "" {
			return l
		}
	}
	return LegacyLabel(argv)
}

// pythonModule is the MODULE of `python -m MODULE` (any python, py, or uv
// before the -m), or "".
func pythonModule(argv []string) string {
	python := false
	for i, tok := range argv {
		if isPython(baseName(tok)) {
			python = true
		}
		if python && tok == "-m" && i+1 < len(argv) && argv[i+1] != "" && !strings.HasPrefix(argv[i+1], "-") {
			return argv[i+1]
		}
	}
	return ""
}

// isPython reports whether a command's base name runs Python modules:
// python, python3, python3.12, pypy3, py, uv (with or without .exe).
func isPython(name string) bool {
	name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	if name == "py" || name == "uv" {
		return true
	}
	for _, p := range []string{"python", "pypy"} {
		if rest, ok := strings.CutPrefix(name, p); ok && strings.Trim(rest, "0123456789.") == "" {
			return true
		}
	}
	return false
}

// scriptArg is the first argument that is a script file, and the folder
// uv's --directory makes relative paths start from ("" for none).
func scriptArg(argv []string) (script, base string) {
	for i := 0; i < len(argv); i++ {
		tok := argv[i]
		if name, val, ok := strings.Cut(tok, "="); ok && strings.HasPrefix(tok, "-") {
			if name == "--directory" {
				base = val
			}
			continue
		}
		if valueFlags[tok] {
			if tok == "--directory" && i+1 < len(argv) {
				base = argv[i+1]
			}
			i++
			continue
		}
		if strings.HasPrefix(tok, "-") {
			continue
		}
		if scriptExts[strings.ToLower(filepath.Ext(tok))] {
			return tok, base
		}
	}
	return "", ""
}

// resolveIn is path made absolute against dir (as a child process with
// working directory dir would open it); path itself when dir is "".
func resolveIn(dir, path string) string {
	if path == "" || filepath.IsAbs(path) || dir == "" {
		if path == "" {
			return dir
		}
		return path
	}
	return filepath.Join(dir, path)
}

// scriptLabel labels the script at path: its project's name, else its
// folder when its own name is generic, else its file name.
func scriptLabel(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // node_modules/.bin links: the package is where the file is
	}
	folder := filepath.Dir(path)
	if name := projectName(folder, pythonScript(path)); name != "" {
		return name
	}
	file := filepath.Base(path)
	stem, _, _ := strings.Cut(file, ".")
	if genericScripts[strings.ToLower(stem)] {
		if name := namingFolder(folder); name != "" {
			return name
		}
	}
	return file
}

func pythonScript(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".py" || ext == ".pyw"
}

// namingFolder is the base name of folder or of its nearest parent that is
// not an output folder (dist, build, src, lib, bin); "" at the root or when
// that name cannot be a label.
func namingFolder(folder string) string {
	for {
		name := filepath.Base(folder)
		parent := filepath.Dir(folder)
		if parent == folder || name == "." || name == string(filepath.Separator) {
			return ""
		}
		if !outputFolders[strings.ToLower(name)] {
			if ValidateLabel(name) != nil {
				return ""
			}
			return name
		}
		folder = parent
	}
}

// LegacyLabel is the label mcpsnoop derived before it looked at project
// files: the first argument that looks like a server (contains "server" or
// "mcp", starts with "@", or is a .js, .ts or .py file), else the first
// argument that is not a flag, a launcher or a subcommand word like "run",
// keeping only the part after the last slash (`python3 server.py` is
// "server.py", `node build/index.js` is "index.js"). DeriveLabelIn falls
// back to it, and the checker uses it to find the tool baseline a server
// had under its old label.
func LegacyLabel(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	var candidates []string
	for i, tok := range argv {
		if tok == "" || strings.HasPrefix(tok, "-") || tok == "run" || tok == "exec" {
			continue
		}
		if (i == 0 || len(candidates) == 0) && launchers[baseName(tok)] {
			continue
		}
		candidates = append(candidates, tok)
	}
	pick := argv[0]
	if len(candidates) > 0 {
		pick = candidates[0]
		for _, c := range candidates {
			l := strings.ToLower(c)
			if strings.Contains(l, "server") || strings.Contains(l, "mcp") || strings.HasPrefix(c, "@") ||
				strings.HasSuffix(l, ".js") || strings.HasSuffix(l, ".ts") || strings.HasSuffix(l, ".py") {
				pick = c
				break
			}
		}
	}
	if l := baseName(pick); l != "" {
		return l
	}
	return baseName(argv[0])
}

// baseName is the part of s after its last slash or backslash.
func baseName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		return s[i+1:]
	}
	return s
}
