package serve

// Peer is one JSON-RPC conversation with a server: a stdio process, or a
// recording played back. The handler hands it the client's messages and
// gets the server's through the Deliver callback it was started with.
type Peer interface {
	// Send writes one message of a client's (compact JSON, without a
	// newline) to the server.
	Send(msg []byte) error
	// SendOwn writes a message the handler makes itself, which no client
	// sent: the cancellation of a request whose client went away, the
	// answer to a server request that cannot be carried. The peer records
	// it as the transport's, with why.
	SendOwn(msg []byte, why string) error
	// Note records a line about the transport beside the conversation
	// (in the server's log), for a person reading it later.
	Note(text string)
	// Close ends the conversation: the server is asked to exit (and made
	// to); Ended is called once it has. It does not wait.
	Close()
	// Name names the conversation in the handler's notices (its log).
	Name() string
}

// Backend starts peers.
type Backend interface {
	Start(p StartParams) (Peer, error)
}

// StartParams is what a peer is started with.
type StartParams struct {
	// Modern: the shared peer of the requests that declare 2026-07-28,
	// else the peer of one session.
	Modern bool
	// Deliver takes each message the server sends, in order, one call at
	// a time. It never waits on a client.
	Deliver func(msg []byte)
	// Ended is called once, when the server is gone; why says how ("exit
	// status 1"), for the answers to what it left unanswered.
	Ended func(why string)
}
