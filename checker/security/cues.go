package security

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Where a text was found decides which cues count: a definition (a
// description, an annotation, the server's instructions) speaks to the
// model about tools; a result carries content the tool fetched, which
// legitimately holds READMEs, install commands and file listings.
type Where int

const (
	InDefinition Where = iota
	InResult
)

// A Cue is one match of a rule in a text.
type Cue struct {
	Rule  string // S1...
	Why   string // what the match is, in a few words
	Match string // the matched text, raw (quote it before showing it)
	Dest  string // S3: the destination named
}

// patterns are the rules' regular expressions, compiled on first use:
// every start of mcpsnoop would pay for them at init (600 KB), and only
// check --security runs them.
type patterns struct {
	hiddenInstruction                        []*regexp.Regexp
	privateFile, privateFileResult, readVerb *regexp.Regexp
	sendTo, sentData, bccTo                  *regexp.Regexp
	shadowing, injection                     []*regexp.Regexp
	shellPipe, shellPipeAsk                  *regexp.Regexp
}

// The S4 cues name a tool the way a tool is named (snake_case,
// kebab-case in quotes, camelCase).
const toolName = "((?-i:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+))"

// shellPipeLine is how far before a command a result's request to run it
// may be (S6).
const shellPipeLine = 200

var compiled = sync.OnceValue(func() *patterns {
	p := &patterns{}
	// The S1 cues: instruction blocks in tags, and phrases that keep the user
	// out of what the model is told to do.
	p.hiddenInstruction = []*regexp.Regexp{
		regexp.MustCompile(`(?i)<\s*/?\s*(?:important|system|instructions?|secret|hidden)\s*>`),
		regexp.MustCompile(`(?i)\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|mention|reveal|notify|alert|disclose)(?:\s+[\w']+){0,4}?\s+(?:to\s+)?the\s+user\b`),
		regexp.MustCompile(`(?i)\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+user\b`),
		regexp.MustCompile(`(?i)\bthe\s+user\s+(?:must|should)\s+not\s+(?:know|see|notice|be\s+told)\b`),
		regexp.MustCompile(`(?i)\bbefore\s+(?:using|calling|invoking)\s+this\s+tool,?\s+(?:you\s+must\s+|first\s+|always\s+)?(?:read|open|cat|load|send|pass|include|provide)\b`),
	}

	// The S2 cues: a credential or private file, and a verb asking for it
	// shortly before. privateFileResult are those a result must name to count
	// (.env and friends appear in ordinary READMEs and listings).
	p.privateFile = regexp.MustCompile(`(?i)(?:~|\$HOME|%USERPROFILE%)?[/\\]?\.ssh\b(?:[/\\][\w.-]+)?|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[\s"'` + "`" + `(/\\])\.env\b(?:\.(?:local|production|prod|development))?|\.aws[/\\]credentials\b|\.netrc\b|\.npmrc\b|\.pgpass\b|\.git-credentials\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b|/etc/shadow\b|\.kube[/\\]config\b|\.docker[/\\]config\.json\b`)
	p.privateFileResult = regexp.MustCompile(`(?i)\.ssh\b(?:[/\\][\w.-]+)?|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[/\\]credentials\b|\.git-credentials\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b|/etc/shadow\b`)
	p.readVerb = regexp.MustCompile(`(?i)\b(?:read|open|cat|include|send|pass|provide|upload|attach|fetch|load|access|print|output|return|leak|share|dump)\b`)

	// The S3 cue: a verb of sending, what is sent, and where to.
	p.sendTo = regexp.MustCompile(`(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|submit)\b([^.\n]{0,120}?)\b(?:to|at)\s+<?(https?://[^\s"'<>)\]` + "`" + `]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)`)
	p.sentData = regexp.MustCompile(`(?i)\b(?:data|contents?|conversations?|history|chat|messages?|emails?|credentials?|keys?|tokens?|secrets?|passwords?|files?|everything|information|context|notes)\b`)
	p.bccTo = regexp.MustCompile(`(?i)\b(?:add|include|put|set)\s+(?:a\s+)?b?cc\b[^.\n]{0,20}?\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)`)

	// The S4 cues: a tool (toolName) in a phrase about when it is used.
	p.shadowing = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:when(?:ever)?|before|after|if)\s+(?:the\s+)?[` + "`" + `'"]?` + toolName + `[` + "`" + `'"]?\s+(?:tool\s+)?(?:is|gets|was)\s+(?:used|called|invoked|run|executed)\b`),
		regexp.MustCompile(`(?i)\b(?:when(?:ever)?|before|after)\s+(?:you\s+)?(?:use|call|invoke|using|calling|invoking)\s+(?:the\s+)?[` + "`" + `'"]?` + toolName + `\b`),
		regexp.MustCompile(`(?i)\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?[` + "`" + `'"]?` + toolName + `\b`),
	}

	// The S6 cues: overriding instructions, role switches, and commands piped
	// into a shell.
	p.injection = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules|directions|directives|messages)\b`),
		regexp.MustCompile(`(?i)<\|im_start\|>\s*(?:system|assistant)|\[/?INST\]|<<SYS>>`),
		regexp.MustCompile(`(?im)^\s*(?:system|assistant)\s*:\s*(?:you\s+(?:are|must|will|should)\b|ignore\b|from\s+now\s+on\b|new\s+instructions\b)`),
		regexp.MustCompile(`(?i)\byou\s+are\s+now\s+(?:in\s+developer\s+mode|DAN|jailbroken|unrestricted)\b`),
		regexp.MustCompile(`(?i)\bnew\s+(?:system\s+)?instructions\s*:`),
	}
	p.shellPipe = regexp.MustCompile(`(?i)\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\bbase64\s+(?:-d|--decode)\b[^\n|]{0,80}\|\s*(?:sudo\s+)?(?:ba)?sh\b|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand)?\s+[A-Za-z0-9+/=]{20,}`)
	p.shellPipeAsk = regexp.MustCompile(`(?i)\b(?:you\s+must|you\s+should|please|now|immediately)\s+(?:run|execute)\b`)
	return p
})

// Scan returns the cues of S1-S6 in text, at most one per rule (the first).
// own are the names the server itself offers (its tools, and their input
// properties): naming them is no shadowing.
func Scan(text string, where Where, own map[string]bool) []Cue {
	if len(text) < 4 {
		return nil
	}
	// Each rule's expressions run only on windows around where its
	// literals occur: a long tool result costs a few substring searches,
	// not a dozen case-insensitive regular expressions over all of it.
	lower := lowerASCII(text)
	var out []Cue
	if c, ok := within(text, lower, s1Literals, 160, 160, func(w string) (Cue, bool) {
		if m := firstOf(compiled().hiddenInstruction, w); m != "" {
			return Cue{Rule: "S1", Why: "hidden instruction", Match: m}, true
		}
		return Cue{}, false
	}); ok {
		out = append(out, c)
	}
	if c, ok := within(text, lower, s2Literals, 120, 80, func(w string) (Cue, bool) { return privateFileCue(w, where) }); ok {
		out = append(out, c)
	}
	if c, ok := within(text, lower, s3Literals, 300, 300, exfiltrationCue); ok {
		out = append(out, c)
	}
	if c, ok := within(text, lower, s4Literals, 16, 160, func(w string) (Cue, bool) { return shadowingCue(w, own) }); ok {
		out = append(out, c)
	}
	if c, ok := HiddenText(text, where); ok {
		out = append(out, c)
	}
	if c, ok := within(text, lower, s6Literals, 320, 320, func(w string) (Cue, bool) { return injectionCue(w, where) }); ok {
		out = append(out, c)
	}
	return out
}

// The literals one of which every match of a rule holds, lower-cased.
var (
	s1Literals = []string{"important", "system", "instruction", "secret", "hidden", "the user", "this tool"}
	s2Literals = []string{"ssh", "id_", ".env", ".aws", ".netrc", ".npmrc", ".pgpass", "credentials", "mcp.json", "claude_desktop", "shadow", ".kube", ".docker"}
	s3Literals = []string{"://", "@"}
	s4Literals = []string{"when", "before", "after", "if ", "instead"}
	s6Literals = []string{"ignore", "disregard", "forget", "override", "im_start", "inst]", "<<sys>>", "system", "assistant", "you are now", "instructions", "curl", "wget", "base64", "powershell"}
)

// maxWindows bounds the windows one rule looks at in one text.
const maxWindows = 64

// within calls fn on the windows of text (before bytes before and after
// bytes after each occurrence of a literal in lower, merged where they
// overlap, widened to the edges of the words they cut) in order, and
// returns the first cue it finds.
func within(text, lower string, literals []string, before, after int, fn func(w string) (Cue, bool)) (Cue, bool) {
	var hits []int
	for _, l := range literals {
		for from := 0; len(hits) < maxWindows*4; {
			k := strings.Index(lower[from:], l)
			if k < 0 {
				break
			}
			hits = append(hits, from+k)
			from += k + len(l)
		}
	}
	if len(hits) == 0 {
		return Cue{}, false
	}
	sort.Ints(hits)
	start, end := -1, -1
	windows := 0
	flush := func() (Cue, bool) {
		windows++
		return fn(text[wordStart(text, start):wordEnd(text, end)])
	}
	for _, h := range hits {
		ws, we := max(0, h-before), min(len(text), h+after)
		if start >= 0 && ws <= end {
			end = max(end, we)
			continue
		}
		if start >= 0 {
			if c, ok := flush(); ok || windows >= maxWindows {
				return c, ok
			}
		}
		start, end = ws, we
	}
	return flush()
}

// wordStart moves i back to the start of the word it is in.
func wordStart(s string, i int) int {
	for n := 0; i > 0 && n < 64 && !boundary(s[i-1]); n++ {
		i--
	}
	return i
}

// wordEnd moves i forward to the end of the word it is in.
func wordEnd(s string, i int) int {
	for n := 0; i < len(s) && n < 64 && !boundary(s[i]); n++ {
		i++
	}
	return i
}

func boundary(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// lowerASCII lower-cases ASCII letters only, so that byte offsets in the
// result are those of s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func firstOf(res []*regexp.Regexp, text string) string {
	best, at := "", -1
	for _, re := range res {
		if loc := re.FindStringIndex(text); loc != nil && (at < 0 || loc[0] < at) {
			best, at = text[loc[0]:loc[1]], loc[0]
		}
	}
	return best
}

// privateFileCue finds a private file named shortly after a verb asking
// for it, on the same line.
func privateFileCue(text string, where Where) (Cue, bool) {
	re := compiled().privateFile
	if where == InResult {
		re = compiled().privateFileResult
	}
	for _, loc := range re.FindAllStringIndex(text, 8) {
		from := max(0, loc[0]-60)
		if nl := strings.LastIndexByte(text[from:loc[0]], '\n'); nl >= 0 {
			from += nl + 1
		}
		before := text[from:loc[0]]
		v := compiled().readVerb.FindAllStringIndex(before, -1)
		if len(v) == 0 {
			continue
		}
		start := from + v[len(v)-1][0]
		return Cue{Rule: "S2", Why: "asks to read a private file", Match: strings.TrimSpace(text[start:loc[1]])}, true
	}
	return Cue{}, false
}

// exfiltrationCue finds a request to send data to a URL or an address.
func exfiltrationCue(text string) (Cue, bool) {
	for _, m := range compiled().sendTo.FindAllStringSubmatchIndex(text, 8) {
		if !compiled().sentData.MatchString(text[m[2]:m[3]]) {
			continue
		}
		dest := strings.TrimRight(text[m[4]:m[5]], ".,;:")
		return Cue{Rule: "S3", Why: "exfiltration destination", Match: text[m[0]:m[5]], Dest: dest}, true
	}
	if m := compiled().bccTo.FindStringSubmatchIndex(text); m != nil {
		return Cue{Rule: "S3", Why: "exfiltration destination", Match: text[m[0]:m[1]], Dest: text[m[2]:m[3]]}, true
	}
	return Cue{}, false
}

// shadowingCue finds a phrase about when a tool the server does not offer
// is used.
func shadowingCue(text string, own map[string]bool) (Cue, bool) {
	for _, re := range compiled().shadowing {
		for _, m := range re.FindAllStringSubmatchIndex(text, 8) {
			name := text[m[2]:m[3]]
			if own[name] {
				continue
			}
			return Cue{Rule: "S4", Why: "refers to a tool it does not offer", Match: text[m[0]:m[1]]}, true
		}
	}
	return Cue{}, false
}

// injectionCue finds a prompt injection phrase; in a result a command
// piped into a shell counts only when the text asks to run it.
func injectionCue(text string, where Where) (Cue, bool) {
	if m := firstOf(compiled().injection, text); m != "" {
		return Cue{Rule: "S6", Why: "prompt injection", Match: m}, true
	}
	for _, loc := range compiled().shellPipe.FindAllStringIndex(text, 8) {
		if where == InResult {
			from := max(0, loc[0]-shellPipeLine)
			if !compiled().shellPipeAsk.MatchString(text[from:loc[0]]) {
				continue
			}
		}
		return Cue{Rule: "S6", Why: "command piped into a shell", Match: text[loc[0]:loc[1]]}, true
	}
	return Cue{}, false
}
