package reports

import (
	"math"
	"testing"
)

// TestScoreNeverRoundsUpAcrossALine: a score is truncated to two decimals, so one below a pass
// or borderline line never shows as the line itself.
func TestScoreNeverRoundsUpAcrossALine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{0.797, "0.79"},     // below pass ≥ 0.80: must not read "0.80"
		{0.5999, "0.59"},    // below borderline ≥ 0.60
		{0.8, "0.80"},       // on the line
		{0.7 + 0.1, "0.80"}, // 0.7999999999999999 in floating point: still on the line
		{1, "1.00"},
		{0.999, "0.99"}, // not perfect, not "1.00"
		{0, "0.00"},
		{math.NaN(), "0.00"}, // a broken grader's output
	}
	for _, tt := range tests {
		if got := score(tt.in); got != tt.want {
			t.Errorf("score(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in   float64
		want string
	}{{0.007, "+0.01"}, {-0.296, "-0.30"}, {0.001, "±0.00"}} {
		if got := signed(tt.in); got != tt.want {
			t.Errorf("signed(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
