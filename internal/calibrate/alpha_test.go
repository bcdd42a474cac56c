package calibrate

import (
	"encoding/json"
	"math"
	"testing"
)

// reliability is Krippendorff's worked example (2011, "Computing Krippendorff's
// Alpha-Reliability", §C): 4 observers × 12 units, values 1–5, 0 = missing.
var reliability = [4][12]float64{
	{1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0},
	{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3},
	{0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0},
	{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0},
}

// units transposes observer rows into units, dropping missing values.
func units(rows [4][12]float64) [][]float64 {
	out := make([][]float64, 12)
	for u := range out {
		for _, r := range rows {
			if r[u] != 0 {
				out[u] = append(out[u], r[u])
			}
		}
	}
	return out
}

func TestKrippendorffPublishedValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		level level
		want  float64
	}{
		{nominal, 0.743},
		{ordinal, 0.815},
		{interval, 0.849},
	} {
		t.Run(string(tt.level), func(t *testing.T) {
			t.Parallel()
			a := krippendorffAlpha(units(reliability), tt.level)
			if a.Value == nil {
				t.Fatalf("α undefined: %s", a.Undefined)
			}
			if got := math.Round(*a.Value*1000) / 1000; got != tt.want {
				t.Errorf("α_%s = %.4f, want %.3f", tt.level, *a.Value, tt.want)
			}
			// Unit 12 has one value: not pairable; 11 units with 40 values remain.
			if a.Units != 11 || a.Values != 40 {
				t.Errorf("units %d values %d, want 11 and 40", a.Units, a.Values)
			}
		})
	}
}

func TestKrippendorffEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		units     [][]float64
		undefined string
		want      float64
	}{
		{"no units", nil, noPairs, 0},
		{"single rater per unit", [][]float64{{1}, {3}, {5}}, noPairs, 0},
		{"no variation", [][]float64{{4, 4}, {4, 4, 4}}, noVariation, 0},
		{"perfect agreement", [][]float64{{1, 1}, {5, 5}, {3, 3}}, "", 1},
		// Two coders, systematic opposite answers on a binary scale: α = −(n−1)/n… here −0.5.
		{"total disagreement", [][]float64{{0, 1}, {1, 0}}, "", -0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, level := range []level{nominal, ordinal, interval} {
				a := krippendorffAlpha(tt.units, level)
				if a.Undefined != tt.undefined {
					t.Fatalf("%s: undefined %q, want %q", level, a.Undefined, tt.undefined)
				}
				if tt.undefined != "" {
					if a.Value != nil {
						t.Fatalf("%s: value %v with undefined α", level, *a.Value)
					}
					b, err := json.Marshal(a)
					if err != nil {
						t.Fatal(err)
					}
					var back map[string]any
					if err := json.Unmarshal(b, &back); err != nil || back["value"] != nil {
						t.Fatalf("%s: JSON %s, want value null", level, b)
					}
					continue
				}
				if a.Value == nil || math.Abs(*a.Value-tt.want) > 1e-9 {
					t.Fatalf("%s: α = %v, want %v", level, a.Value, tt.want)
				}
			}
		})
	}
}
