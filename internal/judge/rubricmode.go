package judge

import (
	"context"
	"fmt"
	"math"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

// ids are the criteria the judge must answer for (the Likert overall rating is optional).
func ids(g *suite.Grader) []string {
	var out []string
	if g.Likert != nil {
		for _, c := range g.Likert.Criteria {
			out = append(out, c.Name)
		}
		if g.Likert.Overall != nil {
			out = append(out, "overall")
		}
		return out
	}
	for _, c := range g.Criteria {
		out = append(out, c.ID)
	}
	return out
}

// rubric asks for every criterion (k samples), merges the findings and scores them.
func (s *session) rubric(ctx context.Context, th result.Thresholds) *result.GraderResult {
	mode := s.g.RubricMode()
	want := ids(s.g)
	samples := make([]map[string]rubric.Check, 0, s.samples())
	var overall string
	for k := 0; k < s.samples(); k++ {
		found, ov, err := s.ask(ctx, mode, want, k)
		if err != nil {
			return errorResult(mode, err)
		}
		samples = append(samples, found)
		if overall == "" {
			overall = ov
		}
	}
	checks, agreement := s.merge(mode, want, samples)
	var r *result.GraderResult
	switch mode {
	case suite.ModeLikert:
		r = rubric.Likert(s.g.Likert, checks, th)
	case suite.ModeRange:
		r = rubric.Range(s.g.Criteria, checks, th)
	default:
		r = rubric.Checklist(s.g.Criteria, checks, th)
	}
	r.Reasoning = overall
	for _, c := range r.Criteria {
		c.Agreement = agreement[c.ID]
		r.Assertions = append(r.Assertions, assertion(mode, c))
	}
	return r
}

// ask gets one sample's findings. The same prompt is asked again while criteria are missing
// or the reply is unusable, merging what each reply contributes; an unparseable last reply gets
// one structure-fix call. Criteria still missing are reported as errors, never dropped.
func (s *session) ask(ctx context.Context, mode suite.Mode, want []string, sample int) (map[string]rubric.Check, string, error) {
	found := map[string]rubric.Check{}
	required := map[string]bool{}
	for _, id := range want {
		required[id] = id != "overall" || s.g.Likert == nil
	}
	var overall, last string
	var lastErr error
	complete := func() bool {
		for id, req := range required {
			if c, ok := found[id]; req && (!ok || c.Err != "") {
				return false
			}
		}
		return true
	}
	absorb := func(text string) error {
		checks, ov, err := parseChecks(text, mode, want, s.bounds())
		if err != nil {
			return err
		}
		if overall == "" {
			overall = ov
		}
		for _, c := range checks {
			if _, known := required[c.ID]; !known {
				continue
			}
			if prev, ok := found[c.ID]; !ok || (prev.Err != "" && c.Err == "") {
				found[c.ID] = c
			}
		}
		return nil
	}
	for attempt := 0; attempt < s.attempts() && !complete(); attempt++ {
		text, err := s.call(ctx, s.prompt.User, attempt, sample)
		if err != nil {
			return nil, "", err
		}
		if err := absorb(text); err != nil {
			last, lastErr = text, err
		} else {
			lastErr = nil
		}
	}
	if lastErr != nil && !complete() && last != "" {
		if text, err := s.call(ctx, repairPrompt(last, lastErr), s.attempts(), sample); err == nil {
			_ = absorb(text)
		}
	}
	for _, id := range want {
		if _, ok := found[id]; !ok && required[id] {
			msg := fmt.Sprintf("judge did not return criterion %s after %d attempts", id, s.attempts())
			if lastErr != nil {
				msg += " (last reply: " + lastErr.Error() + ")"
			}
			found[id] = rubric.Check{ID: id, Err: msg}
		}
	}
	return found, overall, nil
}

// merge combines k samples per criterion: the checklist majority (a tie is unsatisfied: the
// judge was not convinced), the rounded mean of scores; agreement is reported when k > 1.
func (s *session) merge(mode suite.Mode, want []string, samples []map[string]rubric.Check) ([]rubric.Check, map[string]*result.Agreement) {
	agreement := map[string]*result.Agreement{}
	var out []rubric.Check
	low, width := 0.0, 10.0
	if s.g.Likert != nil {
		low, width = float64(s.g.Likert.Min), float64(s.g.Likert.Max-s.g.Likert.Min)
	}
	for _, id := range want {
		var good []rubric.Check
		var firstErr rubric.Check
		for _, sm := range samples {
			c, ok := sm[id]
			switch {
			case !ok:
			case c.Err != "":
				firstErr = c
			default:
				good = append(good, c)
			}
		}
		if len(good) == 0 {
			if firstErr.ID != "" {
				out = append(out, firstErr)
			}
			continue
		}
		if len(samples) == 1 {
			out = append(out, good[0])
			continue
		}
		m, a := combine(mode, good, low, width)
		a.Samples = len(samples)
		agreement[id] = a
		out = append(out, m)
	}
	return out, agreement
}

// combine reduces a criterion's usable samples to one check and their agreement. Scores keeps
// each sample normalised as the criterion's score is (checklist 1 or 0, (raw − low) / width
// otherwise), so a comparison can run a Welch interval over them.
func combine(mode suite.Mode, good []rubric.Check, low, width float64) (rubric.Check, *result.Agreement) {
	m := good[0]
	a := &result.Agreement{Scores: make([]float64, 0, len(good))}
	if mode == suite.ModeChecklist {
		yes := 0
		for _, c := range good {
			v := 0.0
			if *c.Satisfied {
				yes++
				v = 1
			}
			a.Scores = append(a.Scores, v)
		}
		v := yes*2 > len(good)
		m.Satisfied = &v
		agree := yes
		if !v {
			agree = len(good) - yes
		}
		a.Ratio = float64(agree) / float64(len(good))
		a.Mean = float64(yes) / float64(len(good))
		a.Unstable = a.Ratio < 1
		return m, a
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, c := range good {
		v := float64(*c.Score)
		lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
		a.Scores = append(a.Scores, (v-low)/width)
	}
	mean := sum / float64(len(good))
	r := int(math.Floor(mean + 0.5))
	m.Score = &r
	a.Mean = (mean - low) / width
	a.Spread = (hi - lo) / width
	a.Ratio = 1 - a.Spread
	a.Unstable = a.Spread > 0.2
	return m, a
}

// assertion renders a criterion as AgentV's assertion: "[id] outcome" for a checklist,
// "[id] outcome - Score: 7/10 (band)" in range mode (the id stands in for a missing outcome).
func assertion(mode suite.Mode, c *result.CriterionResult) result.Assertion {
	text := fmt.Sprintf("[%s] %s", c.ID, c.Outcome)
	if c.Raw != nil && mode != suite.ModeChecklist {
		label := c.Outcome
		if label == "" {
			label = c.ID
		}
		scale := ""
		if mode == suite.ModeRange {
			scale = "/10"
		}
		text = fmt.Sprintf("[%s] %s - Score: %d%s (%s)", c.ID, label, *c.Raw, scale, c.Band)
	}
	evidence := c.Reasoning
	if c.Error != "" {
		evidence = c.Error
	}
	return result.Assertion{Text: text, Passed: c.Verdict == result.Pass, Evidence: evidence}
}

// bounds is the score range the grader's criteria must be scored in.
func (s *session) bounds() bounds {
	if s.g.Likert != nil {
		return bounds{s.g.Likert.Min, s.g.Likert.Max}
	}
	return bounds{0, 10}
}
