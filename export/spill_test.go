package export

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSpillRoundTrip writes interleaved records of two sessions and calls
// out of index order through spills with a tiny memory budget (so most of
// it goes through the file, records larger than the budget included), and
// reads them back.
func TestSpillRoundTrip(t *testing.T) {
	for _, budget := range []int{16, 100, 1 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			dir := t.TempDir()
			ev, cs := newSpill(dir, budget), newSpill(dir, budget)
			defer ev.close()
			defer cs.close()
			a, b := &eventRecords{sp: ev}, &eventRecords{sp: ev}
			var wantA, wantB []string
			for i := range 300 {
				rec := fmt.Sprintf("event %d %s", i, strings.Repeat("x", i%37*7))
				if i%50 < 10 { // runs of the other session in between
					b.add([]byte(rec))
					wantB = append(wantB, rec)
				} else {
					a.add([]byte(rec))
					wantA = append(wantA, rec)
				}
			}
			a.add(nil) // an empty record is a record
			wantA = append(wantA, "")
			if len(a.spans) > 8 {
				t.Errorf("%d spans for 7 runs", len(a.spans))
			}
			checkEach(t, a, wantA)
			checkEach(t, b, wantB)

			calls := &callRecords{sp: cs}
			order := []int{2, 0, 1, 5, 3, 4, 9, 8, 7, 6}
			for _, i := range order {
				if i == 7 {
					calls.add(i, nil) // no record: an empty slot
					continue
				}
				calls.add(i, []byte(fmt.Sprintf("call %d %s", i, strings.Repeat("y", i*40))))
			}
			calls.grow(12)
			if calls.Len() != 12 {
				t.Fatalf("Len %d, want 12", calls.Len())
			}
			var got []string
			if err := calls.Each(func(i int, b []byte) error {
				got = append(got, string(b))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != calls.Len() {
				t.Fatalf("Each gave %d slots of %d", len(got), calls.Len())
			}
			for i, g := range got {
				want := ""
				if i < 10 && i != 7 {
					want = fmt.Sprintf("call %d %s", i, strings.Repeat("y", i*40))
				}
				if g != want {
					t.Errorf("call %d: got %q, want %q", i, g, want)
				}
			}
			if b, _ := calls.At(3); !bytes.HasPrefix(b, []byte("call 3 ")) {
				t.Errorf("At(3) = %q", b)
			}
		})
	}
}

func checkEach(t *testing.T, r *eventRecords, want []string) {
	t.Helper()
	var got []string
	err := r.Each(func(i int, b []byte) error {
		if i != len(got) {
			t.Errorf("index %d, want %d", i, len(got))
		}
		got = append(got, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != len(want) || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %d records, want %d (Len %d)", len(got), len(want), r.Len())
	}
}

// TestSpillLeavesNoFile: the spill file is gone once the spill is closed
// (on Unix it has no name from the start).
func TestSpillLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	sp := newSpill(dir, 8)
	r := &eventRecords{sp: sp}
	for range 100 {
		r.add([]byte("some bytes to spill"))
	}
	checkEach(t, r, strings.Split(strings.Repeat("some bytes to spill|", 100), "|")[:100])
	if err := sp.close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestSpillSettleBeforeWriterRuns: a spill read back right after its first
// flush, before the file writer's goroutine was ever scheduled, still
// settles (the writer used to read its channel from the spill, which
// settle had already cleared, and both waited for ever).
func TestSpillSettleBeforeWriterRuns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done := make(chan error, 1)
	go func() {
		for range 50 {
			sp := newSpill(t.TempDir(), 16)
			r := &eventRecords{sp: sp}
			r.add([]byte(strings.Repeat("y", 20))) // one flush (of 16 bytes) starts the writer
			err := r.Each(func(int, []byte) error { return nil })
			sp.close()
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the spill deadlocked settling before its writer ran")
	}
}
