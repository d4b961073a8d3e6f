package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The html export is opened in headless Chromium: the page must render
// without a script error (its own window.onerror writes any into the page),
// mark that it finished, show the call table, and show an injected
// "</script><img onerror>" payload as text, never as an element.

// chromium finds a headless-capable Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("MCPSNOOP_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (Debian: apt-get install chromium; or set MCPSNOOP_CHROMIUM): the headless html checks are skipped")
	return ""
}

// renderDOM loads page (with an optional #fragment) and returns the DOM
// after the page's script ran.
func renderDOM(t *testing.T, browser, page, fragment string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, extra...)
	cmd := exec.CommandContext(ctx, browser, append(args, "--dump-dom", "file://"+page+fragment)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return string(out)
}

var (
	callsTable = regexp.MustCompile(`(?s)<table id="calls-table">.*?</table>`)
	tableRow   = regexp.MustCompile(`<tr[ >]`)
)

// callRows counts the body rows of the rendered call table.
func callRows(t *testing.T, dom string) int {
	t.Helper()
	table := callsTable.FindString(dom)
	if table == "" {
		t.Fatal("no call table in the rendered page")
	}
	return len(tableRow.FindAllString(table, -1)) - 1 // the header row
}

// checkRendered asserts the page finished rendering without a script error.
func checkRendered(t *testing.T, dom string) {
	t.Helper()
	if !strings.Contains(dom, `data-rendered="ok"`) {
		t.Errorf("the page did not finish rendering")
	}
	if strings.Contains(dom, `data-errors=`) || !strings.Contains(dom, `<ul id="page-errors"></ul>`) {
		i := strings.Index(dom, `<ul id="page-errors">`)
		t.Errorf("script errors: %.400s", dom[max(i, 0):])
	}
}

func TestExportHTMLInChromium(t *testing.T) {
	t.Log("the html export rendered in headless Chromium")
	browser := chromium(t)
	t.Chdir("../..")
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	pages := map[string]string{}
	for _, in := range exportGoldenInputs {
		page := filepath.Join(dir, in.name+".html")
		if code, _, stderr := exportRun(t, "", "-T", "html", "-o", page, in.path); code != 0 {
			t.Fatalf("%s: exit %d: %s", in.name, code, stderr)
		}
		pages[in.name] = page
	}

	t.Run("injected payload stays text", func(t *testing.T) {
		t.Parallel() // each page in a Chromium of its own
		dom := renderDOM(t, browser, pages["store-example"], "")
		checkRendered(t, dom)
		if n := callRows(t, dom); n != 9 {
			t.Errorf("call table has %d rows, want 9", n)
		}
		if strings.Contains(dom, "<img") {
			t.Errorf("the payload became an <img> element")
		}
		if !strings.Contains(dom, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("the payload is not shown as text")
		}
		if !strings.Contains(dom, `id="events"`) || strings.Count(dom, `class="card `) != 24 {
			t.Errorf("want 24 frame cards, got %d", strings.Count(dom, `class="card `))
		}
	})

	t.Run("the summary counts what check counts; times to the millisecond", func(t *testing.T) {
		dom := renderDOM(t, browser, pages["store-example"], "")
		checkRendered(t, dom)
		// check: errors=1 invalid=1 warnings=3
		for _, want := range []string{`<span class="pill bad">Errors<b>1</b></span>`, `<span class="pill bad">Warnings<b>3</b></span>`, `<span class="pill bad">Invalid<b>1</b></span>`} {
			if !strings.Contains(dom, want) {
				t.Errorf("the summary lacks %s", want)
			}
		}
		times := regexp.MustCompile(`<span class="time" title="[^"]*">[^<]*:\d\d\.\d{3}</span>`).FindAllString(dom, -1)
		if len(times) != 24 {
			t.Errorf("%d timeline times with milliseconds, want one per frame card (24)", len(times))
		}
	})

	t.Run("three sessions, one picker", func(t *testing.T) {
		t.Parallel() // each page in a Chromium of its own
		dom := renderDOM(t, browser, pages["run-traced"], "")
		checkRendered(t, dom)
		if n := strings.Count(dom, "<option "); n != 3 {
			t.Errorf("the session picker offers %d sessions, want 3", n)
		}
		// The run's one failing session (github, the second) is marked in
		// the picker, and the page opens on it.
		options := regexp.MustCompile(`<option [^>]*>[^<]*</option>`).FindAllString(dom, -1)
		if len(options) != 3 || strings.Contains(options[0], "failed") || strings.Contains(options[2], "failed") ||
			!strings.Contains(options[1], `class="failed"`) || !strings.Contains(options[1], ">✗ github · github-97145-6513269e0d37 (3 calls, failed)</option>") {
			t.Errorf("the picker does not mark the failing session alone:\n%s", strings.Join(options, "\n"))
		}
		if !strings.Contains(dom, "session github-97145-6513269e0d37") || !strings.Contains(dom, `<h1 id="title">github</h1>`) {
			t.Errorf("the page did not open on the failing session")
		}
		if dom0 := renderDOM(t, browser, pages["run-traced"], "#s=0"); !strings.Contains(dom0, "session files-97144-f2a752e6b438") {
			t.Errorf("#s=0 did not show the first session")
		}
		first := callRows(t, dom)
		dom = renderDOM(t, browser, pages["run-traced"], "#s=2")
		checkRendered(t, dom)
		if !strings.Contains(dom, "session search-97146-0c5ca6a3a450") {
			t.Errorf("#s=2 did not show the third session")
		}
		if first == 0 || callRows(t, dom) == 0 {
			t.Errorf("empty call tables")
		}
	})

	t.Run("filter tokens", func(t *testing.T) {
		t.Parallel() // each page in a Chromium of its own
		for _, c := range []struct {
			q    string
			rows int
		}{{"status:err", 1}, {"tool:echo", 5}, {"id:4", 2}, {"s:late", 1}, {"tool:echo status:pending", 1}, {"onerror", 1}} {
			dom := renderDOM(t, browser, pages["store-example"], "#q="+strings.ReplaceAll(c.q, " ", "%20"))
			checkRendered(t, dom)
			if n := callRows(t, dom); n != c.rows {
				t.Errorf("%q: %d calls shown, want %d", c.q, n, c.rows)
			}
		}
	})

	t.Run("long strings wrap inside their JSON block", func(t *testing.T) {
		t.Parallel() // each page in a Chromium of its own
		page := longStringPage(t, dir)
		dom := renderDOM(t, browser, page, "", "--window-size=900,800")
		checkRendered(t, dom)
		probe := regexp.MustCompile(`data-probe="([^"]*)"`).FindStringSubmatch(dom)
		if probe == nil {
			t.Fatal("the probe did not run")
		}
		// lines: long lines laid out; wrapped: those that took several
		// line boxes; outside: continuation boxes left of their line's
		// indentation; overflow: blocks wider than their box.
		if got := probe[1]; !regexp.MustCompile(`^lines=([3-9]|\d\d+) wrapped=([3-9]|\d\d+) outside=0 overflow=0$`).MatchString(got) {
			t.Errorf("probe: %s", got)
		}
	})

	t.Run("interactions and elicitations", func(t *testing.T) {
		t.Parallel() // each page in a Chromium of its own
		dom := renderDOM(t, browser, pages["elicit"], "")
		checkRendered(t, dom)
		for _, want := range []string{`id="interactions-table"`, `id="elicitations-table"`, "Choose a username for the new account", "username: string", "decline"} {
			if !strings.Contains(dom, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if i := strings.Index(dom, `id="elicitations-table"`); i >= 0 {
			table := dom[i:]
			table = table[:strings.Index(table, "</table>")]
			if strings.Contains(table, "zed-unique-7731") {
				t.Errorf("the ledger shows a submitted value")
			}
		}
	})
}

// wrapProbe measures, in the page as laid out, every long JSON line (the
// spans jsonPre gives a hanging indent): each line box after its first must
// start at or right of the line's indentation, and no JSON block may be
// wider than its box. It writes what it found into data-probe.
const wrapProbe = `<script>
(function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var ruler = document.createElement("span");
  ruler.textContent = "0000000000";
  var pre0 = document.querySelector("pre.json");
  pre0.appendChild(ruler);
  var cw = ruler.getBoundingClientRect().width / 10;
  pre0.removeChild(ruler);
  var lines = 0, wrapped = 0, outside = 0, overflow = 0;
  document.querySelectorAll("pre.json").forEach(function (pre) {
    if (pre.scrollWidth > pre.clientWidth + 1) overflow++;
  });
  document.querySelectorAll("pre.json .jl").forEach(function (span) {
    lines++;
    var r = document.createRange();
    r.selectNodeContents(span);
    // A line box may come as several rectangles (a run of spaces, the
    // text): each line starts where its leftmost one does.
    var starts = {}, left = span.getBoundingClientRect().left;
    Array.prototype.forEach.call(r.getClientRects(), function (b) {
      if (b.width <= 0) return;
      var top = Math.round(b.top);
      starts[top] = top in starts ? Math.min(starts[top], b.left) : b.left;
    });
    var tops = Object.keys(starts).map(Number).sort(function (a, b) { return a - b; });
    var indent = Number(span.getAttribute("data-indent"));
    if (tops.length > 1) wrapped++;
    for (var i = 1; i < tops.length; i++) {
      if (starts[tops[i]] < left + indent * cw - 1) outside++;
    }
  });
  document.documentElement.setAttribute("data-probe", "lines=" + lines + " wrapped=" + wrapped + " outside=" + outside + " overflow=" + overflow);
})();
</script>
</body>`

// longStringPage exports a session whose call carries long strings (one
// without a break, one of words, one at depth) and adds wrapProbe.
func longStringPage(t *testing.T, dir string) string {
	t.Helper()
	long := strings.Repeat("x", 3000)
	words := strings.Repeat("lorem ipsum dolor ", 150)
	log := filepath.Join(dir, "long.jsonl")
	writeFile(t, log, []byte(
		`{"session_id":"s1","server_label":"srv","seq":1,"ts":"2026-07-28T12:00:00.000Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+long+`","deep":{"a":{"b":{"c":"`+words+`"}}}}}}}`+"\n"+
			`{"session_id":"s1","server_label":"srv","seq":2,"ts":"2026-07-28T12:00:00.100Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+long+`"}]}}}`+"\n"))
	page := filepath.Join(dir, "long.html")
	if code, _, stderr := exportRun(t, "", "-T", "html", "-o", page, log); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(dir, "long-probed.html")
	writeFile(t, probed, []byte(strings.Replace(string(data), "</body>", wrapProbe, 1)))
	return probed
}
