package checker

// W15 and W45: x-mcp-header annotations on advertised tools and the Mcp-Param-* headers of tools/call (check.md 3.3 B and E).

// paramHeaderState is what these rules remember about a session.
type paramHeaderState struct{}

func (s *session) xMcpHeaderRules(fc *frameCtx, c *call) {}

func (s *session) paramHeaderRules(fc *frameCtx) {}
