package viewer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// ExportFunc writes one session, read again from its logs, as format to
// dest. The command that runs the viewer supplies it (Options.Export), with
// its redaction applied.
type ExportFunc func(ctx context.Context, format, sessionID string, logPaths []string, dest string) error

// exportExts are the formats e and :export write, and the extension of
// each one's default file.
var exportExts = map[string]string{
	"json": ".json",
	"html": ".html",
	"text": ".txt",
	"har":  ".har",
	"otlp": ".otlp.json",
}

const exportFormatList = "json, html, text, har or otlp"

// exportMsg says how an export ended.
type exportMsg struct {
	format, path string
	err          error
}

// exportDir is where an export goes when no path is given:
// <state>/exports unless the options name another folder.
func (m *Model) exportDir() string {
	if m.opts.ExportDir != "" {
		return m.opts.ExportDir
	}
	return filepath.Join(capture.StateDir(), "exports")
}

// startExport exports the current session as format to dest ("" for the
// default file) in a command, off the UI's goroutine. What happened is
// shown in the status line.
func (m *Model) startExport(format, dest string) tea.Cmd {
	format = strings.ToLower(format)
	ext, ok := exportExts[format]
	if !ok {
		m.notice = fmt.Sprintf("export: unknown format %q (want %s)", format, exportFormatList)
		return nil
	}
	s := m.currentSession()
	switch {
	case s == nil:
		m.notice = "export: no session to export"
		return nil
	case m.opts.Export == nil:
		m.notice = "export: not available here; use mcpsnoop export"
		return nil
	case s.Path == "":
		m.notice = "export: the session was read from standard input and cannot be read again; use mcpsnoop export"
		return nil
	}
	name := safeFileName(s.ID) + ext
	// ~ is expanded first, so that ~/dir is recognised as a folder.
	if dest == "~" || strings.HasPrefix(dest, "~"+string(os.PathSeparator)) {
		if home, err := os.UserHomeDir(); err == nil {
			dest = home + dest[1:]
		}
	}
	switch {
	case dest == "":
		dest = filepath.Join(m.exportDir(), name)
	case strings.HasSuffix(dest, string(os.PathSeparator)) || isDir(dest):
		dest = filepath.Join(dest, name)
	}
	export, id, paths := m.opts.Export, s.ID, []string{s.Path}
	m.notice = fmt.Sprintf("exporting %s as %s to %s...", id, format, dest)
	return func() tea.Msg {
		return exportMsg{format: format, path: dest, err: export(context.Background(), format, id, paths, dest)}
	}
}

func (m *Model) exportDone(msg exportMsg) {
	if msg.err != nil {
		m.notice = "export failed: " + msg.err.Error()
		return
	}
	m.notice = fmt.Sprintf("exported %s to %s", msg.format, msg.path)
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// safeFileName keeps a session id usable as a file name.
func safeFileName(id string) string {
	id = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == os.PathSeparator || r < 0x20 {
			return '_'
		}
		return r
	}, id)
	if id == "" || id == "." || id == ".." {
		return "session"
	}
	return id
}

// commandHelp is what command mode accepts.
const commandHelp = "export json|html|text|har|otlp [PATH]"

// runCommand runs what was typed after ":".
func (m *Model) runCommand(line string) tea.Cmd {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	switch fields[0] {
	case "export", "e":
		if len(fields) < 2 || len(fields) > 3 {
			m.notice = "usage: :" + commandHelp
			return nil
		}
		dest := ""
		if len(fields) == 3 {
			dest = fields[2]
		}
		return m.startExport(fields[1], dest)
	case "q", "quit":
		return tea.Quit
	}
	m.notice = fmt.Sprintf("unknown command %q: try :%s", fields[0], commandHelp)
	return nil
}

// startCommand opens the command line (":").
func (m *Model) startCommand() {
	m.editing, m.command = true, true
	m.filterErr = ""
	m.input.Prompt = ":"
	m.input.Placeholder = commandHelp
	m.input.SetValue("")
	m.input.SetWidth(max(m.width-2, 10))
	m.input.Focus()
}

// startFilter opens the filter line ("/").
func (m *Model) startFilter() {
	m.editing, m.command = true, false
	m.filterErr = ""
	m.input.Prompt = "/"
	m.input.Placeholder = filterPlaceholder
	m.input.SetValue(m.filter.String())
	m.input.CursorEnd()
	m.input.SetWidth(max(m.width-2, 10))
	m.input.Focus()
}

// commandKey handles a key while a command is typed.
func (m *Model) commandKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		line := m.input.Value()
		m.editing, m.command = false, false
		m.input.Blur()
		return m.runCommand(line)
	case "esc":
		m.editing, m.command = false, false
		m.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}
