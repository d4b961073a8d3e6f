//go:build linux

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// row is one figure of the table: how to read it off a trial, and whether
// it is memory (KiB, compared as a ratio) or time (ns, compared as a
// difference).
type row struct {
	label  string
	memory bool
	of     func(trial) int64
}

var rows = []row{
	{"peak RSS, shim", true, func(t trial) int64 { return t.ShimHWM }},
	{"peak RSS, helpers", true, func(t trial) int64 { return t.HelperHWM }},
	{"peak RSS, shim + helpers", true, func(t trial) int64 { return t.ShimHWM + t.HelperHWM }},
	{"Pss, shim + helpers", true, func(t trial) int64 { return t.ShimPss + t.HelperPss }},
	{"anonymous, shim + helpers", true, func(t trial) int64 { return t.ShimAnon + t.HelperAnon }},
	{"start-up (spawn -> server runs)", false, func(t trial) int64 { return t.StartupNS }},
	{"first response (initialize)", false, func(t trial) int64 { return t.FirstNS }},
	{"CPU (all processes)", false, func(t trial) int64 { return t.CPUNS }},
	{"CPU, shim", false, func(t trial) int64 { return t.ShimCPUNS }},
	{"CPU, helpers", false, func(t trial) int64 { return t.HelperCPUNS }},
}

// printTable prints each figure's median [min-max] per tool, the first
// tool against the second, and whether the goals are met.
func printTable(w io.Writer, runs int, order []tool, res map[string][]trial) {
	tools := order[1:]
	fmt.Fprintf(w, "Footprint of one stdio shim: %d runs, interleaved; median [min-max]\n", runs)
	for _, t := range tools {
		fmt.Fprintf(w, "  %s: %s (%d helper process(es))\n", t.name, t.bin, res[t.name][0].Helpers)
	}
	fmt.Fprintln(w)
	head := []string{"", "server alone"}
	for _, t := range tools {
		head = append(head, t.name)
	}
	if len(tools) > 1 {
		head = append(head, tools[0].name+" vs "+tools[1].name)
	}
	table := [][]string{head}
	for _, r := range rows {
		line := []string{r.label}
		if r.memory {
			line = append(line, "")
		} else {
			line = append(line, spread(res["server alone"], r))
		}
		for _, t := range tools {
			line = append(line, spread(res[t.name], r))
		}
		if len(tools) > 1 {
			a, b := median(res[tools[0].name], r), median(res[tools[1].name], r)
			line = append(line, compare(r.memory, a, b))
		}
		table = append(table, line)
	}
	for _, r := range rows[5:8] {
		alone := median(res["server alone"], r)
		line := []string{"  added by the shim: " + strings.SplitN(r.label, " (", 2)[0], ""}
		for _, t := range tools {
			line = append(line, ms(median(res[t.name], r)-alone))
		}
		if len(tools) > 1 {
			line = append(line, "")
		}
		table = append(table, line)
	}
	writeTable(w, table)
	if len(tools) > 1 {
		sum, start := rows[2], rows[5]
		ratio := float64(median(res[tools[0].name], sum)) / float64(median(res[tools[1].name], sum))
		diff := median(res[tools[0].name], start) - median(res[tools[1].name], start)
		fmt.Fprintf(w, "\nGoals (issue #45): peak RSS sum within 1.25x: %s (%.2fx); start-up within 5 ms: %s (%+.1f ms)\n",
			verdict(ratio <= 1.25), ratio, verdict(diff <= 5e6), float64(diff)/1e6)
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func compare(memory bool, a, b int64) string {
	if memory {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", float64(a)/float64(b))
	}
	return fmt.Sprintf("%+.1f ms", float64(a-b)/1e6)
}

func spread(ts []trial, r row) string {
	vs := values(ts, r)
	f := ms
	if r.memory {
		f = mb
	}
	return fmt.Sprintf("%s [%s-%s]", f(vs[len(vs)/2]), f(vs[0]), f(vs[len(vs)-1]))
}

// median is the middle value (the upper one of an even count).
func median(ts []trial, r row) int64 {
	vs := values(ts, r)
	return vs[len(vs)/2]
}

func values(ts []trial, r row) []int64 {
	vs := make([]int64, len(ts))
	for i, t := range ts {
		vs[i] = r.of(t)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}

func ms(ns int64) string { return fmt.Sprintf("%.1f ms", float64(ns)/1e6) }
func mb(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func writeTable(w io.Writer, t [][]string) {
	width := make([]int, len(t[0]))
	for _, line := range t {
		for i, c := range line {
			width[i] = max(width[i], len(c))
		}
	}
	for _, line := range t {
		for i, c := range line {
			fmt.Fprintf(w, "%-*s  ", width[i], c)
		}
		fmt.Fprintln(w)
	}
}
