package rubric

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// missing is the error a criterion gets when the judge never answered for it. The judge layer
// retries before scoring; by the time a criterion reaches here without a finding, it is final.
const missing = "judge did not return this criterion"

// criterion starts a CriterionResult from its spec.
func criterion(c *suite.Criterion) *result.CriterionResult {
	return &result.CriterionResult{
		ID:       c.ID,
		Outcome:  c.Outcome,
		Weight:   c.Weight,
		Required: c.Required,
		MinScore: c.MinScore,
		File:     c.Pos.File,
		Line:     c.Pos.Line,
	}
}

// markError turns a criterion into an error: score 0, still in the denominator.
func markError(cr *result.CriterionResult, msg string) {
	cr.Verdict = result.Error
	cr.Error = msg
	cr.Score = 0
}

// Checklist scores checklist criteria: score = Σ w(satisfied) / Σ w. An unsatisfied required
// criterion gates the test, whatever the weighted score.
func Checklist(criteria []*suite.Criterion, checks []Check, th result.Thresholds) *result.GraderResult {
	found := byID(checks)
	g := &result.GraderResult{Mode: string(suite.ModeChecklist)}
	known := map[string]bool{}
	for _, c := range criteria {
		known[c.ID] = true
		cr := criterion(c)
		g.Criteria = append(g.Criteria, cr)
		ch, ok := found[c.ID]
		cr.Reasoning = ch.Reasoning
		switch {
		case !ok:
			markError(cr, missing)
		case ch.Err != "":
			markError(cr, ch.Err)
		case ch.Satisfied == nil:
			markError(cr, "judge gave no satisfied value")
		case *ch.Satisfied:
			cr.Satisfied, cr.Score, cr.Verdict = ptr(true), 1, result.Pass
		default:
			cr.Satisfied, cr.Score, cr.Verdict = ptr(false), 0, result.Fail
			cr.Gated = c.Required
		}
	}
	addUnknown(g, checks, known)
	return finish(g, th)
}

// Range scores score-range criteria: score = Σ (s/10)·w / Σ w. A criterion gates only with a
// minimum: MinScore, or Required alone meaning the pass threshold (AgentV demands 10/10 there;
// DESIGN §3 chooses the pass threshold, which is what authors mean by "required").
func Range(criteria []*suite.Criterion, checks []Check, th result.Thresholds) *result.GraderResult {
	found := byID(checks)
	g := &result.GraderResult{Mode: string(suite.ModeRange)}
	raw := map[string]int{}
	known := map[string]bool{}
	for _, c := range criteria {
		known[c.ID] = true
		cr := criterion(c)
		g.Criteria = append(g.Criteria, cr)
		ch, ok := found[c.ID]
		cr.Reasoning = ch.Reasoning
		switch {
		case !ok:
			markError(cr, missing)
			continue
		case ch.Err != "":
			markError(cr, ch.Err)
			continue
		case ch.Score == nil:
			markError(cr, "judge gave no score")
			continue
		case *ch.Score < 0 || *ch.Score > 10:
			markError(cr, fmt.Sprintf("judge score %d is outside 0–10", *ch.Score))
			continue
		}
		s := *ch.Score
		raw[c.ID] = s
		cr.Raw = ptr(s)
		cr.Score = float64(s) / 10
		cr.Band = band(c.ScoreRanges, s)
		if min, gated := gate(c, th); gated && cr.Score < min {
			cr.Gated = true
			cr.Verdict = result.Fail
		} else {
			cr.Verdict = VerdictOf(cr.Score, th)
		}
	}
	g.Details = map[string]any{"raw_scores": raw, "normalization": "score / 10", "aggregation": "weighted_average"}
	addUnknown(g, checks, known)
	return finish(g, th)
}

// gate returns a range criterion's minimum normalised score and whether it has one.
func gate(c *suite.Criterion, th result.Thresholds) (float64, bool) {
	switch {
	case c.MinScore != nil:
		return *c.MinScore, true
	case c.Required:
		return th.Pass, true
	}
	return 0, false
}

// band returns the outcome text of the range holding s.
func band(ranges []suite.ScoreRange, s int) string {
	for _, r := range ranges {
		if s >= r.Min && s <= r.Max {
			return r.Outcome
		}
	}
	return ""
}

// Likert scores a Potato rubric_eval scheme: weighted = Σ r·w / Σ w on the scale (reported as
// Details["weighted_score"]), normalised (weighted − min)/(max − min) for the score and verdict.
// Potato criteria have no required flag, so a Likert grader gates only through the grader-level
// required setting.
func Likert(s *suite.LikertScheme, checks []Check, th result.Thresholds) *result.GraderResult {
	found := byID(checks)
	g := &result.GraderResult{Mode: string(suite.ModeLikert), Details: map[string]any{}}
	width := float64(s.Max - s.Min)
	known := map[string]bool{}
	var num, den float64
	ratings := map[string]int{}
	complete := true
	for _, c := range s.Criteria {
		known[c.Name] = true
		cr := &result.CriterionResult{ID: c.Name, Outcome: c.Description, Weight: c.Weight, File: c.Pos.File, Line: c.Pos.Line}
		g.Criteria = append(g.Criteria, cr)
		ch, ok := found[c.Name]
		cr.Reasoning = ch.Reasoning
		r, msg := likertRating(ch, ok, s)
		if msg != "" {
			markError(cr, msg)
			complete = false
			continue
		}
		ratings[c.Name] = r
		cr.Raw = ptr(r)
		cr.Score = (float64(r) - float64(s.Min)) / width
		cr.Band = c.Anchors[r]
		if cr.Band == "" {
			cr.Band = s.Labels[r]
		}
		cr.Verdict = VerdictOf(cr.Score, th)
		num += float64(r) * c.Weight
		den += c.Weight
	}
	g.Details["ratings"] = ratings
	g.Details["scale"] = []int{s.Min, s.Max}
	if complete && den > 0 {
		g.Details["weighted_score"] = num / den
	}
	if s.Overall != nil {
		known["overall"] = true
		if ch, ok := found["overall"]; ok {
			if r, msg := likertRating(ch, ok, s); msg == "" {
				g.Details["overall"] = r
			}
		}
	}
	addUnknown(g, checks, known)
	return finish(g, th)
}

// likertRating validates one Likert finding, returning the rating or why it is unusable.
func likertRating(ch Check, ok bool, s *suite.LikertScheme) (int, string) {
	switch {
	case !ok:
		return 0, missing
	case ch.Err != "":
		return 0, ch.Err
	case ch.Score == nil:
		return 0, "judge gave no rating"
	case *ch.Score < s.Min || *ch.Score > s.Max:
		return 0, fmt.Sprintf("judge rating %d is outside the scale %d–%d", *ch.Score, s.Min, s.Max)
	}
	return *ch.Score, ""
}

// addUnknown records ids the judge invented; they score nothing but are worth seeing.
func addUnknown(g *result.GraderResult, checks []Check, known map[string]bool) {
	if ids := unknownIDs(checks, known); len(ids) > 0 {
		if g.Details == nil {
			g.Details = map[string]any{}
		}
		g.Details["unknown_ids"] = ids
	}
}
