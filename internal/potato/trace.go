package potato

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Pseudo-criteria a Likert grader adds besides its criteria.
const (
	overallKey  = "overall"
	weightedKey = "weighted_score"
)

// trace is one test humans can rate: it produced output and has at least one judge grader
// with criteria.
type trace struct {
	id      string
	suite   *result.SuiteResult
	test    *result.TestResult
	graders []*result.GraderResult
	// names maps a grader's criterion id (or pseudo-criterion) to its exported name.
	names map[*result.GraderResult]map[string]string
}

// traces lists the rateable tests of a run in run order, with unique trace ids.
func traces(run *result.Run) []*trace {
	var out []*trace
	seen := map[string]int{}
	for _, s := range run.Suites {
		for _, t := range s.Tests {
			if t.Output == nil {
				continue
			}
			gs := judgeGraders(t.Graders)
			if len(gs) == 0 {
				continue
			}
			id := s.Name + "/" + t.ID
			seen[id]++
			if n := seen[id]; n > 1 {
				id = fmt.Sprintf("%s#%d", id, n)
			}
			out = append(out, &trace{id: id, suite: s, test: t, graders: gs, names: names(gs)})
		}
	}
	return out
}

// judgeGraders are the rubric graders whose criteria a human can rate, composite members
// included.
func judgeGraders(gs []*result.GraderResult) []*result.GraderResult {
	var out []*result.GraderResult
	for _, g := range gs {
		out = append(out, judgeGraders(g.Members)...)
		if len(g.Criteria) == 0 {
			continue
		}
		switch suite.Mode(g.Mode) {
		case suite.ModeChecklist, suite.ModeRange, suite.ModeLikert:
			out = append(out, g)
		}
	}
	return out
}

// keys are a grader's rateable ids: its criteria, plus overall and weighted score for Likert.
func keys(g *result.GraderResult) []string {
	var out []string
	for _, c := range g.Criteria {
		out = append(out, c.ID)
	}
	if suite.Mode(g.Mode) == suite.ModeLikert {
		out = append(out, overallKey, weightedKey)
	}
	return out
}

// names gives every rateable id its exported name: the id, or grader.id when graders share it.
func names(gs []*result.GraderResult) map[*result.GraderResult]map[string]string {
	count := map[string]int{}
	for _, g := range gs {
		for _, k := range keys(g) {
			count[k]++
		}
	}
	out := map[*result.GraderResult]map[string]string{}
	for _, g := range gs {
		m := map[string]string{}
		for _, k := range keys(g) {
			m[k] = k
			if count[k] > 1 {
				m[k] = g.Name + "." + k
			}
		}
		out[g] = m
	}
	return out
}

// scale is a grader's rating scale: checklist 0–1, score range 0–10, Likert its own.
func scale(g *result.GraderResult, spec *suite.Grader) (int, int) {
	switch suite.Mode(g.Mode) {
	case suite.ModeChecklist:
		return 0, 1
	case suite.ModeRange:
		return 0, 10
	}
	if spec != nil && spec.Likert != nil {
		return spec.Likert.Min, spec.Likert.Max
	}
	if s, ok := g.Details["scale"].([]any); ok && len(s) == 2 {
		lo, ok1 := s[0].(float64)
		hi, ok2 := s[1].(float64)
		if ok1 && ok2 {
			return int(lo), int(hi)
		}
	}
	if s, ok := g.Details["scale"].([]int); ok && len(s) == 2 {
		return s[0], s[1]
	}
	return 1, 5
}

// judgeValue is the judge's rating of a criterion on the grader's scale.
func judgeValue(c *result.CriterionResult) (float64, bool) {
	switch {
	case c.Raw != nil:
		return float64(*c.Raw), true
	case c.Satisfied != nil && *c.Satisfied:
		return 1, true
	case c.Satisfied != nil:
		return 0, true
	}
	return 0, false
}

// detailNumber reads a number from grader details, whether set in process or read from JSON.
func detailNumber(g *result.GraderResult, key string) (float64, bool) {
	switch v := g.Details[key].(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}
