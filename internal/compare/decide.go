package compare

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/stats"
)

// Methods of testing a pair, recorded on each paired delta.
const (
	// MethodBoschloo is Boschloo's exact test of two proportions (pass/fail outcomes).
	MethodBoschloo = "boschloo"
	// MethodPermutation is the exact permutation test of the mean score difference.
	MethodPermutation = "permutation"
	// MethodPermutationMC is the permutation test by seeded Monte-Carlo relabellings.
	MethodPermutationMC = "permutation-mc"
	// MethodStratifiedExact is the exact conditional Cochran–Mantel–Haenszel test pooled
	// over tests (pass/fail outcomes).
	MethodStratifiedExact = "cmh-exact"
	// MethodStratifiedPermutation is the permutation test pooled over tests, relabelling
	// within each test (scores).
	MethodStratifiedPermutation = "stratified-permutation"
	// methodSequential is adaptive trials' calibrated sequential test (Fisher's one-sided
	// p-value after each head trial against a boundary; docs/adaptive-trials.md), decided
	// while the head ran.
	methodSequential = "sequential-fisher"
)

// pooledWeight is the share of the family-wise level the pooled test starts with in the
// weighted Holm procedure; the tests share the rest equally. Once one side is rejected its
// share passes to the others.
const pooledWeight = 0.5

// MaxTrials is the most trials per side NeedsTrials looks at (execution.trials' cap).
const MaxTrials = 100

// Stat is how one pair was tested. It is embedded in TestDelta and CriterionDelta.
type Stat struct {
	// Method is one of the Method constants; "" when the pair was not tested (a side has no
	// samples, or the test was added or removed).
	Method string `json:"method,omitempty"`
	// BaseN and HeadN are the samples on each side (trials, judge samples, or 1).
	BaseN int `json:"base_n,omitempty"`
	HeadN int `json:"head_n,omitempty"`
	// P is the one-sided p-value that the head is worse; PAdjusted is P after the family-wise
	// correction (weighted Holm over the run's tests and the pooled test; over the run's
	// criteria for a criterion).
	P         *float64 `json:"p,omitempty"`
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// CILow and CIHigh bound the 95 % interval of Δ (Newcombe's hybrid score interval).
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// NeedsTrials is, for a drop that is not significant, about how many trials per side
	// would make a drop of this size significant at the first step of the correction; -1
	// when not even MaxTrials would.
	NeedsTrials int `json:"needs_trials,omitempty"`
}

// pending is a tested pair awaiting the family-wise correction.
type pending struct {
	stat      *Stat
	change    *Change
	delta     float64
	base      float64 // base and head means, for NeedsTrials
	head      float64
	pDown     float64
	pUp       float64
	crossed   bool
	noiseMove bool
}

// decider tests pairs and then corrects them as one family.
type decider struct {
	opt     Options
	bosch   *stats.Boschloo
	tests   []*pending
	crits   []*pending
	strata  []stats.Stratum
	binary  bool
	passAtK int
	unequal int
	example [2]int
	// needs memoises needsTrials: many tests share rates.
	needs map[[3]float64]int
	// sequential counts the tests adaptive trials decided against the base while they ran,
	// and spent the family-wise level their boundaries were calibrated for (Bonferroni).
	sequential int
	spent      float64
	seqDelta   float64 // the sum of their Δs, for the run's mean Δ
}

func newDecider(opt Options) *decider {
	dc := &decider{opt: opt, binary: true, bosch: opt.bosch}
	if dc.bosch == nil {
		dc.bosch = &stats.Boschloo{}
	}
	return dc
}

// crossed reports whether a verdict crossed from pass or borderline into fail or error.
func crossed(base, head result.Verdict) bool {
	return (base == result.Pass || base == result.Borderline) && (head == result.Fail || head == result.Error)
}

func seed(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// test fills a paired test's delta and queues it for the correction.
func (dc *decider) test(d *TestDelta, base, head *result.TestResult) {
	bs, okb := testSample(base)
	hs, okh := testSample(head)
	cr := crossed(d.Base, d.Head)
	if okb && okh && dc.decided(d, head.TrialSummary, cr) {
		return
	}
	if !okb || !okh {
		d.Change = Unchanged
		if cr {
			d.Change = Changed
		}
		return
	}
	p := dc.pair(&d.Stat, &d.Change, bs, hs, cr, seed(d.Suite, d.ID))
	d.Delta = &p.delta
	dc.tests = append(dc.tests, p)
	dc.strata = append(dc.strata, stats.Stratum{Base: bs.vals, Head: hs.vals})
	dc.binary = dc.binary && bs.passFail && hs.passFail
	if bs.passAtK || hs.passAtK {
		dc.passAtK++
	}
	if len(bs.vals) != len(hs.vals) {
		if dc.unequal == 0 {
			dc.example = [2]int{len(bs.vals), len(hs.vals)}
		}
		dc.unequal++
	}
}

// decided takes a test whose adaptive trials were decided against the base while they ran:
// testing its data again here, after the stop the data chose, would not keep the stated
// error rate (optional stopping), so the sequential test's decision stands. It is left out of
// the Holm family and the pooled test, and its share of the level is spent.
func (dc *decider) decided(d *TestDelta, tr *result.Trials, cr bool) bool {
	if tr == nil || tr.PValue == nil || tr.Boundary == nil || tr.Level == nil || tr.BaseRan < 1 || tr.Ran < 1 {
		return false
	}
	d.Method, d.BaseN, d.HeadN = methodSequential, tr.BaseRan, tr.Ran
	p := *tr.PValue
	d.P = &p
	_, lo, hi := stats.Newcombe(float64(tr.BasePassed), float64(tr.BaseRan), float64(tr.Passed), float64(tr.Ran))
	d.CILow, d.CIHigh = &lo, &hi
	delta := float64(tr.Passed)/float64(tr.Ran) - float64(tr.BasePassed)/float64(tr.BaseRan)
	d.Delta = &delta
	switch {
	case tr.StopReason == result.StopRegression:
		d.Change = Regression
	case cr || math.Abs(delta) >= dc.opt.Noise-eps:
		d.Change = Changed
	default:
		d.Change = Unchanged
	}
	dc.sequential++
	dc.spent += *tr.Level
	dc.seqDelta += delta
	return true
}

// criteria pairs and queues the leaf rows of two tests (base nil: the test was added).
func (dc *decider) criteria(tk pairKey, base, head *result.TestResult) []*CriterionDelta {
	baseRows := map[pairKey]leaf{}
	var baseOrder []pairKey
	if base != nil {
		eachLeaf(base, func(k pairKey, l leaf) {
			baseRows[k] = l
			baseOrder = append(baseOrder, k)
		})
	}
	var out []*CriterionDelta
	eachLeaf(head, func(k pairKey, h leaf) {
		d := &CriterionDelta{Grader: k.a, Criterion: k.b, Head: h.verdict, HeadScore: finite(h.score)}
		out = append(out, d)
		b, ok := baseRows[k]
		if !ok {
			d.Change = Added
			return
		}
		delete(baseRows, k)
		d.Base, d.BaseScore = b.verdict, finite(b.score)
		bs, hs, ok := criterionSamples(base, head, k, b, h)
		cr := crossed(d.Base, d.Head)
		if !ok {
			d.Change = Unchanged
			if cr {
				d.Change = Changed
			}
			return
		}
		p := dc.pair(&d.Stat, &d.Change, bs, hs, cr, seed(tk.a, tk.b, k.a, k.b))
		d.Delta = &p.delta
		dc.crits = append(dc.crits, p)
	})
	for _, k := range baseOrder {
		if b, ok := baseRows[k]; ok {
			out = append(out, &CriterionDelta{Grader: k.a, Criterion: k.b, Base: b.verdict,
				BaseScore: finite(b.score), Change: Removed})
		}
	}
	return out
}

// pair runs the one-sided tests of one pair, both ways, and its interval.
func (dc *decider) pair(st *Stat, ch *Change, b, h sample, cr bool, sd uint64) *pending {
	nb, nh := len(b.vals), len(h.vals)
	sb, sh := sum(b.vals), sum(h.vals)
	p := &pending{stat: st, change: ch, base: sb / float64(nb), head: sh / float64(nh), crossed: cr}
	p.delta = p.head - p.base
	st.BaseN, st.HeadN = nb, nh
	if b.passFail && h.passFail {
		xb, xh := int(math.Round(sb)), int(math.Round(sh))
		st.Method = MethodBoschloo
		p.pDown = dc.bosch.Lower(xb, nb, xh, nh)
		p.pUp = dc.bosch.Lower(xh, nh, xb, nb)
	} else {
		var exact bool
		p.pDown, exact = stats.Permutation(b.vals, h.vals, sd)
		p.pUp, _ = stats.Permutation(neg(b.vals), neg(h.vals), sd)
		st.Method = MethodPermutation
		if !exact {
			st.Method = MethodPermutationMC
		}
	}
	_, lo, hi := stats.Newcombe(sb, float64(nb), sh, float64(nh))
	pd := p.pDown
	st.P, st.CILow, st.CIHigh = &pd, &lo, &hi
	p.noiseMove = math.Abs(p.delta) >= dc.opt.Noise-eps
	return p
}

// conclude corrects the tests (with the pooled test) and the criteria, and sets every
// pair's change.
func (dc *decider) conclude(c *Comparison) {
	c.Comparable = len(dc.tests) + dc.sequential
	// What adaptive trials' sequential tests spent is not the fixed-design family's to spend.
	alpha := dc.opt.Alpha
	if dc.spent > 0 {
		alpha = max(dc.opt.Alpha-dc.spent, 0)
	}
	if m := c.Comparable; m > 0 {
		s := dc.seqDelta
		for _, p := range dc.tests {
			s += p.delta
		}
		c.MeanDelta = s / float64(m)
	}
	ps := make([]float64, 0, len(dc.tests)+1)
	ws := make([]float64, 0, len(dc.tests)+1)
	testW := 1.0
	if len(dc.tests) >= 2 {
		c.Pooled = &Pooled{Tests: len(dc.tests)}
		if dc.binary {
			c.Pooled.Method, c.Pooled.P = MethodStratifiedExact, stats.StratifiedExact(dc.strata)
		} else {
			c.Pooled.Method, c.Pooled.P = MethodStratifiedPermutation, stats.StratifiedPermutation(dc.strata, seed("pooled"))
		}
		ps, ws = append(ps, c.Pooled.P), append(ws, pooledWeight)
		testW = 1 - pooledWeight
	}
	for _, p := range dc.tests {
		ps, ws = append(ps, p.pDown), append(ws, testW/float64(len(dc.tests)))
	}
	reject, adj := stats.Holm(ps, ws, alpha)
	if c.Pooled != nil {
		c.Pooled.PAdjusted, c.Pooled.Significant = adj[0], reject[0]
		reject, adj = reject[1:], adj[1:]
	}
	dc.settle(dc.tests, reject, adj, alpha*testW/float64(max(1, len(dc.tests))))
	cp := make([]float64, len(dc.crits))
	cw := make([]float64, len(dc.crits))
	for i, p := range dc.crits {
		cp[i], cw[i] = p.pDown, 1
	}
	reject, adj = stats.Holm(cp, cw, dc.opt.Alpha)
	dc.settle(dc.crits, reject, adj, dc.opt.Alpha/float64(max(1, len(dc.crits))))
	c.Warnings = dc.warnings(c)
}

// settle sets each pair's change from its corrected tests; first is the level of the
// correction's first step, which NeedsTrials aims at.
func (dc *decider) settle(ps []*pending, reject []bool, adj []float64, first float64) {
	up := make([]float64, len(ps))
	w := make([]float64, len(ps))
	for i, p := range ps {
		up[i], w[i] = p.pUp, 1
	}
	better, _ := stats.Holm(up, w, dc.opt.Alpha)
	for i, p := range ps {
		a := adj[i]
		p.stat.PAdjusted = &a
		switch {
		case reject[i] && p.delta < -eps:
			*p.change = Regression
		case better[i] && p.delta > eps:
			*p.change = Improvement
		case p.noiseMove || p.crossed:
			*p.change = Changed
		default:
			*p.change = Unchanged
		}
		if *p.change == Changed && p.delta < -eps {
			k := [3]float64{p.base, p.head, first}
			n, ok := dc.needs[k]
			if !ok {
				n = needsTrials(p.base, p.head, first)
				if dc.needs == nil {
					dc.needs = map[[3]float64]int{}
				}
				dc.needs[k] = n
			}
			p.stat.NeedsTrials = n
		}
	}
}

// needsTrials is about the smallest number of trials per side at which pass rates (or mean
// scores, whose variance is at most that of a pass rate) of base and head would give Fisher's
// one-sided p-value at most level; -1 above MaxTrials. Fisher is a little more cautious than
// Boschloo, so this errs towards more trials. The p-value falls with n up to rounding, so a
// bisection finds it.
func needsTrials(base, head, level float64) int {
	ok := func(n int) bool {
		xb, xh := int(math.Round(base*float64(n))), int(math.Round(head*float64(n)))
		return xh < xb && stats.FisherLower(xb, n, xh, n) <= level
	}
	if !ok(MaxTrials) {
		return -1
	}
	lo, hi := 0, MaxTrials // ok(hi), and lo is 0 or not ok
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func (dc *decider) warnings(c *Comparison) []string {
	var out []string
	if c.Comparable == 0 && len(c.Tests) > 0 {
		out = append(out, "nothing comparable: no test has a result on both sides (the tests errored or were skipped, or the baseline ran other tests)")
	}
	if dc.passAtK > 0 {
		out = append(out, fmt.Sprintf("%d %s pass_at_k, whose trials stop at the first pass: they are not a fixed sample and detect drops poorly; use strategy: mean to gate on regressions",
			dc.passAtK, plural(dc.passAtK, "test uses", "tests use")))
	}
	if dc.unequal > 0 {
		out = append(out, fmt.Sprintf("%d of %d %s ran a different number of trials on each side (e.g. base %d, head %d): the tests account for it, but the smaller side limits what can be detected",
			dc.unequal, c.Comparable, plural(c.Comparable, "test", "tests"), dc.example[0], dc.example[1]))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func neg(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
