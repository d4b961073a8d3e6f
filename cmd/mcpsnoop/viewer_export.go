package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
		newFormat, ok := exportFormats[strings.ToLower(format)]
		if !ok {
			return fmt.Errorf("unknown export format %q (want %s)", format, wantFormats())
		}
		if len(logPaths) == 0 {
			return errors.New("the session has no log to read")
		}
		inputs := make([]capture.Input, len(logPaths))
		for i, p := range logPaths {
			inputs[i] = capture.Input{Path: p, Name: p}
		}
		if in := sameAsInput(dest, inputs); in != "" {
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
		if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
			return atomicfile.PlainError(err)
		}
		perm := os.FileMode(0o644)
		if info, err := os.Stat(dest); err == nil && info.Mode().IsRegular() {
			perm = info.Mode().Perm()
		}
		p, err := atomicfile.Create(dest, perm)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(p, 256<<10)
		err = x.Write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = p.Commit()
		}
		if err != nil {
			p.Abort()
			return fmt.Errorf("%v (%s left as it was)", atomicfile.PlainError(err), dest)
		}
		return nil
	}
}
