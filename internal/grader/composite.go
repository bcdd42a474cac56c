package grader

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// composite runs member graders and aggregates their results (AgentV's composite): a weighted
// average of member scores, the share of members passing against a threshold, a script's
// verdict or a judge's. Members whose verdict is skip are left out of the average and the
// share; a member error makes the composite an error, never a pass.
type composite struct {
	spec    *suite.Grader
	deps    Deps
	members []Grader
	// aggregator is weighted_average, threshold, code-grader or llm-grader.
	aggregator string
	weights    map[string]float64
	threshold  float64
	// script is a code-grader aggregator's shell command (AgentV's path).
	script string
	// prompt is an llm-grader aggregator's prompt; "" is AgentV's default.
	prompt string
}

func newComposite(spec *suite.Grader, deps Deps) (Grader, error) {
	if len(spec.Members) == 0 {
		return nil, errors.New("composite grader needs assertions (its members)")
	}
	g := &composite{spec: spec, deps: deps, aggregator: "weighted_average", weights: map[string]float64{}}
	if err := g.parseAggregator(spec.Params["aggregator"]); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, m := range spec.Members {
		names[m.Name] = true
		g.weights[m.Name] = m.Weight
		mg, err := New(m, deps)
		if err != nil {
			if deps.validate {
				return nil, err
			}
			// The member reports its own error when graded, which errors the composite.
			mg = failing{spec: m, msg: err.Error()}
		}
		g.members = append(g.members, mg)
	}
	if g.aggregator == "llm-grader" && deps.Judge == nil {
		return nil, errors.New("llm-grader aggregator: no judge configured")
	}
	agg, _ := spec.Params["aggregator"].(map[string]any)
	if ws, ok := agg["weights"].(map[string]any); ok {
		for name, v := range ws {
			if !names[name] {
				return nil, fmt.Errorf("aggregator.weights names %q, which is not a member (members: %s)", name, strings.Join(sortedKeys(names), ", "))
			}
			w, isNum := number(v)
			if !isNum || w < 0 {
				return nil, fmt.Errorf("aggregator.weights.%s must be a non-negative number, not %v", name, v)
			}
			g.weights[name] = w
		}
	} else if agg["weights"] != nil {
		return nil, fmt.Errorf("aggregator.weights must be a map of member name to weight, not %v", agg["weights"])
	}
	return g, nil
}

// aggregatorSettings are the settings each aggregator type reads; another is an error, since
// AgentV would ignore it and the author meant it to count.
var aggregatorSettings = map[string][]string{
	"weighted_average": {"type", "weights"},
	"threshold":        {"type", "threshold"},
	"code-grader":      {"type", "path"},
	"llm-grader":       {"type", "prompt"},
}

// parseAggregator reads aggregator: absent, a type name, or {type, weights | threshold |
// path | prompt}.
func (g *composite) parseAggregator(v any) error {
	var p params
	switch a := v.(type) {
	case nil:
		return nil
	case string:
		p = params{"type": a}
	case map[string]any:
		p = a
	default:
		return fmt.Errorf("aggregator must be a mapping with type, not %v", v)
	}
	typ, err := p.str("type")
	if err != nil {
		return fmt.Errorf("aggregator.%w", err)
	}
	switch typ {
	case "", "weighted_average", "weighted-average":
		typ = "weighted_average"
	case "code-grader", "code_grader":
		typ = "code-grader"
	case "llm-grader", "llm_grader":
		typ = "llm-grader"
	case "threshold":
	case "code-judge", "code_judge", "llm-judge", "llm_judge":
		return fmt.Errorf("aggregator type %q is the old name: use %q", typ, strings.Replace(strings.ReplaceAll(typ, "_", "-"), "-judge", "-grader", 1))
	default:
		return fmt.Errorf("unknown composite aggregator %q (want weighted_average, threshold, code-grader or llm-grader)", typ)
	}
	g.aggregator = typ
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if !slices.Contains(aggregatorSettings[typ], k) {
			return fmt.Errorf("aggregator.%s does not apply to a %s aggregator (it reads %s)", k, typ, strings.Join(aggregatorSettings[typ][1:], ", "))
		}
	}
	switch typ {
	case "threshold":
		th, ok, err := p.num("threshold")
		switch {
		case err != nil:
			return fmt.Errorf("aggregator.%w", err)
		case !ok:
			return errors.New("threshold aggregator needs threshold (0–1)")
		case th < 0 || th > 1:
			return fmt.Errorf("aggregator.threshold must be between 0 and 1, not %v", th)
		}
		g.threshold = th
	case "code-grader":
		path, err := p.str("path")
		switch {
		case err != nil:
			return fmt.Errorf("aggregator.%w", err)
		case strings.TrimSpace(path) == "":
			return errors.New("code-grader aggregator needs path: the command that prints the verdict, e.g. node ../scripts/aggregate.js")
		}
		g.script = path
	case "llm-grader":
		prompt, err := p.str("prompt")
		if err != nil {
			return fmt.Errorf("aggregator.%w", err)
		}
		g.prompt = prompt
	}
	return nil
}

func (g *composite) Grade(ctx context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	// Members are independent, so they run at once, as in AgentV; each writes its own slot.
	r.Members = make([]*result.GraderResult, len(g.members))
	var wg sync.WaitGroup
	for i, m := range g.members {
		wg.Go(func() { r.Members[i] = m.Grade(ctx, in) })
	}
	wg.Wait()

	var errs []string
	var graded []*result.GraderResult
	for _, m := range r.Members {
		r.Usage.Add(m.Usage)
		switch m.Verdict {
		case result.Error:
			errs = append(errs, fmt.Sprintf("member %s: %s", m.Name, m.Error))
		case result.Skip:
		default:
			graded = append(graded, m)
		}
	}
	switch {
	case len(errs) > 0:
		r.Verdict, r.Error = result.Error, strings.Join(errs, "; ")
		return r
	case len(graded) == 0:
		r.Verdict = result.Skip
		r.Assertions = []result.Assertion{{Text: "All members skipped", Passed: false}}
		return r
	}
	switch g.aggregator {
	case "threshold":
		g.byThreshold(r, graded)
	case "code-grader":
		g.byScript(ctx, r, in)
	case "llm-grader":
		g.byJudge(ctx, r, in)
	default:
		g.byWeight(r, graded, in)
	}
	return negate(g.spec, r)
}

func (g *composite) byWeight(r *result.GraderResult, graded []*result.GraderResult, in *Input) {
	var sum, total float64
	weights := map[string]any{}
	for _, m := range graded {
		w := g.weights[m.Name]
		weights[m.Name] = w
		sum += w * m.Score
		total += w
		r.Assertions = append(r.Assertions, memberAssertions(m)...)
	}
	score := 0.0
	if total > 0 {
		score = sum / total
	}
	r.Details = map[string]any{"aggregator": "weighted_average", "weights": weights}
	scored(r, score, in)
}

func (g *composite) byThreshold(r *result.GraderResult, graded []*result.GraderResult) {
	passing := 0
	var as []result.Assertion
	for _, m := range graded {
		// Only a pass counts: a borderline member did not pass.
		if m.Verdict == result.Pass {
			passing++
		}
		as = append(as, memberAssertions(m)...)
	}
	share := float64(passing) / float64(len(graded))
	ok := share >= g.threshold
	r.Assertions = append([]result.Assertion{{
		Text:   fmt.Sprintf("%d/%d members passed (threshold: %s)", passing, len(graded), formatNum(g.threshold)),
		Passed: ok,
	}}, as...)
	r.Details = map[string]any{"aggregator": "threshold", "threshold": g.threshold}
	r.Score = share
	if ok {
		r.Verdict = result.Pass
	} else {
		r.Verdict = result.Fail
	}
}

// memberAssertions are a member's assertions prefixed with its name; a member with none (a
// judge grader) contributes one line with its verdict.
func memberAssertions(m *result.GraderResult) []result.Assertion {
	if len(m.Assertions) == 0 {
		return []result.Assertion{{Text: fmt.Sprintf("[%s] %s (score %.2f)", m.Name, m.Verdict, m.Score), Passed: m.Verdict == result.Pass}}
	}
	out := make([]result.Assertion, len(m.Assertions))
	for i, a := range m.Assertions {
		a.Text = fmt.Sprintf("[%s] %s", m.Name, a.Text)
		out[i] = a
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
