package calibrate

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// ratings expands value lists into ratings of items a, b, c, d by rater.
func ratings(rater, criterion string, vals ...float64) []Rating {
	out := make([]Rating, len(vals))
	for i, v := range vals {
		out[i] = Rating{Item: string(rune('a' + i)), Rater: rater, Criterion: criterion, Value: v}
	}
	return out
}

func concat(rs ...[]Rating) []Rating {
	var out []Rating
	for _, r := range rs {
		out = append(out, r...)
	}
	return out
}

func TestCompute(t *testing.T) {
	t.Parallel()
	in := Input{
		Humans: concat(
			ratings("h1", "correct", 1, 2, 4, 5), ratings("h2", "correct", 1, 2, 4, 5),
			ratings("h1", "style", 1, 5, 1, 5), ratings("h2", "style", 5, 1, 5, 1),
			ratings("h1", "tone", 3, 3, 3, 3), ratings("h2", "tone", 3, 3, 3, 3),
			ratings("h1", "lenient", 1, 2, 3, 4),
			ratings("h1", "unjudged", 1, 2),
			[]Rating{{Item: "z", Rater: "h1", Criterion: "correct", Value: 3}},
		),
		Judge: concat(
			ratings("judge", "correct", 1, 2, 4, 5),
			ratings("judge", "style", 3, 3, 3, 3),
			ratings("judge", "tone", 3, 3, 3, 3),
			ratings("judge", "lenient", 2, 3, 4, 5),
		),
		Scales: map[string]Scale{"correct": {1, 5}},
		Order:  []string{"tone", "correct"},
	}
	rep := Compute(in)
	if rep.Annotators != 2 || rep.Items != 5 {
		t.Errorf("annotators %d items %d, want 2 and 5", rep.Annotators, rep.Items)
	}
	if len(rep.Unmatched) != 1 || rep.Unmatched[0] != "z" {
		t.Errorf("unmatched %v, want [z]", rep.Unmatched)
	}
	if rep.Thresholds != DefaultThresholds {
		t.Errorf("thresholds %+v, want the defaults", rep.Thresholds)
	}
	order := []string{"tone", "correct", "lenient", "style", "unjudged"}
	if len(rep.Criteria) != len(order) {
		t.Fatalf("%d rows, want %d", len(rep.Criteria), len(order))
	}
	rows := map[string]*Row{}
	for i, r := range rep.Criteria {
		if r.Criterion != order[i] {
			t.Errorf("row %d is %s, want %s", i, r.Criterion, order[i])
		}
		rows[r.Criterion] = r
	}
	tests := []struct {
		criterion           string
		verdict             Verdict
		items, multi        int
		exact, within       float64
		bias                float64
		judgeAlpha          float64 // NaN: undefined
		humanAlphaDefined   bool
		judgeAlphaUndefined string
	}{
		// "z" has no judge rating: counted for the humans, not as an item. Four items are
		// fewer than MinItems: every verdict is "not enough data", whatever α says.
		{"correct", NotEnoughData, 4, 4, 1, 1, 0, 1, true, ""},
		{"style", NotEnoughData, 4, 4, 0, 0, 0, math.NaN(), true, noVariation},
		{"tone", NotEnoughData, 4, 4, 1, 1, 0, math.NaN(), false, noVariation},
		// Interval α of units {2,1},{3,2},{4,3},{5,4}: 1 − 7·8/192 = 0.7083.
		{"lenient", NotEnoughData, 4, 0, 0, 1, 1, 1 - 7.0*8/192, false, ""},
		{"unjudged", NotEnoughData, 0, 0, math.NaN(), math.NaN(), math.NaN(), math.NaN(), false, noPairs},
	}
	for _, tt := range tests {
		r := rows[tt.criterion]
		if r.Verdict != tt.verdict || r.Why == "" {
			t.Errorf("%s: verdict %q (%s), want %q", tt.criterion, r.Verdict, r.Why, tt.verdict)
		}
		if r.Items != tt.items || r.MultiRated != tt.multi {
			t.Errorf("%s: items %d multi %d, want %d and %d", tt.criterion, r.Items, r.MultiRated, tt.items, tt.multi)
		}
		checkPtr(t, tt.criterion+" exact", r.Exact, tt.exact)
		checkPtr(t, tt.criterion+" within", r.WithinOne, tt.within)
		checkPtr(t, tt.criterion+" bias", r.Bias, tt.bias)
		checkPtr(t, tt.criterion+" judge α", r.JudgeAlpha.Interval.Value, tt.judgeAlpha)
		if r.JudgeAlpha.Interval.Undefined != tt.judgeAlphaUndefined {
			t.Errorf("%s: judge α undefined %q, want %q", tt.criterion, r.JudgeAlpha.Interval.Undefined, tt.judgeAlphaUndefined)
		}
		if got := r.HumanAlpha.Interval.Value != nil; got != tt.humanAlphaDefined {
			t.Errorf("%s: human α defined %v, want %v", tt.criterion, got, tt.humanAlphaDefined)
		}
		if r.JudgeAlpha.Interval.CI != nil || (r.JudgeAlpha.Interval.Value != nil && !strings.Contains(r.JudgeAlpha.Interval.NoCI, "only 4 items")) {
			t.Errorf("%s: judge α interval %+v at 4 items, want none (%q)", tt.criterion, r.JudgeAlpha.Interval.CI, r.JudgeAlpha.Interval.NoCI)
		}
	}
	if s := rows["correct"].Scale; s == nil || *s != (Scale{1, 5}) {
		t.Errorf("correct: scale %v, want 1–5", s)
	}
}

// checkPtr compares an optional number with want (NaN: want nil).
func checkPtr(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	switch {
	case math.IsNaN(want) && got != nil:
		t.Errorf("%s = %v, want none", what, *got)
	case !math.IsNaN(want) && got == nil:
		t.Errorf("%s missing, want %v", what, want)
	case got != nil && math.Abs(*got-want) > 1e-9:
		t.Errorf("%s = %v, want %v", what, *got, want)
	}
}

func TestComputeThresholds(t *testing.T) {
	t.Parallel()
	// A judge one point lenient on every item of 20: α ≈ 0.78 with a tight interval.
	var in Input
	for i := range 20 {
		v := float64(1 + i%5)
		item := string(rune('A' + i))
		in.Humans = append(in.Humans, Rating{Item: item, Rater: "h1", Criterion: "lenient", Value: v})
		in.Judge = append(in.Judge, Rating{Item: item, Criterion: "lenient", Value: v + 1})
	}
	r := Compute(in).Criteria[0]
	a, ci := *r.JudgeAlpha.Interval.Value, r.JudgeAlpha.Interval.CI
	if ci == nil || ci.Low > a || ci.High < a {
		t.Fatalf("α %.3f, interval %+v (%s): want one around α", a, ci, r.JudgeAlpha.Interval.NoCI)
	}
	tests := []struct {
		th   Thresholds
		want Verdict
	}{
		{Thresholds{Reliable: ci.Low - 0.01, Tentative: ci.Low - 0.1}, trustworthy},
		{Thresholds{Reliable: ci.Low + 0.01, Tentative: ci.Low - 0.01}, Tentative},
		{Thresholds{Reliable: 1, Tentative: ci.High + 0.01}, disagrees},
		{Thresholds{Reliable: 1, Tentative: (ci.Low + ci.High) / 2}, NotEnoughData},
	}
	for _, tt := range tests {
		in.Thresholds = tt.th
		if r := Compute(in).Criteria[0]; r.Verdict != tt.want {
			t.Errorf("α %.3f [%.3f, %.3f] with %+v: verdict %q (%s), want %q", a, ci.Low, ci.High, tt.th, r.Verdict, r.Why, tt.want)
		}
	}
}

// Ratings are user input: values large enough to overflow the interval δ² or the mean give an
// undefined α and no bias rather than NaN or ±Inf, which would make the JSON report fail.
func TestComputeHugeRatingsStayEncodable(t *testing.T) {
	t.Parallel()
	in := Input{
		Humans: concat(ratings("h1", "c", 1e308, -1e308, 1), ratings("h2", "c", 1e308, -1e308, 2)),
		Judge:  ratings("judge", "c", -1e308, 1e308, 1),
	}
	rep := Compute(in)
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("report does not encode: %v", err)
	}
	r := rep.Criteria[0]
	if r.HumanAlpha.Interval.Undefined != overflow || r.JudgeAlpha.Interval.Undefined != overflow {
		t.Fatalf("interval α: human %+v judge %+v, want undefined %q", r.HumanAlpha.Interval, r.JudgeAlpha.Interval, overflow)
	}
	if r.Verdict != NotEnoughData {
		t.Fatalf("verdict %q, want %q", r.Verdict, NotEnoughData)
	}
}
