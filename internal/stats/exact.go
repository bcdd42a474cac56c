package stats

import (
	"math"
	"slices"
)

// boschlooGrid is how many values of the common pass rate π the Boschloo p-value's supremum
// is taken over (π = 1/G, 2/G, …, (G−1)/G).
const boschlooGrid = 1000

// logChoose is ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// choose is C(n, k) as a float (+Inf when it overflows).
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	return math.Round(math.Exp(logChoose(n, k)))
}

// hyperPMF is P(X = x) for X the successes among nh draws from nb+nh items holding m
// successes.
func hyperPMF(nb, nh, m, x int) float64 {
	if x < 0 || x > nh || m-x < 0 || m-x > nb {
		return 0
	}
	return math.Exp(logChoose(nh, x) + logChoose(nb, m-x) - logChoose(nb+nh, m))
}

// FisherLower is Fisher's exact one-sided p-value for "head passes less often than base":
// P(X ≤ xh) for X hypergeometric given the table's margins (xb of nb base passes, xh of nh
// head passes).
func FisherLower(xb, nb, xh, nh int) float64 {
	m := xb + xh
	lo := max(0, m-nb)
	f := hyperPMF(nb, nh, m, lo)
	if f == 0 && lo <= xh {
		// The first term underflowed (hundreds of trials a side): every term the recurrence
		// derives from it would be 0 too, and p = 0 would read as a certain regression. Sum
		// the terms one by one in log space instead.
		return fisherLess(nb, xb, nh, xh)
	}
	p := 0.0
	for x := lo; x <= xh; x++ {
		p += f
		f = hyperNext(nb, nh, m, x, f)
	}
	return math.Min(p, 1)
}

// hyperNext is P(X = x+1) from f = P(X = x) for hyperPMF's X: the ratio of consecutive terms
// saves a log-gamma per term.
func hyperNext(nb, nh, m, x int, f float64) float64 {
	den := float64((x + 1) * (nb - m + x + 1))
	if den == 0 {
		return 0
	}
	return f * float64((nh-x)*(m-x)) / den
}

// Boschloo holds Boschloo's exact one-sided p-values, per table size, so a run that compares
// many tests of the same trial counts computes each size once. Its zero value is ready; it
// is not safe for concurrent use.
type Boschloo struct {
	tables map[[2]int][][]float64
}

// Lower is Boschloo's exact one-sided p-value for "head passes less often than base", with
// xb of nb base trials and xh of nh head trials passing. The statistic is Fisher's one-sided
// p-value; the p-value is the largest probability, over a common pass rate π on the grid, of
// a table at least as extreme. Fisher's ordering is monotone, so the supremum over the
// one-sided null (head at least as good) lies on π_head = π_base. Both counts must be ≥ 1.
func (b *Boschloo) Lower(xb, nb, xh, nh int) float64 {
	if b.tables == nil {
		b.tables = map[[2]int][][]float64{}
	}
	k := [2]int{nb, nh}
	t, ok := b.tables[k]
	if !ok {
		t = boschlooTable(nb, nh)
		b.tables[k] = t
	}
	return t[xb][xh]
}

// boschlooTable is the Boschloo p-value of every table with nb base and nh head trials.
func boschlooTable(nb, nh int) [][]float64 {
	type cell struct {
		xb, xh int
		f      float64
	}
	cells := make([]cell, 0, (nb+1)*(nh+1))
	for xb := 0; xb <= nb; xb++ {
		for xh := 0; xh <= nh; xh++ {
			cells = append(cells, cell{xb, xh, FisherLower(xb, nb, xh, nh)})
		}
	}
	slices.SortFunc(cells, func(a, b cell) int {
		switch {
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	})
	// group[i] is the last index of cell i's tie group: a table's region holds every table
	// whose Fisher p-value is not larger (relative tolerance against float noise).
	group := make([]int, len(cells))
	for i := len(cells) - 1; i >= 0; i-- {
		if i+1 < len(cells) && cells[i+1].f <= cells[i].f*(1+1e-9)+1e-15 {
			group[i] = group[i+1]
		} else {
			group[i] = i
		}
	}
	sup := make([]float64, len(cells))
	cum := make([]float64, len(cells))
	pb, ph := make([]float64, nb+1), make([]float64, nh+1)
	cb, ch := logChooses(nb), logChooses(nh)
	for g := 1; g < boschlooGrid; g++ {
		pi := float64(g) / boschlooGrid
		binomPMFWith(pb, cb, pi)
		binomPMFWith(ph, ch, pi)
		s := 0.0
		for i, c := range cells {
			s += pb[c.xb] * ph[c.xh]
			cum[i] = s
		}
		for i := range cells {
			sup[i] = math.Max(sup[i], cum[group[i]])
		}
	}
	out := make([][]float64, nb+1)
	for xb := range out {
		out[xb] = make([]float64, nh+1)
	}
	for i, c := range cells {
		// Never below Fisher's own p-value's lower bound of 0, never above 1; Boschloo is at
		// most Fisher's p-value (the grid cannot exceed it by construction of the region).
		out[c.xb][c.xh] = math.Min(1, math.Min(sup[i], c.f))
	}
	return out
}

// binomPMF fills p[k] = C(n, k) π^k (1−π)^(n−k) for n = len(p)−1.
func binomPMF(p []float64, pi float64) { binomPMFWith(p, logChooses(len(p)-1), pi) }

// binomPMFWith is binomPMF with ln C(n, k) given, so a grid over π computes them once.
func binomPMFWith(p, lc []float64, pi float64) {
	n := len(p) - 1
	lp, lq := math.Log(pi), math.Log1p(-pi)
	for k := range p {
		p[k] = math.Exp(lc[k] + float64(k)*lp + float64(n-k)*lq)
	}
}

// logChooses is ln C(n, k) for k = 0…n.
func logChooses(n int) []float64 {
	out := make([]float64, n+1)
	for k := range out {
		out[k] = logChoose(n, k)
	}
	return out
}

// z95 is the two-sided 95 % normal quantile.
const z95 = 1.959963984540054

// wilson is the 95 % Wilson score interval of x successes in n (x may be fractional: a sum of
// scores in [0, 1]).
func wilson(x, n float64) (lo, hi float64) {
	p := x / n
	z2 := z95 * z95
	den := 1 + z2/n
	c := (p + z2/(2*n)) / den
	h := z95 / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return math.Max(0, c-h), math.Min(1, c+h)
}

// Newcombe is Newcombe's hybrid score 95 % interval (his method 10) for the difference of
// two proportions, head − base, with xb of nb and xh of nh successes. The counts may be
// fractional (sums of scores in [0, 1], whose variance is at most μ(1−μ)); both n must be
// ≥ 1. The interval never has zero width.
func Newcombe(xb, nb, xh, nh float64) (delta, lo, hi float64) {
	ph, pb := xh/nh, xb/nb
	l1, u1 := wilson(xh, nh)
	l2, u2 := wilson(xb, nb)
	delta = ph - pb
	lo = delta - math.Sqrt((ph-l1)*(ph-l1)+(u2-pb)*(u2-pb))
	hi = delta + math.Sqrt((u1-ph)*(u1-ph)+(pb-l2)*(pb-l2))
	return delta, math.Max(-1, lo), math.Min(1, hi)
}
