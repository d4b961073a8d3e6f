package main

import (
	"fmt"
	"strings"
)

// calls builds the arguments and results of tool calls, as gen.py's Calls:
// its own draws from the main generator, text from text's.
type calls struct {
	rng     *pyRandom
	t       *text
	issueNo int
}

func newCalls(rng *pyRandom, t *text) *calls { return &calls{rng: rng, t: t, issueNo: 1200} }

func (c *calls) args(name string) obj {
	r, t := c.rng, c.t
	switch name {
	case "read_file":
		a := o("path", "/home/dev/project/"+t.path())
		if r.random() < 0.2 {
			a.set("offset", r.randint(1, 3000))
			a.set("limit", choice(r, []int{200, 500, 2000}))
		}
		return a
	case "write_file":
		p := "/home/dev/project/" + t.path()
		return o("path", p, "content", t.take("code", choice(r, []int{150, 400, 1200, 3000})))
	case "edit_file":
		p := "/home/dev/project/" + t.path()
		n := choice(r, []int{1, 1, 2, 3})
		edits := make([]any, n)
		for i := range edits {
			old := t.take("code", r.randint(40, 300))
			edits[i] = o("oldText", old, "newText", t.take("code", r.randint(40, 400)))
		}
		return o("path", p, "edits", edits)
	case "list_directory":
		p := "/home/dev/project/" + choice(r, dirs)
		return o("path", p, "recursive", r.random() < 0.3)
	case "search_files":
		return o("path", "/home/dev/project", "pattern", "**/*"+choice(r, exts), "excludePatterns", []string{"node_modules/**", ".git/**"})
	case "grep":
		f, n := choice(r, funcs), choice(r, nouns)
		a := o("pattern", fmt.Sprintf(`\b%s%s\(`, f, n), "path", choice(r, []string{"src", "internal", "."}))
		if r.random() < 0.4 {
			a.set("glob", "*"+choice(r, exts))
		}
		if r.random() < 0.3 {
			a.set("context_lines", choice(r, []int{1, 2, 3}))
		}
		return a
	case "run_command":
		commands := []string{
			fmt.Sprintf("go test ./... -run Test%s -count=1", choice(r, nouns)), "npm run build",
			"make lint", fmt.Sprintf("pytest -x tests/test_%s.py", choice(r, idents)),
			"cargo check --all-targets", "docker compose ps",
			fmt.Sprintf("kubectl get pods -n %s", choice(r, dirs)),
		}
		cmd := choice(r, commands)
		return o("command", cmd, "cwd", "/home/dev/project", "timeout_ms", choice(r, []int{60000, 120000, 300000}))
	case "git_status":
		return o("repo_path", "/home/dev/project")
	case "git_diff":
		return o("repo_path", "/home/dev/project", "target", choice(r, []string{"HEAD", "main", "HEAD~1", "origin/main"}))
	case "git_log":
		return o("repo_path", "/home/dev/project", "max_count", choice(r, []int{10, 20, 50, 200}))
	case "fetch_url":
		host, d, id := choice(r, []string{"docs", "blog", "developer", "api"}), choice(r, dirs), choice(r, idents)
		return o("url", fmt.Sprintf("https://%s.example.com/%s/%s", host, d, id), "max_length", 50000)
	case "web_search":
		q := t.words(3, 8)
		return o("query", q, "count", choice(r, []int{5, 10, 10, 20}))
	case "query_database":
		tb := choice(r, tables)
		picked := strings.Join(sample(r, cols, 5), ", ")
		where, limit := choice(r, cols), choice(r, []int{10, 100, 1000})
		sql := fmt.Sprintf("SELECT %s FROM %s WHERE %s = $1 AND created_at > $2 ORDER BY created_at DESC LIMIT %d", picked, tb, where, limit)
		return o("sql", sql, "params", []any{choice(r, []string{"active", "pending", "failed"}), "2026-07-01T00:00:00Z"}, "database", "replica")
	case "list_tables":
		return o("schema", "public")
	case "describe_table":
		return o("table", choice(r, tables))
	case "list_issues":
		repo := repoName(choice(r, repos))
		return o("owner", "acme", "repo", repo, "state", choice(r, []string{"open", "all"}), "perPage", 30)
	case "get_issue":
		repo := repoName(choice(r, repos))
		return o("owner", "acme", "repo", repo, "issue_number", r.randint(1, 5000))
	case "create_issue":
		repo := repoName(choice(r, repos))
		title := pyCapitalize(t.words(4, 10))
		body := t.take("prose", r.randint(200, 1500))
		return o("owner", "acme", "repo", repo, "title", title, "body", body, "labels", sample(r, []string{"bug", "p1", "p2", "infra", "ux"}, 2))
	case "send_slack_message":
		ch := fmt.Sprintf("C0%09d", r.randint(0, 999999999))
		return o("channel_id", ch, "text", t.words(8, 40))
	case "get_weather":
		loc := choice(r, cities)
		return o("location", loc, "units", "metric", "days", choice(r, []int{0, 3, 7}))
	}
	panic("gen: no arguments for tool " + name)
}

func repoName(full string) string {
	_, name, _ := strings.Cut(full, "/")
	return name
}

// rows is a columns and rows table whose rows' JSON is about target bytes.
func (c *calls) rows(target int) ([]string, []any) {
	r := c.rng
	k := 6
	if target < 500 {
		k = 2
	}
	picked := sample(r, cols, k)
	var rows []any
	size := 60 + pyLen(dumps(picked))
	for size < target {
		row := make([]any, 0, len(picked))
		for _, col := range picked {
			switch {
			case col == "id" || col == "customer_id" || col == "order_id" || col == "quantity" || col == "amount_cents":
				row = append(row, r.randint(1, 10_000_000))
			case strings.HasSuffix(col, "_at"):
				mo, d, h, mi, s := r.randint(1, 7), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59)
				row = append(row, fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", mo, d, h, mi, s))
			case col == "email":
				who := choice(r, idents)
				row = append(row, fmt.Sprintf("%s.%d@example.com", who, r.randint(1, 9999)))
			case col == "note":
				if r.random() < 0.6 {
					row = append(row, c.t.words(2, 10))
				} else {
					row = append(row, nil)
				}
			default:
				row = append(row, choice(r, words))
			}
		}
		rows = append(rows, row)
		size += pyLen(dumps(row)) + 1
	}
	return picked, rows
}

// result is a tools/call result whose JSON is about target bytes.
func (c *calls) result(name, style string, target int, isError bool) obj {
	r, t := c.rng, c.t
	if isError {
		msgs := []string{
			fmt.Sprintf("Error: ENOENT: no such file or directory, open '/home/dev/project/%s'", t.path()),
			"Error: command exited with status 1\n" + t.take("log", r.randint(100, 600)),
			fmt.Sprintf("Error: permission denied: /etc/%s", choice(r, idents)),
			"Error: upstream returned HTTP 503 Service Unavailable after 3 retries",
			fmt.Sprintf("Error: relation \"%s\" does not exist", choice(r, idents)),
			fmt.Sprintf("Error: rate limit exceeded, retry after %ds", r.randint(5, 90)),
		}
		msg := choice(r, msgs)
		return o("content", []any{o("type", "text", "text", msg)}, "isError", true)
	}
	if style == "rows" || style == "issues" || style == "weather" {
		// Structured results carry both structuredContent and its text,
		// so each half gets about target/2 bytes.
		half := max(60, pyFloorDiv(target, 2)-40)
		var sc obj
		switch style {
		case "rows":
			cs, rows := c.rows(half)
			sc = o("columns", cs, "rows", nonNil(rows), "row_count", len(rows), "elapsed_ms", pyRound(r.lognormvariate(3, 1), 2))
		case "issues":
			var issues []any
			size := 30
			for size < half {
				title := pyCapitalize(t.words(4, 10))
				state, author := choice(r, []string{"open", "closed"}), choice(r, idents)
				labels := []string{"bug", "p1", "p2", "infra", "ux", "docs"}
				picked := sample(r, labels, r.randint(0, 3))
				mo, d := r.randint(1, 7), r.randint(1, 28)
				it := o("number", c.issueNo, "title", title, "state", state, "author", author,
					"labels", picked, "created_at", fmt.Sprintf("2026-%02d-%02dT10:00:00Z", mo, d))
				c.issueNo++
				room := half - size - pyLen(dumps(it))
				if room > 80 {
					it.set("body", t.take("prose", min(room, r.randint(80, 1500))))
				}
				issues = append(issues, it)
				size += pyLen(dumps(it)) + 1
			}
			sc = o("issues", nonNil(issues), "total_count", len(issues)+r.randint(0, 400))
		default:
			var fc []any
			size := 110
			for size < half {
				date := fmt.Sprintf("2026-07-%02d", len(fc)%28+1)
				hi, lo := pyRound(r.uniform(10, 35), 1), pyRound(r.uniform(-5, 20), 1)
				f := o("date", date, "high_c", hi, "low_c", lo, "summary", t.words(3, 12))
				fc = append(fc, f)
				size += pyLen(dumps(f)) + 1
			}
			loc, temp := choice(r, cities), pyRound(r.uniform(-5, 35), 1)
			cond, hum := choice(r, []string{"clear", "cloudy", "rain", "snow", "fog"}), r.randint(10, 100)
			sc = o("location", loc, "temperature_c", temp, "conditions", cond, "humidity", hum, "forecast", nonNil(fc))
		}
		return o("content", []any{o("type", "text", "text", dumps(sc))}, "structuredContent", sc)
	}
	n := max(16, target-45)
	body := t.take(style, n)
	// Escaping (\n, \t, \") inflates the JSON a little; trim to stay near
	// the target.
	body = pySlice(body, max(16, n-strings.Count(body, "\n")-strings.Count(body, `"`)-strings.Count(body, "\t")))
	res := o("content", []any{o("type", "text", "text", body)})
	if r.random() < 0.02 {
		res.set("_meta", o("truncated", false, "durationMs", r.randint(1, 900)))
	}
	return res
}

// pyFloorDiv is a // b for ints.
func pyFloorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// nonNil makes an empty list [] rather than null.
func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}
