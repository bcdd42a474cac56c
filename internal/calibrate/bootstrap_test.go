package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIntervalAlphaClosedForm: the bootstrap's linear-time interval α equals the coincidence
// matrix's on random units of two to four values, including missing ones.
func TestIntervalAlphaClosedForm(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var units [][]float64
		for range 2 + rng.IntN(30) {
			u := make([]float64, 2+rng.IntN(3))
			for i := range u {
				u[i] = float64(1 + rng.IntN(5))
			}
			units = append(units, u)
		}
		want := krippendorffAlpha(units, interval)
		got, ok := intervalAlpha(units)
		if (want.Value != nil) != ok || (ok && math.Abs(got-*want.Value) > 1e-9) {
			t.Fatalf("trial %d: closed form %v (%v), coincidence matrix %+v", trial, got, ok, want)
		}
	}
}

// sim rates n items of true quality 1–5: two humans who are off by one point a fifth of the
// time, and a judge.
func sim(rng *rand.Rand, n int, judge func(q float64) float64) Input {
	noisy := func(q float64) float64 {
		if rng.Float64() < 0.2 {
			return min(5, max(1, q+float64(rng.IntN(3)-1)))
		}
		return q
	}
	var in Input
	for i := range n {
		q := float64(1 + rng.IntN(5))
		item := fmt.Sprintf("i%03d", i)
		for _, h := range []string{"h1", "h2"} {
			in.Humans = append(in.Humans, Rating{Item: item, Rater: h, Criterion: "c", Value: noisy(q)})
		}
		in.Judge = append(in.Judge, Rating{Item: item, Criterion: "c", Value: judge(q)})
	}
	return in
}

// TestRandomJudgeNeverTrustworthy is the seeded simulation of the goal: a judge rating at
// random is never called trustworthy — at 5 items it is "not enough data" every time, and at
// more items the interval's lower bound keeps chance agreement out — while a judge as good as
// the humans is trustworthy at 30 items.
func TestRandomJudgeNeverTrustworthy(t *testing.T) {
	t.Parallel()
	const trials = 200
	rng := rand.New(rand.NewPCG(20, 26))
	random := func(float64) float64 { return float64(1 + rng.IntN(5)) }
	good := func(q float64) float64 {
		if rng.Float64() < 0.2 {
			return min(5, max(1, q+float64(rng.IntN(3)-1)))
		}
		return q
	}
	tests := []struct {
		name       string
		items      int
		judge      func(float64) float64
		trustedMin int // of trials, at least
		trustedMax int // at most
		notEnough  int // exactly, when ≥ 0
	}{
		{"random judge, 5 items", 5, random, 0, 0, trials},
		{"random judge, 10 items", 10, random, 0, 0, -1},
		{"random judge, 30 items", 30, random, 0, 0, -1},
		{"good judge, 4 items", 4, good, 0, 0, trials},
		{"good judge, 30 items", 30, good, trials * 95 / 100, trials, -1},
	}
	for _, tt := range tests {
		counts := map[Verdict]int{}
		for range trials {
			counts[Compute(sim(rng, tt.items, tt.judge)).Criteria[0].Verdict]++
		}
		if n := counts[trustworthy]; n < tt.trustedMin || n > tt.trustedMax {
			t.Errorf("%s: trustworthy in %d of %d trials, want %d–%d (%v)", tt.name, n, trials, tt.trustedMin, tt.trustedMax, counts)
		}
		if tt.notEnough >= 0 && counts[NotEnoughData] != tt.notEnough {
			t.Errorf("%s: not enough data in %d of %d trials, want %d (%v)", tt.name, counts[NotEnoughData], trials, tt.notEnough, counts)
		}
	}
}

// TestVerdicts at 20 items, judge–human and humans only.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	const n = 20
	// build rates item i (true value 1 + i%5) by h1 and h2 and the judge.
	build := func(h1, h2, judge func(v float64, i int) float64, humansOnly bool, items int) Input {
		in := Input{HumansOnly: humansOnly}
		for i := range items {
			v, item := float64(1+i%5), fmt.Sprintf("i%02d", i)
			in.Humans = append(in.Humans, Rating{Item: item, Rater: "h1", Criterion: "c", Value: h1(v, i)})
			if h2 != nil {
				in.Humans = append(in.Humans, Rating{Item: item, Rater: "h2", Criterion: "c", Value: h2(v, i)})
			}
			if judge != nil {
				in.Judge = append(in.Judge, Rating{Item: item, Criterion: "c", Value: judge(v, i)})
			}
		}
		return in
	}
	same := func(v float64, _ int) float64 { return v }
	reversed := func(v float64, _ int) float64 { return 6 - v }
	// off by one on every other item: agreement, but loose.
	loose := func(v float64, i int) float64 {
		if i%2 == 0 {
			return min(5, v+1)
		}
		return max(1, v-1)
	}
	tests := []struct {
		name string
		in   Input
		want Verdict
	}{
		{"judge as the humans", build(same, same, same, false, n), trustworthy},
		{"judge reversed", build(same, same, reversed, false, n), disagrees},
		{"humans contradict each other", build(same, reversed, same, false, n), HumansDisagree},
		{"judge as the humans, 9 items", build(same, same, same, false, minItems-1), NotEnoughData},
		{"judge loose", build(same, same, loose, false, n), NotEnoughData},
		{"humans only, agreeing", build(same, same, nil, true, n), HumansAgree},
		{"humans only, contradicting", build(same, reversed, nil, true, n), HumansDisagree},
		{"humans only, loose", build(same, loose, nil, true, 60), humansTentative},
		{"humans only, 9 items", build(same, same, nil, true, minItems-1), NotEnoughData},
		{"humans only, one human", build(same, nil, nil, true, n), NotEnoughData},
	}
	for _, tt := range tests {
		rep := Compute(tt.in)
		r := rep.Criteria[0]
		if r.Verdict != tt.want {
			t.Errorf("%s: verdict %q (%s), want %q", tt.name, r.Verdict, r.Why, tt.want)
		}
		if tt.in.HumansOnly && (len(rep.Unmatched) != 0 || !rep.HumansOnly) {
			t.Errorf("%s: humans only, but unmatched %v, HumansOnly %v", tt.name, rep.Unmatched, rep.HumansOnly)
		}
		if a := r.HumanAlpha.Interval; a.Value != nil && a.CI != nil && (a.CI.Low > *a.Value+1e-9 || a.CI.High < *a.Value-1e-9) {
			t.Errorf("%s: human α %.3f outside its interval %+v", tt.name, *a.Value, *a.CI)
		}
	}
}

// TestBootstrapDeterministic: the same ratings give the same report, intervals included.
func TestBootstrapDeterministic(t *testing.T) {
	t.Parallel()
	in := sim(rand.New(rand.NewPCG(3, 4)), 25, func(q float64) float64 { return q })
	a, b := Compute(in), Compute(in)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two computations differ (-first +second):\n%s", diff)
	}
	if ci := a.Criteria[0].JudgeAlpha.Interval.CI; ci == nil || ci.Low >= ci.High {
		t.Errorf("interval %+v, want a proper one at 25 items", ci)
	}
	if a.Bootstrap != (Bootstrap{Method: method, Resamples: resamples, Confidence: confidence, MinItems: minItems}) {
		t.Errorf("bootstrap %+v", a.Bootstrap)
	}
}
