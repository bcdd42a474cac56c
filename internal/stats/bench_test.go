package stats

import "testing"

// BenchmarkBoschlooTable is the cost of the largest table a run can ask for (100 trials per
// side); a run computes each table size once.
func BenchmarkBoschlooTable(b *testing.B) {
	for b.Loop() {
		boschlooTable(100, 100)
	}
}

// BenchmarkPermutationMC is a Monte-Carlo permutation test of 20 scores per side.
func BenchmarkPermutationMC(b *testing.B) {
	base, head := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i], head[i] = 0.5+float64(i%5)/10, 0.4+float64(i%5)/10
	}
	for b.Loop() {
		Permutation(base, head, 1)
	}
}
