package capturecli

import (
	"fmt"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/shellquote"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/otlpsink"
)

// LoadProjectConfig reads the working directory's .mcpsnoop.toml for a
// capture (the shim, mcpsnoop http): the config to apply, and, when the
// file is not trusted and sets something only a trusted file may, the
// notice that says what was ignored and how to trust it ("" otherwise),
// for the capture to print once.
func LoadProjectConfig(who string) (*capture.Config, string, error) {
	p, err := capture.LoadProjectConfig(".")
	if err != nil || p == nil {
		return nil, "", err
	}
	cfg, ignored := p.Effective()
	if len(ignored) == 0 {
		return cfg, "", nil
	}
	return cfg, untrustedNotice(who, p, ignored), nil
}

// untrustedNotice says which settings of an untrusted config were ignored
// and the command that trusts it. Everything from the file is escaped: it
// came with the repository.
func untrustedNotice(who string, p *capture.ProjectConfig, ignored []capture.Ignored) string {
	var what []string
	for _, ig := range ignored {
		switch {
		case ig.Key == "otlp-endpoint":
			what = append(what, "otlp-endpoint "+ShowEndpoint(ig.Value))
		case ig.Outside == "":
			what = append(what, ig.Key)
		default:
			what = append(what, fmt.Sprintf("%s %q (%s is outside the project)", ig.Key, ig.Value, ig.Outside))
		}
	}
	state := "is not trusted"
	if p.Changed {
		state = "has changed since it was trusted"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s, so it may not send data off this machine or write outside %s; ignored: %s\n",
		who, p.Path, state, p.Dir, strings.Join(what, ", "))
	if p.TrustErr != nil {
		fmt.Fprintf(&b, "%s: (the record of trusted configs could not be used: %v)\n", who, p.TrustErr)
	}
	fmt.Fprintf(&b, "%s: if you trust it, review it and run: mcpsnoop trust %s\n", who, shellquote.Word(p.Dir))
	return termsafe.Clean(b.String(), true)
}

// ShowEndpoint is a collector URL from a config file as messages show it
// (otlpsink.ShowURL: no user info or query, which may carry a token), or
// "(not a URL)".
func ShowEndpoint(value string) string {
	u, err := otlpsink.ParseEndpoint(value)
	if err != nil {
		return "(not a URL)"
	}
	return otlpsink.ShowURL(u)
}
