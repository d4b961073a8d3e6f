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
func renderDOM(t *testing.T, browser, page, fragment string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page+fragment)
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
