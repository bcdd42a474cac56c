package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFisherLess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m, b, n, h int
		want       float64
	}{
		{2, 2, 2, 0, 1.0 / 6},          // base 1,1 vs head 0,0: far from certain
		{10, 10, 3, 0, 1.0 / 286},      // 1 / C(13, 3)
		{10, 9, 10, 2, 506.0 / 184756}, // (C(11,1)·C(9,9) + C(11,2)·C(9,8)) / C(20,10)
		{10, 5, 4, 4, 1},               // the head passed every trial
		{10, 0, 5, 0, 1},               // no passes anywhere: nothing to tell apart
		{0, 0, 5, 0, 1},                // no base
	} {
		if got := fisherLess(tc.m, tc.b, tc.n, tc.h); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("FisherLess(%d, %d, %d, %d) = %.6g, want %.6g", tc.m, tc.b, tc.n, tc.h, got, tc.want)
		}
		if tc.m > 0 {
			if got := fisherTail(tc.m, tc.b, tc.n)[tc.h]; math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("fisherTail(%d, %d, %d)[%d] = %.6g, want %.6g", tc.m, tc.b, tc.n, tc.h, got, tc.want)
			}
		}
	}
}

// exact is a design's chance of a rejection and its expected number of head trials when the
// base passes with probability p0 and the head with p1, by enumerating every base outcome
// and head path.
func exact(d *Design, p0, p1 float64) (reject, trials float64) {
	for b := 0; b <= d.BaseN; b++ {
		pb := math.Exp(lchoose(d.BaseN, b)) * math.Pow(p0, float64(b)) * math.Pow(1-p0, float64(d.BaseN-b))
		prob := []float64{1}
		for n := 1; n <= d.Max; n++ {
			next := make([]float64, n+1)
			for h, w := range prob {
				next[h] += w * (1 - p1)
				next[h+1] += w * p1
			}
			for h := range next {
				trials += pb * next[h] // the paths still running ran trial n
				switch st, _ := d.Look(b, n, h); st {
				case Reject:
					reject += pb * next[h]
					next[h] = 0
				case Futile, NoWorse:
					next[h] = 0
				}
			}
			prob = next
		}
	}
	return reject, trials
}

func TestCalibrate(t *testing.T) {
	t.Parallel()
	for _, p := range []Plan{
		{BaseN: 10, Count: 1, Max: 10, Level: 0.05 / 20},
		{BaseN: 10, Count: 3, Max: 10, Level: 0.05 / 20},
		{BaseN: 5, Count: 1, Max: 5, Level: 0.05},
		{BaseN: 3, Count: 3, Max: 3, Level: 0.05},
		{BaseN: 15, Count: 2, Max: 15, Level: 0.01},
	} {
		d := calibrate(p)
		if d.Boundary <= 0 || d.Size > p.Level || d.Size <= 0 {
			t.Errorf("%+v: boundary %g size %g", p, d.Boundary, d.Size)
			continue
		}
		// The size checked independently, by enumeration, on rates between the grid's points.
		for q := 0.0005; q < 1; q += 0.04 {
			if r, _ := exact(&d, q, q); r > p.Level*1.001 {
				t.Errorf("%+v: at rate %.4f a false rejection has chance %.5f > %g", p, q, r, p.Level)
			}
		}
		// Maximal: the next p-value the design can meet would exceed the level.
		next := math.Inf(1)
		fisher := make([][][]float64, p.BaseN+1)
		for b := range fisher {
			fisher[b] = make([][]float64, p.Max+1)
			for n := 1; n <= p.Max; n++ {
				fisher[b][n] = fisherTail(p.BaseN, b, n)
				for _, f := range fisher[b][n] {
					if f > d.Boundary {
						next = math.Min(next, f)
					}
				}
			}
		}
		if s := d.rejectMass(next, grid(), fisher); s <= p.Level {
			t.Errorf("%+v: boundary %g is not the largest: %g has size %g", p, d.Boundary, next, s)
		}
	}
	if d := calibrate(Plan{BaseN: 0, Count: 1, Max: 10, Level: 0.05}); d.Boundary != 0 {
		t.Errorf("no base: boundary %g", d.Boundary)
	}
	// 0/1 vs 1/1 can never be significant at 5 %: nothing is admissible.
	if d := calibrate(Plan{BaseN: 1, Count: 1, Max: 1, Level: 0.05}); d.Boundary != 0 {
		t.Errorf("1 vs 1: boundary %g", d.Boundary)
	}
}

func grid() []float64 {
	g := make([]float64, gridPoints)
	for i := range g {
		g[i] = float64(i) / (gridPoints - 1)
	}
	return g
}

func TestDesignsCache(t *testing.T) {
	t.Parallel()
	var s Designs
	p := Plan{BaseN: 10, Count: 1, Max: 10, Level: 0.0025}
	if a, b := s.For(p), s.For(p); a != b || a.Boundary == 0 {
		t.Errorf("not cached: %p %p", a, b)
	}
}

// The goal: 20 tests, a baseline of 10 trials per test, the head with count 1 and
// max 10, Bonferroni over the tests at a family-wise 5 %.
const (
	simTests = 20
	simAlpha = 0.05
)

// simulate runs the sequential comparison of one test whose base passes with probability
// p0 and head with p1, as the engine does: count trials, then one look after each.
func simulate(d *Design, rng *rand.Rand, p0, p1 float64) (Step, int) {
	b := 0
	for range d.BaseN {
		if rng.Float64() < p0 {
			b++
		}
	}
	h := 0
	for n := 1; ; n++ {
		if rng.Float64() < p1 {
			h++
		}
		if st, _ := d.Look(b, n, h); st != Continue {
			return st, n
		}
	}
}

func TestSequentialGoals(t *testing.T) {
	t.Parallel()
	d := calibrate(Plan{BaseN: 10, Count: 1, Max: 10, Level: simAlpha / simTests})
	rng := rand.New(rand.NewPCG(20, 1))

	// One test collapses from 0.9 to 0.1: detected ≥ 80 % of the time.
	const reps = 10000
	detected := 0
	for range reps {
		if st, _ := simulate(&d, rng, 0.9, 0.1); st == Reject {
			detected++
		}
	}
	power := float64(detected) / reps
	t.Logf("collapse 0.9 → 0.1: detected %.1f %% (boundary p ≤ %.5f, size %.5f)", 100*power, d.Boundary, d.Size)
	if power < 0.80 {
		t.Errorf("collapse 0.9 → 0.1 detected %.3f of the time, want ≥ 0.80", power)
	}
	if power, _ := exact(&d, 0.9, 0.1); power < 0.80 {
		t.Errorf("exact power %.4f < 0.80", power)
	}

	// Unchanged PRs: ≤ 2 head trials per test on average, and the gate fails ≤ 5 % of them.
	spread := make([]float64, simTests)
	for i := range spread {
		spread[i] = 0.5 + 0.45*float64(i)/(simTests-1)
	}
	for _, tc := range []struct {
		name  string
		rates []float64
	}{
		{"all 0.9", repeat(0.9, simTests)},
		{"all 0.5", repeat(0.5, simTests)},
		{"all 0.95", repeat(0.95, simTests)},
		{"0.5–0.95", spread},
	} {
		const prs = 2000
		failed, trials := 0, 0
		for range prs {
			flagged := false
			for _, p := range tc.rates {
				st, n := simulate(&d, rng, p, p)
				trials += n
				flagged = flagged || st == Reject
			}
			if flagged {
				failed++
			}
		}
		mean := float64(trials) / (prs * simTests)
		fwer := float64(failed) / prs
		t.Logf("%s: %.2f head trials per test, %.2f %% of unchanged PRs fail", tc.name, mean, 100*fwer)
		if mean > 2 || fwer > simAlpha {
			t.Errorf("%s: %.2f head trials per test (want ≤ 2), family-wise false regressions %.4f (want ≤ %.2f)", tc.name, mean, fwer, simAlpha)
		}
	}
}

func repeat(p float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func TestClopperPearson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 1 - math.Pow(0.025, 0.1)},
		{10, 10, math.Pow(0.025, 0.1), 1},
		{5, 10, 0.187086, 0.812914}, // R: binom.test(5, 10)$conf.int
		{0, 0, 0, 1},
	} {
		lo, hi := ClopperPearson(tc.k, tc.n, 0.05)
		if math.Abs(lo-tc.lo) > 1e-5 || math.Abs(hi-tc.hi) > 1e-5 {
			t.Errorf("ClopperPearson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestHoeffding(t *testing.T) {
	t.Parallel()
	m := math.Sqrt(math.Log(40) / 20)
	if lo, hi := Hoeffding(0.5, 10, 0.05); math.Abs(lo-(0.5-m)) > 1e-12 || math.Abs(hi-(0.5+m)) > 1e-12 {
		t.Errorf("Hoeffding(0.5, 10) = [%g, %g]", lo, hi)
	}
	if lo, hi := Hoeffding(0.95, 10, 0.05); hi != 1 || lo >= 0.95 {
		t.Errorf("not clamped: [%g, %g]", lo, hi)
	}
	if lo, hi := Hoeffding(0, 0, 0.05); lo != 0 || hi != 1 {
		t.Errorf("no scores: [%g, %g]", lo, hi)
	}
}

func BenchmarkCalibrate(b *testing.B) {
	for _, p := range []Plan{{BaseN: 10, Count: 1, Max: 10, Level: 0.0025}, {BaseN: 100, Count: 1, Max: 100, Level: 0.0025}} {
		b.Run("", func(b *testing.B) {
			for b.Loop() {
				calibrate(p)
			}
		})
	}
}
