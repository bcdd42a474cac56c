// Package stats holds the small statistics evalgate's trials and comparisons share: Student's
// t critical values and the t-intervals built on them.
package stats

import "math"

// t95 are two-tailed 95 % critical values of Student's t for 1–29 degrees of freedom, as in
// AgentV's trials.ts; from 30 on it uses 1.96.
var t95 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
	2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045}

// T95 is the two-tailed 95 % critical value of Student's t with df degrees of freedom (AgentV's
// table); df < 1 uses df = 1.
func T95(df int) float64 {
	switch {
	case df < 1:
		return t95[0]
	case df > len(t95):
		return 1.96
	}
	return t95[df-1]
}

// MeanVar returns the mean and the sample variance (n − 1 denominator) of xs; the variance is
// 0 with fewer than two values.
func MeanVar(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, ss / float64(len(xs)-1)
}

// interval is a difference of means with its 95 % confidence interval.
type interval struct {
	Delta, Low, High float64
	// DF is the Welch–Satterthwaite degrees of freedom (+Inf when both variances are 0).
	DF float64
}

// welch is the 95 % Welch t-interval of mean(b) − mean(a): Δ ± t·√(s²ₐ/nₐ + s²ᵦ/nᵦ), with t
// from T95 at the Welch–Satterthwaite degrees of freedom rounded down (rounding down widens
// the interval, so it never claims more than the data show). Both sides need two or more
// values (ok false otherwise). When both variances are 0 the standard error is 0 and the
// interval is the exact Δ.
func welch(a, b []float64) (iv interval, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return interval{}, false
	}
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	qa, qb := va/na, vb/nb
	iv.Delta = mb - ma
	se2 := qa + qb
	if se2 <= 0 {
		iv.Low, iv.High, iv.DF = iv.Delta, iv.Delta, math.Inf(1)
		return iv, true
	}
	iv.DF = se2 * se2 / (qa*qa/(na-1) + qb*qb/(nb-1))
	df := int(math.Floor(iv.DF + 1e-9)) // 8 − 1e-15 is 8 degrees of freedom
	if iv.DF > float64(len(t95)) {
		df = len(t95) + 1
	}
	margin := T95(df) * math.Sqrt(se2)
	iv.Low, iv.High = iv.Delta-margin, iv.Delta+margin
	return iv, true
}
