package otlpsink

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The wait before retry attempt+1 starts at the minimum (the first retry
// waits the minimum, less its jitter), doubles per failed attempt and
// stops at the maximum; the jitter takes at most a fifth off.
func TestBackoffDoublesFromTheMinimum(t *testing.T) {
	const lo, hi = 100 * time.Millisecond, 1500 * time.Millisecond
	for _, tt := range []struct {
		attempt int
		want    time.Duration // before jitter
	}{
		{0, 100 * time.Millisecond},
		{1, 200 * time.Millisecond},
		{2, 400 * time.Millisecond},
		{3, 800 * time.Millisecond},
		{4, 1500 * time.Millisecond}, // 1600 capped
		{60, 1500 * time.Millisecond},
	} {
		for range 200 { // the jitter is random: many draws, each in bounds
			got := backoff(tt.attempt, lo, hi)
			if got > tt.want || got < tt.want-tt.want/5 {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", tt.attempt, got, tt.want-tt.want/5, tt.want)
			}
		}
	}
}

// Retry-After is delay-seconds or an HTTP date, never more than
// MaxRetryAfter; what cannot be read is -1 (the backoff applies).
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	maxSecs := int64(MaxRetryAfter / time.Second)
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"", -1},
		{" 7 ", 7 * time.Second},
		{"0", 0},
		{"-3", -1},
		{"soon", -1},
		{strconv.FormatInt(maxSecs, 10), MaxRetryAfter},
		{strconv.FormatInt(maxSecs+1, 10), MaxRetryAfter},
		{"99999999999999", MaxRetryAfter},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(MaxRetryAfter + time.Hour).Format(http.TimeFormat), MaxRetryAfter},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
