package checker

import (
	"runtime"
	"testing"
)

// Parts that read at once share the cores validating frames: together they
// keep as many batches in flight as one engine does, not one engine's each.
func TestPartsShareTheWirePool(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	if one := New(Config{Wire: true}).pool.maxInFlight; one != cores {
		t.Fatalf("one engine: %d batches in flight, want %d", one, cores)
	}
	for _, parts := range []int{1, 2, 4, cores, 4 * cores} {
		got := NewPart(Config{Wire: true}, parts).pool.maxInFlight
		if want := max(1, cores/parts); got != want {
			t.Errorf("%d parts: %d batches in flight each, want %d", parts, got, want)
		}
		if got*parts > max(cores, parts) {
			t.Errorf("%d parts keep %d batches in flight in all, one engine %d", parts, got*parts, cores)
		}
	}
	if p := NewPart(Config{}, 4); p.pool != nil {
		t.Error("a part without --wire has a validation pool")
	}
}
