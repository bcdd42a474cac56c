package textdist

import (
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"run", "run", 0},
		{"rnu", "run", 1},        // adjacent swap
		{"wokers", "workers", 1}, // deletion
		{"tst-id", "test-id", 1},
		{"root", "rot", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // OSA, not Damerau: a swapped pair is not edited again
		{"graders", "gradres", 1},
		{"assert", "asserts", 1},
		{"abcdef", "badcfe", 3},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestDistanceMatchesFullTable checks the three-row version against the whole table on
// seeded random strings over a small alphabet, where swaps and repeats are common.
func TestDistanceMatchesFullTable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for range 2000 {
		a, b := word(), word()
		if got, want := Distance(a, b), fullTable(a, b); got != want {
			t.Fatalf("Distance(%q, %q) = %d, the full table says %d", a, b, got, want)
		}
	}
}

func fullTable(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
