package httpcapture

import (
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// A response in a content-coding is forwarded as the server sent it and
// logged decoded. The decoders of the standard library (and brotli's) pull
// their input from a reader, while the proxy pushes the body through chunk
// by chunk, and each chunk must be decoded (so that an SSE event in it is
// numbered) before it is forwarded. So a decoder runs on a goroutine of its
// own, reading from an inflater, and write hands it one chunk and waits
// until it asks for the next: by then everything the chunk completes has
// gone to the sink. (gzip and deflate hand on everything a flushed block
// holds before asking for more input; brotli may keep a little back, so
// for a streamed brotli body an event can be numbered a chunk late.)

// decodableCoding returns the one content-coding of a response the log
// can decode ("" for identity), and whether there is such a coding.
func decodableCoding(contentEncoding []string) (coding string, ok bool) {
	var codings []string
	for _, v := range contentEncoding {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	switch len(codings) {
	case 0:
		return "", true
	case 1:
		switch codings[0] {
		case "gzip", "x-gzip", "deflate", "br":
			return codings[0], true
		}
	}
	return strings.Join(codings, ", "), false
}

// inflater decodes one compressed body for the log.
type inflater struct {
	sink func([]byte) // called on the decoder's goroutine, while write or close waits

	in      chan []byte
	want    chan struct{} // the decoder needs input; at most one outstanding
	done    chan struct{}
	waiting bool // a want was taken and not yet answered
	closed  bool

	// The decoder goroutine's side.
	cur []byte
	eof bool
}

func newInflater(coding string, sink func([]byte)) *inflater {
	d := &inflater{sink: sink, in: make(chan []byte), want: make(chan struct{}, 1), done: make(chan struct{})}
	go d.run(coding)
	return d
}

// write decodes chunk; everything it completes reaches the sink first.
func (d *inflater) write(chunk []byte) {
	if d.closed || !d.wait() {
		return
	}
	select {
	case d.in <- chunk:
		d.waiting = false
	case <-d.done:
		return
	}
	d.wait()
}

// wait blocks until the decoder asks for input, or has stopped.
func (d *inflater) wait() bool {
	if d.waiting {
		return true
	}
	select {
	case <-d.want:
		d.waiting = true
		return true
	case <-d.done:
		return false
	}
}

// close ends the input and waits for the decoder to hand on what is left.
func (d *inflater) close() {
	if d.closed {
		return
	}
	d.closed = true
	close(d.in)
	<-d.done
}

// run is the decoder goroutine.
func (d *inflater) run(coding string) {
	defer close(d.done)
	var (
		r   io.Reader
		err error
	)
	switch coding {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(d)
	case "deflate":
		// Servers send "deflate" both as zlib (what RFC 9110 says) and as a
		// bare deflate stream; the zlib header tells them apart.
		if hdr := d.peek(2); len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			r, err = zlib.NewReader(d)
		} else {
			r = flate.NewReader(d)
		}
	case "br":
		r = brotli.NewReader(d)
	default:
		return
	}
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			d.sink(buf[:n])
		}
		if err != nil {
			return // the end, or a body that does not decode: the log keeps what did
		}
	}
}

// next waits for the next chunk; false at the end of the input.
func (d *inflater) next() bool {
	for len(d.cur) == 0 {
		if d.eof {
			return false
		}
		d.want <- struct{}{}
		chunk, ok := <-d.in
		if !ok {
			d.eof = true
			return false
		}
		d.cur = chunk
	}
	return true
}

// peek returns up to n bytes of input without taking them.
func (d *inflater) peek(n int) []byte {
	for len(d.cur) < n {
		// Copied first: asking for more input hands the chunk back.
		have := append([]byte(nil), d.cur...)
		d.cur = nil
		if !d.next() {
			d.cur = have
			break
		}
		d.cur = append(have, d.cur...)
	}
	return d.cur[:min(n, len(d.cur))]
}

// Read and ReadByte are the decoder's input. Being an io.ByteReader keeps
// flate from reading ahead through a bufio.Reader of its own.
func (d *inflater) Read(p []byte) (int, error) {
	if !d.next() {
		return 0, io.EOF
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

func (d *inflater) ReadByte() (byte, error) {
	if !d.next() {
		return 0, io.EOF
	}
	c := d.cur[0]
	d.cur = d.cur[1:]
	return c, nil
}
