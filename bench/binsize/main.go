// Command binsize lists how much of an mcpsnoop binary each module holds:
// the bytes of the text, read-only data and data symbols `go tool nm`
// attributes to its packages, largest first, with the sections nm cannot
// split (the pclntab's function and line tables, the type descriptors and
// strings of .rodata) as lines of their own, and the binary's LOAD
// segments (what the kernel maps: text, rodata, data and bss).
//
//	binsize -bin BINARY -pkg ./cmd/mcpsnoop [-release STRIPPED]
//
// BINARY must keep its symbol table (built without -s); -pkg is the main
// package it was built from, whose dependencies `go list -deps` maps to
// modules (run in the module, with the GOOS, GOARCH and CGO_ENABLED the
// binary was built with). -release names the stripped release build,
// whose LOAD segments are listed beside. ELF binaries only.
// bench/binsize.sh builds both and runs this.
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

func main() {
	bin := flag.String("bin", "", "binary with its symbol table")
	pkg := flag.String("pkg", "./cmd/mcpsnoop", "main package the binary is built from")
	release := flag.String("release", "", "the stripped release build, for its LOAD segments")
	flag.Parse()
	if *bin == "" {
		fatalf("-bin is required")
	}
	f, err := elf.Open(*bin)
	if err != nil {
		fatalf("%s: %v (ELF binaries only)", *bin, err)
	}
	defer f.Close()
	modOf, err := modules(*pkg)
	if err != nil {
		fatalf("go list: %v", err)
	}
	syms, err := symbols(*bin)
	if err != nil {
		fatalf("go tool nm: %v", err)
	}
	t := attribute(f, syms, modOf)
	t.print(os.Stdout, f)
	if *release != "" {
		rf, err := elf.Open(*release)
		if err != nil {
			fatalf("%s: %v", *release, err)
		}
		defer rf.Close()
		fi, _ := os.Stat(*release)
		fmt.Printf("\nRelease build %s: %s on disk\n", *release, mb(uint64(fi.Size())))
		printLoads(os.Stdout, rf)
	}
}

// modules maps each package the main package links to its module ("std:X"
// for the standard library's top-level folder X; the main module's
// packages by their top-level folder, "MODULE/X", to show which of its own
// parts the binary carries).
func modules(pkg string) (map[string]string, error) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{with .Module}}{{.Path}}{{if .Main}}\tmain{{end}}{{end}}", pkg).Output()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		p, mod, _ := strings.Cut(line, "\t")
		if m, ok := strings.CutSuffix(mod, "\tmain"); ok {
			top, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(p, m), "/"), "/")
			mod = m + "/" + top
		}
		if mod == "" {
			top, _, _ := strings.Cut(strings.TrimPrefix(p, "vendor/"), "/")
			if strings.HasPrefix(p, "vendor/") {
				top = "vendor"
			}
			mod = "std:" + top
		}
		m[p] = mod
	}
	// The main package (listed last) names its symbols main.*.
	last, _, _ := strings.Cut(lines[len(lines)-1], "\t")
	m["main"] = m[last]
	return m, nil
}

type symbol struct {
	addr, size uint64
	kind       byte
	name       string
}

func symbols(bin string) ([]symbol, error) {
	out, err := exec.Command("go", "tool", "nm", "-size", "-type", bin).Output()
	if err != nil {
		return nil, err
	}
	var syms []symbol
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[2] == "U" {
			continue
		}
		addr, err1 := strconv.ParseUint(f[0], 16, 64)
		size, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		syms = append(syms, symbol{addr, size, f[2][0], strings.Join(f[3:], " ")})
	}
	return syms, sc.Err()
}

// row is one module's bytes per section kind.
type row struct {
	name                    string
	text, rodata, data, bss uint64
}

func (r *row) file() uint64 { return r.text + r.rodata + r.data }

type table struct {
	rows    map[string]*row
	section map[string]uint64 // bytes per ELF section
}

// attribute adds each symbol's size to its module, by the section its
// address falls in.
func attribute(f *elf.File, syms []symbol, modOf map[string]string) *table {
	t := &table{rows: map[string]*row{}, section: map[string]uint64{}}
	for _, s := range syms {
		sec := sectionOf(f, s.addr)
		if sec == nil || s.size == 0 {
			continue
		}
		mod := moduleOf(s.name, modOf)
		r := t.rows[mod]
		if r == nil {
			r = &row{name: mod}
			t.rows[mod] = r
		}
		switch sec.Name {
		case ".text":
			r.text += s.size
		case ".rodata", ".typelink", ".itablink", ".gopclntab":
			r.rodata += s.size
		case ".bss", ".noptrbss":
			r.bss += s.size
		default:
			r.data += s.size
		}
		t.section[sec.Name] += s.size
	}
	return t
}

func sectionOf(f *elf.File, addr uint64) *elf.Section {
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			return s
		}
	}
	return nil
}

// moduleOf finds the package a symbol belongs to (the longest known
// package path it starts with, after a type: prefix) and returns its
// module; runtime and linker symbols (go:*, type:*) go to "Go runtime and
// linker".
func moduleOf(name string, modOf map[string]string) string {
	n := name
	for _, p := range []string{"type:.eq.", "type:.hash.", "type:", "go:itab.", "go:", "*"} {
		n = strings.TrimPrefix(n, p)
	}
	n = strings.TrimLeft(n, "*[]0123456789")
	if end := strings.IndexAny(n, "[(,; "); end >= 0 {
		n = n[:end]
	}
	slash := strings.LastIndexByte(n, '/')
	for i := len(n); i > slash; i-- {
		if i < len(n) && n[i] != '.' {
			continue
		}
		if m, ok := modOf[n[:i]]; ok {
			return m
		}
	}
	return "Go runtime and linker (go:*, type:*)"
}

func (t *table) print(w *os.File, f *elf.File) {
	rows := make([]*row, 0, len(t.rows))
	var sum row
	secs := map[string]uint64{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 {
			secs[s.Name] = s.Size
		}
	}
	pcln := secs[".gopclntab"]
	for _, r := range t.rows {
		rows = append(rows, r)
		sum.text += r.text
		sum.rodata += r.rodata
		sum.data += r.data
		sum.bss += r.bss
	}
	withPcln := func(r *row) uint64 { return r.file() + pcln*r.text/max(sum.text, 1) }
	sort.Slice(rows, func(i, j int) bool { return withPcln(rows[i]) > withPcln(rows[j]) })

	unattributedRO := secs[".rodata"] + secs[".typelink"] + secs[".itablink"] - (t.section[".rodata"] + t.section[".typelink"] + t.section[".itablink"])
	fmt.Fprintf(w, "Bytes per module, from go tool nm (text + rodata + data symbols; bss, zeroed at start, apart).\n")
	fmt.Fprintf(w, "\"+ pclntab\" adds the module's share of .gopclntab (function names and line tables) in proportion to its text.\n\n")
	fmt.Fprintf(w, "%-58s %9s %9s %9s %9s %9s %11s %6s\n", "module", "text", "rodata", "data", "total", "bss", "+ pclntab", "share")
	total := sum.file() + pcln + unattributedRO
	for _, r := range rows {
		n := withPcln(r)
		fmt.Fprintf(w, "%-58s %9s %9s %9s %9s %9s %11s %5.1f%%\n", r.name, mb(r.text), mb(r.rodata), mb(r.data), mb(r.file()), mb(r.bss), mb(n), 100*float64(n)/float64(total))
	}
	fmt.Fprintf(w, "%-58s %9s\n", "Go runtime tables: .gopclntab (not split by nm)", mb(pcln))
	fmt.Fprintf(w, "%-58s %9s\n", "type descriptors and strings in .rodata (not split by nm)", mb(unattributedRO))
	fmt.Fprintf(w, "%-58s %9s %9s %9s %9s %9s\n", "total", mb(sum.text), mb(sum.rodata), mb(sum.data), mb(total), mb(sum.bss))
	fmt.Fprintf(w, "\nThis build's LOAD segments:\n")
	printLoads(w, f)
}

func printLoads(w *os.File, f *elf.File) {
	var file, mem uint64
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		fmt.Fprintf(w, "  LOAD %-4s file %9s  memory %9s\n", p.Flags.String(), mb(p.Filesz), mb(p.Memsz))
		file += p.Filesz
		mem += p.Memsz
	}
	fmt.Fprintf(w, "  all  file %9s  memory %9s\n", mb(file), mb(mem))
}

func mb(n uint64) string { return fmt.Sprintf("%.2f MB", float64(n)/(1<<20)) }

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "binsize: "+format+"\n", a...)
	os.Exit(2)
}
