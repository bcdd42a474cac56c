package stats

import (
	"math"
	"math/rand/v2"
)

// permutationEnumerate is the largest number of relabellings a permutation test enumerates;
// above it the test draws PermutationResamples seeded relabellings instead.
const permutationEnumerate = 50000

// PermutationResamples is how many relabellings a Monte-Carlo permutation test draws.
const PermutationResamples = 10000

// tol absorbs float error when a relabelled statistic equals the observed one.
const tol = 1e-9

// Permutation is the one-sided permutation test of "head's mean is lower than base's": the
// share of the relabellings of the pooled values into groups of len(base) and len(head)
// whose head sum is at most the observed one. It enumerates every relabelling when there
// are at most permutationEnumerate, and otherwise draws PermutationResamples from seed
// (p = (1 + hits) / (1 + draws), which keeps the test valid). exact says which. Both sides
// need at least one value.
func Permutation(base, head []float64, seed uint64) (p float64, exact bool) {
	all := append(append([]float64(nil), base...), head...)
	n, k := len(all), len(head)
	obs := sum(head)
	if c := choose(n, k); c <= permutationEnumerate {
		sums := headSums(all, k)
		hits := 0
		for _, s := range sums {
			if s <= obs+tol {
				hits++
			}
		}
		return float64(hits) / float64(len(sums)), true
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	hits := 0
	buf := make([]float64, n)
	for range PermutationResamples {
		copy(buf, all)
		s := 0.0
		for i := range k { // partial Fisher–Yates: the first k are a uniform k-subset
			j := i + r.IntN(n-i)
			buf[i], buf[j] = buf[j], buf[i]
			s += buf[i]
		}
		if s <= obs+tol {
			hits++
		}
	}
	return float64(1+hits) / float64(1+PermutationResamples), false
}

// subsetSums is the most relabellings of a stratum whose head sums are listed up front.
const subsetSums = 4096

// headSums is the sum of every k-subset of all, one per relabelling (so uniform over them).
func headSums(all []float64, k int) []float64 {
	var out []float64
	var walk func(start, left int, s float64)
	walk = func(start, left int, s float64) {
		if left == 0 {
			out = append(out, s)
			return
		}
		for i := start; i <= len(all)-left; i++ {
			walk(i+1, left-1, s+all[i])
		}
	}
	walk(0, k, 0)
	return out
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// Stratum is one test's samples on each side, for a test pooled over tests.
type Stratum struct {
	Base, Head []float64
}

// StratifiedExact is the exact conditional test of "head passes less often than base" pooled
// over strata of pass/fail outcomes (values 0 or 1): the one-sided Cochran–Mantel–Haenszel
// test in its exact form. Given every stratum's margins, the head's total passes are a sum of
// independent hypergeometric counts; p is the probability that the sum is at most the
// observed one. Strata where every outcome agrees carry no information and fix their share.
func StratifiedExact(strata []Stratum) float64 {
	dist := []float64{1} // dist[s] = P(sum of the head passes so far = s)
	obs := 0
	for _, st := range strata {
		nb, nh := len(st.Base), len(st.Head)
		xb, xh := int(math.Round(sum(st.Base))), int(math.Round(sum(st.Head)))
		obs += xh
		m := xb + xh
		lo, hi := max(0, m-nb), min(nh, m)
		pmf := make([]float64, hi+1)
		for x, f := lo, hyperPMF(nb, nh, m, lo); x <= hi; x++ {
			pmf[x] = f
			f = hyperNext(nb, nh, m, x, f)
		}
		next := make([]float64, len(dist)+hi)
		for s, ps := range dist {
			if ps == 0 {
				continue
			}
			for x := lo; x <= hi; x++ {
				next[s+x] += ps * pmf[x]
			}
		}
		dist = next
	}
	p := 0.0
	for s := 0; s <= obs && s < len(dist); s++ {
		p += dist[s]
	}
	return math.Min(p, 1)
}

// StratifiedPermutation is the Monte-Carlo permutation test of "head scores lower than base"
// pooled over strata of scores: labels are shuffled within each stratum (PermutationResamples
// draws from seed), and the statistic is Σ w·(mean head − mean base) with the
// Cochran–Mantel–Haenszel weight w = n_base·n_head / (n_base + n_head), so a test run more
// often counts more. p = (1 + hits) / (1 + draws).
func StratifiedPermutation(strata []Stratum, seed uint64) float64 {
	type st struct {
		all      []float64
		k        int
		w, total float64
		// sums are the head sums of every relabelling, when there are few: a draw is then one
		// uniform pick instead of a partial shuffle.
		sums []float64
	}
	var ss []st
	stat := func(s st, sumH float64) float64 {
		nb, nh := float64(len(s.all)-s.k), float64(s.k)
		return s.w * (sumH/nh - (s.total-sumH)/nb)
	}
	obs := 0.0
	for _, x := range strata {
		if len(x.Base) == 0 || len(x.Head) == 0 {
			continue
		}
		all := append(append([]float64(nil), x.Base...), x.Head...)
		nb, nh := float64(len(x.Base)), float64(len(x.Head))
		s := st{all: all, k: len(x.Head), w: nb * nh / (nb + nh), total: sum(all)}
		if choose(len(all), s.k) <= subsetSums {
			s.sums = headSums(all, s.k)
		}
		ss = append(ss, s)
		obs += stat(s, sum(x.Head))
	}
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	hits := 0
	for range PermutationResamples {
		t := 0.0
		for _, s := range ss {
			if s.sums != nil {
				t += stat(s, s.sums[r.IntN(len(s.sums))])
				continue
			}
			n := len(s.all)
			sh := 0.0
			for i := range s.k {
				j := i + r.IntN(n-i)
				s.all[i], s.all[j] = s.all[j], s.all[i]
				sh += s.all[i]
			}
			t += stat(s, sh)
		}
		if t <= obs+tol {
			hits++
		}
	}
	return float64(1+hits) / float64(1+PermutationResamples)
}
