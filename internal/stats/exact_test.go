package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFisherAndBoschloo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		xb, nb, xh, nh   int
		fisher, boschloo float64
	}{
		// Base trials 1,1 and head 0,0: the old zero-variance rule called it certain.
		{"2/2 vs 0/2", 2, 2, 0, 2, 1.0 / 6, 1.0 / 16},
		// One flip: the only table as extreme has probability π(1−π) ≤ 1/4.
		{"1/1 vs 0/1", 1, 1, 0, 1, 0.5, 0.25},
		{"no change", 3, 5, 3, 5, 31.0 / 42, 293.0 / 512},
		{"head better", 0, 3, 3, 3, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b Boschloo // its table cache is not safe for concurrent use
			if got := FisherLower(tc.xb, tc.nb, tc.xh, tc.nh); !near(got, tc.fisher, 1e-12) {
				t.Errorf("Fisher = %v, want %v", got, tc.fisher)
			}
			if got := b.Lower(tc.xb, tc.nb, tc.xh, tc.nh); !near(got, tc.boschloo, 1e-4) {
				t.Errorf("Boschloo = %v, want %v", got, tc.boschloo)
			}
		})
	}
}

// TestBoschlooLevel checks that the test is exact: under any common pass rate, the chance of
// a p-value at or below a level never exceeds the level, and it is never larger than Fisher's.
func TestBoschlooLevel(t *testing.T) {
	t.Parallel()
	var b Boschloo
	for _, n := range [][2]int{{10, 3}, {5, 5}, {1, 10}} {
		nb, nh := n[0], n[1]
		for _, pi := range []float64{0.13, 0.5, 0.77, 0.95} {
			pb, ph := make([]float64, nb+1), make([]float64, nh+1)
			binomPMF(pb, pi)
			binomPMF(ph, pi)
			for _, alpha := range []float64{0.01, 0.05, 0.2} {
				size := 0.0
				for xb := 0; xb <= nb; xb++ {
					for xh := 0; xh <= nh; xh++ {
						p := b.Lower(xb, nb, xh, nh)
						if f := FisherLower(xb, nb, xh, nh); p > f+1e-12 {
							t.Fatalf("%d/%d vs %d/%d: Boschloo %v > Fisher %v", xb, nb, xh, nh, p, f)
						}
						if p <= alpha {
							size += pb[xb] * ph[xh]
						}
					}
				}
				if size > alpha*1.001 {
					t.Errorf("n %v π %.2f: P(p ≤ %.2f) = %.4f", n, pi, alpha, size)
				}
			}
		}
	}
}

func TestNewcombe(t *testing.T) {
	t.Parallel()
	// Newcombe (1998), table II example: 56/70 − 48/80, method 10: [0.0524, 0.3339].
	d, lo, hi := Newcombe(48, 80, 56, 70)
	if !near(d, 0.2, 1e-12) || !near(lo, 0.0524, 5e-4) || !near(hi, 0.3339, 5e-4) {
		t.Errorf("Newcombe = %v [%v, %v]", d, lo, hi)
	}
	// Constant sides still get a real interval.
	if _, lo, hi := Newcombe(2, 2, 0, 2); !(lo < -0.3 && hi > -1 && hi < 0 || hi-lo > 0.3) {
		t.Errorf("2/2 vs 0/2: [%v, %v], want a wide interval", lo, hi)
	}
}

func TestPermutation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		base, head []float64
		want       float64
		exact      bool
	}{
		{"constant sides", []float64{1, 1}, []float64{0, 0}, 1.0 / 6, true},
		{"single samples", []float64{0.9}, []float64{0.2}, 0.5, true},
		{"no change", []float64{0.5, 0.5}, []float64{0.5, 0.5}, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, exact := Permutation(tc.base, tc.head, 1)
			if !near(p, tc.want, 1e-12) || exact != tc.exact {
				t.Errorf("p = %v exact %v, want %v %v", p, exact, tc.want, tc.exact)
			}
		})
	}
	// Too many relabellings: a seeded Monte-Carlo p-value, the same on every call.
	base, head := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i] = 0.6 + float64(i%5)/10
		head[i] = base[i] - 0.2
	}
	p1, exact := Permutation(base, head, 7)
	p2, _ := Permutation(base, head, 7)
	if exact || p1 != p2 || p1 > 0.01 {
		t.Errorf("Monte-Carlo p = %v, %v (exact %v)", p1, p2, exact)
	}
}

func TestStratified(t *testing.T) {
	t.Parallel()
	flip := Stratum{Base: []float64{1}, Head: []float64{0}}
	same := Stratum{Base: []float64{1}, Head: []float64{1}}
	tests := []struct {
		name   string
		strata []Stratum
		want   float64
	}{
		{"one flip", []Stratum{flip}, 0.5},
		// Four flips: each discordant pair goes the bad way with probability 1/2.
		{"four flips", []Stratum{flip, flip, same, flip, flip}, 1.0 / 16},
		{"nothing changed", []Stratum{same, same}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := StratifiedExact(tc.strata); !near(got, tc.want, 1e-12) {
				t.Errorf("exact = %v, want %v", got, tc.want)
			}
		})
	}
	// Scores: a drop of 0.2 on every one of 20 tests is clear; none is not.
	var drop, none []Stratum
	for i := range 20 {
		b := []float64{0.7, 0.8, 0.9, 0.8 + float64(i%3)/20}
		drop = append(drop, Stratum{Base: b, Head: []float64{0.5, 0.6, 0.7}})
		none = append(none, Stratum{Base: b, Head: b[:3]})
	}
	if p := StratifiedPermutation(drop, 1); p > 0.001 {
		t.Errorf("drop: p = %v", p)
	}
	if p := StratifiedPermutation(none, 1); p < 0.1 {
		t.Errorf("no drop: p = %v", p)
	}
}

func TestHolm(t *testing.T) {
	t.Parallel()
	rej, adj := Holm([]float64{0.01, 0.04, 0.03}, []float64{1, 1, 1}, 0.05)
	if !rej[0] || rej[1] || rej[2] {
		t.Errorf("reject = %v", rej)
	}
	want := []float64{0.03, 0.06, 0.06}
	for i := range want {
		if !near(adj[i], want[i], 1e-12) {
			t.Errorf("adjusted = %v, want %v", adj, want)
		}
	}
	// Weighted: half the level on the first hypothesis.
	rej, _ = Holm([]float64{0.02, 0.001, 0.5}, []float64{0.5, 0.25, 0.25}, 0.05)
	if !rej[0] || !rej[1] || rej[2] {
		t.Errorf("weighted reject = %v", rej)
	}
}

// TestFisherLowerLargeTables: equal pass rates over hundreds of trials are no evidence of a
// drop, however small the first hypergeometric term is.
func TestFisherLowerLargeTables(t *testing.T) {
	t.Parallel()
	for _, n := range []int{300, 600, 1000} {
		p := FisherLower(n/2, n, n/2, n)
		if q := fisherLess(n, n/2, n, n/2); p < 0.5 || math.Abs(p-q) > 1e-9 {
			t.Errorf("FisherLower(%d/%d vs %d/%d) = %v, FisherLess %v: want > 0.5 and equal", n/2, n, n/2, n, p, q)
		}
	}
}
