package stats

import (
	"math"
	"sort"
	"sync"
)

// fisherLess is the one-sided p-value of Fisher's exact test that the head's pass rate is
// lower than the base's: with the total passes fixed, the chance that a random split of the
// m+n trials gives the head h or fewer of them (hypergeometric lower tail).
func fisherLess(m, b, n, h int) float64 {
	if n <= 0 || m <= 0 {
		return 1
	}
	total, passes := m+n, b+h
	lo := max(0, n-(total-passes))
	p := 0.0
	for x := lo; x <= h; x++ {
		p += math.Exp(lchoose(passes, x) + lchoose(total-passes, n-x) - lchoose(total, n))
	}
	return math.Min(p, 1)
}

func lchoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	a, _ := math.Lgamma(float64(n + 1))
	c, _ := math.Lgamma(float64(k + 1))
	d, _ := math.Lgamma(float64(n - k + 1))
	return a - c - d
}

// Plan is the shape of one test's sequential comparison: the base's trials, and the head's
// count (trials always run) and max (trials at most), tested at Level (the family-wise
// level divided among the run's tests).
type Plan struct {
	BaseN, Count, Max int
	Level             float64
}

// Design is a calibrated sequential test of "the head passes less often than the base".
// After each head trial from Count on, it computes Fisher's one-sided p-value against the
// base and rejects (a significant regression) when p ≤ Boundary. It stops early for
// futility when the head has passed at least as often as the base so far, or when even
// failing every remaining trial up to Max could not reach the boundary. Boundary is the
// largest value for which the chance of a rejection at any look, when base and head share
// one true pass rate, is at most Level for every pass rate (exact enumeration over the
// base's outcomes and the head's paths, with both stops in place): the repeated looks and
// the futility stops are part of the error rate, not an afterthought.
type Design struct {
	Plan
	Boundary float64
	// Size is the largest false-rejection chance over the pass-rate grid at Boundary (≤ Level).
	Size float64

	logChoose []float64 // log C(BaseN, b)
}

// Step is a design's answer after a head trial.
type Step int

// The answers of Design.Look.
const (
	// Continue: still undecided; another trial may decide it.
	Continue Step = iota
	// Reject: the head is significantly worse than the base.
	Reject
	// Futile: no number of further trials up to Max can make it significant.
	Futile
	// NoWorse: the head has passed at least as often as the base so far.
	NoWorse
)

// Look is the design's answer after n head trials with h passes against b base passes, and
// the p-value it is based on. Before Count trials it always continues.
func (d *Design) Look(b, n, h int) (Step, float64) {
	p := fisherLess(d.BaseN, b, n, h)
	return d.step(b, n, h, p, fisherLess(d.BaseN, b, d.Max, h), d.Boundary), p
}

// step decides a look at boundary c from the p-value p, and atMax: the p-value if every
// remaining trial up to Max failed.
func (d *Design) step(b, n, h int, p, atMax, c float64) Step {
	if n < d.Count {
		return Continue
	}
	// Calibration and Look compute p-values in different floating-point orders; a relative
	// slack far above their rounding differences makes them agree on which states reject.
	c *= 1 + 1e-9
	if p <= c {
		return Reject
	}
	if n >= d.Max {
		return Futile
	}
	if h*d.BaseN >= b*n {
		return NoWorse
	}
	// Failing every remaining trial is the head's best chance of a rejection (the p-value
	// falls with every failure), so if that path cannot reach c, none can.
	if atMax > c {
		return Futile
	}
	return Continue
}

// rejectMass is the largest chance, over the common pass rates q of grid, of a rejection at
// any look when base and head both pass with probability q, at boundary c.
func (d *Design) rejectMass(c float64, grid []float64, fisher [][][]float64) float64 {
	type state struct {
		n, h    int
		logWays float64
	}
	// For each base outcome, the head paths' states that reject, with the number of ways
	// each is reached without stopping earlier: independent of q.
	rejects := make([][]state, d.BaseN+1)
	for b := 0; b <= d.BaseN; b++ {
		ways := []float64{1} // ways[h] after n trials, among paths still running
		for n := 1; n <= d.Max; n++ {
			next := make([]float64, n+1)
			for h, w := range ways {
				next[h] += w
				next[h+1] += w
			}
			for h := range next {
				if next[h] == 0 {
					continue
				}
				switch d.step(b, n, h, fisher[b][n][h], fisher[b][d.Max][h], c) {
				case Reject:
					rejects[b] = append(rejects[b], state{n, h, math.Log(next[h])})
					next[h] = 0
				case Futile, NoWorse:
					next[h] = 0
				}
			}
			ways = next
		}
	}
	worst := 0.0
	for _, q := range grid {
		lq, lr := math.Log(q), math.Log1p(-q)
		total := 0.0
		for b, rs := range rejects {
			for _, s := range rs {
				// Base b of BaseN and head s.h of s.n: b+s.h passes, the rest failures.
				k, f := b+s.h, d.BaseN-b+s.n-s.h
				total += math.Exp(d.logChoose[b] + s.logWays + xlog(k, lq) + xlog(f, lr))
			}
		}
		worst = math.Max(worst, total)
	}
	return worst
}

// xlog is k·log(x) with 0·log(0) = 0.
func xlog(k int, l float64) float64 {
	if k == 0 {
		return 0
	}
	return float64(k) * l
}

// gridPoints is the number of common pass rates in [0, 1] the size is maximised over. The
// size is a polynomial of degree BaseN+Max in the rate, smooth on this scale.
const gridPoints = 1001

// calibrate finds the design's boundary: the largest Fisher p-value threshold whose size,
// over a grid of 1001 common pass rates in [0, 1], is at most p.Level. Only the p-values
// the design can meet are candidates, and the size grows with the boundary, so bisecting
// over them finds the largest admissible one exactly (on the grid).
func calibrate(p Plan) Design {
	d := Design{Plan: p}
	if p.BaseN < 1 || p.Max < 1 || p.Level <= 0 {
		return d // nothing to compare: Boundary 0 never rejects (a p-value is > 0)
	}
	d.Count = min(max(p.Count, 1), p.Max)
	d.logChoose = make([]float64, p.BaseN+1)
	for b := range d.logChoose {
		d.logChoose[b] = lchoose(p.BaseN, b)
	}
	fisher := make([][][]float64, p.BaseN+1)
	var cands []float64
	for b := range fisher {
		fisher[b] = make([][]float64, p.Max+1)
		for n := 1; n <= p.Max; n++ {
			fisher[b][n] = fisherTail(p.BaseN, b, n)
			for _, f := range fisher[b][n] {
				if f <= 0.5 {
					cands = append(cands, f)
				}
			}
		}
	}
	sort.Float64s(cands)
	grid := make([]float64, gridPoints)
	for i := range grid {
		grid[i] = float64(i) / (gridPoints - 1)
	}
	lo, hi := -1, len(cands)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if d.rejectMass(cands[mid], grid, fisher) <= p.Level {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo >= 0 {
		d.Boundary = cands[lo]
		d.Size = d.rejectMass(d.Boundary, grid, fisher)
	}
	return d
}

// fisherTail is fisherLess(m, b, n, h) for every h from 0 to n, from a table of log
// factorials (a calibration needs a table of them for every base outcome and look).
func fisherTail(m, b, n int) []float64 {
	lf := make([]float64, m+n+1)
	for i := 2; i < len(lf); i++ {
		lf[i] = lf[i-1] + math.Log(float64(i))
	}
	choose := func(n, k int) float64 { return lf[n] - lf[k] - lf[n-k] }
	out := make([]float64, n+1)
	for h := range out {
		total, passes := m+n, b+h
		p := 0.0
		for x := max(0, n-(total-passes)); x <= h; x++ {
			p += math.Exp(choose(passes, x) + choose(total-passes, n-x) - choose(total, n))
		}
		out[h] = math.Min(p, 1)
	}
	return out
}

// Designs calibrates each plan once and keeps it: a run's tests mostly share a plan.
type Designs struct {
	mu    sync.Mutex
	cache map[Plan]*Design
}

// For returns the calibrated design of p.
func (s *Designs) For(p Plan) *Design {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.cache[p]; ok {
		return d
	}
	if s.cache == nil {
		s.cache = map[Plan]*Design{}
	}
	d := calibrate(p)
	s.cache[p] = &d
	return &d
}

// ClopperPearson is the exact two-sided binomial confidence interval for a pass rate, k
// passes of n trials, at confidence 1 − alpha (each tail alpha/2). With no trials it is
// [0, 1].
func ClopperPearson(k, n int, alpha float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	lo, hi = 0, 1
	if k > 0 {
		// The rate at which k or more passes have chance alpha/2.
		lo = bisect(func(p float64) bool { return 1-binomCDF(k-1, n, p) < alpha/2 })
	}
	if k < n {
		// The rate at which k or fewer passes have chance alpha/2.
		hi = bisect(func(p float64) bool { return binomCDF(k, n, p) > alpha/2 })
	}
	return lo, hi
}

// bisect finds where below turns false on [0, 1] (below must be true at 0, false at 1).
func bisect(below func(float64) bool) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// binomCDF is P(X ≤ k) for X binomial with n trials and rate p.
func binomCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	s := 0.0
	for x := 0; x <= k; x++ {
		s += math.Exp(lchoose(n, x) + xlog(x, math.Log(p)) + xlog(n-x, math.Log1p(-p)))
	}
	return math.Min(s, 1)
}

// Hoeffding is a two-sided confidence interval at 1 − alpha for the mean of n scores in
// [0, 1] with sample mean mean: mean ± √(ln(2/alpha) / 2n), clamped to [0, 1]. It assumes
// nothing about the scores' distribution but their range, so it is wide with few trials.
func Hoeffding(mean float64, n int, alpha float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	m := math.Sqrt(math.Log(2/alpha) / (2 * float64(n)))
	return math.Max(0, mean-m), math.Min(1, mean+m)
}
