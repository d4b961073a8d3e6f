package main

// A small offline stand-in for the GitHub Actions runner, enough to run the
// repository's composite action (action.yml) from a test: it parses the
// metadata with yaml.v3, evaluates the ${{ }} expressions the action uses,
// runs each `run:` step with bash the way the runner does (bash --noprofile
// --norc -eo pipefail, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY / GITHUB_ENV
// pointing at fresh files, the step's env: after interpolation), and hands
// the `uses:` steps to the test: setup-go is skipped (the machine has Go),
// and the test decides what stands in for the SARIF upload. A step's
// continue-on-error is honoured (outcome failure, conclusion success), and
// each step's start and first output are timed.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// actionMeta is the part of action.yml the runner reads.
type actionMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	ContinueOnError  string            `yaml:"continue-on-error"`
}

func (s actionStep) label() string {
	if s.ID != "" {
		return s.ID
	}
	return s.Name
}

// actionPath is the action's own checkout: this repository.
func actionPath(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loadAction(t testing.TB) *actionMeta {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(actionPath(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var m actionMeta
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &m
}

// usesHandler stands in for a `uses:` step. with holds the step's
// interpolated with: values. A non-nil error fails the step.
type usesHandler func(with map[string]string) (outputs map[string]string, err error)

// actionJob is one run of the action as a job step.
type actionJob struct {
	Inputs    map[string]string // with: of the workflow step
	Workspace string            // GITHUB_WORKSPACE
	Temp      string            // RUNNER_TEMP
	Env       map[string]string // extra job environment
	// Replace skips the named step (by id) and gives these outputs instead.
	Replace map[string]map[string]string
	// Uses handles `uses:` steps by action name (the part before '@').
	Uses map[string]usesHandler
	// Github adds to the github context (event_name, repository, token);
	// Event is github.event, the webhook payload.
	Github map[string]string
	Event  map[string]any
}

// stepRecord is what happened to one step.
type stepRecord struct {
	Label      string
	Ran        bool
	Outcome    string // success, failure or skipped
	Conclusion string // the outcome after continue-on-error
	Outputs    map[string]string
	Start      time.Time // when the step started (zero when skipped)
	// FirstOutput is when a run step first wrote to stdout or stderr.
	FirstOutput time.Time
}

// actionResult is the job as the runner would leave it.
type actionResult struct {
	Outputs map[string]string // the action's outputs
	Steps   []stepRecord
	Log     string // stdout and stderr of every run step
	Summary string // the job summary, the steps' summaries concatenated
	EnvFile string // what the steps appended to GITHUB_ENV
	Failed  bool   // the action (so the job) failed
}

func (r *actionResult) step(label string) stepRecord {
	for _, s := range r.Steps {
		if s.Label == label {
			return s
		}
	}
	return stepRecord{Label: label, Outcome: "missing"}
}

// index is the step's position, -1 when absent.
func (r *actionResult) index(label string) int {
	for i, s := range r.Steps {
		if s.Label == label {
			return i
		}
	}
	return -1
}

// runAction executes the action as the runner would.
func runAction(t testing.TB, meta *actionMeta, job actionJob) *actionResult {
	t.Helper()
	for name := range job.Inputs {
		if _, ok := meta.Inputs[name]; !ok {
			t.Fatalf("input %q is not declared in action.yml", name)
		}
	}
	inputs := map[string]string{}
	for name, in := range meta.Inputs {
		if in.Default != nil {
			inputs[name] = *in.Default
		}
	}
	for name, v := range job.Inputs {
		inputs[name] = v
	}
	github := map[string]string{"action_path": actionPath(t), "workspace": job.Workspace,
		"event_name": "push", "repository": "mcpsnoop/mcpsnoop", "token": ""}
	for k, v := range job.Github {
		github[k] = v
	}
	ctx := &exprContext{
		inputs: inputs,
		steps:  map[string]*stepRecord{},
		github: github,
		event:  job.Event,
		runner: map[string]string{"temp": job.Temp, "os": runnerOS(), "arch": runnerArch()},
	}
	// Capacity for every step, so the pointers ctx.steps keeps stay valid.
	res := &actionResult{Outputs: map[string]string{}, Steps: make([]stepRecord, 0, len(meta.Runs.Steps))}
	var log, summary, envFile bytes.Buffer
	files := t.TempDir()
	for i, st := range meta.Runs.Steps {
		rec := stepRecord{Label: st.label(), Outputs: map[string]string{}}
		cond := st.If
		if !statusFunc.MatchString(cond) {
			// GitHub's implied status check, unless the if: has its own.
			if cond == "" {
				cond = "success()"
			} else {
				cond = "success() && (" + strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cond), "${{"), "}}") + ")"
			}
		}
		ok, err := ctx.condition(cond)
		if err != nil {
			t.Fatalf("step %s: if: %v", rec.Label, err)
		}
		if !ok {
			rec.Outcome, rec.Conclusion = "skipped", "skipped"
			res.Steps = append(res.Steps, rec)
			if st.ID != "" {
				ctx.steps[st.ID] = &res.Steps[len(res.Steps)-1]
			}
			continue
		}
		rec.Ran = true
		rec.Start = time.Now()
		var stepErr error
		switch {
		case job.Replace[st.ID] != nil:
			for k, v := range job.Replace[st.ID] {
				rec.Outputs[k] = v
			}
		case st.Uses != "":
			name, _, _ := strings.Cut(st.Uses, "@")
			with := map[string]string{}
			for k, v := range st.With {
				if with[k], err = ctx.interpolate(v); err != nil {
					t.Fatalf("step %s: with.%s: %v", rec.Label, k, err)
				}
			}
			h := job.Uses[name]
			if h == nil {
				t.Fatalf("step %s: no stand-in for uses: %s", rec.Label, st.Uses)
			}
			var outs map[string]string
			outs, stepErr = h(with)
			for k, v := range outs {
				rec.Outputs[k] = v
			}
		default:
			stepErr = runStep(t, ctx, job, st, filepath.Join(files, strconv.Itoa(i)), &rec, &log, &summary, &envFile)
		}
		rec.Outcome, rec.Conclusion = "success", "success"
		if stepErr != nil {
			rec.Outcome, rec.Conclusion = "failure", "failure"
			coe := false
			if st.ContinueOnError != "" {
				if coe, err = ctx.condition(st.ContinueOnError); err != nil {
					t.Fatalf("step %s: continue-on-error: %v", rec.Label, err)
				}
			}
			if coe {
				rec.Conclusion = "success"
			} else {
				res.Failed = true
			}
			fmt.Fprintf(&log, "##[error] step %s failed: %v\n", rec.Label, stepErr)
		}
		ctx.failed = res.Failed
		res.Steps = append(res.Steps, rec)
		if st.ID != "" {
			ctx.steps[st.ID] = &res.Steps[len(res.Steps)-1]
		}
	}
	for name, out := range meta.Outputs {
		v, err := ctx.interpolate(out.Value)
		if err != nil {
			t.Fatalf("output %s: %v", name, err)
		}
		res.Outputs[name] = v
	}
	res.Log, res.Summary, res.EnvFile = log.String(), summary.String(), envFile.String()
	return res
}

// runStep runs one `run:` step with bash, as the runner does.
func runStep(t testing.TB, ctx *exprContext, job actionJob, st actionStep, dir string, rec *stepRecord, log, summary, envFile *bytes.Buffer) error {
	t.Helper()
	if st.Shell != "bash" {
		t.Fatalf("step %s: shell %q; the action's run steps use bash", rec.Label, st.Shell)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	fileCmds := map[string]string{}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"} {
		p := filepath.Join(dir, strings.ToLower(name))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		fileCmds[name] = p
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "MCPSNOOP") {
			continue
		}
		env[k] = v
	}
	for k, v := range fileCmds {
		env[k] = v
	}
	env["GITHUB_ACTIONS"] = "true"
	env["CI"] = "true"
	env["GITHUB_WORKSPACE"] = job.Workspace
	env["GITHUB_ACTION_PATH"] = actionPath(t)
	env["RUNNER_TEMP"] = job.Temp
	env["RUNNER_OS"] = runnerOS()
	env["RUNNER_ARCH"] = runnerArch()
	for k, v := range job.Env {
		env[k] = v
	}
	for k, v := range st.Env {
		iv, err := ctx.interpolate(v)
		if err != nil {
			t.Fatalf("step %s: env.%s: %v", rec.Label, k, err)
		}
		env[k] = iv
	}
	wd := job.Workspace
	if st.WorkingDirectory != "" {
		w, err := ctx.interpolate(st.WorkingDirectory)
		if err != nil {
			t.Fatalf("step %s: working-directory: %v", rec.Label, err)
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(job.Workspace, w)
		}
		wd = w
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = wd
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	fmt.Fprintf(log, "##[group]Run %s\n", rec.Label)
	out := &firstWrite{w: log, at: &rec.FirstOutput}
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	fmt.Fprintf(log, "##[endgroup]\n")

	outs, err := parseFileCommand(fileCmds["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatalf("step %s: GITHUB_OUTPUT: %v", rec.Label, err)
	}
	for k, v := range outs {
		rec.Outputs[k] = v
	}
	for name, buf := range map[string]*bytes.Buffer{"GITHUB_STEP_SUMMARY": summary, "GITHUB_ENV": envFile} {
		data, err := os.ReadFile(fileCmds[name])
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
	}
	return runErr
}

// runnerOS and runnerArch are this machine in the runner's words.
func runnerOS() string {
	if runtime.GOOS == "darwin" {
		return "macOS"
	}
	return "Linux"
}

func runnerArch() string {
	if runtime.GOARCH == "arm64" {
		return "ARM64"
	}
	return "X64"
}

// firstWrite passes writes on and notes when the first one came.
type firstWrite struct {
	w  io.Writer
	at *time.Time
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if f.at.IsZero() && len(p) > 0 {
		*f.at = time.Now()
	}
	return f.w.Write(p)
}

// parseFileCommand reads a GITHUB_OUTPUT-style file: name=value lines and
// name<<DELIMITER blocks. Later values win, as on GitHub.
func parseFileCommand(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("%s: delimiter %q never closes", name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %q is neither name=value nor name<<DELIMITER", line)
		}
		out[name] = val
	}
	return out, sc.Err()
}

// exprContext evaluates the subset of GitHub's expression language the
// action uses. A reference it does not know is an error, so that the test
// notices when action.yml starts to depend on something not emulated here.
type exprContext struct {
	inputs map[string]string
	steps  map[string]*stepRecord
	github map[string]string
	event  map[string]any
	runner map[string]string
	failed bool
}

var statusFunc = regexp.MustCompile(`\b(success|failure|always|cancelled)\(\)`)

var exprRE = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

func (c *exprContext) interpolate(s string) (string, error) {
	var firstErr error
	out := exprRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := c.eval(exprRE.FindStringSubmatch(m)[1])
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return toString(v)
	})
	return out, firstErr
}

// condition evaluates an if: (with or without ${{ }}) to a boolean.
func (c *exprContext) condition(s string) (bool, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "${{") && strings.HasSuffix(s, "}}") {
		s = s[3 : len(s)-2]
	}
	v, err := c.eval(s)
	return truthy(v), err
}

func (c *exprContext) eval(expr string) (any, error) {
	p := &exprParser{ctx: c, toks: tokenize(expr)}
	v, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected %q in %q", p.toks[p.pos], expr)
	}
	return v, err
}

var tokenRE = regexp.MustCompile(`\s*('(?:[^']|'')*'|==|!=|&&|\|\||[()!,]|[A-Za-z_][A-Za-z0-9_.\-]*|[0-9]+(?:\.[0-9]+)?)`)

// tokenize splits an expression; a character no token starts with becomes
// a "?" token, which the parser rejects.
func tokenize(s string) []string {
	var toks []string
	end := 0
	for _, m := range tokenRE.FindAllStringSubmatchIndex(s, -1) {
		if strings.TrimSpace(s[end:m[0]]) != "" {
			return append(toks, "?")
		}
		toks = append(toks, s[m[2]:m[3]])
		end = m[1]
	}
	if strings.TrimSpace(s[end:]) != "" {
		toks = append(toks, "?")
	}
	return toks
}

type exprParser struct {
	ctx  *exprContext
	toks []string
	pos  int
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) next() string { t := p.peek(); p.pos++; return t }

func (p *exprParser) or() (any, error) {
	l, err := p.and()
	for err == nil && p.peek() == "||" {
		p.next()
		var r any
		if r, err = p.and(); truthy(l) {
			continue
		}
		l = r
	}
	return l, err
}

func (p *exprParser) and() (any, error) {
	l, err := p.eq()
	for err == nil && p.peek() == "&&" {
		p.next()
		var r any
		if r, err = p.eq(); !truthy(l) {
			continue
		}
		l = r
	}
	return l, err
}

func (p *exprParser) eq() (any, error) {
	l, err := p.unary()
	for err == nil && (p.peek() == "==" || p.peek() == "!=") {
		op := p.next()
		var r any
		if r, err = p.unary(); err != nil {
			break
		}
		same := strings.EqualFold(toString(l), toString(r))
		l = same == (op == "==")
	}
	return l, err
}

func (p *exprParser) unary() (any, error) {
	if p.peek() == "!" {
		p.next()
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.primary()
}

func (p *exprParser) primary() (any, error) {
	t := p.next()
	switch {
	case t == "(":
		v, err := p.or()
		if p.next() != ")" && err == nil {
			err = fmt.Errorf("missing )")
		}
		return v, err
	case strings.HasPrefix(t, "'"):
		return strings.ReplaceAll(t[1:len(t)-1], "''", "'"), nil
	case t == "true" || t == "false":
		return t == "true", nil
	case t == "null":
		return "", nil
	case t != "" && t[0] >= '0' && t[0] <= '9':
		return t, nil
	case p.peek() == "(":
		p.next()
		if p.next() != ")" {
			return nil, fmt.Errorf("%s(): arguments are not emulated", t)
		}
		switch t {
		case "success":
			return !p.ctx.failed, nil
		case "failure":
			return p.ctx.failed, nil
		case "always":
			return true, nil
		case "cancelled":
			return false, nil
		}
		return nil, fmt.Errorf("function %s() is not emulated", t)
	case t == "":
		return nil, fmt.Errorf("expression ends early")
	}
	return p.ctx.ref(t)
}

func (c *exprContext) ref(path string) (any, error) {
	parts := strings.Split(path, ".")
	switch {
	case parts[0] == "inputs" && len(parts) == 2:
		v, ok := c.inputs[parts[1]]
		if !ok {
			return nil, fmt.Errorf("inputs.%s is not declared", parts[1])
		}
		return v, nil
	case parts[0] == "github" && len(parts) == 2:
		if v, ok := c.github[parts[1]]; ok {
			return v, nil
		}
	case parts[0] == "github" && len(parts) > 2 && parts[1] == "event":
		// A property the payload lacks is null, as on GitHub.
		var v any = c.event
		for _, p := range parts[2:] {
			m, ok := v.(map[string]any)
			if !ok {
				return "", nil
			}
			v = m[p]
		}
		if v == nil {
			return "", nil
		}
		return v, nil
	case parts[0] == "runner" && len(parts) == 2 && c.runner[parts[1]] != "":
		return c.runner[parts[1]], nil
	case parts[0] == "steps" && len(parts) >= 3:
		st := c.steps[parts[1]]
		if st == nil {
			return "", nil
		}
		switch {
		case len(parts) == 4 && parts[2] == "outputs":
			return st.Outputs[parts[3]], nil
		case len(parts) == 3 && parts[2] == "outcome":
			return st.Outcome, nil
		case len(parts) == 3 && parts[2] == "conclusion":
			return st.Conclusion, nil
		}
	}
	return nil, fmt.Errorf("%s is not emulated", path)
}

func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x != ""
	}
	return v != nil
}
