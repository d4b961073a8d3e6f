package stdio

import (
	"io"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// pumpBuffer is how much one read may take: a pipe holds 64 KiB.
const pumpBuffer = 64 << 10

// pump copies src to dst chunk by chunk as it arrives, with no buffering
// of its own, showing each chunk to the splitter (when there is a log)
// before forwarding it. When dst fails, pump keeps reading and observing, so
// the peer writing to src is never blocked by one that went away. It returns
// when src ends or fails.
func pump(src io.Reader, dst io.Writer, l *capture.LineSplitter) {
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
			if dstOK {
				if _, werr := dst.Write(chunk); werr != nil {
					dstOK = false
				} else if flusher != nil {
					_ = flusher.Flush()
				}
			}
			if l != nil {
				l.Fill()
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
