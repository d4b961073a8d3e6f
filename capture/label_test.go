package capture

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// tree writes files (path -> content, "/"-separated, a trailing "/" for a
// folder) under a fresh folder that holds .git, so that no lookup leaves
// it, and returns that folder.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, content := range files {
		p := filepath.Join(root, filepath.FromSlash(path))
		if strings.HasSuffix(path, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDeriveLabelIn(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		wd    string // the server's working directory, under the tree
		argv  []string
		want  string
	}{
		{"scoped package.json above dist", map[string]string{
			"pkg/package.json": `{"name": "@acme/weather-server", "version": "1.0.0"}`, "pkg/dist/index.js": "",
		}, "", []string{"node", "pkg/dist/index.js"}, "weather-server"},
		{"unscoped package.json, absolute script", map[string]string{
			"srv/package.json": `{"name":"files-mcp"}`, "srv/build/index.js": "",
		}, "elsewhere/", []string{"node", "{root}/srv/build/index.js"}, "files-mcp"},
		{"python -m", nil, "", []string{"python", "-m", "pkg"}, "pkg"},
		{"python3 -u -m dotted module", nil, "", []string{"python3", "-u", "-m", "pkg.server"}, "pkg.server"},
		{"uv run python -m", nil, "", []string{"uv", "run", "python", "-m", "mcp_server_git"}, "mcp_server_git"},
		{"uv run -m", nil, "", []string{"uv", "run", "-m", "weather"}, "weather"},
		{"python -m before a server-like argument", nil, "", []string{"python3", "-m", "weather", "--transport", "mcp-stdio"}, "weather"},
		{"python -m before a script argument", map[string]string{"cfg/pyproject.toml": "[project]\nname = \"cfg\"\n", "cfg/settings.py": ""}, "",
			[]string{"python", "-m", "notes", "--config", "cfg/settings.py"}, "notes"},
		{"uv run server.py beside pyproject.toml", map[string]string{
			"proj/pyproject.toml": "[build-system]\nrequires = [\"hatchling\"]\n\n[project]\nname = \"weather-mcp\"\nversion = \"0.1.0\"\n",
			"proj/server.py":      "",
		}, "proj/", []string{"uv", "run", "server.py"}, "weather-mcp"},
		{"uv --directory DIR run", map[string]string{
			"proj/pyproject.toml": "[project]\nname = 'notes'\n", "proj/notes.py": "",
		}, "", []string{"uv", "--directory", "{root}/proj", "run", "notes.py"}, "notes"},
		{"uv run --with mcp: the script, not the dependency", map[string]string{"w/weather.py": ""}, "w/",
			[]string{"uv", "run", "--with", "mcp", "weather.py"}, "weather.py"},
		{"a python script reads pyproject.toml before package.json", map[string]string{
			"p/pyproject.toml": "[project]\nname = \"py-name\"\n", "p/package.json": `{"name":"js-name"}`, "p/app.py": "",
		}, "p/", []string{"python3", "app.py"}, "py-name"},
		{"a node script reads package.json before pyproject.toml", map[string]string{
			"p/pyproject.toml": "[project]\nname = \"py-name\"\n", "p/package.json": `{"name":"js-name"}`, "p/app.js": "",
		}, "p/", []string{"node", "app.js"}, "js-name"},
		{"generic script in a plain folder", map[string]string{"my-tool/index.js": ""}, "my-tool/",
			[]string{"node", "index.js"}, "my-tool"},
		{"generic script below build folders", map[string]string{"weather/dist/lib/main.mjs": ""}, "",
			[]string{"node", "weather/dist/lib/main.mjs"}, "weather"},
		{"generic script with two extensions", map[string]string{"calc/server.bundle.js": ""}, "",
			[]string{"bun", "calc/server.bundle.js"}, "calc"},
		{"tsx through npx", map[string]string{"notes-app/src/cli.ts": ""}, "notes-app/",
			[]string{"npx", "tsx", "src/cli.ts"}, "notes-app"},
		{"a named script without a project keeps its name", map[string]string{"x/weather.py": ""}, "x/",
			[]string{"python3", "weather.py"}, "weather.py"},
		{"a package.json without a name ends the lookup", map[string]string{
			"proj/package.json": `{"name":"outer"}`, "proj/dist/package.json": `{"type":"module"}`, "proj/dist/index.js": "",
		}, "proj/", []string{"node", "dist/index.js"}, "proj"},
		{"a package.json that is not JSON ends the lookup", map[string]string{
			"proj/package.json": `{"name":"outer"}`, "proj/sub/package.json": `{name:`, "proj/sub/server.js": "",
		}, "", []string{"node", "proj/sub/server.js"}, "sub"},
		{"a name that cannot be a label is not used", map[string]string{
			"proj/package.json": `{"name":"a/b/c\u0001"}`, "proj/index.js": "",
		}, "", []string{"node", "proj/index.js"}, "proj"},
		{"node -r preload: the value is not the script", map[string]string{
			"svc/package.json": `{"name":"svc-mcp"}`, "svc/index.js": "", "otel/package.json": `{"name":"otel"}`, "otel/otel.js": "",
		}, "svc/", []string{"node", "-r", "../otel/otel.js", "index.js"}, "svc-mcp"},
		{"npx package", nil, "", []string{"npx", "-y", "@scope/server-foo"}, "server-foo"},
		{"uvx package", nil, "", []string{"uvx", "mcp-server-fetch"}, "mcp-server-fetch"},
		{"a binary", nil, "", []string{"/usr/local/bin/my-tool", "--port", "3"}, "my-tool"},
		{"go run", nil, "", []string{"go", "run", "./cmd/srv"}, "srv"},
		{"docker", nil, "", []string{"docker", "run", "-i", "ghcr.io/x/y"}, "docker"},
		{"nothing", nil, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			wd := filepath.Join(root, filepath.FromSlash(tt.wd))
			if err := os.MkdirAll(wd, 0o755); err != nil {
				t.Fatal(err)
			}
			argv := make([]string, len(tt.argv))
			for i, a := range tt.argv {
				argv[i] = strings.ReplaceAll(a, "{root}", root)
			}
			if got := DeriveLabelIn(wd, argv); got != tt.want {
				t.Errorf("DeriveLabelIn(%s, %q) = %q, want %q", tt.wd, tt.argv, got, tt.want)
			}
		})
	}
}

// The lookup stops at the folder holding .git: a package.json above the
// repository is someone else's.
func TestDeriveLabelStopsAtGit(t *testing.T) {
	root := t.TempDir()
	for path, content := range map[string]string{
		"package.json": `{"name":"home-dir"}`, "repo/.git/HEAD": "", "repo/tool/index.js": "",
	} {
		p := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := DeriveLabelIn(root, []string{"node", "repo/tool/index.js"}); got != "tool" {
		t.Errorf("label %q, want tool (the package.json above .git must not be read)", got)
	}
	// The folder holding .git is still looked at.
	if err := os.WriteFile(filepath.Join(root, "repo", "package.json"), []byte(`{"name":"repo-pkg"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DeriveLabelIn(root, []string{"node", "repo/tool/index.js"}); got != "repo-pkg" {
		t.Errorf("label %q, want repo-pkg", got)
	}
}

// A project file over 1 MiB is not read: its name is not used, and it still
// ends the lookup.
func TestDeriveLabelBigProjectFile(t *testing.T) {
	big := `{"name":"too-big-to-read","description":"` + strings.Repeat("x", maxProjectFile) + `"}`
	root := tree(t, map[string]string{"outer/package.json": `{"name":"outer"}`, "outer/big/package.json": big, "outer/big/index.js": ""})
	if got := DeriveLabelIn(root, []string{"node", "outer/big/index.js"}); got != "big" {
		t.Errorf("label %q, want the folder name big", got)
	}
	small := `{"name":"small","description":"` + strings.Repeat("x", maxProjectFile-40) + `"}`
	if err := os.WriteFile(filepath.Join(root, "outer", "big", "package.json"), []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DeriveLabelIn(root, []string{"node", "outer/big/index.js"}); got != "small" {
		t.Errorf("label %q, want small (a file just under 1 MiB is read)", got)
	}
}

// A script linked from elsewhere (node_modules/.bin) is named by the
// package it really is in.
func TestDeriveLabelFollowsLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := tree(t, map[string]string{"node_modules/@x/srv-pkg/package.json": `{"name":"@x/srv-pkg"}`, "node_modules/@x/srv-pkg/dist/cli.js": "", "node_modules/.bin/": ""})
	if err := os.Symlink("../@x/srv-pkg/dist/cli.js", filepath.Join(root, "node_modules", ".bin", "srv.js")); err != nil {
		t.Fatal(err)
	}
	if got := DeriveLabelIn(root, []string{"node", "node_modules/.bin/srv.js"}); got != "srv-pkg" {
		t.Errorf("label %q, want srv-pkg", got)
	}
}

// LegacyLabel is the rule labels had before project files were read; the
// checker applies it to a log's command to find a baseline under the old
// label, so it must not change.
func TestLegacyLabel(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"python3", "server.py"}, "server.py"},
		{[]string{"npx", "-y", "@scope/server-foo"}, "server-foo"},
		{[]string{"node", "build/index.js"}, "index.js"},
		{[]string{"uv", "run", "--with", "mcp", "weather.py"}, "mcp"},
		{[]string{"python", "-m", "mcp_server_git"}, "mcp_server_git"},
		{[]string{"/usr/local/bin/my-tool", "--port", "3"}, "my-tool"},
		{[]string{"go", "run", "./cmd/srv"}, "srv"},
		{[]string{"docker", "run", "-i", "ghcr.io/x/y"}, "docker"},
		{[]string{"bash"}, "bash"},
		{[]string{`C:\tools\srv.exe`}, "srv.exe"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := LegacyLabel(tt.argv); got != tt.want {
			t.Errorf("LegacyLabel(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestPyprojectName(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain", "[project]\nname = \"weather\"\n", "weather"},
		{"literal string and comment", "[project] # the package\nname = 'notes-mcp' # on PyPI\n", "notes-mcp"},
		{"quoted key and escapes", "[project]\n\"name\" = \"caf\\u00e9\"\n", "café"},
		{"dotted top-level key", "project.name = \"dotted\"\n[tool.x]\nname = \"no\"\n", "dotted"},
		{"quoted table header", "[ \"project\" ]\nname=\"q\"\n", "q"},
		{"other tables first", "[tool.poetry]\nname = \"poetry-name\"\n[project]\nversion = \"1\"\nname = \"pep621\"\n", "pep621"},
		{"only tool.poetry", "[tool.poetry]\nname = \"poetry-name\"\n", ""},
		{"a subtable of project", "[project.urls]\nname = \"no\"\n", ""},
		{"array of tables", "[[project]]\nname = \"no\"\n", ""},
		{"CRLF and BOM", "\uFEFF[project]\r\nname = \"crlf\"\r\n", "crlf"},
		{"a multi-line description hides nothing", "[project]\ndescription = \"\"\"\n[project]\nname = \"fake\"\n\"\"\"\nname = \"real\"\n", "real"},
		{"multi-line literal", "[project]\nreadme = '''\nname = \"fake\"\n'''\nname = \"real\"\n", "real"},
		{"not a string", "[project]\nname = 12\n", ""},
		{"unterminated", "[project]\nname = \"x\n", ""},
		{"junk after the value", "[project]\nname = \"x\" y\n", ""},
		{"broken header", "[project\nname = \"x\"\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := PyprojectName([]byte(tt.text)); got != tt.want {
			t.Errorf("%s: PyprojectName = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzPyprojectName(f *testing.F) {
	f.Add([]byte("[project]\nname = \"weather\"\n"))
	f.Add([]byte("project.name = 'x'\n[project]\ndescription = \"\"\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = PyprojectName(data) // must not panic
	})
}
