// Package prune finds and removes old session logs, so the state directory
// stays bounded. It touches only regular *.jsonl files directly inside the
// folder it is given; tool baselines, which live beside that folder, are
// never read or removed.
package prune

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ParseAge reads an --older-than value: whole days ("30d") or a Go duration
// ("72h", "90m"). It must be greater than zero.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("--older-than is required, e.g. 30d or 72h")
	}
	var age time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid --older-than %q: days must be a whole number, e.g. 30d", s)
		}
		if n > 0 && n > math.MaxInt64/int64(24*time.Hour) {
			return 0, fmt.Errorf("invalid --older-than %q: too many days", s)
		}
		age = time.Duration(n) * 24 * time.Hour
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("invalid --older-than %q: use whole days (30d) or a Go duration (72h)", s)
		}
		age = d
	}
	if age <= 0 {
		return 0, errors.New("--older-than must be greater than zero")
	}
	return age, nil
}

// Log is one session log old enough to go.
type Log struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// Find lists the regular *.jsonl files directly inside dir last modified
// before cutoff, sorted by path. A missing dir holds nothing to prune.
// Symbolic links, folders and other files are left alone.
func Find(dir string, cutoff time.Time) ([]Log, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var logs []Log
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if info.ModTime().Before(cutoff) {
			logs = append(logs, Log{Path: filepath.Join(dir, e.Name()), Size: info.Size(), ModTime: info.ModTime()})
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Path < logs[j].Path })
	return logs, nil
}

// TotalSize adds up the logs' sizes.
func TotalSize(logs []Log) int64 {
	var n int64
	for _, l := range logs {
		n += l.Size
	}
	return n
}

// Remove deletes the logs and returns how many logs and bytes went, and
// one error per log that could not be removed. A log already gone counts
// as removed: the goal was for it not to be there.
func Remove(logs []Log) (removed int, bytes int64, errs []error) {
	for _, l := range logs {
		if err := os.Remove(l.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
		bytes += l.Size
	}
	return removed, bytes, errs
}

// FormatSize spells a byte count with binary units: "3 B", "1.5 KiB",
// "12.0 MiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := -1
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	// 1023.96 KiB would print as "1024.0 KiB"; say "1.0 MiB" instead.
	if v >= unit-0.05 && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
