package clientconfig

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Client is an MCP client whose config wrap knows how to find.
type Client struct {
	Name  string // what --client takes
	Title string // how messages name it
	Key   string // where it lists its servers
	// Apply says how the client picks up a changed config.
	Apply string
	// project is the config's path inside a project folder ("" when the
	// client has none); user is under the home folder, config under the OS
	// user config folder.
	project, user, config string
}

// Clients are the clients wrap knows, in the order help lists them.
var Clients = []Client{
	{Name: "claude-desktop", Title: "Claude Desktop", Key: KeyMCPServers, Apply: "restart Claude Desktop to apply it",
		config: filepath.Join("Claude", "claude_desktop_config.json")},
	{Name: "claude-code", Title: "Claude Code", Key: KeyMCPServers, Apply: "start a new Claude Code session to apply it",
		project: ".mcp.json"},
	{Name: "cursor", Title: "Cursor", Key: KeyMCPServers, Apply: "restart the server in Cursor's MCP settings to apply it",
		project: filepath.Join(".cursor", "mcp.json"), user: filepath.Join(".cursor", "mcp.json")},
	{Name: "vscode", Title: "VS Code", Key: KeyServers, Apply: "restart the server in VS Code (MCP: List Servers) to apply it",
		project: filepath.Join(".vscode", "mcp.json")},
}

// ClientNames lists the --client values.
func ClientNames() []string {
	out := make([]string, len(Clients))
	for i, c := range Clients {
		out[i] = c.Name
	}
	return out
}

// LookupClient finds a client by name.
func LookupClient(name string) (Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Dirs are the folders a client's config is found in.
type Dirs struct {
	Work   string // the project: the current directory
	Home   string // the user's home folder
	Config string // the OS user config folder (os.UserConfigDir)
}

// Path is where the client keeps its config: in the project (Work), or
// with global the user-wide file. A client without the asked-for kind is
// an error naming the ones it has.
func (c Client) Path(d Dirs, global bool) (string, error) {
	switch {
	case global && c.user != "":
		return filepath.Join(d.Home, c.user), nil
	case global && c.project == "":
		return filepath.Join(d.Config, c.config), nil
	case global:
		return "", fmt.Errorf("--global: %s has no user-wide config that mcpsnoop knows; name the file with --config", c.Title)
	case c.project != "":
		return filepath.Join(d.Work, c.project), nil
	default:
		return filepath.Join(d.Config, c.config), nil
	}
}

// Where describes the default config files, for help and error messages.
func (c Client) Where() string {
	var parts []string
	if c.project != "" {
		parts = append(parts, filepath.ToSlash(c.project)+" in the current directory")
	}
	if c.user != "" {
		parts = append(parts, "~/"+filepath.ToSlash(c.user)+" with --global")
	}
	if c.config != "" {
		parts = append(parts, filepath.ToSlash(c.config)+" in the user config folder")
	}
	return strings.Join(parts, ", ")
}
