// mcpsnoop export page: builds the view of one session at a time from the
// JSON data elements above. Every value from a capture is put in the page
// as a text node (textContent), never parsed as markup.
(function () {
  "use strict";
  var PAGE = 500; // rows and cards shown before "show more"

  var meta = JSON.parse(document.getElementById("mcpsnoop-export").textContent);
  var blocks = Array.prototype.slice.call(document.querySelectorAll("script.mcpsnoop-session"));
  var cache = {};
  var app = document.getElementById("app");
  var picker = document.getElementById("session-picker");
  var filterBox = document.getElementById("filter");
  var current = null;

  function el(tag, attrs) {
    var n = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (attrs[k] === undefined || attrs[k] === null) continue;
        if (k === "text") n.textContent = String(attrs[k]);
        else if (k === "cls") n.className = attrs[k];
        else n.setAttribute(k, attrs[k]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      n.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
    return n;
  }

  function load(i) {
    if (!cache[i]) cache[i] = JSON.parse(blocks[i].textContent);
    return cache[i];
  }

  // localTime shows a timestamp in the reader's time zone, to the
  // millisecond: calls a few ms apart must not read as simultaneous.
  function localTime(ts) {
    var d = new Date(ts);
    if (isNaN(d.getTime())) return ts;
    function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }
    return d.toLocaleDateString() + " " + pad(d.getHours(), 2) + ":" + pad(d.getMinutes(), 2) + ":" +
      pad(d.getSeconds(), 2) + "." + pad(d.getMilliseconds(), 3);
  }

  function ms(v) {
    if (v === undefined || v === null) return "";
    return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 1 : 2) + " s" : (Math.round(v * 1000) / 1000) + " ms";
  }

  function bytes(n) {
    return n >= 1024 ? (n / 1024).toFixed(1) + " KiB" : n + " B";
  }

  // indentJSON re-indents JSON text without parsing it, so numbers and
  // escapes stay exactly as captured and a cut payload still reads well.
  function indentJSON(s) {
    var out = [], depth = 0, i = 0, n = s.length, open = false;
    function nl() { out.push("\n" + "  ".repeat(depth)); }
    while (i < n) {
      var c = s[i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") { i++; continue; }
      if (open && c !== "]" && c !== "}") { open = false; depth++; nl(); }
      if (c === '"') {
        var j = i + 1;
        while (j < n && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
        out.push(s.slice(i, j + 1));
        i = j + 1;
        continue;
      }
      if (c === "{" || c === "[") { out.push(c); open = true; }
      else if (c === "}" || c === "]") {
        if (open) open = false; else { depth = Math.max(0, depth - 1); nl(); }
        out.push(c);
      } else if (c === ",") { out.push(","); nl(); }
      else if (c === ":") out.push(": ");
      else {
        var k = i;
        while (k < n && ",]}: \t\n\r".indexOf(s[k]) < 0) k++;
        out.push(s.slice(i, k));
        i = k;
        continue;
      }
      i++;
    }
    return out.join("");
  }

  // jsonPre shows indented JSON in a <pre> whose long lines wrap inside
  // their place: a line longer than LONG is a block of its own with a
  // hanging indent, so its continuation starts under its own indentation
  // (two more), not at the left edge. Short lines stay one text run, so a
  // big frame costs few elements; copying the text gives the JSON back.
  var LONG = 80;
  function jsonPre(text) {
    var pre = el("pre", { cls: "json" }), run = [];
    function flush() {
      if (run.length) pre.appendChild(el("span", { cls: "jr", text: run.join("\n") }));
      run = [];
    }
    text.split("\n").forEach(function (line) {
      if (line.length <= LONG) { run.push(line); return; }
      flush();
      var n = line.length - line.replace(/^ +/, "").length + 2;
      var span = el("span", { cls: "jl", "data-indent": n, text: line });
      span.style.paddingLeft = n + "ch";
      span.style.textIndent = -n + "ch";
      pre.appendChild(span);
    });
    flush();
    return pre;
  }

  function cutNote(full, cap) {
    return full ? el("p", { cls: "note", text: "cut: the first " + bytes(cap) + " of " + bytes(full) + " are shown; the session log and the json export hold all of it." }) : null;
  }

  function statusBadge(status) {
    return status ? el("span", { cls: "badge s-" + status, text: status }) : null;
  }

  // ---- filter (capture-store-export.md 7.4) ----
  var DIRS = { c2s: "c2s", client: "c2s", "in": "c2s", req: "c2s", "->": "c2s",
    s2c: "s2c", server: "s2c", out: "s2c", resp: "s2c", "<-": "s2c", stderr: "stderr", err: "stderr" };
  var KINDS = { req: "request", request: "request", resp: "response", response: "response",
    notify: "notification", ntf: "notification", notification: "notification", stderr: "stderr",
    invalid: "invalid", corrupt: "invalid", bad: "invalid", transport: "transport", other: "other" };
  var KEYS = { tool: "tool", t: "tool", method: "method", m: "method", id: "id", dir: "dir", d: "dir",
    kind: "kind", k: "kind", status: "status", s: "status" };

  function parseFilter(q) {
    return q.trim().split(/\s+/).filter(Boolean).map(function (tok) {
      var i = tok.indexOf(":");
      if (i > 0 && KEYS[tok.slice(0, i).toLowerCase()]) {
        return { key: KEYS[tok.slice(0, i).toLowerCase()], val: tok.slice(i + 1).toLowerCase(), raw: tok.slice(i + 1) };
      }
      return { key: "", val: tok.toLowerCase() };
    });
  }

  function statusMatch(item, v) {
    var st = item.status || "";
    switch (v) {
      case "bad": case "invalid": return item.kind === "invalid";
      case "warn": case "warning": return !!item.warning;
      case "mismatch": return !!item.mismatch;
      case "err": case "error": case "fail": case "failed": return st === "error" || item.errors > 0;
      case "pending": return st === "pending";
      case "cancel": case "call_cancelled": return st === "call_cancelled";
      case "late": case "late_result": return st === "late_result";
      case "cancelled": return st === "cancelled";
      case "ok": return st === "ok";
    }
    return st === v;
  }

  function matches(item, toks) {
    for (var i = 0; i < toks.length; i++) {
      var t = toks[i], v = t.val, ok;
      switch (t.key) {
        case "tool": ok = (item.tool || "").toLowerCase().indexOf(v) >= 0; break;
        case "method": ok = (item.method || "").toLowerCase().indexOf(v) >= 0; break;
        case "id": ok = item.id === t.raw || item.id === JSON.stringify(t.raw); break;
        case "dir": ok = item.dir === (DIRS[v] || v); break;
        case "kind": ok = item.kind === (KINDS[v] || v); break;
        case "status": ok = statusMatch(item, v); break;
        default: ok = item.hay().indexOf(v) >= 0;
      }
      if (!ok) return false;
    }
    return true;
  }

  // ---- sections ----
  function pills(d) {
    var s = d.session, caps = d.capabilities || {};
    function pill(label, v, bad) { return el("span", { cls: "pill" + (bad ? " bad" : "") }, label, el("b", { text: v })); }
    var box = el("div", { cls: "pills" },
      pill("Requests", s.requests), pill("Responses", s.responses), pill("Notifications", s.notifications),
      pill("Errors", s.errors, s.errors > 0), pill("Warnings", s.warnings, s.warnings > 0),
      pill("Invalid", s.invalid, s.invalid > 0), pill("Pending", s.pending, s.pending > 0),
      pill("Late results", s.late_results, s.late_results > 0), pill("Protocol", caps.protocol_version || "unknown"));
    if (s.missing_frames > 0) box.appendChild(pill("Missing frames", s.missing_frames, true));
    return box;
  }

  function table(id, cols, rows) {
    var head = el("tr");
    cols.forEach(function (c) { head.appendChild(el("th", { cls: c.num ? "num" : null, text: c.label })); });
    var body = el("tbody");
    rows.forEach(function (r) { body.appendChild(r); });
    return el("table", { id: id }, el("thead", null, head), body);
  }

  function row(cells) {
    var tr = el("tr");
    cells.forEach(function (c) {
      tr.appendChild(c && c.nodeType ? el("td", null, c) : el("td", { cls: typeof c === "number" ? "num" : null, text: c === undefined || c === null ? "" : c }));
    });
    return tr;
  }

  function toolsSection(d) {
    var tools = d.summary.tools;
    if (!tools.length) return null;
    var cols = [{ label: "tool" }, { label: "calls", num: 1 }, { label: "errors", num: 1 }, { label: "pending", num: 1 },
      { label: "p50", num: 1 }, { label: "p95", num: 1 }, { label: "p99", num: 1 }, { label: "round trips", num: 1 },
      { label: "result bytes", num: 1 }, { label: "largest result", num: 1 }];
    return [el("h2", { text: "Tools" }), table("tools-table", cols, tools.map(function (t) {
      return row([t.name, t.calls, t.errors, t.pending, ms(t.p50_ms), ms(t.p95_ms), ms(t.p99_ms), t.round_trips, t.result_bytes, t.max_result_bytes]);
    }))];
  }

  function bodyBlock(c, key) {
    if (c[key] === undefined) return null;
    return el("div", null, el("div", { cls: "note", text: key }), jsonPre(indentJSON(c[key])), cutNote(c[key + "_bytes"], meta.body_cap));
  }

  function callItem(c) {
    return { tool: c.tool_name, method: c.method, id: c.id, dir: c.direction, kind: "request", status: c.status,
      hay: function () { return [c.method, c.id, c.tool_name, c.params, c.result, c.error].join(" ").toLowerCase(); } };
  }

  function callsSection(d, toks) {
    var cols = [{ label: "#", num: 1 }, { label: "id" }, { label: "method" }, { label: "tool" }, { label: "status" },
      { label: "duration", num: 1 }, { label: "round trips", num: 1 }, { label: "server", num: 1 }, { label: "started" }, { label: "bodies" }];
    var list = d.calls.filter(function (c) { return matches(callItem(c), toks); });
    var tbl = table("calls-table", cols, []);
    var body = tbl.querySelector("tbody");
    var shown = 0;
    function more() {
      list.slice(shown, shown + PAGE).forEach(function (c) {
        var det = el("details", null, el("summary", { text: "params / result" }), bodyBlock(c, "params"), bodyBlock(c, "result"), bodyBlock(c, "error"));
        body.appendChild(row([c.index, el("span", { cls: "mono", text: c.id }), c.method, c.tool_name, statusBadge(c.status),
          ms(c.duration_ms), c.round_trips, ms(c.server_time_ms), localTime(c.started_at), det]));
      });
      shown = Math.min(list.length, shown + PAGE);
      btn.className = shown < list.length ? "more" : "more hidden";
      btn.textContent = "show " + Math.min(PAGE, list.length - shown) + " more of " + (list.length - shown);
    }
    var btn = el("button", { cls: "more", type: "button" });
    btn.addEventListener("click", more);
    more();
    var title = "Calls (" + list.length + (list.length !== d.calls.length ? " of " + d.calls.length : "") + ")";
    return [el("h2", { text: title }), tbl, btn];
  }

  function interactionsSection(d) {
    if (!d.interactions.length) return null;
    var cols = [{ label: "operation" }, { label: "root id" }, { label: "round trips", num: 1 }, { label: "outcome" },
      { label: "wall clock", num: 1 }, { label: "server", num: 1 }, { label: "client", num: 1 }, { label: "hops" }];
    var out = [el("h2", { text: "Interactions (multi round trip)" }), table("interactions-table", cols, d.interactions.map(function (it) {
      var hops = el("ol");
      it.hops.forEach(function (h, i) {
        var parts = [];
        if (i > 0) parts.push("client " + ms(h.client_turnaround_ms));
        parts.push(h.response_ts ? "server " + ms(h.server_time_ms) : "no answer");
        if (h.asked && h.asked.length) parts.push("asked " + h.asked.join(", "));
        hops.appendChild(el("li", { text: "id " + h.request_id + ": " + parts.join(", ") }));
      });
      if (it.hops_truncated) hops.appendChild(el("li", { text: "(more hops not listed)" }));
      return row([it.method + (it.name ? " " + it.name : ""), it.root_id, it.round_trips, statusBadge(it.outcome === "completed" ? "ok" : it.outcome === "failed" ? "error" : it.outcome),
        ms(it.duration_ms), ms(it.server_time_ms), ms(it.client_turnaround_ms), hops]);
    }))];
    if (d.interactions_truncated) out.push(el("p", { cls: "note", text: d.interactions_truncated + " more interactions not listed" }));
    return out;
  }

  function elicitationsSection(d) {
    if (!d.elicitations.length) return null;
    var cols = [{ label: "operation" }, { label: "root id" }, { label: "key" }, { label: "mode" }, { label: "message" },
      { label: "asked for" }, { label: "answer" }, { label: "after", num: 1 }];
    var out = [el("h2", { text: "Elicitations (questions to the user)" }),
      el("p", { cls: "note", text: "What was asked and how the user answered; the values they submitted are not shown here." }),
      table("elicitations-table", cols, d.elicitations.map(function (e) {
        var asked = e.mode === "url" ? "url " + (e.url || "") + (e.host ? " (host " + e.host + ")" : "")
          : (e.fields || []).map(function (f) { return f.name + ": " + f.type; }).join(", ") + (e.fields_truncated ? ", ..." : "");
        return row([e.method + (e.name ? " " + e.name : ""), e.root_id, e.key, e.mode, e.message + (e.message_truncated ? " (cut)" : ""),
          asked, e.pending ? statusBadge("pending") : (e.action || "answered"), e.elapsed_ms === null ? "" : ms(e.elapsed_ms)]);
      }))];
    if (d.elicitations_truncated) out.push(el("p", { cls: "note", text: d.elicitations_truncated + " more elicitations not listed" }));
    return out;
  }

  function eventItem(ev, call) {
    return { tool: call ? call.tool_name : "", method: ev.method, id: ev.id, dir: ev.direction, kind: ev.kind,
      status: call ? call.status : "", warning: ev.warning, mismatch: ev.mismatch, errors: ev.errors ? ev.errors.length : 0,
      hay: function () {
        return [ev.method, ev.id, ev.text, ev.observation, ev.warning, ev.raw, call ? call.tool_name : ""].join(" ").toLowerCase();
      } };
  }

  function card(ev, call) {
    var cls = "card " + ev.direction + (ev.warning ? " warned" : "") + ((ev.errors || (call && call.status === "error")) ? " failed" : "");
    var head = el("div", { cls: "head" },
      el("span", { cls: "seq", text: "#" + ev.seq }),
      el("span", { text: ev.direction + " " + ev.kind }),
      ev.method ? el("span", { cls: "mono", text: ev.method }) : null,
      ev.id ? el("span", { cls: "mono", text: "id " + ev.id }) : null,
      call && call.tool_name ? el("span", { text: call.tool_name }) : null,
      call && ev.id && ev.id !== call.id ? el("span", { cls: "note", text: "continues id " + call.id }) : null,
      ev.http_status ? el("span", { text: "HTTP " + ev.http_status }) : null,
      ev.truncated ? el("span", { cls: "badge", text: "truncated" }) : null,
      call ? statusBadge(call.status) : null,
      el("span", { cls: "time", title: ev.timestamp, text: localTime(ev.timestamp) }));
    var c = el("div", { cls: cls, "data-seq": ev.seq }, head);
    if (ev.warning) c.appendChild(el("details", { cls: "warning", open: "" }, el("summary", { text: "Warning" }), el("div", { cls: "warning-text", text: ev.warning })));
    if (ev.errors) c.appendChild(el("details", { cls: "errors", open: "" }, el("summary", { text: "Errors" }), el("div", { text: ev.errors.join("; ") })));
    if (ev.deprecated) c.appendChild(el("details", null, el("summary", { text: "Deprecated" }), el("div", { text: ev.deprecated })));
    if (ev.observation) c.appendChild(el("details", { open: "" }, el("summary", { text: "Observation" }), el("div", { text: ev.observation })));
    if (ev.auth_challenge) c.appendChild(el("div", { cls: "note", text: "WWW-Authenticate: " + ev.auth_challenge }));
    if (ev.cache_ttl_ms !== undefined || ev.cache_scope) c.appendChild(el("div", { cls: "note", text: "cache: ttl " + (ev.cache_ttl_ms === undefined ? "-" : ev.cache_ttl_ms + " ms") + (ev.cache_scope ? ", scope " + ev.cache_scope : "") }));
    if (ev.cache_stale_refetch) c.appendChild(el("div", { cls: "note", text: "cache: fetched again while the previous answer was still fresh (its ttlMs had not run out)" }));
    if (ev.raw !== undefined) {
      c.appendChild(el("details", { cls: "frame", open: "" }, el("summary", { text: "Frame" }), jsonPre(indentJSON(ev.raw)), cutNote(ev.raw_bytes, meta.frame_cap)));
    } else if (ev.text !== undefined) {
      c.appendChild(el("details", { cls: "frame", open: "" }, el("summary", { text: "Frame (text)" }), el("pre", { text: ev.text }), cutNote(ev.text_bytes, meta.frame_cap)));
    }
    if (call) {
      var shown = {};
      Object.keys(call).forEach(function (k) { shown[k] = call[k]; });
      c.appendChild(el("details", { cls: "call" }, el("summary", { text: "Correlated call #" + call.index }), jsonPre(JSON.stringify(shown, null, 2))));
    }
    return c;
  }

  function eventsSection(d, calls, toks) {
    var list = d.events.filter(function (ev) { return matches(eventItem(ev, calls[ev.call_index]), toks); });
    var box = el("div", { id: "events" });
    var shown = 0;
    var btn = el("button", { cls: "more", type: "button" });
    function more() {
      list.slice(shown, shown + PAGE).forEach(function (ev) { box.appendChild(card(ev, calls[ev.call_index])); });
      shown = Math.min(list.length, shown + PAGE);
      btn.className = shown < list.length ? "more" : "more hidden";
      btn.textContent = "show " + Math.min(PAGE, list.length - shown) + " more of " + (list.length - shown);
    }
    btn.addEventListener("click", more);
    more();
    var title = "Events (" + list.length + (list.length !== d.events.length ? " of " + d.events.length : "") + ")";
    return [el("h2", { text: title }), box, btn];
  }

  function render() {
    if (current === null) return;
    var d = load(current), s = d.session, toks = parseFilter(filterBox.value);
    document.getElementById("title").textContent = s.label || s.id;
    document.title = (s.label || s.id) + " - mcpsnoop";
    document.getElementById("meta").textContent = "session " + s.id + " \u00b7 " + localTime(s.first) + " \u00b7 " +
      s.frames + " frames \u00b7 " + s.calls + " calls" + (meta.run ? " \u00b7 run " + meta.run.id : "");
    var calls = {};
    d.calls.forEach(function (c) { calls[c.index] = c; });
    app.textContent = "";
    var parts = [el("h2", { text: "Summary" }), pills(d)];
    var kinds = d.schema_findings.map(function (f) { return f.kind + ": " + f.tools.join(", "); });
    if (kinds.length) {
      parts.push(el("h2", { text: "Schema findings" }));
      var sf = el("div", { cls: "pills" });
      kinds.forEach(function (k) { sf.appendChild(el("span", { cls: "pill", text: k })); });
      parts.push(sf);
    }
    if (d.cut_frames || d.cut_bodies) {
      var note = "This page cuts frames longer than " + bytes(meta.frame_cap) + " (" + d.cut_frames +
        " cut) and call bodies longer than " + bytes(meta.body_cap) + " (" + d.cut_bodies + " cut)";
      if (d.budget_spent) {
        note += "; past the first " + (meta.session_budget / 1048576) + " MiB of payload in this session, each is cut to " + bytes(meta.small_cap);
      }
      parts.push(el("p", { cls: "note", id: "cut-note", text: note + ". The session log and the json export hold them in full." }));
    }
    parts = parts.concat(toolsSection(d) || [], callsSection(d, toks), interactionsSection(d) || [], elicitationsSection(d) || [], eventsSection(d, calls, toks));
    parts.forEach(function (p) { app.appendChild(p); });
  }

  // A session that fails the gate is marked in the picker (a sign and the
  // word, for readers who do not see the sign), and the page opens on the
  // first of them unless the address picks one.
  var firstFailed = -1;
  blocks.forEach(function (b, i) {
    var label = b.getAttribute("data-label"), id = b.getAttribute("data-id"), failed = b.getAttribute("data-failed") === "1";
    if (failed && firstFailed < 0) firstFailed = i;
    picker.appendChild(el("option", { value: i, cls: failed ? "failed" : null, "data-failed": failed ? "1" : null,
      text: (failed ? "\u2717 " : "") + (label ? label + " \u00b7 " : "") + id + " (" + b.getAttribute("data-calls") + " calls" + (failed ? ", failed" : "") + ")" }));
  });
  if (blocks.length < 2) document.getElementById("picker-label").className = "picker hidden";
  picker.addEventListener("change", function () { current = Number(picker.value); render(); });
  var timer = null;
  filterBox.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(render, 150);
  });
  // The address can pick a session and a filter: #s=1&q=status:err.
  var hash = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0) {
      try { hash[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* a malformed address is ignored */ }
    }
  });
  if (hash.q) filterBox.value = hash.q;
  if (blocks.length) {
    var pick = hash.s === undefined ? NaN : Number(hash.s);
    current = pick >= 0 && pick < blocks.length && Math.floor(pick) === pick ? pick : Math.max(firstFailed, 0);
    picker.value = String(current);
    render();
  } else {
    app.appendChild(el("p", { cls: "note", text: "No sessions in this export." }));
  }
  document.documentElement.setAttribute("data-rendered", "ok");
})();
