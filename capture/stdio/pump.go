package stdio

import (
	"io"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// pumpBuffer is how much one read may take: a pipe holds 64 KiB.
const pumpBuffer = 64 << 10

// pump copies src to dst chunk by chunk as it arrives, with no buffering
// of its own, showing each chunk to the splitter (when there is a log)
// before forwarding it and handing the lines it ends to the log after.
// It returns when src ends or fails.
//
// When dst fails, pump keeps reading src, so that the peer writing to it is
// never blocked by one that went away, and forwards nothing more. With
// gone set, dst is the client: pump then also stops logging (what it reads
// reaches nobody; a line the failed chunk left open is logged as far as it
// got, truncated) and reports the failure to gone, once.
func pump(src io.Reader, dst io.Writer, l *capture.LineSplitter, gone func(error)) {
	var buf []byte
	if l == nil {
		buf = make([]byte, pumpBuffer)
	}
	flusher, _ := dst.(interface{ Flush() error })
	dstOK := true
	for {
		if l != nil {
			buf = l.Buffer(pumpBuffer)
		}
		n, err := src.Read(buf)
		if n > 0 {
			chunk := buf[:n:n]
			if l != nil {
				l.Number(chunk)
			}
			var werr error
			if dstOK {
				if _, werr = dst.Write(chunk); werr != nil {
					dstOK = false
				} else if flusher != nil {
					_ = flusher.Flush()
				}
			}
			if l != nil {
				l.Fill()
			}
			if werr != nil && gone != nil {
				if l != nil {
					l.Cut()
					l = nil
					buf = make([]byte, pumpBuffer)
				}
				gone(werr)
			}
		}
		if err != nil {
			if l != nil {
				l.End()
			}
			return
		}
	}
}
