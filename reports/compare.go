package reports

import (
	"math"

	"github.com/evalgate/evalgate/internal/result"
)

// DefaultNoise is the score change Compare ignores: AgentV's `compare --threshold` default.
const DefaultNoise = 0.1

// eps absorbs float error, so 0.9 − 0.8 counts as a change of 0.1.
const eps = 1e-9

// Change classifies one test or criterion between a base run and a head run.
type Change string

// Changes. Added and Removed are never regressions: a new test has nothing to regress from.
const (
	Unchanged   Change = "unchanged"
	Regression  Change = "regression"
	Improvement Change = "improvement"
	Added       Change = "added"
	Removed     Change = "removed"
)

// Comparison is a head run measured against a base run (a baseline results.json).
type Comparison struct {
	Noise   float64 `json:"noise"`
	BaseSHA string  `json:"base_sha,omitempty"`
	HeadSHA string  `json:"head_sha,omitempty"`
	// BaseScore and HeadScore are the runs' mean scores over scored tests.
	BaseScore float64 `json:"base_score"`
	HeadScore float64 `json:"head_score"`
	// MeanDelta is the mean Δ over tests scored on both sides (AgentV's meanDelta).
	MeanDelta float64 `json:"mean_delta"`
	// Tests are the head's tests in run order, then the tests only the base had.
	Tests []*TestDelta `json:"tests"`

	index map[pairKey]*TestDelta
}

// TestDelta is one test, paired by (suite name, test id).
type TestDelta struct {
	Suite string `json:"suite"`
	ID    string `json:"id"`
	// Base and Head are the verdicts on each side ("" when the test is absent there).
	Base      result.Verdict `json:"base,omitempty"`
	Head      result.Verdict `json:"head,omitempty"`
	BaseScore float64        `json:"base_score"`
	HeadScore float64        `json:"head_score"`
	// Delta is HeadScore − BaseScore, nil unless both sides have a score (not error or skip).
	Delta  *float64 `json:"delta,omitempty"`
	Change Change   `json:"change"`
	Spread
	Criteria []*CriterionDelta `json:"criteria,omitempty"`
}

// CriterionDelta is one criterion (or criterion-less grader), paired by (grader, criterion id);
// Grader is the grader path ("composite › member" for composite members), Criterion "" for a
// grader without criteria.
type CriterionDelta struct {
	Grader    string         `json:"grader"`
	Criterion string         `json:"criterion,omitempty"`
	Base      result.Verdict `json:"base,omitempty"`
	Head      result.Verdict `json:"head,omitempty"`
	BaseScore float64        `json:"base_score"`
	HeadScore float64        `json:"head_score"`
	Delta     *float64       `json:"delta,omitempty"`
	Change    Change         `json:"change"`
	Spread
}

type pairKey struct {
	a, b string
	n    int // occurrence, so duplicate ids pair in order instead of colliding
}

// Compare pairs base and head tests by (suite name, test id) and their criteria by (grader,
// criterion id). With two or more trials on both sides a test (or criterion, over its per-trial
// pass rate) regresses only when the 95 % Welch t-interval of its Δ lies below 0 and the Δ is at
// least noise (see decide). Otherwise a test or criterion regresses when its score fell by at
// least noise, or its verdict crossed into fail or error from pass or borderline; it improves
// when its score rose by at least noise. Scores are compared only when both sides have one. noise ≤ 0 (or NaN) means
// DefaultNoise. Either run may be nil (everything is then added or removed).
func Compare(base, head *result.Run, noise float64) *Comparison {
	if !(noise > 0) || math.IsInf(noise, 0) {
		noise = DefaultNoise
	}
	if base == nil {
		base = &result.Run{}
	}
	if head == nil {
		head = &result.Run{}
	}
	c := &Comparison{Noise: noise, index: map[pairKey]*TestDelta{}}
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
	var sum float64
	var paired int
	eachTest(head, func(k pairKey, t *result.TestResult) {
		d := &TestDelta{Suite: k.a, ID: k.b, Head: t.Verdict, HeadScore: finite(t.Score)}
		if b, ok := baseTests[k]; ok {
			delete(baseTests, k)
			d.Base, d.BaseScore = b.Verdict, finite(b.Score)
			d.Delta, d.Change, d.Spread = decide(d.Base, d.Head, d.BaseScore, d.HeadScore, noise, trialScores(b), trialScores(t))
			d.Criteria = compareCriteria(b, t, noise)
			if d.Delta != nil {
				sum += *d.Delta
				paired++
			}
		} else {
			d.Change = Added
			d.Criteria = compareCriteria(nil, t, noise)
		}
		c.add(k, d)
	})
	for _, k := range baseOrder {
		b, ok := baseTests[k]
		if !ok {
			continue
		}
		d := &TestDelta{Suite: k.a, ID: k.b, Base: b.Verdict, BaseScore: finite(b.Score), Change: Removed}
		c.add(k, d)
	}
	if paired > 0 {
		c.MeanDelta = sum / float64(paired)
	}
	c.BaseScore = newView(base, nil).tally.mean()
	c.HeadScore = newView(head, nil).tally.mean()
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

// compareCriteria pairs the leaf rows (criteria, criterion-less graders) of two tests.
func compareCriteria(base, head *result.TestResult, noise float64) []*CriterionDelta {
	baseRows := map[pairKey]row{}
	var baseOrder []pairKey
	if base != nil {
		eachLeaf(base, func(k pairKey, r row) {
			baseRows[k] = r
			baseOrder = append(baseOrder, k)
		})
	}
	var out []*CriterionDelta
	eachLeaf(head, func(k pairKey, r row) {
		d := &CriterionDelta{Grader: k.a, Criterion: k.b, Head: r.verdict, HeadScore: finite(r.score)}
		if b, ok := baseRows[k]; ok {
			delete(baseRows, k)
			d.Base, d.BaseScore = b.verdict, finite(b.score)
			bsamp, hsamp := criterionSamples(base, head, k, b, r)
			d.Delta, d.Change, d.Spread = decide(d.Base, d.Head, d.BaseScore, d.HeadScore, noise, bsamp, hsamp)
		} else {
			d.Change = Added
		}
		out = append(out, d)
	})
	for _, k := range baseOrder {
		if b, ok := baseRows[k]; ok {
			out = append(out, &CriterionDelta{Grader: k.a, Criterion: k.b, Base: b.verdict,
				BaseScore: finite(b.score), Change: Removed})
		}
	}
	return out
}

func eachLeaf(t *result.TestResult, f func(pairKey, row)) {
	seen := map[pairKey]int{}
	for _, r := range flatten(nil, t.Graders, "", false, 0) {
		if !r.leaf {
			continue
		}
		k := pairKey{a: r.path, b: r.crit}
		k.n = seen[k]
		seen[pairKey{a: r.path, b: r.crit}]++
		f(k, r)
	}
}

func isScored(v result.Verdict) bool {
	return v == result.Pass || v == result.Borderline || v == result.Fail
}

// classify applies Compare's rules to one pair.
func classify(base, head result.Verdict, bs, hs, noise float64) (*float64, Change) {
	var delta *float64
	if isScored(base) && isScored(head) {
		d := hs - bs
		delta = &d
	}
	crossed := (base == result.Pass || base == result.Borderline) && (head == result.Fail || head == result.Error)
	switch {
	case crossed, delta != nil && *delta <= -noise+eps:
		return delta, Regression
	case delta != nil && *delta >= noise-eps:
		return delta, Improvement
	}
	return delta, Unchanged
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

// Regressions counts regressed tests (criteria are shown but not counted), for
// fail_on_regression gating.
func (c *Comparison) Regressions() int { return c.Count(Regression) }

// removedIn lists the tests of suite only the base had.
func (c *Comparison) removedIn(suite string) []*TestDelta {
	var out []*TestDelta
	if c == nil {
		return out
	}
	for _, d := range c.Tests {
		if d != nil && d.Change == Removed && d.Suite == suite {
			out = append(out, d)
		}
	}
	return out
}
