// Package calibrate measures how far an LLM judge can be trusted: it compares the judge's
// per-criterion ratings with human ratings of the same outputs (from Potato rubric_eval
// annotations) using Krippendorff's α, agreement rates and the judge's bias, and gives each
// criterion a plain verdict.
//
// Method, per criterion:
//   - human–human α: the humans' ratings of each item are one unit (items rated by one human
//     are not pairable and are left out, as α's definition requires);
//   - judge–human α: each item is a unit of two values, the judge's rating and the mean human
//     rating, so the judge is measured against the humans' consensus;
//   - exact and within-one agreement: over every (item, human) pair, whether the judge gave the
//     same rating, or one within one scale point;
//   - bias: the mean over items of judge − mean human rating (positive: the judge is lenient).
//
// Each interval α gets a 95 % confidence interval: a percentile bootstrap over items (Resamples
// resamples of the pairable units with replacement, seeded by the criterion's name, so a report
// is reproducible), given from minItems items on. The verdicts use the interval, with
// Krippendorff's conventional cut-offs (0.8 reliable, 0.667 tentative): humans disagree when
// the human–human interval lies below 0.667 (the rubric, not the judge, needs work first);
// otherwise the judge is trustworthy when the judge–human interval's lower bound is at least
// 0.8, tentative when it is at least 0.667, and disagrees when the whole interval lies below
// 0.667. Fewer than minItems items, an undefined α (no variation) or an interval that spans
// 0.667 is "not enough data", with the reason. With humans only (no judge ratings) the same
// rules give the humans' agreement: humans agree, humans tentative, humans disagree.
package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Rating is one rater's rating of one item on one criterion.
type Rating struct {
	Item      string
	Rater     string
	Criterion string
	Value     float64
}

// Scale is a criterion's rating scale.
type Scale struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Thresholds are the α cut-offs of the verdicts.
type Thresholds struct {
	Reliable  float64 `json:"reliable"`
	Tentative float64 `json:"tentative"`
}

// DefaultThresholds are Krippendorff's: α ≥ 0.8 reliable, α ≥ 0.667 acceptable for tentative
// conclusions.
var DefaultThresholds = Thresholds{Reliable: 0.8, Tentative: 0.667}

// Verdict is the plain conclusion for one criterion.
type Verdict string

// Verdicts.
const (
	trustworthy    Verdict = "judge trustworthy"
	Tentative      Verdict = "judge tentative"
	disagrees      Verdict = "judge disagrees"
	HumansDisagree Verdict = "humans disagree"
	NotEnoughData  Verdict = "not enough data"
	// With humans only.
	HumansAgree     Verdict = "humans agree"
	humansTentative Verdict = "humans tentative"
)

// Input is what Compute compares.
type Input struct {
	Humans []Rating
	// Judge holds the judge's ratings; Rater is ignored.
	Judge []Rating
	// Scales are the criteria's scales, by criterion; optional.
	Scales map[string]Scale
	// Order lists criteria in report order; criteria not listed follow, sorted.
	Order      []string
	Thresholds Thresholds
	// HumansOnly measures the humans' agreement alone (no results to take a judge from).
	HumansOnly bool
	// Sources say what each annotation file gave; carried into the report.
	Sources []*Source
}

// Report is the calibration of one run.
type Report struct {
	Thresholds Thresholds `json:"thresholds"`
	Bootstrap  Bootstrap  `json:"bootstrap"`
	HumansOnly bool       `json:"humans_only,omitempty"`
	// Annotators and Items count the humans and the items they rated.
	Annotators int    `json:"annotators"`
	Items      int    `json:"items"`
	Criteria   []*Row `json:"criteria"`
	// Unmatched are items humans rated that have no judge rating at all (not in the results).
	Unmatched []string `json:"unmatched_items,omitempty"`
	// Sources are the annotation files read, with their counts and skips.
	Sources []*Source `json:"sources,omitempty"`
}

// Row is the calibration of one criterion.
type Row struct {
	Criterion string `json:"criterion"`
	Scale     *Scale `json:"scale,omitempty"`
	// Items counts items with a judge rating and at least one human rating; MultiRated those
	// with two or more human ratings; Ratings the human ratings.
	Items      int    `json:"items"`
	HumanItems int    `json:"human_items"` // items rated by at least one human
	MultiRated int    `json:"multi_rated"`
	Ratings    int    `json:"human_ratings"`
	HumanAlpha Alphas `json:"human_human_alpha"`
	JudgeAlpha Alphas `json:"judge_human_alpha"`
	// Exact and WithinOne are shares of (item, human) pairs; Bias is mean judge − human mean.
	// Nil when no item has both a judge and a human rating.
	Exact     *float64 `json:"exact_agreement"`
	WithinOne *float64 `json:"within_one_agreement"`
	Bias      *float64 `json:"mean_bias"`
	Verdict   Verdict  `json:"verdict"`
	// Why explains the verdict in one sentence.
	Why string `json:"why"`
}

// Alphas are α at the two levels that suit rating scales.
type Alphas struct {
	Interval Alpha `json:"interval"`
	Ordinal  Alpha `json:"ordinal"`
}

// Compute calibrates the judge against the humans, criterion by criterion.
func Compute(in Input) *Report {
	th := in.Thresholds
	if th == (Thresholds{}) {
		th = DefaultThresholds
	}
	humans := index(in.Humans)
	judge := map[string]map[string]float64{} // criterion → item → value
	judged := map[string]bool{}
	for _, r := range in.Judge {
		if judge[r.Criterion] == nil {
			judge[r.Criterion] = map[string]float64{}
		}
		judge[r.Criterion][r.Item] = r.Value
		judged[r.Item] = true
	}
	rep := &Report{Thresholds: th, HumansOnly: in.HumansOnly, Sources: in.Sources,
		Bootstrap: Bootstrap{Method: method, Resamples: resamples, Confidence: confidence, MinItems: minItems}}
	raters, items := map[string]bool{}, map[string]bool{}
	for _, r := range in.Humans {
		raters[r.Rater], items[r.Item] = true, true
	}
	rep.Annotators, rep.Items = len(raters), len(items)
	for it := range items {
		if !judged[it] && !in.HumansOnly {
			rep.Unmatched = append(rep.Unmatched, it)
		}
	}
	sort.Strings(rep.Unmatched)
	for _, c := range order(in.Order, humans) {
		row := compare(c, humans[c], judge[c], th, in.HumansOnly)
		if s, ok := in.Scales[c]; ok {
			row.Scale = &s
		}
		rep.Criteria = append(rep.Criteria, row)
	}
	return rep
}

// index groups human ratings by criterion and item; a rater's later rating of the same item
// replaces the earlier one (Potato keeps the last submission).
func index(rs []Rating) map[string]map[string]map[string]float64 {
	out := map[string]map[string]map[string]float64{}
	for _, r := range rs {
		if out[r.Criterion] == nil {
			out[r.Criterion] = map[string]map[string]float64{}
		}
		if out[r.Criterion][r.Item] == nil {
			out[r.Criterion][r.Item] = map[string]float64{}
		}
		out[r.Criterion][r.Item][r.Rater] = r.Value
	}
	return out
}

// order is the report order: the given criteria that humans rated, then the rest sorted.
func order(given []string, humans map[string]map[string]map[string]float64) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range given {
		if humans[c] != nil && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	var rest []string
	for c := range humans {
		if !seen[c] {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// compare computes one criterion's row.
func compare(c string, byItem map[string]map[string]float64, judge map[string]float64, th Thresholds, humansOnly bool) *Row {
	row := &Row{Criterion: c}
	ids := make([]string, 0, len(byItem))
	for it := range byItem {
		ids = append(ids, it)
	}
	sort.Strings(ids) // α does not depend on order; sorting keeps float sums reproducible
	row.HumanItems = len(ids)
	var humanUnits, judgeUnits [][]float64
	var pairs, exact, within int
	var bias float64
	for _, it := range ids {
		vals := values(byItem[it])
		row.Ratings += len(vals)
		if len(vals) >= 2 {
			row.MultiRated++
		}
		humanUnits = append(humanUnits, vals)
		j, ok := judge[it]
		if !ok {
			continue
		}
		row.Items++
		m := mean(vals)
		judgeUnits = append(judgeUnits, []float64{j, m})
		bias += j - m
		for _, h := range vals {
			pairs++
			d := math.Abs(j - h)
			if d < 1e-9 {
				exact++
			}
			if d <= 1+1e-9 {
				within++
			}
		}
	}
	row.HumanAlpha = Alphas{Interval: krippendorffAlpha(humanUnits, interval), Ordinal: krippendorffAlpha(humanUnits, ordinal)}
	row.JudgeAlpha = Alphas{Interval: krippendorffAlpha(judgeUnits, interval), Ordinal: krippendorffAlpha(judgeUnits, ordinal)}
	withCI(&row.HumanAlpha.Interval, humanUnits, "human:"+c, "items rated by two humans or more")
	withCI(&row.JudgeAlpha.Interval, judgeUnits, "judge:"+c, "items rated by the judge and a human")
	if row.Items > 0 {
		row.Exact = ptr(float64(exact) / float64(pairs))
		row.WithinOne = ptr(float64(within) / float64(pairs))
		if b := bias / float64(row.Items); !math.IsNaN(b) && !math.IsInf(b, 0) {
			row.Bias = ptr(b) // huge ratings overflow the mean; JSON cannot carry NaN or ±Inf
		}
	}
	row.Verdict, row.Why = verdict(row, th, humansOnly)
	return row
}

// withCI adds the bootstrap interval to a defined α.
func withCI(a *Alpha, units [][]float64, seed, what string) {
	if a.Value == nil {
		return
	}
	if ci, ok, why := bootstrapCI(units, seed, what); ok {
		a.CI = &ci
	} else {
		a.NoCI = why
	}
}

// standing is where an α's interval lies against the thresholds.
type standing int

const (
	unknown   standing = iota // no α or no interval
	undecided                 // the interval spans the tentative threshold
	below                     // the whole interval is under the tentative threshold
	tentative                 // the lower bound clears the tentative threshold
	reliable                  // the lower bound clears the reliable threshold
)

// stand places a; why describes α and its interval, or says why it has none.
func stand(a Alpha, th Thresholds) (standing, string) {
	switch {
	case a.Value == nil:
		return unknown, "α is undefined: " + a.Undefined
	case a.CI == nil:
		return unknown, fmt.Sprintf("α = %.3f but %s", *a.Value, a.NoCI)
	}
	why := fmt.Sprintf("α = %.3f, %g%% CI [%.3f, %.3f]", *a.Value, confidence*100, a.CI.Low, a.CI.High)
	switch {
	case a.CI.Low >= th.Reliable:
		return reliable, why
	case a.CI.Low >= th.Tentative:
		return tentative, why
	case a.CI.High < th.Tentative:
		return below, why
	}
	return undecided, why
}

// verdict applies the package's rules to a row.
func verdict(r *Row, th Thresholds, humansOnly bool) (Verdict, string) {
	hs, hwhy := stand(r.HumanAlpha.Interval, th)
	if humansOnly {
		switch hs {
		case reliable:
			return HumansAgree, "human–human " + hwhy + ": the lower bound clears " + num(th.Reliable)
		case tentative:
			return humansTentative, "human–human " + hwhy + ": the lower bound clears " + num(th.Tentative) + ", not " + num(th.Reliable)
		case below:
			return HumansDisagree, "human–human " + hwhy + ", below " + num(th.Tentative) + ": sharpen the criterion's anchors"
		case undecided:
			return NotEnoughData, "human–human " + hwhy + " spans " + num(th.Tentative) + ": rate more items"
		}
		return NotEnoughData, "human–human " + hwhy
	}
	switch {
	case hs == below:
		return HumansDisagree, "the humans agree too little with each other (" + hwhy + ", below " + num(th.Tentative) + "): sharpen the criterion's anchors before judging the judge"
	case r.Items == 0:
		return NotEnoughData, "no item has both a judge rating and a human rating"
	}
	suffix := ""
	switch hs {
	case unknown:
		suffix = "; human–human agreement unknown (" + hwhy + ")"
	case undecided:
		suffix = "; human–human agreement undecided (" + hwhy + ")"
	}
	js, jwhy := stand(r.JudgeAlpha.Interval, th)
	switch js {
	case reliable:
		return trustworthy, "judge–human " + jwhy + ": the lower bound clears " + num(th.Reliable) + suffix
	case tentative:
		return Tentative, "judge–human " + jwhy + ": the lower bound clears " + num(th.Tentative) + ", not " + num(th.Reliable) + ": good enough for tentative conclusions" + suffix
	case below:
		return disagrees, "judge–human " + jwhy + ", below " + num(th.Tentative) + suffix
	case undecided:
		return NotEnoughData, "judge–human " + jwhy + " spans " + num(th.Tentative) + ": rate more items" + suffix
	}
	return NotEnoughData, "judge–human " + jwhy + suffix
}

func values(byRater map[string]float64) []float64 {
	out := make([]float64, 0, len(byRater))
	for _, v := range byRater {
		out = append(out, v)
	}
	sort.Float64s(out)
	return out
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func ptr[T any](v T) *T { return &v }

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Source is what was read from one annotation file: its format, how many ratings it gave and
// what was skipped and why.
type Source struct {
	Path    string  `json:"path"`
	Format  string  `json:"format,omitempty"`
	Ratings int     `json:"ratings"`
	Skipped []*Skip `json:"skipped,omitempty"`
}

// Skip counts ratings or rows left out of a file for one reason.
type Skip struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Skip records n things skipped for reason, merging equal reasons.
func (s *Source) Skip(reason string, n int) {
	for _, k := range s.Skipped {
		if k.Reason == reason {
			k.Count += n
			return
		}
	}
	s.Skipped = append(s.Skipped, &Skip{Reason: reason, Count: n})
}
