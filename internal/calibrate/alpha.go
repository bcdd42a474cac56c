package calibrate

import (
	"math"
	"sort"
)

// level is the measurement level of Krippendorff's α: it chooses the difference function δ².
type level string

// Levels of measurement.
const (
	nominal  level = "nominal"  // δ² = 0 when equal, 1 otherwise
	ordinal  level = "ordinal"  // δ² from the ranks of the pooled values
	interval level = "interval" // δ² = (c − k)²
)

// Alpha is Krippendorff's α for one set of reliability data, or why it is undefined.
type Alpha struct {
	// Value is α; nil when α is undefined (then Undefined says why). Never NaN.
	Value *float64 `json:"value"`
	// Undefined says why there is no α: no unit with two values, or no variation at all.
	Undefined string `json:"undefined,omitempty"`
	// Units counts the pairable units (those with at least two values); Values the values in them.
	Units  int `json:"units"`
	Values int `json:"values"`
	// CI is the bootstrap confidence interval (interval level only; see Bootstrap), nil with
	// NoCI saying why: too few items, or too little variation.
	CI   *CI    `json:"ci,omitempty"`
	NoCI string `json:"no_ci,omitempty"`
}

// Reasons α is undefined.
const (
	noPairs     = "no item has two ratings"
	noVariation = "every rating is the same value (no variation)"
	overflow    = "the ratings are too large to compute α"
)

// krippendorffAlpha computes α = 1 − (n − 1)·Σ o_ck δ²_ck / Σ n_c n_k δ²_ck from the coincidence
// matrix (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). Each unit holds the
// values its coders gave; a missing value is simply absent, and a unit with fewer than two values
// is not pairable and left out, as the definition requires.
func krippendorffAlpha(units [][]float64, level level) Alpha {
	values := map[float64]int{} // value → index in sorted order
	var pairable [][]float64
	for _, u := range units {
		if len(u) < 2 {
			continue
		}
		pairable = append(pairable, u)
		for _, v := range u {
			values[v] = 0
		}
	}
	a := Alpha{Units: len(pairable)}
	if len(pairable) == 0 {
		a.Undefined = noPairs
		return a
	}
	sorted := make([]float64, 0, len(values))
	for v := range values {
		sorted = append(sorted, v)
	}
	sort.Float64s(sorted)
	for i, v := range sorted {
		values[v] = i
	}
	// o[c][k]: coincidences of values c and k within units, each pair weighted 1/(m_u − 1).
	q := len(sorted)
	o := make([][]float64, q)
	for i := range o {
		o[i] = make([]float64, q)
	}
	for _, u := range pairable {
		w := 1 / float64(len(u)-1)
		for i, vi := range u {
			for j, vj := range u {
				if i != j {
					o[values[vi]][values[vj]] += w
				}
			}
		}
		a.Values += len(u)
	}
	nc := make([]float64, q)
	var n float64
	for c := range o {
		for k := range o[c] {
			nc[c] += o[c][k]
		}
		n += nc[c]
	}
	delta := deltaFunc(level, sorted, nc)
	var observed, expected float64
	for c := 0; c < q; c++ {
		for k := 0; k < q; k++ {
			d := delta(c, k)
			observed += o[c][k] * d
			expected += nc[c] * nc[k] * d
		}
	}
	if expected == 0 {
		a.Undefined = noVariation
		return a
	}
	v := 1 - (n-1)*observed/expected
	// Interval δ² of huge ratings overflows; JSON cannot carry the NaN or ±Inf that follows.
	if math.IsInf(observed, 0) || math.IsInf(expected, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
		a.Undefined = overflow
		return a
	}
	a.Value = &v
	return a
}

// deltaFunc returns δ²(c, k) over value indexes for the level.
func deltaFunc(level level, sorted, nc []float64) func(c, k int) float64 {
	switch level {
	case interval:
		return func(c, k int) float64 { d := sorted[c] - sorted[k]; return d * d }
	case ordinal:
		return func(c, k int) float64 {
			lo, hi := min(c, k), max(c, k)
			var s float64
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			s -= (nc[c] + nc[k]) / 2
			return s * s
		}
	default:
		return func(c, k int) float64 {
			if c == k {
				return 0
			}
			return 1
		}
	}
}
