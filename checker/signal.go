package checker

import (
	"fmt"
	"strings"
)

// Signal names a class of finding that --fail-on can gate.
type Signal string

const (
	SignalError      Signal = "error"
	SignalInvalid    Signal = "invalid"
	SignalWarn       Signal = "warn"
	SignalMismatch   Signal = "mismatch"
	SignalPending    Signal = "pending"
	SignalLateResult Signal = "late-result"
	SignalDrift      Signal = "drift"
	SignalDeprecated Signal = "deprecated"
	SignalIncomplete Signal = "incomplete"
	SignalSchema     Signal = "schema"
	// SignalWire counts frames that break the JSON schema of their
	// session's protocol revision. Validation is opt in: it runs only when
	// wire is gated or Config.Wire asks for it.
	SignalWire Signal = "wire"
	// SignalSecurity counts what the security rules (S1...) found in what
	// servers told the model and in credentials either side sent. Opt in:
	// the rules run only when security is gated or Config.Security asks.
	SignalSecurity Signal = "security"
)

// AllSignals lists every signal in report order, the order failed signals
// are always printed in.
var AllSignals = []Signal{
	SignalError, SignalInvalid, SignalWarn, SignalMismatch, SignalPending,
	SignalLateResult, SignalDrift, SignalDeprecated, SignalIncomplete, SignalSchema,
	SignalWire, SignalSecurity,
}

// DefaultFailOn is the gate when --fail-on is not given.
var DefaultFailOn = []Signal{SignalError, SignalInvalid, SignalWarn}

// RuleID is the SARIF rule id of a signal.
func (s Signal) RuleID() string { return "mcpsnoop/" + string(s) }

// RuleAssertion is the rule id of failed assertions.
const RuleAssertion = "mcpsnoop/assertion"

// FailOnNone is the --fail-on value that gates on no signal: only the
// assertions can fail the check.
const FailOnNone = "none"

// ParseFailOn parses a --fail-on value: comma-separated signal names,
// spaces around each allowed, duplicates harmless, case-sensitive. An empty
// part is an error. The result is in AllSignals order; "none" alone is the
// empty gate (not nil, which means the default).
func ParseFailOn(value string) ([]Signal, error) {
	if strings.TrimSpace(value) == FailOnNone {
		return []Signal{}, nil
	}
	set := map[Signal]bool{}
	for _, part := range strings.Split(value, ",") {
		name := Signal(strings.TrimSpace(part))
		if !isSignal(name) {
			return nil, fmt.Errorf("--fail-on must be none, or contain error, invalid, warn, mismatch, pending, late-result, drift, deprecated, incomplete, schema, wire, or security, got %q", part)
		}
		set[name] = true
	}
	var out []Signal
	for _, s := range AllSignals {
		if set[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

func isSignal(s Signal) bool {
	for _, known := range AllSignals {
		if s == known {
			return true
		}
	}
	return false
}

// Gate is a set of selected signals.
type Gate map[Signal]bool

// NewGate builds a gate from a signal list.
func NewGate(signals []Signal) Gate {
	g := Gate{}
	for _, s := range signals {
		g[s] = true
	}
	return g
}

// Level returns the level a finding of signal s is reported at.
func (g Gate) Level(s Signal) Level {
	if g[s] {
		return LevelError
	}
	return LevelNote
}
