package sarif

import (
	"fmt"

	"github.com/mcpsnoop/mcpsnoop/checker"
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

// RuleReportTruncated is the rule of the one result that says the report
// was capped.
const RuleReportTruncated = "mcpsnoop/report-truncated"

// capFindings returns the findings to render and how many were found in
// all, for a run of at most limit results. Up to limit findings are
// rendered as they are. Past that, or when the engine itself kept fewer
// than it found, limit-1 are kept, most severe first (errors, then
// warnings, then notes, each in report order) so that the last slot holds
// the truncation result.
func capFindings(rep *checker.Report, limit int) (kept []checker.Finding, found int) {
	all := rep.Findings
	found = max(rep.FindingsTotal, len(all)+rep.FindingsTruncated)
	if found <= limit && found == len(all) {
		return all, found
	}
	limit = max(min(limit-1, len(all)), 0)
	kept = make([]checker.Finding, 0, limit)
	for _, level := range levelOrder {
		for i := range all {
			if len(kept) == limit {
				return kept, found
			}
			if string(all[i].Level) == level {
				kept = append(kept, all[i])
			}
		}
	}
	return kept, found
}

// levelOrder ranks SARIF levels, most severe first. Write has checked that
// every finding has one of them.
var levelOrder = []string{string(checker.LevelError), levelWarning, string(checker.LevelNote), levelNone}

// truncationMessage is check.md 8.5's text. found is the pre-cap total,
// dropped how many of them have no result; bySize says that the file's size
// (MaxFileBytes), not the count of results, set the cut.
func truncationMessage(found, dropped int, bySize bool) string {
	if bySize {
		return fmt.Sprintf("the capture holds %d findings, and with all of them this report would pass the %d MB a code-scanning upload accepts, so %d of them were left out of this report; the text and junit formats report all of them", found, MaxFileBytes/1000000, dropped)
	}
	return fmt.Sprintf("the capture holds %d findings, more than a code-scanning upload accepts in one run, so %d of them were left out of this report; the text and junit formats report all of them", found, dropped)
}

// truncationResult is the last result of a capped run: level warning, no
// region, located at the first finding's log when there is one to give.
func truncationResult(all []checker.Finding, found, dropped int, bySize bool, loc *locator) (*gosarif.Result, error) {
	res := gosarif.NewRuleResult(RuleReportTruncated).
		WithLevel(levelWarning).
		WithMessage(gosarif.NewTextMessage(truncationMessage(found, dropped, bySize))).
		WithPartialFingerPrints(map[string]interface{}{FingerprintKey: truncationFingerprint})
	for i := range all {
		l, err := loc.location(all[i].Path, 0)
		if err != nil {
			return nil, err
		}
		if l != nil {
			res.WithLocations([]*gosarif.Location{l})
			break
		}
	}
	return res, nil
}
