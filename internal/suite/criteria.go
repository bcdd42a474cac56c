package suite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var criterionKeys = []string{"id", "outcome", "criteria", "expected_outcome", "description", "weight", "required",
	"min_score", "required_min_score", "operator", "score_ranges"}

// criteria reads rubric items: strings (required, weight 1) or objects.
func (r *reader) criteria(sc scope, n *yaml.Node, what string, _ bool) []*Criterion {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list of criteria, not %s", what, kindOf(n))
		return nil
	}
	var out []*Criterion
	ids := map[string]bool{}
	for i, item := range n.Content {
		item = resolve(item)
		var c *Criterion
		if item.Kind == yaml.ScalarNode {
			if item.Tag != "!!str" {
				r.errorf(item, "%s[%d] must be text or a criterion object, not %s", what, i, kindOf(item))
				continue
			}
			s, _ := r.str(sc, item, what)
			if strings.TrimSpace(s) == "" {
				r.errorf(item, "%s[%d] is blank: a criterion needs text for the judge", what, i)
				continue
			}
			c = &Criterion{ID: fmt.Sprintf("rubric-%d", i+1), Outcome: s, Weight: 1, Required: true, Pos: r.pos(item)}
		} else {
			c = r.criterion(sc, item, what, i)
		}
		if c == nil {
			continue
		}
		if ids[c.ID] {
			r.errorf(item, "duplicate criterion id %q", c.ID)
			continue
		}
		ids[c.ID] = true
		out = append(out, c)
	}
	return out
}

// criterion reads one rubric object; nil when it cannot be used (the error is recorded).
func (r *reader) criterion(sc scope, n *yaml.Node, what string, i int) *Criterion {
	f, ok := r.fields(n, what+"[]", criterionKeys...)
	if !ok {
		return nil
	}
	c := &Criterion{Weight: 1, Pos: r.pos(n)}
	if c.ID, ok = r.criterionID(sc, f, i); !ok {
		return nil
	}
	for _, k := range []string{"outcome", "criteria", "expected_outcome", "description"} {
		if c.Outcome == "" {
			c.Outcome = r.optStr(sc, f, k, "criterion "+c.ID)
		}
	}
	r.criterionWeight(sc, f, c)
	if sr, ok := f["score_ranges"]; ok {
		c.ScoreRanges = r.scoreRanges(sc, sr, c.ID)
	}
	// Checklist items are required unless they say otherwise (AgentV's code and seeds 001/002);
	// score-range items gate only when asked to.
	c.Required = len(c.ScoreRanges) == 0 && f["score_ranges"] == nil
	if q, ok := f["required"]; ok {
		c.Required, _ = r.boolean(sc, q, "criterion "+c.ID+" required")
	}
	r.criterionMinScore(sc, f, c)
	r.criterionOperator(sc, f, c)
	if strings.TrimSpace(c.Outcome) == "" && f["score_ranges"] == nil {
		r.errorf(n, "criterion %s has no outcome", c.ID)
		return nil
	}
	return c
}

// criterionID is the criterion's own id, or its position in the list (rubric-N) when it has none.
func (r *reader) criterionID(sc scope, f map[string]*yaml.Node, i int) (string, bool) {
	id := r.optStr(sc, f, "id", "criterion")
	if id == "" {
		return fmt.Sprintf("rubric-%d", i+1), true
	}
	return id, r.checkName(f["id"], "criterion id", id)
}

func (r *reader) criterionWeight(sc scope, f map[string]*yaml.Node, c *Criterion) {
	w, ok := f["weight"]
	if !ok {
		return
	}
	if v, ok := r.num(sc, w, "criterion "+c.ID+" weight"); ok {
		if v < 0 {
			r.errorf(w, "criterion %s: weight must not be negative, not %v", c.ID, v)
		}
		c.Weight = v
	}
}

// criterionMinScore reads min_score (0-1], or the deprecated required_min_score (an integer
// 0-10); min_score wins when both are set.
func (r *reader) criterionMinScore(sc scope, f map[string]*yaml.Node, c *Criterion) {
	if m, ok := f["required_min_score"]; ok {
		if v, ok := r.integer(sc, m, "required_min_score"); ok {
			if v < 0 || v > 10 {
				r.errorf(m, "criterion %s: required_min_score must be an integer 0-10, not %d", c.ID, v)
			} else {
				ms := float64(v) / 10
				c.MinScore = &ms
				r.warnf(m, "required_min_score is deprecated: use min_score: %v", ms)
			}
		}
	}
	if m, ok := f["min_score"]; ok {
		if v, ok := r.num(sc, m, "min_score"); ok {
			if v <= 0 || v > 1 {
				r.errorf(m, "criterion %s: min_score must be in (0, 1], not %v", c.ID, v)
			} else {
				c.MinScore = &v
			}
		}
	}
}

// criterionOperator reads the operator; an unknown one is only a warning, since AgentV ignores it.
func (r *reader) criterionOperator(sc scope, f map[string]*yaml.Node, c *Criterion) {
	op := r.optStr(sc, f, "operator", "criterion")
	if op == "" {
		return
	}
	if op != "correctness" && op != "contradiction" {
		r.warnf(f["operator"], "criterion %s: unknown operator %q (correctness or contradiction); ignored", c.ID, op)
		return
	}
	c.Operator = op
}

// scoreRanges reads the map form ({0: text, 5: text}; keys are lower bounds, the first must be
// 0, the last band ends at 10) or the list form ([{score_range: [lo, hi], outcome}]), then
// checks the bands are integers 0-10 that neither overlap nor leave gaps.
func (r *reader) scoreRanges(sc scope, n *yaml.Node, id string) []ScoreRange {
	n = resolve(n)
	var out []ScoreRange
	var at []*yaml.Node // where each range was written, for the coverage errors
	var ok bool
	switch n.Kind {
	case yaml.MappingNode:
		out, at, ok = r.scoreRangeMap(sc, n, id)
	case yaml.SequenceNode:
		out, at, ok = r.scoreRangeList(sc, n, id)
	default:
		r.errorf(n, "criterion %s: score_ranges must be a mapping or a list, not %s", id, kindOf(n))
		return nil
	}
	if !ok || !r.checkRanges(out, at, n, id) {
		return nil
	}
	return out
}

// scoreBand is one entry of the map form: a lower bound and its text.
type scoreBand struct {
	lo   int
	text string
	node *yaml.Node
}

// scoreRangeMap reads the map form; each band ends where the next begins, the last at 10.
func (r *reader) scoreRangeMap(sc scope, n *yaml.Node, id string) ([]ScoreRange, []*yaml.Node, bool) {
	bands, ok := r.scoreBands(sc, n, id)
	if !ok {
		return nil, nil, false
	}
	sort.Slice(bands, func(i, j int) bool { return bands[i].lo < bands[j].lo })
	if len(bands) == 0 || bands[0].lo != 0 {
		r.errorf(n, "criterion %s: score_ranges must start at 0", id)
		return nil, nil, false
	}
	var out []ScoreRange
	var at []*yaml.Node
	for i, b := range bands {
		hi := 10
		if i+1 < len(bands) {
			hi = bands[i+1].lo - 1
		}
		out = append(out, ScoreRange{Min: b.lo, Max: hi, Outcome: b.text})
		at = append(at, b.node)
	}
	return out, at, true
}

// scoreBands reads the map form's entries in file order, stopping at the first bad one.
func (r *reader) scoreBands(sc scope, n *yaml.Node, id string) ([]scoreBand, bool) {
	var bands []scoreBand
	seen := map[int]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		lo, err := strconv.Atoi(k.Value)
		if err != nil || lo < 0 || lo > 10 {
			r.errorf(k, "criterion %s: score_ranges key %q must be an integer 0-10", id, k.Value)
			return nil, false
		}
		if seen[lo] {
			r.errorf(k, "criterion %s: score range %d is defined twice", id, lo)
			return nil, false
		}
		seen[lo] = true
		text, _ := r.str(sc, v, "score range text")
		if strings.TrimSpace(text) == "" {
			r.errorf(v, "criterion %s: score range %d has no description", id, lo)
			return nil, false
		}
		bands = append(bands, scoreBand{lo, text, k})
	}
	return bands, true
}

// scoreRangeList reads the list form, stopping at the first bad item.
func (r *reader) scoreRangeList(sc scope, n *yaml.Node, id string) ([]ScoreRange, []*yaml.Node, bool) {
	var out []ScoreRange
	var at []*yaml.Node
	for _, item := range n.Content {
		sr, node, ok := r.scoreRangeItem(sc, item, id)
		if !ok {
			return nil, nil, false
		}
		out = append(out, sr)
		at = append(at, node)
	}
	return out, at, true
}

// scoreRangeItem reads one {score_range: [lo, hi], outcome} item and the node of its range.
func (r *reader) scoreRangeItem(sc scope, item *yaml.Node, id string) (ScoreRange, *yaml.Node, bool) {
	f, ok := r.fields(item, "score range", "score_range", "outcome", "expected_outcome", "description")
	if !ok {
		return ScoreRange{}, nil, false
	}
	sr := resolve(f["score_range"])
	if sr == nil || sr.Kind != yaml.SequenceNode || len(sr.Content) != 2 {
		r.errorf(item, "criterion %s: score_range must be [min, max]", id)
		return ScoreRange{}, nil, false
	}
	lo, ok1 := r.integer(sc, sr.Content[0], "score_range min")
	hi, ok2 := r.integer(sc, sr.Content[1], "score_range max")
	if !ok1 || !ok2 {
		return ScoreRange{}, nil, false
	}
	text := r.optStr(sc, f, "outcome", "score range")
	for _, k := range []string{"expected_outcome", "description"} {
		if text == "" {
			text = r.optStr(sc, f, k, "score range")
		}
	}
	if strings.TrimSpace(text) == "" {
		r.errorf(item, "criterion %s: score range [%d, %d] has no outcome", id, lo, hi)
		return ScoreRange{}, nil, false
	}
	return ScoreRange{Min: lo, Max: hi, Outcome: text}, sr, true
}

func (r *reader) checkRanges(rs []ScoreRange, at []*yaml.Node, n *yaml.Node, id string) bool {
	covered := make([]int, 11) // index of the band covering each score, +1
	for i, sr := range rs {
		if sr.Min < 0 || sr.Max > 10 || sr.Min > sr.Max {
			r.errorf(at[i], "criterion %s: score range [%d, %d] must lie within 0-10 with min <= max", id, sr.Min, sr.Max)
			return false
		}
		for s := sr.Min; s <= sr.Max; s++ {
			if covered[s] != 0 {
				prev := rs[covered[s]-1]
				r.errorf(at[i], "criterion %s: score range [%d, %d] overlaps [%d, %d] at %d", id, sr.Min, sr.Max, prev.Min, prev.Max, s)
				return false
			}
			covered[s] = i + 1
		}
	}
	var missing []string
	for s, c := range covered {
		if c == 0 {
			missing = append(missing, strconv.Itoa(s))
		}
	}
	if len(missing) > 0 {
		r.errorf(n, "criterion %s: score ranges leave scores %s uncovered (they must cover 0-10)", id, strings.Join(missing, ", "))
		return false
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Min < rs[j].Min })
	return true
}
