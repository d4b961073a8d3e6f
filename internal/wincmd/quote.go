package wincmd

import (
	"errors"
	"fmt"
	"strings"
)

// Quote writes arg as a program's C runtime (CommandLineToArgvW's rules)
// reads it back: as it is when it holds no space, tab or quote and is not
// empty; otherwise in double quotes, a quote inside escaped as \" and the
// backslashes before a quote (or before the closing one) doubled. This is
// the quoting os/exec applies on Windows (syscall.EscapeArg), written out
// so that it serves on every platform.
func Quote(arg string) string {
	if arg != "" && !strings.ContainsAny(arg, " \t\"") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// CommandLine quotes each argument (Quote) and joins them with spaces: the
// command line that runs args again, showing where each one ends.
func CommandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}

// ErrBatchArgument is an argument cmd.exe cannot pass to a batch file
// unchanged: a line break would end the command there, a NUL the string.
var ErrBatchArgument = errors.New("holds a line break or a NUL, which cmd.exe cannot pass to a batch file")

// BatchCommandLine is the command line that runs the batch file script
// with args through cmd.exe (the program at cmdExe), for CreateProcess to
// take as it is (SysProcAttr.CmdLine):
//
//	"cmd.exe" /e:on /v:off /d /s /c ""script" arg1 arg2"
//
// /d skips the AutoRun commands of the registry, /v:off keeps ! literal,
// /e:on gives the %cd:~,% substring used below, and /s takes everything
// between the first and last quote after /c as the command, unchanged.
//
// cmd.exe reads that command before the batch file sees its arguments: it
// expands %VAR%, and outside double quotes & | < > ^ ( ) start or change
// commands. So an argument made of letters, digits and #$*+-./:?@\_ alone
// is written as it is; any other (the empty one, one ending in a backslash
// included) goes in double quotes, where a quote is doubled (cmd's
// quoting stays in step: every quote toggles it) and the backslashes
// before a quote are doubled (the program the batch file passes %* to
// reads them as CommandLineToArgvW does). A % becomes %%cd:~,%: a literal
// % followed by an empty substring of %cd%, so that no %VAR% in it is ever
// expanded. What the batch file gets as %1, %2… is each argument in
// quotes when it needed them (%~1 removes them), and %* passes all of them
// on to a program that reads back exactly args.
func BatchCommandLine(cmdExe, script string, args []string) (string, error) {
	if strings.ContainsAny(script, "\"\r\n\x00") || strings.HasSuffix(script, `\`) {
		return "", fmt.Errorf("the batch file name %q cannot be passed to cmd.exe", script)
	}
	var b strings.Builder
	b.WriteString(`"` + cmdExe + `" /e:on /v:off /d /s /c ""` + script + `"`)
	for i, a := range args {
		if strings.ContainsAny(a, "\r\n\x00") {
			return "", fmt.Errorf("argument %d %w", i+1, ErrBatchArgument)
		}
		b.WriteByte(' ')
		b.WriteString(batchArg(a))
	}
	b.WriteByte('"')
	return b.String(), nil
}

// batchArg writes one argument of a batch file's command line.
func batchArg(a string) string {
	if a != "" && !strings.HasSuffix(a, `\`) && strings.IndexFunc(a, needsBatchQuotes) < 0 {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range a {
		switch r {
		case '\\':
			slashes++
			b.WriteRune(r)
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes)) // 2n backslashes before the quote
			b.WriteString(`""`)
		case '%':
			b.WriteString(`%%cd:~,%`)
		default:
			b.WriteRune(r)
		}
		slashes = 0
	}
	b.WriteString(strings.Repeat(`\`, slashes)) // 2n before the closing quote
	b.WriteByte('"')
	return b.String()
}

// needsBatchQuotes: every ASCII character but those known to be inert for
// cmd.exe, and every control character, is quoted.
func needsBatchQuotes(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r < 0x80:
		return !strings.ContainsRune(`#$*+-./:?@\_`, r)
	}
	return false
}

// Split reads a command line as a program's C runtime does (Microsoft's
// C runtime since 2008, and so node.exe and most programs; "" inside
// quotes is a literal quote and quoting goes on): the arguments that
// Quote, CommandLine and a batch file's %* (BatchCommandLine) pass on.
// Go programs read "" inside quotes by the rule before 2008, which ends
// the quoting there.
func Split(s string) []string {
	var args []string
	var b strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
				} else {
					i-- // the quote is read next
				}
			} else {
				b.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, b.String())
				b.Reset()
				inArg = false
			}
		default:
			b.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, b.String())
	}
	return args
}
