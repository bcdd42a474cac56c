package potato

import (
	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// pair lines up the humans' annotations with the judge's ratings in run, under the names the
// export gave each criterion, as input for calibrate.Compute. Ratings of traces the run does
// not hold are kept (calibrate reports them as unmatched).
func pair(run *result.Run, anns []*annotation) calibrate.Input {
	in := calibrate.Input{Scales: map[string]calibrate.Scale{}}
	byID := map[string]*trace{}
	seen := map[string]bool{}
	for _, tr := range traces(run) {
		byID[tr.id] = tr
		for _, g := range tr.graders {
			lo, hi := scale(g, nil)
			add := func(k string, v float64) {
				name := tr.names[g][k]
				in.Judge = append(in.Judge, calibrate.Rating{Item: tr.id, Rater: "judge", Criterion: name, Value: v})
				if !seen[name] {
					seen[name] = true
					in.Order = append(in.Order, name)
					in.Scales[name] = calibrate.Scale{Min: float64(lo), Max: float64(hi)}
				}
			}
			for _, c := range g.Criteria {
				if v, ok := judgeValue(c); ok {
					add(c.ID, v)
				}
			}
			for _, k := range []string{overallKey, weightedKey} {
				if v, ok := detailNumber(g, k); ok {
					add(k, v)
				}
			}
		}
	}
	for _, a := range anns {
		tr := byID[a.TraceID]
		for _, r := range a.Schemes {
			human := func(name string, v float64) {
				in.Humans = append(in.Humans, calibrate.Rating{Item: a.TraceID, Rater: a.Annotator, Criterion: name, Value: v})
			}
			for c, v := range r.Ratings {
				human(c, v)
			}
			g := likertFor(tr, r.Key)
			overall, weighted := overallKey, weightedKey
			if g != nil {
				overall, weighted = tr.names[g][overallKey], tr.names[g][weightedKey]
			}
			if r.OverallName != "" {
				overall = r.OverallName
			}
			if r.WeightedName != "" {
				weighted = r.WeightedName
			}
			// Without a judge the scales come from the export's map.
			for name, sc := range r.Scales {
				if _, ok := in.Scales[name]; !ok {
					in.Scales[name] = sc
				}
			}
			if r.Overall != nil {
				human(overall, *r.Overall)
			}
			switch {
			case r.Weighted != nil:
				human(weighted, *r.Weighted)
			case g != nil:
				if w, ok := weightedScore(r.Ratings, weights(tr, g)); ok {
					human(weighted, w)
				}
			}
		}
	}
	return in
}

// likertFor is the Likert grader an annotation's rubric object belongs to: the one named like
// the object's key, else the trace's only Likert grader; nil when unknown.
func likertFor(tr *trace, key string) *result.GraderResult {
	if tr == nil {
		return nil
	}
	var likert []*result.GraderResult
	for _, g := range tr.graders {
		if suite.Mode(g.Mode) != suite.ModeLikert {
			continue
		}
		if g.Name == key {
			return g
		}
		likert = append(likert, g)
	}
	if len(likert) == 1 {
		return likert[0]
	}
	return nil
}

// weights are a grader's criterion weights under their exported names.
func weights(tr *trace, g *result.GraderResult) map[string]float64 {
	w := map[string]float64{}
	for _, c := range g.Criteria {
		w[tr.names[g][c.ID]] = c.Weight
	}
	return w
}
