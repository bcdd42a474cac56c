package compare

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/stats"
)

// scripted is a run of a scripted agent: test i passes each trial with probability rates[i],
// counts[i] times (a single run without trials when it is 1), under the mean strategy.
func scripted(r *rand.Rand, rates []float64, counts []int) *result.Run {
	s := &result.SuiteResult{Name: "sim"}
	for i, p := range rates {
		trials := counts[i]
		t := &result.TestResult{ID: fmt.Sprintf("t%02d", i)}
		passed := 0
		for k := range trials {
			v, sc := result.Fail, 0.0
			if r.Float64() < p {
				v, sc = result.Pass, 1
				passed++
			}
			if trials > 1 {
				t.Trials = append(t.Trials, &result.TrialResult{Trial: k + 1, Score: sc, Verdict: v})
			} else {
				t.Score, t.Verdict = sc, v
			}
		}
		if trials > 1 {
			t.TrialSummary = &result.Trials{Strategy: "mean", Count: trials, Ran: trials, Passed: passed}
			t.Score = float64(passed) / float64(trials)
			t.Verdict = result.Fail
			if t.Score >= 0.8 {
				t.Verdict = result.Pass
			}
		}
		s.Tests = append(s.Tests, t)
	}
	return &result.Run{Suites: []*result.SuiteResult{s}}
}

// gateFails is fail_on_regression's reading of a comparison.
func gateFails(c *Comparison) bool { return c.Regressions() > 0 || c.PooledRegression() }

// plan is a simulated trial plan: per PR, each test's base and head pass rate and trial count.
type plan func(r *rand.Rand) (base, head []float64, nb, nh []int)

// each is n tests' trial counts, all k.
func each(n, k int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = k
	}
	return out
}

// rate is the share of simulated PRs whose regression gate fails.
func rate(seed uint64, prs int, p plan) float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	opt := Options{bosch: &stats.Boschloo{}}
	fails := 0
	for range prs {
		br, hr, nb, nh := p(r)
		if gateFails(Compare(scripted(r, br, nb), scripted(r, hr, nh), opt)) {
			fails++
		}
	}
	return float64(fails) / float64(prs)
}

// unchanged is an unchanged PR: 20 tests at pass rates drawn from 0.5, 0.55, …, 0.95, the
// same on both sides, with nb and nh trials; 0 draws a count from 1–10 per side and PR, −1
// per side and test.
func unchanged(nb, nh int) plan {
	return func(r *rand.Rand) ([]float64, []float64, []int, []int) {
		rates := make([]float64, 20)
		for i := range rates {
			rates[i] = 0.5 + 0.05*float64(r.IntN(10))
		}
		b, h := each(20, nb), each(20, nh)
		switch nb {
		case 0:
			b, h = each(20, 1+r.IntN(10)), each(20, 1+r.IntN(10))
		case -1:
			for i := range b {
				b[i], h[i] = 1+r.IntN(10), 1+r.IntN(10)
			}
		}
		return rates, rates, b, h
	}
}

func everyTestDrops(from, to float64, nb, nh int) plan {
	return func(*rand.Rand) ([]float64, []float64, []int, []int) {
		b, h := make([]float64, 20), make([]float64, 20)
		for i := range b {
			b[i], h[i] = from, to
		}
		return b, h, each(20, nb), each(20, nh)
	}
}

func prs(t *testing.T, n int) int {
	if testing.Short() {
		return n / 4
	}
	return n
}

// TestSimulatedErrorRate is the goal "an unchanged PR fails the regression gate ≤ 5 % of the
// time": 20 tests with pass rates anywhere in 0.5–0.95 and 1–10 trials per side, equal or not,
// drawn per PR and per test.
func TestSimulatedErrorRate(t *testing.T) {
	t.Parallel()
	n := prs(t, 2000)
	for i, c := range []struct {
		name   string
		counts int
	}{{"per side and PR", 0}, {"per side and test", -1}} {
		got := rate(uint64(1+i), n, unchanged(c.counts, c.counts))
		t.Logf("unchanged PR, 1–10 trials %s: gate fails %.2f %% of %d PRs", c.name, 100*got, n)
		// The procedure's level is 5 %; the measured rate is far enough below it that the
		// assertion does not depend on the draw.
		if got > 0.05 {
			t.Errorf("1–10 trials %s: unchanged PRs failing the gate: %.3f, want ≤ 0.05", c.name, got)
		}
	}
}

// TestSimulatedPower is the goal "every test drops from 0.8 to 0.6, baseline 10 trials, head
// 3 trials: detected ≥ 80 %".
func TestSimulatedPower(t *testing.T) {
	t.Parallel()
	n := prs(t, 800)
	got := rate(2, n, everyTestDrops(0.8, 0.6, 10, 3))
	t.Logf("every test 0.8 → 0.6, base 10, head 3: detected %.1f %% of %d PRs", 100*got, n)
	if got < 0.8 {
		t.Errorf("detected %.3f, want ≥ 0.8", got)
	}
}

// oneTestDrops is a PR in which test 0 of 20 drops from `from` to `to` and the others stay at
// 0.8.
func oneTestDrops(from, to float64, nb, nh int) plan {
	return func(*rand.Rand) ([]float64, []float64, []int, []int) {
		b, h := make([]float64, 20), make([]float64, 20)
		for i := range b {
			b[i], h[i] = 0.8, 0.8
		}
		b[0], h[0] = from, to
		return b, h, each(20, nb), each(20, nh)
	}
}

// TestSimulatedPlans measures the error rate and power of common trial plans: the table in
// docs/regressions.md is this test's log (go test -run TestSimulatedPlans -v
// ./internal/compare/). Every unchanged plan must hold the 5 % level.
func TestSimulatedPlans(t *testing.T) {
	t.Parallel()
	const n = 400 // not shrunk by -short: the unchanged rows sit close enough to 5 % to need it
	type row struct {
		plan      string
		nb, nh    int
		unchanged bool
		p         plan
	}
	var rows []row
	for _, c := range [][2]int{{1, 1}, {3, 3}, {5, 5}, {10, 10}, {10, 3}, {1, 10}} {
		rows = append(rows, row{"unchanged, rates 0.5–0.95", c[0], c[1], true, unchanged(c[0], c[1])})
	}
	for _, c := range [][2]int{{3, 3}, {5, 5}, {10, 3}, {10, 10}} {
		rows = append(rows, row{"every test 0.8 → 0.6", c[0], c[1], false, everyTestDrops(0.8, 0.6, c[0], c[1])})
	}
	for _, c := range [][2]int{{1, 1}, {3, 3}, {5, 5}, {10, 3}, {10, 10}} {
		rows = append(rows, row{"one test 0.9 → 0.1", c[0], c[1], false, oneTestDrops(0.9, 0.1, c[0], c[1])})
	}
	for _, c := range [][2]int{{5, 5}, {10, 10}} {
		rows = append(rows, row{"one test 0.8 → 0.4", c[0], c[1], false, oneTestDrops(0.8, 0.4, c[0], c[1])})
	}
	t.Logf("| PR (20 tests) | base trials | head trials | gate fails |")
	for i, r := range rows {
		got := rate(uint64(100+i), n, r.p)
		t.Logf("| %s | %d | %d | %.1f %% |", r.plan, r.nb, r.nh, 100*got)
		if r.unchanged && got > 0.05 {
			t.Errorf("%s, %d vs %d trials: gate fails %.3f of unchanged PRs, want ≤ 0.05", r.plan, r.nb, r.nh, got)
		}
	}
}

// graded is a run of a scripted agent with graded scores: each trial of test i scores
// means[i] ± 0.2 (uniform, to two decimals, clipped to [0, 1]), under the mean strategy.
func graded(r *rand.Rand, means []float64, trials int) *result.Run {
	s := &result.SuiteResult{Name: "sim"}
	for i, m := range means {
		t := &result.TestResult{ID: fmt.Sprintf("t%02d", i), TrialSummary: &result.Trials{Strategy: "mean", Count: trials, Ran: trials}}
		for k := range trials {
			sc := min(1, max(0, float64(int(100*(m+0.4*r.Float64()-0.2)))/100))
			t.Trials = append(t.Trials, &result.TrialResult{Trial: k + 1, Score: sc, Verdict: result.Pass})
			t.Score += sc / float64(trials)
		}
		t.Verdict = result.Pass
		s.Tests = append(s.Tests, t)
	}
	return &result.Run{Suites: []*result.SuiteResult{s}}
}

// TestSimulatedGradedScores checks the permutation tests the same way: graded scores on 20
// tests, 5 trials per side; unchanged PRs hold the level, and a drop of 0.05 in every test's
// mean is seen through the pooled stratified permutation test.
func TestSimulatedGradedScores(t *testing.T) {
	t.Parallel()
	const n = 200 // not shrunk by -short: 1 % of PRs is 2 PRs
	for _, tc := range []struct {
		name string
		drop float64
		ok   func(float64) bool
		want string
	}{
		{"unchanged", 0, func(r float64) bool { return r <= 0.05 }, "≤ 0.05"},
		{"every mean 0.05 lower", 0.05, func(r float64) bool { return r >= 0.7 }, "≥ 0.7"},
	} {
		r := rand.New(rand.NewPCG(9, 1))
		opt := Options{bosch: &stats.Boschloo{}}
		fails := 0
		for range n {
			means := make([]float64, 20)
			head := make([]float64, 20)
			for i := range means {
				means[i] = 0.4 + 0.05*float64(r.IntN(10))
				head[i] = means[i] - tc.drop
			}
			if gateFails(Compare(graded(r, means, 5), graded(r, head, 5), opt)) {
				fails++
			}
		}
		got := float64(fails) / float64(n)
		t.Logf("graded scores, 5 vs 5 trials, %s: gate fails %.1f %% of %d PRs", tc.name, 100*got, n)
		if !tc.ok(got) {
			t.Errorf("%s: gate fails %.3f, want %s", tc.name, got, tc.want)
		}
	}
}
