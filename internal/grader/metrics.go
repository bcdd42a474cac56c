package grader

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// The metric graders check what the target reported about its run (duration, cost, tokens,
// calls) against limits. Data the target did not report is a failed check, as in AgentV: a
// budget nobody measured is not a budget kept. The result model stores unknown as 0.

// latency passes when the run took at most threshold milliseconds.
type latency struct {
	spec      *suite.Grader
	threshold float64
}

func newLatency(spec *suite.Grader, _ Deps) (Grader, error) {
	th, ok, err := params(spec.Params).limit("threshold")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("latency grader needs threshold (milliseconds)")
	}
	return latency{spec: spec, threshold: th}, nil
}

func (g latency) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	r.Details = map[string]any{"threshold_ms": g.threshold}
	var d int64
	if in.Output != nil {
		d = in.Output.DurationMS
	}
	if d <= 0 {
		r.Assertions = []result.Assertion{{Text: "No duration data available", Passed: false}}
		binary(r, false)
		return negate(g.spec, r)
	}
	r.Details["duration_ms"] = d
	ok := float64(d) <= g.threshold
	r.Assertions = []result.Assertion{{Text: fmt.Sprintf("Duration %dms %s %sms", d, cmp(ok), formatNum(g.threshold)), Passed: ok}}
	binary(r, ok)
	return negate(g.spec, r)
}

// cost passes when the run cost at most budget US dollars.
type cost struct {
	spec   *suite.Grader
	budget float64
}

func newCost(spec *suite.Grader, _ Deps) (Grader, error) {
	b, ok, err := params(spec.Params).limit("budget")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("cost grader needs budget (USD)")
	}
	return cost{spec: spec, budget: b}, nil
}

func (g cost) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	r.Details = map[string]any{"budget_usd": g.budget}
	var c float64
	if in.Output != nil {
		c = in.Output.Usage.CostUSD
	}
	if c <= 0 {
		r.Assertions = []result.Assertion{{Text: "No cost data available", Passed: false}}
		binary(r, false)
		return negate(g.spec, r)
	}
	r.Details["cost_usd"] = c
	ok := c <= g.budget
	r.Assertions = []result.Assertion{{Text: fmt.Sprintf("Cost $%.4f %s $%.4f budget", c, cmp(ok), g.budget), Passed: ok}}
	binary(r, ok)
	return negate(g.spec, r)
}

// cmp words a limit check for assertion texts.
func cmp(ok bool) string {
	if ok {
		return "<="
	}
	return ">"
}

// tokenUsage passes when every configured token limit holds (AgentV: total counts cached).
type tokenUsage struct {
	spec   *suite.Grader
	limits []tokenLimit
}

type tokenLimit struct {
	key, label string
	max        float64
	value      func(u result.Usage) int64
}

func newTokenUsage(spec *suite.Grader, _ Deps) (Grader, error) {
	p, err := params(spec.Params).snakeCase()
	if err != nil {
		return nil, err
	}
	all := []tokenLimit{
		{key: "max_input", label: "Input tokens", value: func(u result.Usage) int64 { return u.InputTokens }},
		{key: "max_output", label: "Output tokens", value: func(u result.Usage) int64 { return u.OutputTokens }},
		{key: "max_total", label: "Total tokens", value: func(u result.Usage) int64 { return u.InputTokens + u.OutputTokens + u.CachedTokens }},
	}
	g := tokenUsage{spec: spec}
	for _, l := range all {
		v, ok, err := p.limit(l.key)
		if err != nil {
			return nil, err
		}
		if ok {
			l.max = v
			g.limits = append(g.limits, l)
		}
	}
	if len(g.limits) == 0 {
		return nil, errors.New("token-usage grader needs max_total, max_input or max_output")
	}
	return g, nil
}

func (g tokenUsage) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	var u result.Usage
	if in.Output != nil {
		u = in.Output.Usage
	}
	r.Details = map[string]any{}
	for _, l := range g.limits {
		r.Details[l.key] = l.max
	}
	if u.InputTokens == 0 && u.OutputTokens == 0 && u.CachedTokens == 0 {
		r.Assertions = []result.Assertion{{Text: "No token usage data available", Passed: false}}
		binary(r, false)
		return negate(g.spec, r)
	}
	r.Details["token_usage"] = map[string]any{"input": u.InputTokens, "output": u.OutputTokens, "cached": u.CachedTokens}
	all := true
	for _, l := range g.limits {
		v := l.value(u)
		ok := float64(v) <= l.max
		all = all && ok
		r.Assertions = append(r.Assertions, result.Assertion{Text: fmt.Sprintf("%s %d %s %s", l.label, v, cmp(ok), formatNum(l.max)), Passed: ok})
	}
	binary(r, all)
	return negate(g.spec, r)
}

// executionMetrics scores passed/checked over the configured limits.
type executionMetrics struct {
	spec   *suite.Grader
	limits map[string]float64
	// tolerance is how far the exploration ratio may stray from its target.
	tolerance float64
}

// metricKeys are execution-metrics' checks, in report order.
var metricKeys = []string{"max_tool_calls", "max_llm_calls", "max_tokens", "max_cost_usd", "max_duration_ms", "target_exploration_ratio"}

func newExecutionMetrics(spec *suite.Grader, _ Deps) (Grader, error) {
	p, err := params(spec.Params).snakeCase()
	if err != nil {
		return nil, err
	}
	g := executionMetrics{spec: spec, limits: map[string]float64{}, tolerance: 0.2}
	for _, k := range metricKeys {
		v, ok, err := p.limit(k)
		if err != nil {
			return nil, err
		}
		if ok {
			g.limits[k] = v
		}
	}
	if len(g.limits) == 0 {
		return nil, fmt.Errorf("execution-metrics grader needs at least one of %v", metricKeys)
	}
	if r, ok := g.limits["target_exploration_ratio"]; ok && r > 1 {
		return nil, fmt.Errorf("target_exploration_ratio must be between 0 and 1, not %v", r)
	}
	tol, ok, err := p.limit("exploration_tolerance")
	if err != nil {
		return nil, err
	}
	if ok {
		g.tolerance = tol
	}
	return g, nil
}

func (g executionMetrics) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	out := in.Output
	calls := toolCalls(out)
	actual := map[string]any{}
	check := func(ok bool, format string, args ...any) {
		r.Assertions = append(r.Assertions, result.Assertion{Text: fmt.Sprintf(format, args...), Passed: ok})
	}
	for _, k := range metricKeys {
		lim, set := g.limits[k]
		if !set {
			continue
		}
		switch k {
		case "max_tool_calls":
			if out == nil {
				check(false, "Tool call data not available")
				continue
			}
			n := len(calls)
			actual["tool_calls"] = n
			check(float64(n) <= lim, "Tool calls %d %s %s max", n, cmp(float64(n) <= lim), formatNum(lim))
		case "max_llm_calls":
			n, ok := llmCalls(out)
			if !ok {
				check(false, "LLM call count data not available")
				continue
			}
			actual["llm_calls"] = n
			check(float64(n) <= lim, "LLM calls %d %s %s max", n, cmp(float64(n) <= lim), formatNum(lim))
		case "max_tokens":
			if out == nil || out.Usage.InputTokens+out.Usage.OutputTokens == 0 {
				check(false, "Token usage data not available")
				continue
			}
			n := out.Usage.InputTokens + out.Usage.OutputTokens
			actual["tokens"] = n
			check(float64(n) <= lim, "Total tokens %d %s %s max", n, cmp(float64(n) <= lim), formatNum(lim))
		case "max_cost_usd":
			if out == nil || out.Usage.CostUSD <= 0 {
				check(false, "Cost data not available")
				continue
			}
			c := out.Usage.CostUSD
			actual["cost_usd"] = c
			check(c <= lim, "Cost $%.4f %s $%.4f max", c, cmp(c <= lim), lim)
		case "max_duration_ms":
			if out == nil || out.DurationMS <= 0 {
				check(false, "Duration data not available")
				continue
			}
			d := out.DurationMS
			actual["duration_ms"] = d
			check(float64(d) <= lim, "Duration %dms %s %sms max", d, cmp(float64(d) <= lim), formatNum(lim))
		case "target_exploration_ratio":
			ratio, ok := explorationRatio(calls)
			if !ok {
				check(false, "Exploration ratio not available (no tool calls)")
				continue
			}
			actual["exploration_ratio"] = ratio
			diff := math.Abs(ratio - lim)
			// A small epsilon keeps 0.7 vs 0.5 ± 0.2 inside, as the user wrote it.
			if diff <= g.tolerance+1e-9 {
				check(true, "Exploration ratio %.2f within %s of target %s", ratio, formatNum(g.tolerance), formatNum(lim))
			} else {
				check(false, "Exploration ratio %.2f outside tolerance of target %s (diff: %.2f, tolerance: %s)", ratio, formatNum(lim), diff, formatNum(g.tolerance))
			}
		}
	}
	r.Details = map[string]any{"actual": actual}
	scored(r, passedShare(r.Assertions), in)
	return negate(g.spec, r)
}
