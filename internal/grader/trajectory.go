package grader

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// trajectory checks the agent's tool calls against an expected trajectory (AgentV's
// tool-trajectory). Every check is reported as an assertion.
type trajectory struct {
	spec     *suite.Grader
	mode     string
	minimums []minimum
	expected []expectedCall
}

// minimum is an any_order requirement: tool called at least n times.
type minimum struct {
	tool string
	n    float64
}

// expectedCall is one item of an expected trajectory.
type expectedCall struct {
	tool string
	// args constrains the call's arguments; nil means any arguments.
	args  map[string]any
	match argsMatch
	// maxDuration is the call's latency budget in ms; nil means none.
	maxDuration *float64
}

// argsMatch is how expected arguments are compared: exact, ignore, subset, superset, or only
// the listed field paths.
type argsMatch struct {
	mode   string
	fields []string
}

func newTrajectory(spec *suite.Grader, _ Deps) (Grader, error) {
	p, err := params(spec.Params).snakeCase()
	if err != nil {
		return nil, err
	}
	mode, err := p.str("mode")
	if err != nil {
		return nil, err
	}
	g := &trajectory{spec: spec, mode: mode}
	switch mode {
	case "any_order":
		m, ok := p["minimums"].(map[string]any)
		if !ok {
			return nil, errors.New("tool-trajectory mode any_order needs minimums (a map of tool: count)")
		}
		for _, tool := range minimumsOrder(p, m) {
			n, isNum := number(m[tool])
			if !isNum || n < 0 {
				return nil, fmt.Errorf("minimums.%s must be a non-negative number, not %v", tool, m[tool])
			}
			g.minimums = append(g.minimums, minimum{tool: tool, n: n})
		}
	case "in_order", "exact", "subset", "superset":
		def := argsMatch{mode: "exact"}
		if p.has("args_match") {
			if def, err = parseArgsMatch(p["args_match"], "args_match"); err != nil {
				return nil, err
			}
		}
		list, ok := p["expected"].([]any)
		if !ok {
			return nil, fmt.Errorf("tool-trajectory mode %s needs expected (a list of tool calls)", mode)
		}
		for i, item := range list {
			e, err := parseExpected(item, def, i)
			if err != nil {
				return nil, err
			}
			g.expected = append(g.expected, e)
		}
	case "":
		return nil, errors.New("tool-trajectory grader needs mode")
	default:
		return nil, fmt.Errorf("unknown tool-trajectory mode %q (want any_order, in_order, exact, subset or superset)", mode)
	}
	return g, nil
}

// minimumsOrder lists the tools of minimums in the order the checks are reported: the YAML
// order the loader records in minimums_order (the decoded map has lost it), then any tool it
// does not list, sorted so that reports stay stable.
func minimumsOrder(p params, m map[string]any) []string {
	order, _ := p["minimums_order"].([]string)
	tools := make([]string, 0, len(m))
	for _, tool := range order {
		if _, ok := m[tool]; ok && !slices.Contains(tools, tool) {
			tools = append(tools, tool)
		}
	}
	var rest []string
	for tool := range m {
		if !slices.Contains(tools, tool) {
			rest = append(rest, tool)
		}
	}
	slices.Sort(rest)
	return append(tools, rest...)
}

func parseExpected(item any, def argsMatch, i int) (expectedCall, error) {
	e := expectedCall{match: def}
	if s, ok := item.(string); ok { // shorthand: a bare tool name
		e.tool = s
		return e, nil
	}
	m, ok := item.(map[string]any)
	if !ok {
		return e, fmt.Errorf("expected[%d] must be a mapping with tool, not %v", i, item)
	}
	p, err := params(m).snakeCase()
	if err != nil {
		return e, fmt.Errorf("expected[%d]: %w", i, err)
	}
	if e.tool, err = p.str("tool"); err != nil || e.tool == "" {
		return e, fmt.Errorf("expected[%d] needs tool (a string)", i)
	}
	switch a := m["args"].(type) {
	case nil:
	case string:
		if a != "any" {
			return e, fmt.Errorf("expected[%d].args must be a mapping or \"any\", not %q", i, a)
		}
	case map[string]any:
		e.args = canon(a).(map[string]any)
	default:
		return e, fmt.Errorf("expected[%d].args must be a mapping or \"any\", not %v", i, a)
	}
	if p.has("args_match") {
		if e.match, err = parseArgsMatch(p["args_match"], fmt.Sprintf("expected[%d].args_match", i)); err != nil {
			return e, err
		}
	}
	d, ok, err := p.limit("max_duration_ms")
	if err != nil {
		return e, fmt.Errorf("expected[%d]: %w", i, err)
	}
	if ok {
		e.maxDuration = &d
	}
	return e, nil
}

func parseArgsMatch(v any, what string) (argsMatch, error) {
	switch x := v.(type) {
	case string:
		switch x {
		case "exact", "ignore", "subset", "superset":
			return argsMatch{mode: x}, nil
		}
	case []any:
		m := argsMatch{mode: "fields"}
		for _, f := range x {
			s, ok := f.(string)
			if !ok || s == "" {
				return m, fmt.Errorf("%s lists a field that is not a path: %v", what, f)
			}
			m.fields = append(m.fields, s)
		}
		return m, nil
	}
	return argsMatch{}, fmt.Errorf("%s must be exact, ignore, subset, superset or a list of field paths, not %v", what, v)
}

// matches reports whether a call's arguments satisfy the expected ones.
func (m argsMatch) matches(expected map[string]any, input any) bool {
	if expected == nil || m.mode == "ignore" {
		return true
	}
	actual, ok := asObject(input)
	if !ok {
		return false
	}
	switch m.mode {
	case "fields":
		for _, f := range m.fields {
			want, set := lookup(expected, f)
			if !set {
				continue // a listed field the expectation does not pin is free
			}
			got, _ := lookup(actual, f)
			if !equalJSON(want, got) {
				return false
			}
		}
		return true
	case "superset": // actual has every expected key, extras allowed
		return contained(expected, actual)
	case "subset": // actual has no key the expectation lacks
		return contained(actual, expected)
	default:
		return equalJSON(expected, actual)
	}
}

// contained reports whether every key of small is in big with an equal value.
func contained(small, big map[string]any) bool {
	for k, v := range small {
		w, ok := big[k]
		if !ok || !equalJSON(v, w) {
			return false
		}
	}
	return true
}

func (g *trajectory) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	if in.Output == nil {
		r.Assertions = []result.Assertion{{Text: "No trace available for evaluation", Passed: false}}
		binary(r, false)
		return negate(g.spec, r)
	}
	calls := toolCalls(in.Output)
	var c checks
	var score float64
	switch g.mode {
	case "any_order":
		score = g.anyOrder(&c, calls)
	case "in_order":
		score = g.inOrder(&c, calls)
	case "exact":
		score = g.exact(&c, calls)
	case "superset":
		score = g.superset(&c, calls)
	case "subset":
		score = g.subset(&c, calls)
	}
	r.Assertions = c
	r.Details = map[string]any{"mode": g.mode, "tool_calls": len(calls)}
	scored(r, score, in)
	return negate(g.spec, r)
}

// checks collects assertions.
type checks []result.Assertion

func (c *checks) add(ok bool, format string, args ...any) {
	*c = append(*c, result.Assertion{Text: fmt.Sprintf(format, args...), Passed: ok})
}

func (g *trajectory) anyOrder(c *checks, calls []result.ToolCall) float64 {
	if len(g.minimums) == 0 {
		c.add(true, "No tool requirements specified")
		return 1
	}
	count := map[string]int{}
	for _, call := range calls {
		count[call.Tool]++
	}
	for _, m := range g.minimums {
		n := count[m.tool]
		c.add(float64(n) >= m.n, "%s: called %d times (required >=%s)", m.tool, n, formatNum(m.n))
	}
	return passedShare(*c)
}

// sequence scores in_order and exact: (sequence hits + latency hits) / checks, where checks are
// the expected items plus their latency budgets. A budget on a matched call without duration
// data is left out (neither met nor missed); a budget on an unmatched item stays in, as in AgentV.
type sequence struct {
	hits, total int
}

func (g *trajectory) newSequence() sequence {
	s := sequence{total: len(g.expected)}
	for _, e := range g.expected {
		if e.maxDuration != nil {
			s.total++
		}
	}
	return s
}

// matched records a matched call and checks its latency budget.
func (s *sequence) matched(c *checks, e expectedCall, call result.ToolCall) {
	s.hits++
	switch {
	case e.maxDuration == nil:
	case call.DurationMS <= 0:
		s.total--
	case float64(call.DurationMS) <= *e.maxDuration:
		c.add(true, "%s completed in %dms (max: %sms)", e.tool, call.DurationMS, formatNum(*e.maxDuration))
		s.hits++
	default:
		c.add(false, "%s took %dms (max: %sms)", e.tool, call.DurationMS, formatNum(*e.maxDuration))
	}
}

func (s sequence) score() float64 {
	if s.total <= 0 {
		return 1
	}
	return float64(s.hits) / float64(s.total)
}

func (g *trajectory) inOrder(c *checks, calls []result.ToolCall) float64 {
	if len(g.expected) == 0 {
		c.add(true, "No tool sequence specified")
		return 1
	}
	s := g.newSequence()
	next := 0
	for i, e := range g.expected {
		for next < len(calls) && calls[next].Tool != e.tool {
			next++
		}
		if next == len(calls) {
			c.add(false, "Expected %s at position %d, not found in remaining trace", e.tool, i)
			continue
		}
		// The first later call of the right tool decides: wrong arguments miss this item.
		if call := calls[next]; e.match.matches(e.args, call.Input) {
			c.add(true, "Found %s at position %d", e.tool, next)
			s.matched(c, e, call)
		} else {
			c.add(false, "Expected %s at position %d: tool found at %d but args mismatch", e.tool, i, next)
		}
		next++
	}
	return s.score()
}

func (g *trajectory) exact(c *checks, calls []result.ToolCall) float64 {
	if len(g.expected) == 0 {
		c.add(true, "No tool sequence specified")
		return 1
	}
	s := g.newSequence()
	if len(calls) != len(g.expected) {
		c.add(false, "Expected %d tool calls, got %d", len(g.expected), len(calls))
		// Stricter than AgentV, which does not count this check: extra calls after a matching
		// prefix would otherwise score 1 in a mode named exact.
		if len(calls) > len(g.expected) {
			s.total++
		}
	}
	for i, e := range g.expected {
		if i >= len(calls) {
			c.add(false, "Position %d: expected %s, got nothing", i, e.tool)
			continue
		}
		call := calls[i]
		switch {
		case call.Tool != e.tool:
			c.add(false, "Position %d: expected %s, got %s", i, e.tool, call.Tool)
		case !e.match.matches(e.args, call.Input):
			c.add(false, "Position %d: %s args mismatch", i, e.tool)
		default:
			c.add(true, "Position %d: %s", i, e.tool)
			s.matched(c, e, call)
		}
	}
	return s.score()
}

func (g *trajectory) superset(c *checks, calls []result.ToolCall) float64 {
	if len(g.expected) == 0 {
		c.add(true, "No expected tools specified")
		return 1
	}
	used := make([]bool, len(calls))
	hits := 0
	for _, e := range g.expected {
		found := false
		// Greedy: each actual call satisfies at most one expected item.
		for j, call := range calls {
			if !used[j] && call.Tool == e.tool && e.match.matches(e.args, call.Input) {
				used[j], found = true, true
				c.add(true, "Found %s at position %d", e.tool, j)
				hits++
				break
			}
		}
		if !found {
			c.add(false, "Expected %s not found in actual trajectory", e.tool)
		}
	}
	return float64(hits) / float64(len(g.expected))
}

func (g *trajectory) subset(c *checks, calls []result.ToolCall) float64 {
	switch {
	case len(g.expected) == 0 && len(calls) == 0:
		c.add(true, "No tool calls and no expected tools")
		return 1
	case len(g.expected) == 0:
		c.add(false, "%d unexpected tool call(s) with empty allowed list", len(calls))
		return 0
	case len(calls) == 0:
		c.add(true, "No actual tool calls (trivially a subset)")
		return 1
	}
	for i, call := range calls {
		allowed := false
		// Expected items are reusable here: they define the allowed set.
		for _, e := range g.expected {
			if call.Tool == e.tool && e.match.matches(e.args, call.Input) {
				allowed = true
				break
			}
		}
		if allowed {
			c.add(true, "Position %d: %s is in allowed set", i, call.Tool)
		} else {
			c.add(false, "Position %d: %s is not in allowed set", i, call.Tool)
		}
	}
	return passedShare(*c)
}
