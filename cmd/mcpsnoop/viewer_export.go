package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/viewer"
)

// viewerExporter is the viewer's e and :export: one session, read again
// from its logs with red applied, written to dest through a temporary file
// renamed into place (its folder made 0700 when missing).
func viewerExporter(red *capture.Redactor) viewer.ExportFunc {
	return func(ctx context.Context, format, sessionID string, logPaths []string, dest string) error {
		newFormat, err := lookupExportFormat(format)
		if err != nil {
			return err
		}
		if len(logPaths) == 0 {
			return errors.New("the session has no log to read")
		}
		inputs := make([]capture.Input, len(logPaths))
		for i, p := range logPaths {
			inputs[i] = capture.Input{Path: p, Name: p}
		}
		t, err := atomicfile.Resolve(dest, true)
		if err != nil {
			return err
		}
		if in := sameAsInput(t, inputs, nil); in != "" {
			return fmt.Errorf("%s is the session's log %s", dest, in)
		}
		x, err := export.Load(newFormat(), inputs, nil, export.Options{
			GeneratedAt: exportNow(), Version: appVersion(), Redactor: red,
			Sessions: map[string]bool{sessionID: true},
		})
		if err != nil {
			return err
		}
		defer x.Close()
		if x.Sessions() == 0 {
			return fmt.Errorf("session %s is not in %s", sessionID, inputNames(inputs))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// The viewer owns the terminal: a warning would garble it, and the
		// status line reports only the outcome.
		// The terminal is the viewer's too: a descriptor name is refused
		// rather than written over the screen.
		if t.Kind == atomicfile.Descriptor {
			return fmt.Errorf("%s is a descriptor of the viewer's own; name a file", dest)
		}
		return writeExportFile(dest, x, atomicfile.Options{}, func(string) {})
	}
}
