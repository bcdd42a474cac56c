// Package compare measures a head run against a base run (a baseline results.json): it pairs
// tests and criteria, and decides which changes are regressions with one-sided exact tests
// under family-wise control at a stated level. It sits between scoring and the gate: the gate
// counts its significant regressions and the reports render it. See docs/regressions.md.
package compare

import (
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/stats"
)

// DefaultNoise is the score change below which a change that is not significant is not shown
// as one: AgentV's `compare --threshold` default. It never makes a regression.
const DefaultNoise = 0.1

// DefaultAlpha is the default family-wise level of the regression gate (regression_alpha).
const DefaultAlpha = 0.05

// eps absorbs float error, so 0.9 − 0.8 counts as a change of 0.1.
const eps = 1e-9

// Change classifies one test or criterion between a base run and a head run.
type Change string

// Changes. Added and Removed are never regressions: a new test has nothing to regress from.
const (
	Unchanged Change = "unchanged"
	// Regression is a drop that is significant after the family-wise correction.
	Regression Change = "regression"
	// Improvement is a rise that is significant after the same correction.
	Improvement Change = "improvement"
	// Changed is a change of at least the noise threshold, or a verdict that crossed into
	// fail or error, that the evidence does not make significant.
	Changed Change = "changed"
	Added   Change = "added"
	Removed Change = "removed"
)

// Options are how Compare decides.
type Options struct {
	// Alpha is the family-wise level: the chance that an unchanged head is reported with any
	// significant regression is at most Alpha. ≤ 0, ≥ 1 or NaN means DefaultAlpha.
	Alpha float64
	// Noise is the smallest change shown as changed when it is not significant; ≤ 0 or NaN
	// means DefaultNoise.
	Noise float64

	// bosch, when set, is shared across comparisons (the simulation compares thousands).
	bosch *stats.Boschloo
}

func (o Options) normal() Options {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = DefaultAlpha
	}
	if !(o.Noise > 0 && o.Noise < 1) {
		o.Noise = DefaultNoise
	}
	return o
}

// Comparison is a head run measured against a base run.
type Comparison struct {
	Noise   float64 `json:"noise"`
	Alpha   float64 `json:"alpha"`
	BaseSHA string  `json:"base_sha,omitempty"`
	HeadSHA string  `json:"head_sha,omitempty"`
	// BaseScore and HeadScore are the runs' mean scores over scored tests.
	BaseScore float64 `json:"base_score"`
	HeadScore float64 `json:"head_score"`
	// MeanDelta is the mean Δ over the comparable tests (AgentV's meanDelta).
	MeanDelta float64 `json:"mean_delta"`
	// Comparable is how many tests have samples on both sides. 0 means the baseline says
	// nothing about the head: its tests all errored or were skipped, or it shares none.
	Comparable int `json:"comparable"`
	// Pooled is the suite-level test over all comparable tests, nil with fewer than two.
	Pooled *Pooled `json:"pooled,omitempty"`
	// Warnings say what weakens the comparison (pass_at_k trials, unequal trial counts).
	Warnings []string `json:"warnings,omitempty"`
	// Tests are the head's tests in run order, then the tests only the base had.
	Tests []*TestDelta `json:"tests"`

	index map[pairKey]*TestDelta
}

// Pooled is the one-sided test that the head is worse over all comparable tests together,
// stratified by test, so a small drop spread over many tests is seen.
type Pooled struct {
	Method string  `json:"method"`
	Tests  int     `json:"tests"`
	P      float64 `json:"p"`
	// PAdjusted is P after the family-wise (weighted Holm) correction.
	PAdjusted   float64 `json:"p_adjusted"`
	Significant bool    `json:"significant"`
}

// TestDelta is one test, paired by (suite name, test label).
type TestDelta struct {
	Suite string `json:"suite"`
	ID    string `json:"id"`
	// Base and Head are the verdicts on each side ("" when the test is absent there).
	Base      result.Verdict `json:"base,omitempty"`
	Head      result.Verdict `json:"head,omitempty"`
	BaseScore float64        `json:"base_score"`
	HeadScore float64        `json:"head_score"`
	// Delta is the head's mean sample − the base's (pass rate for pass/fail outcomes, mean
	// score otherwise), nil unless both sides have samples.
	Delta  *float64 `json:"delta,omitempty"`
	Change Change   `json:"change"`
	Stat
	Criteria []*CriterionDelta `json:"criteria,omitempty"`
}

// CriterionDelta is one criterion (or criterion-less grader), paired by (grader, criterion
// id); Grader is the grader path ("composite › member" for composite members), Criterion ""
// for a grader without criteria. Criteria are shown, never counted by the gate.
type CriterionDelta struct {
	Grader    string         `json:"grader"`
	Criterion string         `json:"criterion,omitempty"`
	Base      result.Verdict `json:"base,omitempty"`
	Head      result.Verdict `json:"head,omitempty"`
	BaseScore float64        `json:"base_score"`
	HeadScore float64        `json:"head_score"`
	Delta     *float64       `json:"delta,omitempty"`
	Change    Change         `json:"change"`
	Stat
}

type pairKey struct {
	a, b string
	n    int // occurrence, so duplicate ids pair in order instead of colliding
}

// Compare pairs base and head tests by (suite name, test label) and their criteria by
// (grader, criterion id), and tests every pair with samples on both sides (see decide.go).
// Either run may be nil (everything is then added or removed).
func Compare(base, head *result.Run, opt Options) *Comparison {
	opt = opt.normal()
	if base == nil {
		base = &result.Run{}
	}
	if head == nil {
		head = &result.Run{}
	}
	c := &Comparison{Noise: opt.Noise, Alpha: opt.Alpha, index: map[pairKey]*TestDelta{}}
	if base.Context != nil {
		c.BaseSHA = base.Context.SHA
	}
	if head.Context != nil {
		c.HeadSHA = head.Context.SHA
	}
	baseTests := map[pairKey]*result.TestResult{}
	var baseOrder []pairKey
	eachTest(base, func(k pairKey, t *result.TestResult) {
		baseTests[k] = t
		baseOrder = append(baseOrder, k)
	})
	dc := newDecider(opt)
	eachTest(head, func(k pairKey, t *result.TestResult) {
		d := &TestDelta{Suite: k.a, ID: k.b, Head: t.Verdict, HeadScore: finite(t.Score)}
		if b, ok := baseTests[k]; ok {
			delete(baseTests, k)
			d.Base, d.BaseScore = b.Verdict, finite(b.Score)
			dc.test(d, b, t)
			d.Criteria = dc.criteria(k, b, t)
		} else {
			d.Change = Added
			d.Criteria = dc.criteria(k, nil, t)
		}
		c.add(k, d)
	})
	for _, k := range baseOrder {
		if b, ok := baseTests[k]; ok {
			c.add(k, &TestDelta{Suite: k.a, ID: k.b, Base: b.Verdict, BaseScore: finite(b.Score), Change: Removed})
		}
	}
	dc.conclude(c)
	c.BaseScore, c.HeadScore = meanScore(base), meanScore(head)
	return c
}

func (c *Comparison) add(k pairKey, d *TestDelta) {
	c.Tests = append(c.Tests, d)
	c.index[k] = d
}

// eachTest calls f for every test of run with its pairing key.
func eachTest(run *result.Run, f func(pairKey, *result.TestResult)) {
	seen := map[pairKey]int{}
	for _, s := range run.Suites {
		if s == nil {
			continue
		}
		for _, t := range s.Tests {
			if t == nil {
				continue
			}
			k := pairKey{a: s.Name, b: t.Label()}
			k.n = seen[k]
			seen[pairKey{a: s.Name, b: t.Label()}]++
			f(k, t)
		}
	}
}

// maxDepth bounds how deep composite members are paired (as the reports flatten them).
const maxDepth = 8

// leaf is one criterion or criterion-less grader of a test.
type leaf struct {
	verdict result.Verdict
	score   float64
	c       *result.CriterionResult
}

// eachLeaf calls f for every leaf row of t as the reports show it: each criterion of a
// grader, a grader without criteria or members, and composite members by "parent › member".
func eachLeaf(t *result.TestResult, f func(pairKey, leaf)) {
	seen := map[pairKey]int{}
	emit := func(path, crit string, l leaf) {
		k := pairKey{a: path, b: crit}
		k.n = seen[k]
		seen[pairKey{a: path, b: crit}]++
		f(k, l)
	}
	var walk func(gs []*result.GraderResult, prefix string, depth int)
	walk = func(gs []*result.GraderResult, prefix string, depth int) {
		for _, g := range gs {
			if g == nil {
				continue
			}
			name := g.Name
			if name == "" {
				name = g.Type
			}
			if prefix != "" {
				name = prefix + " › " + name
			}
			if len(g.Criteria) == 0 && (len(g.Members) == 0 || depth >= maxDepth) {
				emit(name, "", leaf{verdict: g.Verdict, score: g.Score})
			}
			for _, cr := range g.Criteria {
				if cr != nil {
					emit(name, cr.ID, leaf{verdict: cr.Verdict, score: cr.Score, c: cr})
				}
			}
			if depth < maxDepth {
				walk(g.Members, name, depth+1)
			}
		}
	}
	walk(t.Graders, "", 0)
}

// Test returns the delta of the head (or base-only) test (suite, id), nil when unknown.
func (c *Comparison) Test(suite, id string) *TestDelta {
	if c == nil {
		return nil
	}
	if c.index != nil {
		return c.index[pairKey{a: suite, b: id}]
	}
	for _, d := range c.Tests {
		if d != nil && d.Suite == suite && d.ID == id {
			return d
		}
	}
	return nil
}

// Criterion returns the delta of criterion (or criterion-less grader) crit of grader, nil when
// unknown.
func (d *TestDelta) Criterion(grader, crit string) *CriterionDelta {
	if d == nil {
		return nil
	}
	for _, cd := range d.Criteria {
		if cd != nil && cd.Grader == grader && cd.Criterion == crit {
			return cd
		}
	}
	return nil
}

// Count returns how many tests have change ch.
func (c *Comparison) Count(ch Change) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, d := range c.Tests {
		if d != nil && d.Change == ch {
			n++
		}
	}
	return n
}

// Regressions counts the tests whose drop is significant after correction (criteria are
// shown but not counted), for fail_on_regression.
func (c *Comparison) Regressions() int { return c.Count(Regression) }

// PooledRegression reports whether the suite-level pooled test found the head worse.
func (c *Comparison) PooledRegression() bool {
	return c != nil && c.Pooled != nil && c.Pooled.Significant
}

// NothingComparable reports whether the baseline has no test to compare the head with.
func (c *Comparison) NothingComparable() bool { return c != nil && c.Comparable == 0 }

func isScored(v result.Verdict) bool {
	return v == result.Pass || v == result.Borderline || v == result.Fail
}

// meanScore is the mean score over a run's scored tests.
func meanScore(run *result.Run) float64 {
	var s float64
	n := 0
	eachTest(run, func(_ pairKey, t *result.TestResult) {
		if isScored(t.Verdict) {
			s += finite(t.Score)
			n++
		}
	})
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
