// Package hostcheck is the DNS-rebinding guard of mcpsnoop's HTTP
// endpoints on the local machine (the `mcpsnoop http` proxy, and any later
// endpoint that serves MCP over HTTP): one listening on a loopback address
// answers only requests whose Host header names the loopback (localhost,
// 127.0.0.0/8 or [::1], any port) and whose Origin, when there is one,
// does too or is one the user allowed.
//
// A web page cannot reach a local MCP server through such an endpoint by
// having its own name resolve to 127.0.0.1 (DNS rebinding): the browser
// still sends the page's name as Host and its origin as Origin. A request
// without an Origin (a command-line client, an SDK) passes, as the Host
// check alone keeps browsers out. An endpoint on any other address has
// chosen to be reached from elsewhere and is not checked.
package hostcheck

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Policy decides which requests an endpoint answers. The zero Policy (and
// a nil one) checks nothing.
type Policy struct {
	active bool
	// origins are the allowed origins, normalized (normalOrigin); hosts
	// their host names, which are accepted in a Host header too (any port).
	origins map[string]bool
	hosts   map[string]bool
}

// New returns the policy of an endpoint listening on listen (host:port,
// as net.Listener.Addr gives it): the loopback check, widened by
// allowOrigins, when listen is a loopback address (localhost or an IP
// that is one); no check otherwise. An allowed origin is
// scheme://host[:port] as a browser sends it (or "null", the origin of a
// file or a sandboxed frame); anything else is an error naming it.
func New(listen string, allowOrigins []string) (*Policy, error) {
	p := &Policy{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, o := range allowOrigins {
		n, host, err := parseAllowed(o)
		if err != nil {
			return nil, err
		}
		p.origins[n] = true
		if host != "" {
			p.hosts[host] = true
		}
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", listen, err)
	}
	p.active = Loopback(host)
	return p, nil
}

// Active reports whether the policy checks anything.
func (p *Policy) Active() bool { return p != nil && p.active }

// Loopback reports whether name (a host without its port or brackets)
// names the loopback: localhost, in any case, or an IP address in
// 127.0.0.0/8 or ::1. Other spellings of an address (2130706433,
// 0x7f.1, localhost.) are not loopback names.
func Loopback(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// Refusal is why a request is refused: the header (Host or Origin) and
// its value, as the client sent it.
type Refusal struct {
	Header, Value string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("the %s header %q names neither localhost, 127.0.0.0/8 nor [::1], nor an allowed origin", r.Header, r.Value)
}

// Check says whether a request with these Host and Origin headers may be
// served (nil) or is refused (a *Refusal). An empty origin is no Origin
// header.
func (p *Policy) Check(host, origin string) *Refusal {
	if !p.Active() {
		return nil
	}
	if name, ok := hostName(host); !ok || !(Loopback(name) || p.hosts[strings.ToLower(name)]) {
		return &Refusal{Header: "Host", Value: host}
	}
	if origin == "" || p.originAllowed(origin) {
		return nil
	}
	return &Refusal{Header: "Origin", Value: origin}
}

// CheckRequest is Check of a request's Host and Origin headers.
func (p *Policy) CheckRequest(r *http.Request) *Refusal {
	return p.Check(r.Host, r.Header.Get("Origin"))
}

// Refuse answers a refused request: 403 Forbidden, with a line saying
// why in plain text (what the client sent is quoted, so it stays text).
func Refuse(w http.ResponseWriter, r *Refusal, who string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "%s: forbidden: %s (a guard against DNS rebinding on a loopback address; --allow-origin widens it)\n", who, r.Error())
}

// originAllowed reports whether an Origin header passes: its host is a
// loopback name, or it is one of the allowed origins.
func (p *Policy) originAllowed(origin string) bool {
	if n, ok := normalOrigin(origin); ok && p.origins[n] {
		return true
	}
	if origin == "null" {
		return p.origins["null"]
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil {
		return false
	}
	name, ok := hostName(u.Host)
	return ok && Loopback(name)
}

// parseAllowed checks an --allow-origin value and returns it normalized,
// with its host name ("" for null).
func parseAllowed(o string) (origin, host string, err error) {
	if o == "null" {
		return o, "", nil
	}
	n, ok := normalOrigin(o)
	if !ok {
		return "", "", fmt.Errorf("--allow-origin %q: want an origin as a browser sends it, scheme://host[:port] (no path, query or user), or null", o)
	}
	u, _ := url.Parse(n)
	return n, strings.ToLower(u.Hostname()), nil
}

// normalOrigin is an origin in one spelling: scheme and host in lower
// case, the scheme's default port left out. ok is false for what is no
// origin (a path, a query, a user, no host).
func normalOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
		return "", false
	}
	name, ok := hostName(u.Host)
	if !ok {
		return "", false
	}
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	host := strings.ToLower(name)
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// hostName is the host of a Host header or URL authority, without its
// port or brackets. An IPv6 address must be bracketed and nothing else
// may be; the port, when given, must be digits.
func hostName(hostport string) (string, bool) {
	name, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", false
		}
		name, port = hostport[1:end], hostport[end+1:]
		if !strings.Contains(name, ":") || net.ParseIP(name) == nil {
			return "", false
		}
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", false
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.IndexByte(hostport, ':'); i >= 0 {
		name, port = hostport[:i], hostport[i+1:]
	}
	if name == "" || strings.ContainsAny(port, ":[]") {
		return "", false
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return name, true
}
