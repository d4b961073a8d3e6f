package checker

import (
	"fmt"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Party is who a finding says is at fault. Server authors run test clients
// that send malformed requests on purpose, and agent builders gate on their
// client alone, so every finding names the side that broke the rule and
// check --blame gates on the parties asked for.
type Party string

const (
	PartyServer    Party = "server"
	PartyClient    Party = "client"
	PartyTransport Party = "transport"
	// PartyRun is the check's own business: the assertions the user asked
	// for, and the inputs of the gate itself (a baseline that cannot be
	// read, a drift gate with nothing to compare). --blame never lifts it.
	PartyRun Party = "run"
)

// PartySender describes, in the rule catalogue only, a rule whose findings
// blame whichever side sent the frame; each finding names that side.
const PartySender Party = "sender"

// BlameParties are the parties --blame can name, in the order they are
// listed.
var BlameParties = []Party{PartyServer, PartyClient, PartyTransport}

// ParseBlame parses a --blame value: a comma list of server, client and
// transport, spaces around each allowed, duplicates harmless; "all" is
// every party. The result is in BlameParties order.
func ParseBlame(value string) ([]Party, error) {
	if strings.TrimSpace(value) == "all" {
		return append([]Party(nil), BlameParties...), nil
	}
	set := map[Party]bool{}
	for _, part := range strings.Split(value, ",") {
		p := Party(strings.TrimSpace(part))
		if p != PartyServer && p != PartyClient && p != PartyTransport {
			return nil, fmt.Errorf("--blame must be all, or contain server, client, or transport, got %q", part)
		}
		set[p] = true
	}
	var out []Party
	for _, p := range BlameParties {
		if set[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// blameSet is the parties whose findings a check gates on; nil is all.
type blameSet map[Party]bool

func newBlameSet(parties []Party) blameSet {
	if parties == nil {
		return nil
	}
	b := blameSet{}
	for _, p := range parties {
		b[p] = true
	}
	return b
}

// blamed reports whether a finding of party p can fail the gate. The run's
// own findings always can.
func (b blameSet) blamed(p Party) bool {
	return b == nil || p == PartyRun || b[p]
}

// sender is the party that sent a frame travelling in dir.
func sender(dir string) Party {
	if dir == capture.ClientToServer {
		return PartyClient
	}
	return PartyServer
}

// callee is the party that owes the answer to a call: the server for a
// client's request, the client for a server's.
func (c *call) callee() Party {
	return sender(opposite(c.key.dir))
}

// caller is the party that sent the call's request.
func (c *call) caller() Party {
	return sender(c.key.dir)
}

// SignalParty is who a signal's findings blame unless the rule decides
// otherwise per finding: "sender" for a signal judged on frames either side
// sends (the frame's sender is at fault). Docs and --explain list it.
var SignalParty = map[Signal]string{
	SignalError:      "server (the side that answered with the error; the caller when its request broke a rule or the schema and the answer is -32600/-32602; transport for a 502, 503 or 504 from a gateway)",
	SignalInvalid:    "sender",
	SignalWarn:       "sender (per rule, see --explain all)",
	SignalMismatch:   "client (a routing header that disagrees with the body); server for M1 when the recorded headers agree",
	SignalPending:    "the side that owes the answer (server for a client's request)",
	SignalLateResult: "sender (the side that answered after the cancellation)",
	SignalDrift:      "server; run for a baseline that cannot be used or a drift gate with nothing to compare",
	SignalDeprecated: "sender",
	SignalIncomplete: "transport",
	SignalSchema:     "server",
	SignalWire:       "sender",
	SignalSecurity:   "server (what a server told the model); sender for a credential (the side that sent it)",
}
