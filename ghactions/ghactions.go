// Package ghactions is check's GitHub mode (`mcpsnoop check --github`): it
// publishes a checker.Report to a GitHub Actions job as step outputs, a job
// summary and annotations. Its Guard keeps a runner from obeying workflow
// commands in text that quotes a log (check --github's report, export -T
// text in a step).
//
// Everything goes through github.com/sethvargo/go-githubactions, whose known
// v1.3.0 pitfalls are avoided here: its file commands panic when the
// variable naming the file is unset, so New refuses to start without them
// and every call is guarded by a recover; its output delimiter is fixed, so
// only numbers, enums and paths without line breaks are ever written as
// outputs, never text from a log; Errorf and friends take a format string,
// so messages are passed as arguments; Fatalf exits the process, so it is
// never used (check's exit code is the caller's business).
//
// Annotations are written to the writer New is given (the command passes
// stderr): the runner reads workflow commands from both streams, and stdout
// stays the report the user asked for.
package ghactions

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	githubactions "github.com/sethvargo/go-githubactions"
)

// MaxAnnotations is the most annotations one check emits. GitHub shows ten
// errors and ten warnings per step and hides the rest; the job summary and
// the SARIF report hold everything.
const MaxAnnotations = 50

// Variables GitHub mode needs: the files step outputs and the job summary
// are appended to.
const (
	EnvOutput  = "GITHUB_OUTPUT"
	EnvSummary = "GITHUB_STEP_SUMMARY"
	// EnvWorkspace is the repository checkout; annotation paths are made
	// relative to it. Optional: the working directory stands in for it.
	EnvWorkspace = "GITHUB_WORKSPACE"
)

// ErrNotGitHub is returned by New outside a GitHub Actions step.
var ErrNotGitHub = errors.New("--github needs the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files that a GitHub Actions step provides, and they are not set; drop --github outside GitHub Actions")

// Mode publishes to one GitHub Actions step.
type Mode struct {
	action                  *githubactions.Action
	workspace               string
	outputFile, summaryFile string
}

// New prepares GitHub mode from the step's environment (getenv, usually
// os.Getenv). Annotations go to w. It fails with ErrNotGitHub when either
// file variable is unset, before anything is written.
func New(getenv func(string) string, w io.Writer) (*Mode, error) {
	if getenv(EnvOutput) == "" || getenv(EnvSummary) == "" {
		return nil, ErrNotGitHub
	}
	return &Mode{
		action:     githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(w)),
		workspace:  getenv(EnvWorkspace),
		outputFile: getenv(EnvOutput), summaryFile: getenv(EnvSummary),
	}, nil
}

// Files are the step's output and summary files, which Publish appends to.
func (m *Mode) Files() []string { return []string{m.outputFile, m.summaryFile} }

// Workspace is the repository checkout ("" when GITHUB_WORKSPACE is unset).
func (m *Mode) Workspace() string { return m.workspace }

// Options say what to publish besides the outputs.
type Options struct {
	// SARIF and JUnit are the report files written ("" for none), given as
	// the outputs of the same names; absolute paths serve later steps best.
	SARIF, JUnit string
	// Summary adds the job summary.
	Summary bool
	// Annotations is the most annotations to emit, 0 to MaxAnnotations.
	Annotations int
	// LogName is what the summary's finding lines call standard input
	// (check --log-name); "-" when empty.
	LogName string
	// Listed names the reports this check wrote that list its findings
	// (SARIF, JUnit, JSON; to a file or to stdout), so that a notice about
	// findings left out of the annotations or the summary says where they
	// are, and only there.
	Listed []string
}

// Publish writes the outputs, then the summary and the annotations as
// opts asks. It never panics; a file it cannot write is an error.
func (m *Mode) Publish(rep *checker.Report, opts Options) (err error) {
	for _, p := range []string{opts.SARIF, opts.JUnit} {
		if strings.ContainsAny(p, "\r\n") {
			return fmt.Errorf("github mode: report path %q holds a line break, which a step output cannot carry", p)
		}
	}
	if opts.Annotations < 0 || opts.Annotations > MaxAnnotations {
		return fmt.Errorf("github mode: at most %d annotations, got %d", MaxAnnotations, opts.Annotations)
	}
	defer recoverTo(&err)
	out := ComputeOutputs(rep, opts)
	for _, kv := range out.Pairs() {
		m.action.SetOutput(kv[0], kv[1])
	}
	if opts.Summary {
		m.action.AddStepSummary(Summary(rep, opts))
	}
	m.annotate(rep, opts)
	return nil
}

// PublishError records a check that judged nothing (exit code 2): outcome
// error, no report files, no counts, and the reason in the job summary.
func (m *Mode) PublishError(reason string, summary bool) (err error) {
	defer recoverTo(&err)
	out := Outputs{Outcome: string(checker.Errored), ExitCode: 2}
	for _, kv := range out.Pairs() {
		m.action.SetOutput(kv[0], kv[1])
	}
	if summary {
		m.action.AddStepSummary(ErrorSummary(reason))
	}
	return nil
}

// recoverTo turns a go-githubactions panic (a file command it could not
// write) into an error.
func recoverTo(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("github mode: %v", r)
	}
}

// Outputs are the step outputs of one check.
type Outputs struct {
	Outcome  string // passed, findings or error
	ExitCode int
	SARIF    string
	JUnit    string
	// Counts; nil pointers (an error run) are written as "".
	Errors, Warnings, Findings *int
}

// ComputeOutputs derives the outputs of a checked run: errors and warnings
// are the sums of the sessions' error and warning counters, findings the
// number of findings that fail the gate: of a gated signal, blaming a party
// --blame names, not accepted as known (exact even when the report kept
// only some findings).
// Failed assertions are not findings; outcome and exit-code say when one
// failed the run.
func ComputeOutputs(rep *checker.Report, opts Options) Outputs {
	var errs, warns, found int
	for _, s := range rep.Sessions {
		errs += s.Counters.Errors
		warns += s.Counters.Warnings
		found += s.Findings.Gated // at level error: gated signal, blamed party, not known
	}
	code := 0
	if rep.Verdict != checker.Passed {
		code = 1
	}
	return Outputs{
		Outcome: string(rep.Verdict), ExitCode: code,
		SARIF: opts.SARIF, JUnit: opts.JUnit,
		Errors: &errs, Warnings: &warns, Findings: &found,
	}
}

// Pairs lists the outputs as name, value pairs in a fixed order.
func (o Outputs) Pairs() [][2]string {
	num := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	return [][2]string{
		{"outcome", o.Outcome},
		{"exit-code", strconv.Itoa(o.ExitCode)},
		{"sarif", o.SARIF},
		{"junit", o.JUnit},
		{"errors", num(o.Errors)},
		{"warnings", num(o.Warnings)},
		{"findings", num(o.Findings)},
	}
}

// Annotation is one workflow-command annotation.
type Annotation struct {
	Level   string // error, warning or notice
	File    string // workspace-relative, slash-separated; "" for none
	Line    int    // 0 for none
	Title   string
	Message string
}

// Annotations picks at most limit annotations: findings that fail the gate
// (level error) first, as errors, then the ungated ones (SARIF level note)
// as notices, each in report order; schema notes are never annotated. When findings are left over, the last
// slot becomes a notice that says how many and where to read them: the
// reports named in listed (see Options.Listed). workspace is the directory
// file paths are made relative to; a log outside it gets no file.
func Annotations(rep *checker.Report, limit int, workspace string, listed []string) []Annotation {
	if limit <= 0 {
		return nil
	}
	order := make([]int, 0, len(rep.Findings))
	skipped := 0
	for i := range rep.Findings {
		if quiet(&rep.Findings[i]) {
			skipped++
			continue
		}
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool {
		return rank(rep.Findings[order[a]].Level) < rank(rep.Findings[order[b]].Level)
	})
	total := max(rep.FindingsTotal, len(rep.Findings)) - skipped
	shown := len(order)
	if total > limit {
		shown = limit - 1
	}
	paths := map[string]string{}
	out := make([]Annotation, 0, min(limit, total))
	for _, i := range order[:shown] {
		f := &rep.Findings[i]
		// go-githubactions escapes only %, CR and LF: the log shows the
		// rest as sent, so peer text (a tool name, a message) is made
		// visible first, as on a terminal.
		title := f.Rule()
		if f.Party != "" {
			title += " [" + string(f.Party) + "]"
		}
		a := Annotation{Level: "notice", Title: termsafe.Clean(title, false), Message: termsafe.Clean(f.Message, false)}
		if f.Level == checker.LevelError {
			a.Level = "error"
		}
		if f.Path != "" {
			p, ok := paths[f.Path]
			if !ok {
				p = relativeTo(workspace, f.Path)
				paths[f.Path] = p
			}
			a.File = p
			if p != "" && f.Line > 0 {
				a.Line = f.Line
			}
		}
		out = append(out, a)
	}
	if total > shown {
		out = append(out, Annotation{
			Level: "notice", Title: "mcpsnoop",
			Message: fmt.Sprintf("%d more findings are not annotated (at most %d annotations per check); the job summary counts them%s", total-shown, limit, whereListed(listed)),
		})
	}
	return out
}

// whereListed ends a notice with the reports that list the findings, or
// how to get one when none was written.
func whereListed(listed []string) string {
	switch len(listed) {
	case 0:
		return ", and a --sarif or --json report would list them"
	case 1:
		return " and the " + listed[0] + " report lists them"
	}
	return " and the " + strings.Join(listed[:len(listed)-1], ", ") + " and " + listed[len(listed)-1] + " reports list them"
}

// annotate emits the annotations through go-githubactions, which escapes
// line breaks and the characters that would end a property or a command.
func (m *Mode) annotate(rep *checker.Report, opts Options) {
	for _, a := range Annotations(rep, opts.Annotations, m.workspace, opts.Listed) {
		fields := map[string]string{"title": a.Title}
		if a.File != "" {
			fields["file"] = a.File
		}
		if a.Line > 0 {
			fields["line"] = strconv.Itoa(a.Line)
		}
		act := m.action.WithFieldsMap(fields)
		switch a.Level {
		case "error":
			act.Errorf("%s", a.Message)
		case "warning":
			act.Warningf("%s", a.Message)
		default:
			act.Noticef("%s", a.Message)
		}
	}
}

// quiet reports a finding that is never annotated: a schema note (a tool
// schema construct clients may read differently, reported in the summary
// and the reports; an annotation per tool of every clean SDK server would
// bury the findings that matter).
func quiet(f *checker.Finding) bool {
	return f.Signal == checker.SignalSchema && f.Level != checker.LevelError
}

func rank(l checker.Level) int {
	if l == checker.LevelError {
		return 0
	}
	return 1
}

// relativeTo is path relative to workspace, slash-separated, or "" when it
// lies outside (an annotation on a file the repository does not hold
// attaches nowhere). An empty workspace means the working directory.
func relativeTo(workspace, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	base, err := filepath.Abs(workspace)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}
