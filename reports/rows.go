package reports

import (
	"cmp"
	"slices"

	"github.com/evalgate/evalgate/internal/result"
)

// row is one line of a test's table: a criterion, or a grader.
type row struct {
	path     string // grader path, "composite › member" for members
	crit     string // criterion id; "" on a grader row
	isCrit   bool
	leaf     bool // a criterion, or a grader without criteria or members: what stats count
	g        *result.GraderResult
	c        *result.CriterionResult
	weight   float64
	required bool
	minScore *float64
	score    float64
	verdict  result.Verdict
	gated    bool
	note     string // error or gate text (raw)
	file     string
	line     int
}

// label is the row's name for people: "grader › criterion".
func (r *row) label() string {
	if r.isCrit {
		return r.path + " › " + r.crit
	}
	return r.path
}

// scored reports whether the row's score means something (not error or skip).
func (r *row) scored() bool {
	return r.verdict == result.Pass || r.verdict == result.Borderline || r.verdict == result.Fail
}

func countGraders(gs []*result.GraderResult) int {
	n := 0
	for _, g := range gs {
		if g != nil {
			n++
		}
	}
	return n
}

// flatten appends the rows of graders gs (and their criteria and members), worst group first.
// A grader with criteria gets its own row only when it tells something its criteria do not:
// several graders share the test, or the grader errored or failed its own gate.
func flatten(rows []row, gs []*result.GraderResult, prefix string, multi bool, depth int) []row {
	type group struct {
		sev  int
		rows []row
	}
	var groups []group
	for _, g := range gs {
		if g == nil {
			continue
		}
		name := g.Name
		if name == "" {
			name = g.Type
		}
		if prefix != "" {
			name = prefix + " › " + name
		}
		var grp []row
		kids := len(g.Criteria) > 0 || (len(g.Members) > 0 && depth < maxDepth)
		critGated := false
		for _, c := range g.Criteria {
			critGated = critGated || (c != nil && c.Gated)
		}
		// The grader's own gate (required/min_score on the grader), not one of its criteria's.
		ownGate := g.Gated && !critGated
		if !kids || multi || ownGate || g.Error != "" || g.Verdict == result.Error {
			r := row{path: name, g: g, leaf: !kids, weight: g.Weight, required: g.Required,
				minScore: g.MinScore, score: g.Score, verdict: g.Verdict, gated: g.Gated,
				note: g.Error, file: g.File, line: g.Line}
			if r.note == "" && ownGate {
				r.note = "required grader below its minimum"
			}
			grp = append(grp, r)
		}
		crits := make([]row, 0, len(g.Criteria))
		for _, c := range g.Criteria {
			if c == nil {
				continue
			}
			r := row{path: name, crit: c.ID, isCrit: true, leaf: true, g: g, c: c, weight: c.Weight,
				required: c.Required, minScore: c.MinScore, score: c.Score, verdict: c.Verdict,
				gated: c.Gated, note: c.Error, file: c.File, line: c.Line}
			if r.note == "" && c.Gated {
				r.note = "required criterion not met"
			}
			crits = append(crits, r)
		}
		slices.SortStableFunc(crits, func(a, b row) int {
			return cmp.Compare(severity(a.verdict, a.gated), severity(b.verdict, b.gated))
		})
		grp = append(grp, crits...)
		if depth < maxDepth {
			grp = flatten(grp, g.Members, name, true, depth+1)
		}
		sev := severity(g.Verdict, g.Gated)
		for _, r := range grp {
			sev = min(sev, severity(r.verdict, r.gated))
		}
		groups = append(groups, group{sev, grp})
	}
	slices.SortStableFunc(groups, func(a, b group) int { return cmp.Compare(a.sev, b.sev) })
	for _, g := range groups {
		rows = append(rows, g.rows...)
	}
	return rows
}
