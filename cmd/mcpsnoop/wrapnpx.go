package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/clientconfig"
)

// npmPlatformPrefix starts the names of the npm packages that carry a
// platform's binary (mcpsnoop-linux-x64, ...; packaging/npm/build.mjs).
const npmPlatformPrefix = clientconfig.NPMPackage + "-"

// npxCommand is the command a wrapped entry runs when this mcpsnoop is a
// copy npx installed in its cache: npx -y mcpsnoop@VERSION. npx runs a
// package from <npm cache>/_npx/<hash>/node_modules/, which npm may clear
// at any time, so the binary's own path there would leave the client with a
// command that stops existing; the launcher's version pins what the user
// ran. ok is false for a binary anywhere else (a global or a project's
// npm install, which stays where it is, a release archive, a Go build):
// the entry gets the binary's path.
func npxCommand(binary string) (args []string, ok bool) {
	pkg := filepath.Dir(filepath.Dir(binary)) // node_modules/mcpsnoop-<os>-<cpu>, the binary in its bin/
	nodeModules := filepath.Dir(pkg)
	if filepath.Base(nodeModules) != "node_modules" || filepath.Base(filepath.Dir(filepath.Dir(nodeModules))) != "_npx" {
		return nil, false
	}
	platform, ok := readPackage(filepath.Join(pkg, "package.json"))
	if !ok || !strings.HasPrefix(platform.Name, npmPlatformPrefix) || platform.Version == "" {
		return nil, false
	}
	// The launcher npx ran is beside it; the launcher refuses a binary of
	// another version, so the two name the same one.
	launcher, ok := readPackage(filepath.Join(nodeModules, clientconfig.NPMPackage, "package.json"))
	if !ok || launcher.Name != clientconfig.NPMPackage || launcher.Version != platform.Version {
		return nil, false
	}
	return []string{"npx", "-y", clientconfig.NPMPackage + "@" + launcher.Version}, true
}

type npmPackage struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func readPackage(path string) (npmPackage, bool) {
	var p npmPackage
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 || json.Unmarshal(data, &p) != nil {
		return p, false
	}
	return p, true
}
