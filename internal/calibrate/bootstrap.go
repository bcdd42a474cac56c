package calibrate

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// The bootstrap of α's confidence interval.
const (
	// resamples is the number of bootstrap resamples of the items.
	resamples = 1000
	// confidence is the interval's coverage.
	confidence = 0.95
	// minItems is the fewest pairable items (units) for an interval and a verdict. Below it the
	// bootstrap has too few distinct resamples to mean anything (5 items allow 126, 10 allow
	// 92,378) and a chance α is too likely: a judge rating at random reaches α ≥ 0.8 against
	// two humans in about 2 % of sets of 5 items. Ten items is also where the interval of a
	// judge that truly agrees (α ≈ 0.9) begins to clear 0.8.
	minItems = 10
	// maxUndefined is the share of resamples with no variation (α undefined) past which the
	// interval is not given: the rest would be a biased sample.
	maxUndefined = 0.05
	// method names the interval in reports.
	method = "percentile bootstrap over items"
)

// CI is a confidence interval of α.
type CI struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Bootstrap describes how the intervals were computed, for the report.
type Bootstrap struct {
	Method     string  `json:"method"`
	Resamples  int     `json:"resamples"`
	Confidence float64 `json:"confidence"`
	MinItems   int     `json:"min_items"`
}

// bootstrapCI is the percentile interval of the interval α over resamples of units (items)
// drawn with replacement, from a generator seeded by seed (the criterion's name): the same
// ratings always give the same interval. ok is false, with why, when there are fewer than
// minItems pairable units (what names them) or too many resamples without variation.
func bootstrapCI(units [][]float64, seed, what string) (ci CI, ok bool, why string) {
	var pairable [][]float64
	for _, u := range units {
		if len(u) >= 2 {
			pairable = append(pairable, u)
		}
	}
	n := len(pairable)
	if n < minItems {
		return CI{}, false, fmt.Sprintf("only %d %s; at least %d are needed for a confidence interval", n, what, minItems)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(0x65766c67617465, h.Sum64()))
	sample := make([][]float64, n)
	alphas := make([]float64, 0, resamples)
	for range resamples {
		for i := range sample {
			sample[i] = pairable[rng.IntN(n)]
		}
		if a, ok := intervalAlpha(sample); ok {
			alphas = append(alphas, a)
		}
	}
	if undefined := resamples - len(alphas); float64(undefined) > maxUndefined*resamples {
		return CI{}, false, "α is undefined in too many resamples (the ratings hardly vary)"
	}
	sort.Float64s(alphas)
	tail := (1 - confidence) / 2
	return CI{Low: quantile(alphas, tail), High: quantile(alphas, 1-tail)}, true, ""
}

// intervalAlpha is the interval α in closed form, equal to KrippendorffAlpha(units, Interval)
// up to rounding but linear in the number of values, for the bootstrap's many resamples: with
// δ² = (c − k)², the observed disagreement of a unit of m values is m/(m−1)·Σ(v − ū)² and the
// expected one is n·Σ(v − v̄)² over all n pairable values.
func intervalAlpha(units [][]float64) (float64, bool) {
	var n, sum float64
	for _, u := range units {
		n += float64(len(u))
		for _, v := range u {
			sum += v
		}
	}
	grand := sum / n
	var observed, expected float64
	for _, u := range units {
		m := float64(len(u))
		var um float64
		for _, v := range u {
			um += v
		}
		um /= m
		var ss float64
		for _, v := range u {
			ss += (v - um) * (v - um)
			expected += (v - grand) * (v - grand)
		}
		observed += m / (m - 1) * ss
	}
	if expected == 0 {
		return 0, false
	}
	a := 1 - (n-1)*observed/(n*expected)
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return 0, false
	}
	return a, true
}

// quantile is the p-quantile of sorted xs, interpolated linearly between order statistics.
func quantile(xs []float64, p float64) float64 {
	pos := p * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}
