package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The vocabulary of payload text, as in gen.py.
var (
	words  = strings.Fields("the a an of to in for on with by from at as is are was be this that it not or and request response server client session token cache index buffer stream handler config value result error retry timeout deadline context user account order invoice payment customer product inventory warehouse shipment report metric latency throughput queue worker job task schedule build deploy release branch commit merge review test coverage module package function method struct interface field parameter argument return update delete create insert select where join group limit offset page cursor filter sort available pending failed completed running stopped healthy degraded primary replica region cluster node container image volume network policy secret certificate")
	idents = strings.Fields("ctx req resp err buf cfg opts client srv cache idx n i j k key val item items result results row rows conn tx user users order orders path name data payload handler logger metrics store repo session token deadline limit offset cursor")
	types  = strings.Fields("string int int64 bool error []byte Context Request Response Config Store Options")
	funcs  = strings.Fields("Get Set Load Save Open Close Read Write Parse Render Handle Serve Fetch Query Insert Update Delete List Find Validate Encode Decode Marshal Unmarshal Start Stop Run Wait")
	nouns  = strings.Fields("User Order Invoice Session Token Cache Index Buffer Stream Handler Config Request Response Worker Job Task Build Release Branch Commit Metric Report Shipment Payment")
	dirs   = strings.Fields("src lib internal cmd pkg api web app components hooks utils services models handlers middleware config scripts tests docs migrations assets public styles server client")
	exts   = strings.Fields(".go .ts .tsx .py .rs .js .md .json .yaml .sql .css .toml")
	levels = append(append(append(repeat("INFO", 14), repeat("DEBUG", 5)...), repeat("WARN", 2)...), "ERROR")

	authors = []string{"Alice Martin", "Bo Chen", "Carla Díaz", "Dmitri Volkov", "Emeka Obi", "Fatima Zahra",
		"Grace Kim", "Hiro Tanaka", "Ingrid Berg", "José Álvarez"}
	cities = []string{"Berlin", "São Paulo", "Tokyo", "Lagos", "Montréal", "Zürich", "Seattle", "Mumbai",
		"Reykjavík", "Cape Town", "Kraków", "Melbourne"}
	repos  = []string{"acme/web", "acme/api", "acme/infra", "acme/mobile", "acme/billing", "acme/docs"}
	tables = []string{"users", "orders", "order_items", "invoices", "payments", "products", "inventory",
		"shipments", "sessions", "audit_log", "events", "accounts"}
	cols = []string{"id", "created_at", "updated_at", "status", "email", "name", "amount_cents", "currency",
		"customer_id", "order_id", "sku", "quantity", "region", "note", "deleted_at"}
)

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// pool is one style's lines, with prefix sums of their lengths (in code
// points, each plus its newline) for slicing by size.
type pool struct {
	lines []string
	pref  []int
}

// text is gen.py's Text: pools of realistic lines per style, and the
// words and paths of arguments, all drawn from its own generator.
type text struct {
	rng   *pyRandom
	pools map[string]*pool
}

func newText(rng *pyRandom) *text {
	t := &text{rng: rng, pools: map[string]*pool{}}
	for _, p := range []struct {
		style string
		make  func() string
		n     int
	}{
		{"code", t.codeLine, 9000},
		{"log", t.logLine, 5000},
		{"prose", t.proseLine, 3000},
		{"grep", t.grepLine, 5000},
		{"gitlog", t.gitlogLine, 5000},
		{"ls", t.lsLine, 7000},
		{"diff", t.diffLine, 8000},
	} {
		pl := &pool{lines: make([]string, p.n), pref: make([]int, 1, p.n+1)}
		for i := range pl.lines {
			pl.lines[i] = p.make()
		}
		for _, ln := range pl.lines {
			pl.pref = append(pl.pref, pl.pref[len(pl.pref)-1]+pyLen(ln)+1)
		}
		t.pools[p.style] = pl
	}
	return t
}

func (t *text) words(a, b int) string {
	n := t.rng.randint(a, b)
	w := make([]string, n)
	for i := range w {
		w[i] = choice(t.rng, words)
	}
	return strings.Join(w, " ")
}

func (t *text) path() string {
	r := t.rng
	depth := r.randint(1, 4)
	parts := make([]string, depth)
	for i := range parts {
		parts[i] = choice(r, dirs)
	}
	p := strings.Join(parts, "/") + "/" + choice(r, idents)
	return p + choice(r, exts)
}

func (t *text) codeLine() string {
	r := t.rng
	ind := strings.Repeat("\t", choice(r, []int{0, 1, 1, 1, 2, 2, 3}))
	k := r.random()
	switch {
	case k < 0.12:
		return ""
	case k < 0.25:
		return ind + "// " + t.words(3, 12)
	case k < 0.35:
		a, b, c, d, e, f := choice(r, nouns), choice(r, funcs), choice(r, nouns), choice(r, idents), choice(r, types), choice(r, types)
		return ind + fmt.Sprintf("func (s *%s) %s%s(ctx context.Context, %s %s) (%s, error) {", a, b, c, d, e, f)
	case k < 0.50:
		return ind + fmt.Sprintf("if err != nil {\n%s\treturn nil, fmt.Errorf(\"%s: %%w\", err)\n%s}", ind, t.words(2, 5), ind)
	case k < 0.65:
		a, b, c, d, e := choice(r, idents), choice(r, idents), choice(r, funcs), choice(r, idents), choice(r, words)
		return ind + fmt.Sprintf("%s := %s.%s(%s, \"%s\")", a, b, c, d, e)
	case k < 0.75:
		a, b, c := choice(r, idents), choice(r, idents), choice(r, nouns)+"s"
		return ind + fmt.Sprintf("for _, %s := range %s.%s {", a, b, c)
	case k < 0.85:
		return ind + fmt.Sprintf("return %s, nil", choice(r, idents))
	}
	return ind + "}"
}

func (t *text) logLine() string {
	r := t.rng
	h, m, s, ms := r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999)
	lvl, who, what := choice(r, levels), choice(r, idents), t.words(3, 9)
	k1, v1, k2, v2 := choice(r, idents), r.randint(0, 99999), choice(r, idents), choice(r, words)
	return fmt.Sprintf("2026-07-28T%02d:%02d:%02d.%03dZ %-5s [%s] %s %s=%d %s=\"%s\"", h, m, s, ms, lvl, who, what, k1, v1, k2, v2)
}

func (t *text) proseLine() string {
	r := t.rng
	k := r.random()
	switch {
	case k < 0.1:
		return "## " + pyTitle(t.words(2, 6))
	case k < 0.2:
		return ""
	case k < 0.3:
		return "- " + t.words(4, 14)
	}
	s := t.words(12, 40)
	if r.random() < 0.05 {
		d := choice(r, dirs)
		s += fmt.Sprintf(" (see https://docs.example.com/%s/%s)", d, choice(r, idents))
	}
	if r.random() < 0.03 {
		s += fmt.Sprintf(" — %s ✓", choice(r, cities))
	}
	first, size := utf8.DecodeRuneInString(s)
	return pyUpper(string(first)) + s[size:] + "."
}

func (t *text) grepLine() string {
	r := t.rng
	p := t.path()
	n := r.randint(1, 2400)
	return fmt.Sprintf("%s:%d:%s", p, n, strings.ReplaceAll(t.codeLine(), "\n", " "))
}

func (t *text) gitlogLine() string {
	r := t.rng
	sha := r.getrandbitsHex(160, 40)
	author, who := choice(r, authors), choice(r, idents)
	mo, day := r.randint(1, 7), r.randint(1, 28)
	kind := choice(r, []string{"fix", "feat", "chore", "refactor", "docs", "test", "perf"})
	return fmt.Sprintf("%s %s <%s@example.com> 2026-%02d-%02d %s: %s", sha, author, who, mo, day, kind, t.words(3, 10))
}

func (t *text) lsLine() string {
	r := t.rng
	mode := choice(r, []string{"-rw-r--r--", "-rw-r--r--", "drwxr-xr-x", "-rwxr-xr-x"})
	size, mo, day, h, m := r.randint(0, 400000), r.randint(1, 7), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59)
	return fmt.Sprintf("%s %8d 2026-%02d-%02d %02d:%02d %s", mode, size, mo, day, h, m, t.path())
}

func (t *text) diffLine() string {
	r := t.rng
	k := r.random()
	if k < 0.05 {
		a, b, c, d := r.randint(1, 900), r.randint(3, 30), r.randint(1, 900), r.randint(3, 30)
		return fmt.Sprintf("@@ -%d,%d +%d,%d @@ func %s()", a, b, c, d, choice(r, funcs))
	}
	if k < 0.07 {
		p := t.path()
		return fmt.Sprintf("diff --git a/%s b/%s", p, p)
	}
	pre := choice(r, []string{" ", " ", " ", "+", "-"})
	return pre + strings.ReplaceAll(t.codeLine(), "\n", " ")
}

// take is about n code points of line-aligned text from a style's pool,
// from a random line on.
func (t *text) take(style string, n int) string {
	p := t.pools[style]
	total := p.pref[len(p.pref)-1]
	if n >= total {
		n = total - 1
	}
	start := t.rng.randrange(0, len(p.lines))
	if p.pref[len(p.pref)-1]-p.pref[start] < n {
		start = 0
	}
	target := p.pref[start] + n
	// The first end whose prefix sum reaches the target (bisect_left).
	lo := start + sort.Search(len(p.lines)-start, func(i int) bool { return p.pref[start+i] >= target })
	return pySlice(strings.Join(p.lines[start:lo], "\n"), n)
}

// pyTitle is str.title(): each run of cased letters starts in title case
// and goes on in lower case.
func pyTitle(s string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range s {
		if prevCased {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
	}
	return b.String()
}

// pyCapitalize is str.capitalize(): the first character in title case,
// the rest in lower case.
func pyCapitalize(s string) string {
	first, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToTitle(first)) + strings.ToLower(s[size:])
}

// pyUpper is str.upper() for the text gen.py upper-cases (words of ASCII
// letters, and what prose lines start with).
func pyUpper(s string) string { return strings.ToUpper(s) }
