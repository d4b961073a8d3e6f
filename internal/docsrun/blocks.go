// Package docsrun finds the runnable examples of the project's Markdown
// (README.md and docs/**/*.md), so that a test can run them and the docs
// cannot drift from what the program does.
//
// A fenced block is runnable when its info string is "sh runnable" or
// "console runnable", followed by options:
//
//	```sh runnable                     a bash script; it must exit 0
//	```sh runnable exit=1              ... it must exit 1
//	```sh runnable dir=repo            ... run in the repository root (go run, go test)
//	```sh runnable skip="why"          listed, not run: the reason is reported
//	```console runnable exit=1         "$ command" lines, each followed by its exact stdout
//
// Blocks run under bash with -e and -o pipefail, in a fresh folder where
// fixtures/ is the repository's, with MCPSNOOP_HOME and TMPDIR fresh and
// the mcpsnoop built from the tree first on PATH; dir=repo runs them in
// the repository root instead. Every other fenced block is prose.
package docsrun

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Block is one runnable fenced block.
type Block struct {
	File string // as given to Parse
	Line int    // line of the opening fence, from 1
	Lang string // "sh" or "console"
	// Script is the block's text, de-indented to its fence: a bash script
	// for sh; for console, see Commands.
	Script string
	Exit   int    // the exit status every command must end with
	Dir    string // "" for a fresh folder, "repo" for the repository root
	Skip   string // not run, for this reason ("" runs it)
}

// Command is one "$ " line of a console block (with its "\" continuation
// lines) and the stdout it must print, byte for byte.
type Command struct {
	Line   int // line of the "$ " in the file
	Cmd    string
	Stdout string
}

// Name names the block in test output: "docs/guides/checking.md:120".
func (b *Block) Name() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Parse returns the runnable blocks of a Markdown file, in order. A block
// that says it is runnable but cannot be read as one (an unknown option, a
// language other than sh or console, no closing fence) is an error naming
// its line, so that a typo never turns an example into prose silently.
func Parse(file string, src []byte) ([]Block, error) {
	var out []Block
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var (
		open   *Block // the runnable block being read
		inside bool   // within any fence
		indent int    // the open fence's indentation
		fence  string // its backticks: a closing fence has at least as many
		body   []string
	)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		trimmed := strings.TrimLeft(text, " ")
		if !inside {
			if !strings.HasPrefix(trimmed, "```") {
				continue
			}
			info := strings.TrimLeft(trimmed, "`")
			fence = trimmed[:len(trimmed)-len(info)]
			inside, indent, body = true, len(text)-len(trimmed), nil
			b, err := parseInfo(info)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			if b != nil {
				b.File, b.Line = file, line
				open = b
			}
			continue
		}
		if close := strings.TrimSpace(text); strings.HasPrefix(close, fence) && strings.Trim(close, "`") == "" {
			if open != nil {
				open.Script = strings.Join(body, "\n") + "\n"
				if open.Lang == "console" {
					if _, err := open.Commands(); err != nil {
						return nil, err
					}
				}
				out = append(out, *open)
			}
			inside, open = false, nil
			continue
		}
		// De-indent to the fence: a block inside a list item is indented.
		n := min(indent, len(text)-len(strings.TrimLeft(text, " ")))
		body = append(body, text[n:])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: runnable block has no closing fence", file, open.Line)
	}
	return out, nil
}

// parseInfo reads a fence's info string: nil when the block is not
// runnable.
func parseInfo(info string) (*Block, error) {
	fields, err := splitInfo(info)
	if err != nil {
		return nil, err
	}
	if len(fields) < 2 || fields[1] != "runnable" {
		for _, f := range fields {
			if strings.HasPrefix(f, "runnable") {
				return nil, fmt.Errorf("%q: write runnable second, after the language", info)
			}
		}
		return nil, nil
	}
	b := &Block{Lang: fields[0]}
	if b.Lang != "sh" && b.Lang != "console" {
		return nil, fmt.Errorf("runnable block in %q: only sh and console blocks run", b.Lang)
	}
	for _, opt := range fields[2:] {
		key, value, ok := strings.Cut(opt, "=")
		if !ok {
			return nil, fmt.Errorf("option %q: want exit=N, dir=repo or skip=\"reason\"", opt)
		}
		switch key {
		case "exit":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > 255 {
				return nil, fmt.Errorf("exit=%s: want an exit status from 0 to 255", value)
			}
			b.Exit = n
		case "dir":
			if value != "repo" {
				return nil, fmt.Errorf("dir=%s: the only folder a block may name is repo (the repository root)", value)
			}
			b.Dir = value
		case "skip":
			if value == "" {
				return nil, fmt.Errorf("skip= needs a reason")
			}
			b.Skip = value
		default:
			return nil, fmt.Errorf("unknown option %q: want exit=N, dir=repo or skip=\"reason\"", key)
		}
	}
	return b, nil
}

// splitInfo splits an info string at spaces, keeping a double-quoted value
// whole (skip="a reason") and dropping its quotes.
func splitInfo(info string) ([]string, error) {
	var fields []string
	var cur strings.Builder
	quoted, started := false, false
	for _, r := range info {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case r == ' ' && !quoted:
			if started {
				fields = append(fields, cur.String())
			}
			cur.Reset()
			started = false
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("%q: unterminated quote", info)
	}
	if started {
		fields = append(fields, cur.String())
	}
	return fields, nil
}

// Commands splits a console block into its commands and the stdout each
// must print. A line ending in a backslash continues its command.
func (b *Block) Commands() ([]Command, error) {
	var out []Command
	lines := strings.Split(strings.TrimSuffix(b.Script, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(out) == 0 {
				return nil, fmt.Errorf("%s:%d: a console block starts with a \"$ \" command line", b.File, b.Line+1+i)
			}
			out[len(out)-1].Stdout += l + "\n"
			continue
		}
		c := Command{Line: b.Line + 1 + i, Cmd: strings.TrimPrefix(l, "$ ")}
		for strings.HasSuffix(c.Cmd, "\\") && i+1 < len(lines) {
			i++
			c.Cmd += "\n" + lines[i]
		}
		out = append(out, c)
	}
	return out, nil
}
