package grader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

// fieldAccuracy compares fields of the answer, parsed as JSON, with the same fields of the
// reference answer (AgentV's field-accuracy).
type fieldAccuracy struct {
	spec         *suite.Grader
	fields       []fieldSpec
	allOrNothing bool
}

// fieldSpec is one compared field.
type fieldSpec struct {
	path, match string
	// required makes a field missing from the answer a miss; an optional missing field is
	// left out of the score.
	required  bool
	weight    float64
	tolerance float64
	relative  bool
	formats   []string
}

func newFieldAccuracy(spec *suite.Grader, _ Deps) (Grader, error) {
	p := params(spec.Params)
	list, ok := p["fields"].([]any)
	if !ok || len(list) == 0 {
		return nil, errors.New("field-accuracy grader needs fields (a non-empty list)")
	}
	g := &fieldAccuracy{spec: spec}
	for i, item := range list {
		f, err := parseField(item)
		if err != nil {
			return nil, fmt.Errorf("fields[%d]: %w", i, err)
		}
		g.fields = append(g.fields, f)
	}
	agg, err := p.str("aggregation")
	if err != nil {
		return nil, err
	}
	switch agg {
	case "", "weighted_average":
	case "all_or_nothing":
		g.allOrNothing = true
	default:
		return nil, fmt.Errorf("unknown aggregation %q (want weighted_average or all_or_nothing)", agg)
	}
	return g, nil
}

func parseField(item any) (fieldSpec, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return fieldSpec{}, fmt.Errorf("must be a mapping with path, not %v", item)
	}
	p := params(m)
	f := fieldSpec{match: "exact", weight: 1}
	var err error
	if f.path, err = p.str("path"); err != nil || f.path == "" {
		return f, errors.New("needs path (a string)")
	}
	if p.has("match") {
		if f.match, err = p.str("match"); err != nil {
			return f, err
		}
	}
	switch f.match {
	case "exact", "numeric_tolerance", "date":
	default:
		return f, fmt.Errorf("unknown match %q (want exact, numeric_tolerance or date)", f.match)
	}
	if f.required, err = p.boolean("required", true); err != nil {
		return f, err
	}
	if w, ok, err := p.limit("weight"); err != nil {
		return f, err
	} else if ok {
		f.weight = w
	}
	if t, ok, err := p.limit("tolerance"); err != nil {
		return f, err
	} else if ok {
		f.tolerance = t
	}
	if f.relative, err = p.boolean("relative", false); err != nil {
		return f, err
	}
	if p.has("formats") {
		list, ok := m["formats"].([]any)
		if !ok {
			return f, fmt.Errorf("formats must be a list of strings, not %v", m["formats"])
		}
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return f, fmt.Errorf("formats must be a list of strings, not %v", x)
			}
			f.formats = append(f.formats, s)
		}
	}
	return f, nil
}

// fieldResult is one field's finding.
type fieldResult struct {
	score, weight float64
	hit           bool
	text          string
}

func (g *fieldAccuracy) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	answer := ""
	if in.Output != nil {
		answer = in.Output.Answer
	}
	got, err := parseJSONText(answer)
	if err != nil {
		r.Assertions = []result.Assertion{{Text: "Failed to parse the answer as JSON", Passed: false, Evidence: clip(answer, 200)}}
		binary(r, false)
		return negate(g.spec, r)
	}
	want, ok := expectedJSON(in.Test)
	if !ok {
		r.Assertions = []result.Assertion{{Text: "No expected data found in expected_output (the reference answer is not JSON)", Passed: false}}
		binary(r, false)
		return negate(g.spec, r)
	}
	var results []fieldResult
	scores := map[string]any{}
	for _, f := range g.fields {
		fr := f.compare(got, want)
		results = append(results, fr)
		scores[f.path] = fr.score
		r.Assertions = append(r.Assertions, result.Assertion{Text: fr.text, Passed: fr.hit})
	}
	agg := "weighted_average"
	if g.allOrNothing {
		agg = "all_or_nothing"
	}
	r.Details = map[string]any{"aggregation": agg, "fields": scores}
	scored(r, g.aggregate(results), in)
	return negate(g.spec, r)
}

// aggregate is all_or_nothing (1 when every field hit) or the weighted mean of field scores.
func (g *fieldAccuracy) aggregate(results []fieldResult) float64 {
	if g.allOrNothing {
		for _, fr := range results {
			if !fr.hit {
				return 0
			}
		}
		return 1
	}
	var sum, weights float64
	for _, fr := range results {
		sum += fr.score * fr.weight
		weights += fr.weight
	}
	if weights == 0 {
		// Every field was optional and missing (or weighed 0): nothing matched.
		return 0
	}
	return sum / weights
}

// expectedJSON is the reference answer as JSON: the last assistant message of expected_output
// that parses, else the test's reference answer.
func expectedJSON(t *suite.Test) (any, bool) {
	if t == nil {
		return nil, false
	}
	for i := len(t.ExpectedOutput) - 1; i >= 0; i-- {
		m := t.ExpectedOutput[i]
		if m.Role != "assistant" || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if v, err := parseJSONText(m.Content); err == nil {
			return v, true
		}
	}
	v, err := parseJSONText(t.Reference())
	return v, err == nil
}

func (f fieldSpec) compare(got, want any) fieldResult {
	ev, ok := lookup(want, f.path)
	if !ok {
		return fieldResult{score: 1, weight: f.weight, hit: true, text: f.path + ": no expected value"}
	}
	gv, ok := lookup(got, f.path)
	if !ok {
		if f.required {
			return fieldResult{weight: f.weight, text: f.path + " (required, missing)"}
		}
		return fieldResult{score: 1, hit: true, text: f.path + ": optional field missing"}
	}
	miss := func(format string, args ...any) fieldResult {
		return fieldResult{weight: f.weight, text: f.path + " (" + fmt.Sprintf(format, args...) + ")"}
	}
	hit := func(text string) fieldResult {
		return fieldResult{score: 1, weight: f.weight, hit: true, text: text}
	}
	switch f.match {
	case "numeric_tolerance":
		g, okG := toNumber(gv)
		e, okE := toNumber(ev)
		if !okG || !okE {
			return miss("non-numeric value: got %v, expected %v", gv, ev)
		}
		diff := math.Abs(g - e)
		d := diff
		if f.relative && e != 0 {
			d = diff / math.Abs(e)
		}
		// A tiny epsilon keeps 10.1 vs 10 ± 0.1 inside despite binary rounding.
		if d <= f.tolerance+1e-9 {
			return hit(fmt.Sprintf("%s (within tolerance: diff=%.4g)", f.path, diff))
		}
		return miss("outside tolerance: got %v, expected %v, diff=%.4g, tolerance=%s%s", gv, ev, diff, formatNum(f.tolerance), relSuffix(f.relative))
	case "date":
		gd, okG := parseDate(fmt.Sprint(gv), f.formats)
		ed, okE := parseDate(fmt.Sprint(ev), f.formats)
		switch {
		case !okG:
			return miss("unparseable date %q", fmt.Sprint(gv))
		case !okE:
			return miss("unparseable expected date %q", fmt.Sprint(ev))
		case gd != ed:
			return miss("date mismatch: got %s, expected %s", gd, ed)
		}
		return hit(f.path)
	default:
		if equalJSON(gv, ev) {
			return hit(f.path)
		}
		if kindOf(gv) != kindOf(ev) {
			return miss("type mismatch: got %s, expected %s", kindOf(gv), kindOf(ev))
		}
		return miss("value mismatch: got %s, expected %s", clip(outputText(gv), 80), clip(outputText(ev), 80))
	}
}

func relSuffix(relative bool) string {
	if relative {
		return " relative"
	}
	return ""
}

// toNumber reads a JSON number, or a string holding one ("12.50").
func toNumber(v any) (float64, bool) {
	if f, ok := number(v); ok {
		return f, true
	}
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// kindOf names a decoded JSON value's type for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// clip shortens s to n bytes for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Invalid bytes (a script's output can hold any) are dropped, not quoted.
	return strings.ToValidUTF8(safetext.Truncate(s, n), "") + "…"
}
