// Package sarif renders a checker.Report as a SARIF 2.1.0 log for GitHub
// code scanning and other SARIF consumers.
//
// It owns the SARIF shape of a check: the twelve rules and their prose, one
// result per finding, artifact URIs, partial fingerprints and code
// scanning's limits (5,000 results, 10 MB; messages cut at 1,000
// characters). It decides no verdicts and computes no findings (the
// engine in package checker does), and it writes to an io.Writer only:
// putting the bytes in a file, via a temp file and a rename, is the caller's
// job.
//
// The document is built with github.com/owenrumney/go-sarif/v2. Its known
// v2.3.3 pitfalls are avoided here rather than patched afterwards: every rule
// is registered, with all three texts, before any result (an unknown rule
// would get ruleIndex 2^64-1, so Write refuses it), results start as an empty
// slice so a clean run prints "results": [], and nothing that marshals as
// null (suppressions, invocations) is used.
package sarif

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/mcpsnoop/mcpsnoop/checker"
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

const (
	// SchemaURI is the log's $schema.
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	// ToolName and InformationURI describe the driver.
	ToolName       = "mcpsnoop"
	InformationURI = "https://github.com/mcpsnoop/mcpsnoop"
	// DevVersion is the driver version when Options.Version is empty.
	DevVersion = "0.0.0-dev"
	// FingerprintKey names our partial fingerprint. Code scanning matches
	// alerts on it, so it changes only when the recipe does.
	FingerprintKey = "mcpsnoop/v1"
	// MaxResults is the most results one run may hold: code scanning keeps
	// only the top 5,000 of an upload, so past that we choose which, and
	// say so, instead of letting it drop results silently.
	MaxResults = 5000
)

// SARIF levels the engine never sets: the truncation result is a warning,
// and none is accepted for completeness.
const (
	levelWarning = "warning"
	levelNone    = "none"
)

// Options configure rendering.
type Options struct {
	Version string // tool version; "" means "0.0.0-dev"
	LogName string // location to give results whose finding has no Path (stdin); "" = no location
	WorkDir string // directory URIs are made relative to; "" = os.Getwd()
}

// Write renders rep as one SARIF run: all rules, then one result per
// finding in the order given, capped at MaxResults. The output is indented
// JSON ending in a newline. It fails, writing nothing, if a finding names a
// rule or level SARIF cannot express, or if the working directory is needed
// and unknown.
func Write(w io.Writer, rep *checker.Report, opts Options) error {
	out, err := render(rep, opts, MaxResults)
	if err != nil {
		return err
	}
	if len(out) > MaxFileBytes {
		if out, err = fitSize(rep, opts); err != nil {
			return err
		}
	}
	_, err = w.Write(out)
	return err
}

// render builds and marshals the log with at most limit results.
func render(rep *checker.Report, opts Options, limit int) ([]byte, error) {
	doc, err := build(rep, opts, limit)
	if err != nil {
		return nil, err
	}
	// MarshalIndent rather than PrettyWrite: same bytes, plus the newline.
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	return append(out, '\n'), nil
}

// build assembles the whole log in memory; at most limit results (of
// MaxMessageChars each at most), so its size is bounded whatever the
// capture held.
func build(rep *checker.Report, opts Options, limit int) (*gosarif.Report, error) {
	doc, err := gosarif.New(gosarif.Version210)
	if err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	doc.Schema = SchemaURI // go-sarif defaults to the OASIS URL.

	version := opts.Version
	if version == "" {
		version = DevVersion
	}
	run := gosarif.NewRunWithInformationURI(ToolName, InformationURI)
	run.Tool.Driver.WithVersion(version)
	decl := declared{}
	if rep != nil {
		decl = declared{wire: rep.Wire, security: rep.Security}
	}
	addRules(run, decl)
	doc.AddRun(run)

	if rep == nil {
		return doc, nil
	}
	// Check every finding, not only those that survive the cap, so that an
	// engine bug fails the same way whatever the count.
	for i := range rep.Findings {
		if err := checkFinding(&rep.Findings[i], decl); err != nil {
			return nil, err
		}
	}
	loc := newLocator(opts)
	runIDs := map[string][]string{}
	for _, s := range rep.Sessions {
		runIDs[s.ID] = s.RunIDs
	}
	kept, found := capFindings(rep, limit)
	for i := range kept {
		res, err := newResult(&kept[i], loc)
		if err != nil {
			return nil, err
		}
		res.PropertyBag = *gosarif.NewPropertyBag()
		if p := kept[i].Party; p != "" {
			res.Add(PartyProperty, string(p)) // who is at fault (check --blame)
		}
		if ids := runIDs[kept[i].SessionID]; len(ids) > 0 {
			// The agent run the session belongs to (spec/interfaces.md, Runs).
			res.Add(RunIDsProperty, ids)
		}
		if kept[i].Known {
			// Accepted in check --known's file: a note that fails nothing.
			res.Add(KnownProperty, true)
		}
		addResultRules(res, &kept[i])
		run.AddResult(res)
	}
	if dropped := found - len(kept); dropped > 0 {
		res, err := truncationResult(rep.Findings, found, dropped, limit < MaxResults, loc)
		if err != nil {
			return nil, err
		}
		run.AddResult(res)
	}
	return doc, nil
}

// RunIDsProperty names the result property that lists the runs of the
// finding's session.
const RunIDsProperty = "mcpsnoop/runIds"

// PartyProperty names the result property that says who is at fault:
// server, client, transport or run.
const PartyProperty = "party"

// KnownProperty marks a result whose finding check --known accepted.
const KnownProperty = "mcpsnoop/known"

// checkFinding refuses what SARIF cannot express: a rule that is not
// declared (go-sarif would write ruleIndex 2^64-1) or an unknown level.
func checkFinding(f *checker.Finding, decl declared) error {
	id := f.Rule()
	if ruleIndex(id, decl) < 0 {
		return fmt.Errorf("sarif: session %s frame %d: unknown rule id %q", f.SessionID, f.Seq, id)
	}
	if !slices.Contains(levelOrder, string(f.Level)) {
		return fmt.Errorf("sarif: session %s frame %d: %s finding has invalid level %q", f.SessionID, f.Seq, id, f.Level)
	}
	return nil
}

// newResult turns one checked finding into a result. run.AddResult sets
// its ruleIndex from the registered rules.
func newResult(f *checker.Finding, loc *locator) (*gosarif.Result, error) {
	res := gosarif.NewRuleResult(f.Rule()).
		WithLevel(string(f.Level)).
		WithMessage(gosarif.NewTextMessage(capMessage(f.Message)))
	l, err := loc.location(f.Path, f.Line)
	if err != nil {
		return nil, err
	}
	if l != nil {
		res.WithLocations([]*gosarif.Location{l})
	}
	if f.Fingerprint != "" {
		res.WithPartialFingerPrints(map[string]interface{}{FingerprintKey: f.Fingerprint})
	}
	return res, nil
}

// truncationFingerprint is the fixed fingerprint of the truncation result:
// there is one per run at most, so nothing varies to hash but its name.
var truncationFingerprint = func() string {
	sum := sha256.Sum256([]byte("report-truncated"))
	return hex.EncodeToString(sum[:])[:16]
}()
