package stats

import (
	"math"
	"testing"
)

func TestT95(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		df   int
		want float64
	}{{0, 12.706}, {1, 12.706}, {4, 2.776}, {29, 2.045}, {30, 1.96}, {1000, 1.96}} {
		if got := T95(tc.df); got != tc.want {
			t.Errorf("T95(%d) = %v, want %v", tc.df, got, tc.want)
		}
	}
}

// The expected values were computed by hand (python3) from the Welch formula and AgentV's t table.
func TestWelch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		base, head    []float64
		ok            bool
		delta, lo, hi float64
		df            float64
	}{
		{"significant drop, equal variances", []float64{0.9, 0.8, 0.85, 0.95, 0.9}, []float64{0.6, 0.7, 0.65, 0.75, 0.7},
			true, -0.2, -0.283144, -0.116856, 8},
		{"noisy drop spans zero", []float64{0.9, 0.8, 0.85}, []float64{0.6, 0.9, 0.7},
			true, -0.116667, -0.515968, 0.282635, 2.4237},
		{"one side constant", []float64{1, 1, 1}, []float64{0, 1, 1, 0, 1},
			true, -0.4, -1.079978, 0.279978, 4},
		{"both constant is exact", []float64{0.8, 0.8}, []float64{0.5, 0.5},
			true, -0.3, -0.3, -0.3, math.Inf(1)},
		{"one sample", []float64{0.8}, []float64{0.5, 0.4}, false, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			iv, ok := welch(tc.base, tc.head)
			if ok != tc.ok {
				t.Fatalf("ok = %t, want %t", ok, tc.ok)
			}
			near := func(what string, got, want float64) {
				if math.IsInf(want, 1) && math.IsInf(got, 1) {
					return
				}
				if math.Abs(got-want) > 1e-4 {
					t.Errorf("%s = %.6f, want %.6f", what, got, want)
				}
			}
			near("delta", iv.Delta, tc.delta)
			near("low", iv.Low, tc.lo)
			near("high", iv.High, tc.hi)
			near("df", iv.DF, tc.df)
		})
	}
}

func TestMeanVar(t *testing.T) {
	t.Parallel()
	if m, v := MeanVar(nil); m != 0 || v != 0 {
		t.Errorf("MeanVar(nil) = %v, %v", m, v)
	}
	if m, v := MeanVar([]float64{0.7}); m != 0.7 || v != 0 {
		t.Errorf("MeanVar([0.7]) = %v, %v", m, v)
	}
	if m, v := MeanVar([]float64{1, 2, 3, 4}); m != 2.5 || math.Abs(v-5.0/3) > 1e-12 {
		t.Errorf("MeanVar([1 2 3 4]) = %v, %v, want 2.5, 1.6667", m, v)
	}
}
