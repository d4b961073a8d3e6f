//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMain lets the test binary be the server the trials run, as the
// footprint binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "server" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

// fakeShim is a shim in sh: it starts a helper of its own (which holds
// memory until the shim ends it), runs the server as its child, and ends
// the helper once the server has exited.
const fakeShim = `#!/bin/sh
while [ "$1" != "--" ]; do shift; done
shift
sleep 600 </dev/null >/dev/null 2>&1 &
helper=$!
"$@"
status=$?
kill $helper
exit $status
`

func TestTrialCountsTheShimAndItsHelpersNotTheServer(t *testing.T) {
	dir := t.TempDir()
	shim := filepath.Join(dir, "shim")
	if err := os.WriteFile(shim, []byte(fakeShim), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := runTrial(tool{name: "fake", bin: shim}, self, filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Helpers != 1 {
		t.Errorf("helpers = %d, want 1 (the sleep; not the server)", tr.Helpers)
	}
	if tr.ShimHWM <= 0 || tr.HelperHWM <= 0 {
		t.Errorf("peak RSS shim %d KiB, helpers %d KiB: want both read", tr.ShimHWM, tr.HelperHWM)
	}
	if tr.StartupNS <= 0 || tr.FirstNS < tr.StartupNS {
		t.Errorf("start-up %d ns, first response %d ns: want 0 < start-up <= first response", tr.StartupNS, tr.FirstNS)
	}
	if tr.CPUNS <= 0 {
		t.Errorf("CPU %d ns, want the tree's", tr.CPUNS)
	}
}

func TestHelpersAreBetweenTheShimAndTheServer(t *testing.T) {
	// 10 the shim: 11 its supervisor, leading group 11, 12 the server
	// under it, 13 what the server started; 14 another helper of the
	// shim, 15 its child; 16 a helper in the server's group whose parent
	// is gone (init's now); 20 a process elsewhere.
	parent := map[int]int{10: 5, 11: 10, 12: 11, 13: 12, 14: 10, 15: 14, 16: 1, 20: 1}
	group := map[int]int{10: 5, 11: 11, 12: 11, 13: 11, 14: 10, 15: 10, 16: 11, 20: 20}
	got := helpersIn(parent, group, 10, 12)
	slices.Sort(got)
	if want := []int{11, 14, 15, 16}; !slices.Equal(got, want) {
		t.Errorf("helpers = %v, want %v", got, want)
	}
	// A shim that made no group for the server: its group is everyone's.
	for _, p := range []int{11, 12, 13, 16, 20} {
		group[p] = 5
	}
	got = helpersIn(parent, group, 10, 12)
	slices.Sort(got)
	if want := []int{11, 14, 15}; !slices.Equal(got, want) {
		t.Errorf("with no group of the server's own: helpers = %v, want %v", got, want)
	}
}

func TestTrialOfTheServerAlone(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := runTrial(tool{name: "server alone"}, self, filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.StartupNS <= 0 || tr.FirstNS < tr.StartupNS || tr.Helpers != 0 || tr.ShimHWM != 0 {
		t.Errorf("server alone: %+v", tr)
	}
}

func TestMedianAndSpread(t *testing.T) {
	ts := []trial{{ShimHWM: 3072}, {ShimHWM: 1024}, {ShimHWM: 2048}}
	r := rows[0]
	if got := median(ts, r); got != 2048 {
		t.Errorf("median = %d, want 2048", got)
	}
	if got, want := spread(ts, r), "2.0 MB [1.0 MB-3.0 MB]"; got != want {
		t.Errorf("spread = %q, want %q", got, want)
	}
}
