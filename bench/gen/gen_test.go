package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// The port writes what gen.py writes, byte for byte, for the same
// arguments: compared here for small logs when python3 and
// ../shared/bench/gen.py are at hand.
func TestSameOutputAsGenPy(t *testing.T) {
	script := filepath.Join("..", "..", "..", "shared", "bench", "gen.py")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("%s not found: nothing to compare with", script)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: nothing to compare with")
	}
	for _, tc := range []struct {
		n    int
		args []string
	}{
		{0, nil},
		{400, nil},
		{250, []string{"--seed", "7", "--label", "other"}},
	} {
		t.Run(fmt.Sprint(tc.n, tc.args), func(t *testing.T) {
			cmd := exec.Command(python, append([]string{script, fmt.Sprint(tc.n), "-"}, tc.args...)...)
			var pyErr bytes.Buffer
			cmd.Stderr = &pyErr
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("gen.py: %v\n%s", err, pyErr.String())
			}
			n, _, seed, label, err := parseArgs(append([]string{fmt.Sprint(tc.n), "-"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			stats, err := generate(w, n, seed, label)
			if err != nil || w.Flush() != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if gl[i] != wl[i] {
						t.Fatalf("line %d differs:\ngo:     %.400s\npython: %.400s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d lines, gen.py wrote %d", len(gl), len(wl))
			}
			if got := dumpsDefault(stats); got != strings.TrimSpace(pyErr.String()) {
				t.Errorf("stats\n%s\ngen.py's\n%s", got, pyErr.String())
			}
		})
	}
}

// Without gen.py to compare with, the log still has to be what the
// benchmarks need: every line a frame the reader takes, seq 1 on, a
// request and a result per call.
func TestLogReadsBack(t *testing.T) {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	stats, err := generate(w, 300, 42, "bench")
	if err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	r := capture.NewReader(bytes.NewReader(out.Bytes()), "gen")
	var frames, calls, results int
	for {
		f, _, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames++
		if f.Seq != uint64(frames) || f.SessionID != stats[len(stats)-1].val {
			t.Fatalf("frame %d: seq %d session %q", frames, f.Seq, f.SessionID)
		}
		if f.Direction == capture.ClientToServer && bytes.Contains(f.Raw, []byte(`"method":"tools/call"`)) {
			calls++
		}
		if f.Direction == capture.ServerToClient && bytes.Contains(f.Raw, []byte(`"result":{"content"`)) {
			results++
		}
	}
	if calls != 300 || results != 300 || frames != stats[0].val {
		t.Errorf("%d frames (stats say %v), %d calls, %d results; want 300 of each", frames, stats[0].val, calls, results)
	}
}

// The pieces byte identity rests on, against values CPython gives.
func TestPythonParts(t *testing.T) {
	r := newPyRandom(42)
	if got := []float64{r.random(), r.random(), r.random()}; got[0] != 0.6394267984578837 || got[1] != 0.025010755222666936 || got[2] != 0.27502931836911926 {
		t.Errorf("Random(42).random() x3 = %v", got)
	}
	if got := r.getrandbitsHex(160, 40); got != "ad3c2d6d1a3d1fa7bc8960a923b8c1e9392456de" {
		t.Errorf("getrandbits(160) = %s", got)
	}
	if got := r.randint(0, 40000); got != 35741 {
		t.Errorf("randint = %d", got)
	}
	if got := r.lognormvariate(0.18, 0.9); got != 0.3972318932450952 {
		t.Errorf("lognormvariate = %v", got)
	}
	if got := fmt.Sprint(r.sampleIndexes(15, 6)); got != "[0 1 3 12 8 9]" {
		t.Errorf("sample = %s", got)
	}
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", -2.5: "-2.5", 20.09: "20.09", 0.0001: "0.0001", 0.00001: "1e-05",
		1e16: "1e+16", 1234567890123456: "1234567890123456.0", 1.5e-7: "1.5e-07", 123.456e20: "1.23456e+22",
	} {
		if got := pyFloatRepr(f); got != want {
			t.Errorf("repr(%v) = %s, want %s", f, got, want)
		}
	}
	if got := pyRound(2.675, 2); got != 2.67 { // 2.675 is 2.67499999... in binary
		t.Errorf("round(2.675, 2) = %v", got)
	}
	if got := dumps(o("a", "é\u2028<\x01\x7f\"\\", "b", []any{true, nil, 1.5})); got != "{\"a\":\"é\u2028<\\u0001\x7f\\\"\\\\\",\"b\":[true,null,1.5]}" {
		t.Errorf("dumps = %s", got)
	}
	if got := dumpsDefault("é😀\x7f"); got != `"\u00e9\ud83d\ude00\u007f"` {
		t.Errorf("dumps ascii = %s", got)
	}
	if got := pyTitle("hello wORLD x1y"); got != "Hello World X1Y" {
		t.Errorf("title = %s", got)
	}
}

// exp and log are correctly rounded, where Go's math may be an ulp off:
// checked against 300-bit computations (math/big) for arguments where
// math.Log is off, and for a spread of others.
func TestCorrectlyRounded(t *testing.T) {
	for _, tc := range []struct{ x, log float64 }{
		{0.8602372126406794, -0.15054709911635974},
		{0.2735270859410427, -1.2963546275043436},
		{0.4433468034455347, -0.8134029631842905},
	} {
		if got := pyLog(tc.x); got != tc.log {
			t.Errorf("log(%v) = %v, want %v", tc.x, got, tc.log)
		}
	}
	r := newPyRandom(1)
	for i := range 300 {
		x := r.random()
		switch i % 3 {
		case 1:
			x = 1 + (x-0.5)*1e-6 // near 1, where log is small
		case 2:
			x = math.Ldexp(x+0.5, r.randint(-60, 60))
		}
		if x == 0 {
			continue
		}
		if got, want := pyLog(x), bigRound(bigLog(x)); got != want {
			t.Errorf("log(%v) = %v, want %v", x, got, want)
		}
		y := r.uniform(-30, 30)
		if got, want := pyExp(y), bigRound(bigExp(y)); got != want {
			t.Errorf("exp(%v) = %v, want %v", y, got, want)
		}
	}
}

const bigPrec = 300

func bigRound(b *big.Float) float64 { f, _ := b.Float64(); return f }

// bigLog is log(x) = 2 atanh((x-1)/(x+1)), after taking out powers of 2.
func bigLog(x float64) *big.Float {
	m, e := math.Frexp(x)
	nf := func() *big.Float { return new(big.Float).SetPrec(bigPrec) }
	bm := nf().SetFloat64(m)
	one := nf().SetInt64(1)
	z := nf().Quo(nf().Sub(bm, one), nf().Add(bm, one))
	z2 := nf().Mul(z, z)
	sum, term := nf(), nf().Set(z)
	for k := int64(1); k < 400; k += 2 {
		sum.Add(sum, nf().Quo(term, nf().SetInt64(k)))
		term.Mul(term, z2)
	}
	sum.Mul(sum, nf().SetInt64(2))
	// ln 2 the same way: 2 atanh(1/3).
	third := nf().Quo(one, nf().SetInt64(3))
	t2 := nf().Mul(third, third)
	ln2, tt := nf(), nf().Set(third)
	for k := int64(1); k < 800; k += 2 {
		ln2.Add(ln2, nf().Quo(tt, nf().SetInt64(k)))
		tt.Mul(tt, t2)
	}
	ln2.Mul(ln2, nf().SetInt64(2))
	return sum.Add(sum, ln2.Mul(ln2, nf().SetInt64(int64(e))))
}

// bigExp is exp(y) = (exp(y/1024))^1024, by its Taylor series.
func bigExp(y float64) *big.Float {
	nf := func() *big.Float { return new(big.Float).SetPrec(bigPrec) }
	s := nf().SetMantExp(nf().SetFloat64(y), -10)
	sum, term := nf().SetInt64(1), nf().SetInt64(1)
	for k := int64(1); k < 60; k++ {
		term.Mul(term, s)
		term.Quo(term, nf().SetInt64(k))
		sum.Add(sum, term)
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return sum
}
