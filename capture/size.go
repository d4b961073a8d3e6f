package capture

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultMaxLogSize is the default bound on one session log's size.
const DefaultMaxLogSize = 1 << 30

// sizeUnits are the suffixes ParseSize takes, longest first.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize reads a byte count: a whole number with an optional unit, B,
// KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB or K/M/G/T (powers of
// 1024), case-insensitive ("512MiB", "1g", "100000").
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a whole number of bytes, optionally with a unit (KiB, MiB, GiB, KB, MB, GB)", s)
	}
	if n > 0 && factor > (1<<62)/n {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return n * factor, nil
}

// FormatSize writes a byte count as ParseSize reads it, in the largest
// binary unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		factor int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.factor && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
