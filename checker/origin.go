package checker

// W50: DNS rebinding. A web page under a rebound name reaches a server on
// the loopback through its browser: the request's Host and Origin both
// name the page's site, not the loopback. Servers MUST validate Origin and
// refuse such a request (403); one that answers it otherwise is open to
// any page. Judged on what mcpsnoop's HTTP proxy records: its target (the
// meta frame) and each request's Host and Origin.

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
)

// onTarget reads the proxy's meta frame: is the server it forwards to on
// the loopback?
func (s *session) onTarget(f *capture.Frame) {
	var meta struct {
		Target *struct {
			Host string `json:"host"`
		} `json:"target"`
	}
	if json.Unmarshal(f.Raw, &meta) == nil && meta.Target != nil {
		s.http.loopbackTarget = hostcheck.Loopback(strings.Trim(meta.Target.Host, "[]"))
	}
}

// noteForeignOrigin marks a client's request whose Origin names a site
// other than the loopback, and whether its Host does too.
func (s *session) noteForeignOrigin(fc *frameCtx, c *call) {
	f := fc.f
	if fc.msg.kind != kindRequest || f.Direction != capture.ClientToServer || f.Host == "" || f.Origin == "" {
		return
	}
	if !loopbackOrigin(f.Origin) {
		c.foreignOrigin = true
		c.foreignHost = !loopbackHost(f.Host)
	}
}

// refusedForeignOrigin reports a 403 a server on the loopback answered a
// request from another site's page with: what the spec requires of it,
// no error of anyone's.
func (s *session) refusedForeignOrigin(fc *frameCtx) bool {
	c := fc.call
	return fc.f.Status == http.StatusForbidden && c != nil && c.foreignOrigin && s.http.loopbackTarget
}

// originRule applies W50 to the answer of a request from a foreign page
// to a server on the loopback: anything but 403.
func (s *session) originRule(fc *frameCtx, c *call) {
	if c == nil || !c.foreignOrigin || !c.foreignHost || !s.http.loopbackTarget || fc.f.Status == http.StatusForbidden {
		return
	}
	what := "answered"
	if fc.f.Status != 0 {
		what = "answered with HTTP " + strconv.Itoa(fc.f.Status)
	}
	fc.warn("W50", "a server on the loopback <answered> a request whose Host and Origin name another site, which it must refuse (403) against DNS rebinding",
		"a server on the loopback "+what+" a request whose Host and Origin name another site, which it must refuse (403) against DNS rebinding")
}

func loopbackHost(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return hostcheck.Loopback(strings.Trim(h, "[]"))
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && hostcheck.Loopback(u.Hostname())
}
