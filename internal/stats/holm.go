package stats

import (
	"math"
	"sort"
)

// Holm is the weighted Holm step-down procedure at family-wise level alpha: hypothesis i,
// with p-value p[i] and weight w[i] > 0, is rejected at the step where p[i]/w[i] is the
// smallest left and p[i] ≤ alpha·w[i]/Σ(weights left); the first hypothesis not rejected
// stops it. With equal weights it is Holm's procedure. It controls the chance of rejecting
// any true hypothesis at alpha whatever the dependence between the tests. adjusted[i] is
// the smallest level at which i would be rejected (capped at 1).
func Holm(p, w []float64, alpha float64) (reject []bool, adjusted []float64) {
	n := len(p)
	reject, adjusted = make([]bool, n), make([]float64, n)
	order := make([]int, n)
	left := 0.0
	for i := range order {
		order[i] = i
		left += w[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]]/w[order[a]] < p[order[b]]/w[order[b]] })
	running, stopped := 0.0, false
	for _, i := range order {
		running = math.Max(running, math.Min(1, p[i]/w[i]*left))
		adjusted[i] = running
		if !stopped && running <= alpha {
			reject[i] = true
		} else {
			stopped = true
		}
		left -= w[i]
	}
	return reject, adjusted
}
