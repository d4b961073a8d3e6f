package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/ghactions"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// githubOptions are check's GitHub-mode flags (--github and its two
// companions) and, once check runs, the mode itself.
type githubOptions struct {
	enabled     bool
	summary     bool
	annotations int
	mode        *ghactions.Mode
	// untouchable is set when a step file is an input or a report: GitHub
	// mode then writes nothing to the step's files, not even the error.
	untouchable *bool
}

func (g *githubOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&g.enabled, "github", false, "GitHub Actions mode: also set step outputs, write a job summary and annotate findings (needs the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files of a workflow step)")
	f.BoolVar(&g.summary, "github-summary", true, "with --github: write the job summary")
	f.IntVar(&g.annotations, "github-annotations", ghactions.MaxAnnotations, "with --github: the most annotations to emit, 0 to 50")
}

// runCheckCmd runs check, in GitHub mode when --github is given. GitHub
// mode starts before anything else so that it can refuse to run outside a
// workflow step, and a check that judged nothing (exit 2) still sets its
// outputs: outcome error, exit-code 2.
func runCheckCmd(cmd *cobra.Command, args []string, o checkOptions) error {
	if !o.github.enabled {
		for _, name := range []string{"github-summary", "github-annotations"} {
			if cmd.Flags().Changed(name) {
				return checkFail("--%s needs --github", name)
			}
		}
		return runCheck(cmd, args, o)
	}
	mode, err := ghactions.New(os.Getenv, cmd.ErrOrStderr())
	if err != nil {
		return checkFail("%v", err)
	}
	o.github.mode = mode
	o.github.untouchable = new(bool)
	if n := o.github.annotations; n < 0 || n > ghactions.MaxAnnotations {
		err = checkFail("--github-annotations must be between 0 and %d, got %d", ghactions.MaxAnnotations, n)
	} else {
		err = runCheck(cmd, args, o)
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.code == 2 && !*o.github.untouchable {
		reason := strings.TrimPrefix(ee.msg, "mcpsnoop check: ")
		var none *noLogsError
		if errors.As(ee.err, &none) {
			reason = none.inGitHub() // in the action's terms: which input to set
		}
		// Best effort: the reason is on stderr whatever happens here.
		_ = mode.PublishError(reason, o.github.summary)
	}
	return err
}

// publish hands a finished check to GitHub mode; nothing without --github.
// Report paths become absolute, since later steps may run elsewhere;
// listed names the reports written that list the findings.
func (g *githubOptions) publish(rep *checker.Report, o checkOptions, listed []string) error {
	if g.mode == nil {
		return nil
	}
	return g.mode.Publish(rep, ghactions.Options{
		SARIF: reportFilePath(o.sarifPath), JUnit: reportFilePath(o.junitPath),
		Summary: g.summary, Annotations: g.annotations, Listed: listed, LogName: o.logName,
	})
}

// workDir is where SARIF URIs start in GitHub mode: the repository checkout,
// which code scanning resolves them against even when check ran in a
// subfolder. "" (the working directory) otherwise.
func (g *githubOptions) workDir() string {
	if g.mode == nil {
		return ""
	}
	return g.mode.Workspace()
}

// guard keeps the runner from reading workflow commands in the text
// report: in GitHub mode it goes out between ::stop-commands:: and its token,
// since session ids, tool names and messages come from untrusted logs and
// a "::error ..." line among them would otherwise be obeyed.
func (g *githubOptions) guard(report []byte) []byte {
	if g.mode == nil {
		return report
	}
	return ghactions.Guarded(report)
}

// reportFilePath is a report file as a step output gives it to later
// steps: its absolute path, or "" for a descriptor (-, /dev/stdout...),
// which names no file they could read.
func reportFilePath(p string) string {
	if t, err := atomicfile.Resolve(p, false); err == nil && t.Kind == atomicfile.Descriptor {
		return ""
	}
	return absPath(p)
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
