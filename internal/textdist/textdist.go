// Package textdist measures how far apart two short strings are, for did-you-mean hints on
// misspelt keys, flags and commands. It is the one edit distance of the program, a leaf.
package textdist

import (
	"slices"
	"strings"
)

// Distance is the optimal-string-alignment edit distance between a and b, by byte:
// insertions, deletions, substitutions and swaps of adjacent bytes each cost 1, so "rnu" is
// one edit from "run" (a swap is the commonest typo, and plain Levenshtein counts it as two).
func Distance(a, b string) int {
	// Three rows of the (len(a)+1) × (len(b)+1) table: the swap looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to s by edit distance (at most 2, or a prefix match),
// or "".
func Closest(s string, candidates []string) string {
	candidates = slices.Sorted(slices.Values(candidates))
	best, bestD := "", 3
	for _, c := range candidates {
		d := Distance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" && len(s) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(c, s) {
				return c
			}
		}
	}
	return best
}
