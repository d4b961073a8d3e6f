package main

// upload-sarif (true, false, auto) and category: where code scanning
// cannot take the report (a private repository without GitHub Advanced
// Security, a pull request from a fork), auto reports through annotations
// and the job summary and says why, and true fails the job.

import (
	"errors"
	"strings"
	"testing"
)

// sarifRun is one run of the action with the upload stand-in answering
// uploadErr (nil: taken).
type sarifRun struct {
	inputs    map[string]string
	github    map[string]string
	event     map[string]any
	uploadErr error
}

func (f *actionFixture) runSARIF(t *testing.T, r sarifRun) (*actionResult, []upload) {
	t.Helper()
	var uploads []upload
	res := runAction(t, f.meta, actionJob{
		Inputs:    r.inputs,
		Workspace: f.workspace,
		Temp:      t.TempDir(),
		Env:       map[string]string{"MCPSNOOP_HOME": t.TempDir()},
		Replace:   map[string]map[string]string{"install": {"path": f.binary, "version": "test", "source": "release"}},
		Github:    r.github,
		Event:     r.event,
		Uses: map[string]usesHandler{
			setupGo: func(map[string]string) (map[string]string, error) { return nil, errors.New("setup-go ran") },
			uploadSARIF: func(with map[string]string) (map[string]string, error) {
				uploads = append(uploads, upload{file: with["sarif_file"], category: with["category"]})
				return nil, r.uploadErr
			},
		},
	})
	return res, uploads
}

// forkPR is the payload of a pull request from a fork.
func prFrom(repo string) map[string]any {
	return map[string]any{"pull_request": map[string]any{"head": map[string]any{"repo": map[string]any{"full_name": repo}}}}
}

func TestActionUploadSARIF(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	refused := errors.New("Resource not accessible by integration (HTTP 403)")
	const pass, fail = "logs/pass/mrtr.jsonl", "logs/traced"
	const explained = "::notice title=mcpsnoop::code scanning did not take the SARIF report"
	const forkNotice = "::notice title=mcpsnoop::not uploading the SARIF report: a pull request from a fork (someone/mcpsnoop) gets a read-only token"
	for _, tc := range []struct {
		name      string
		run       sarifRun
		uploads   int
		upload    string // the upload step's outcome
		failed    bool   // the job
		log       string // in the log ("" for nothing to look for)
		summary   bool   // the job summary explains a refused upload
		notInLog  string
		decideErr bool
	}{
		{"auto, taken", sarifRun{inputs: map[string]string{"session": pass}}, 1, "success", false, "", false, explained, false},
		{"auto, refused", sarifRun{inputs: map[string]string{"session": pass}, uploadErr: refused}, 1, "failure", false, explained, true, "", false},
		{"auto, refused, and findings", sarifRun{inputs: map[string]string{"session": fail}, uploadErr: refused}, 1, "failure", true, explained, true, "", false},
		{"true, refused", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "true"}, uploadErr: refused}, 1, "failure", true, "", false, explained, false},
		// Any spelling of true is strict: the decide step says so, not a
		// second comparison with the raw input.
		{"True, refused", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "True"}, uploadErr: refused}, 1, "failure", true, "", false, explained, false},
		{"true in a block scalar, refused", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": " TRUE\n"}, uploadErr: refused}, 1, "failure", true, "", false, explained, false},
		{"auto in a block scalar, refused", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "Auto\n"}, uploadErr: refused}, 1, "failure", false, explained, true, "", false},
		{"auto, a fork's pull request", sarifRun{inputs: map[string]string{"session": pass},
			github: map[string]string{"event_name": "pull_request"}, event: prFrom("someone/mcpsnoop")}, 0, "skipped", false, forkNotice, false, explained, false},
		{"auto, the repository's own pull request", sarifRun{inputs: map[string]string{"session": pass},
			github: map[string]string{"event_name": "pull_request"}, event: prFrom("mcpsnoop/mcpsnoop")}, 1, "success", false, "", false, forkNotice, false},
		{"true, a fork's pull request", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "TRUE"},
			github: map[string]string{"event_name": "pull_request"}, event: prFrom("someone/mcpsnoop")}, 1, "success", false, "", false, forkNotice, false},
		{"false", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "false"}}, 0, "skipped", false, "", false, explained, false},
		{"not a choice", sarifRun{inputs: map[string]string{"session": pass, "upload-sarif": "sometimes"}}, 0, "skipped", true,
			`::error title=mcpsnoop::upload-sarif must be true, false or auto, got "sometimes"`, false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, uploads := f.runSARIF(t, tc.run)
			if len(uploads) != tc.uploads {
				t.Errorf("%d uploads, want %d", len(uploads), tc.uploads)
			}
			if got := res.step("upload").Outcome; got != tc.upload {
				t.Errorf("upload step %s, want %s", got, tc.upload)
			}
			if res.Failed != tc.failed {
				t.Errorf("job failed = %v, want %v:\n%s", res.Failed, tc.failed, res.Log)
			}
			if tc.log != "" && !strings.Contains(res.Log, tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, res.Log)
			}
			if tc.notInLog != "" && strings.Contains(res.Log, tc.notInLog) {
				t.Errorf("log has %q:\n%s", tc.notInLog, res.Log)
			}
			if got := strings.Contains(res.Summary, "> mcpsnoop: code scanning did not take the SARIF report"); got != tc.summary {
				t.Errorf("summary explains the refused upload: %v, want %v:\n%s", got, tc.summary, res.Summary)
			}
			if (res.step("sarif").Outcome == "failure") != tc.decideErr {
				t.Errorf("decide step %s", res.step("sarif").Outcome)
			}
			// The check's own verdict decides the gate, never the upload.
			gate := res.step("Gate on the check").Outcome
			if tc.run.inputs["session"] == fail && !tc.decideErr && gate != "failure" {
				t.Errorf("gate %s on findings", gate)
			}
			if tc.run.inputs["session"] == pass && gate != "skipped" {
				t.Errorf("gate %s on a passing check", gate)
			}
		})
	}
}

func TestActionCategory(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	res, uploads := f.runSARIF(t, sarifRun{inputs: map[string]string{"session": "logs/pass/mrtr.jsonl", "category": "mcpsnoop-nightly"}})
	if res.Failed || len(uploads) != 1 || uploads[0].category != "mcpsnoop-nightly" {
		t.Fatalf("uploads %+v, failed %v:\n%s", uploads, res.Failed, res.Log)
	}
}
