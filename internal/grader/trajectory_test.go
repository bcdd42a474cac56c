package grader

import (
	"slices"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

func TestTrajectory(t *testing.T) {
	t.Parallel()
	read := func(path string) result.ToolCall { return call("Read", map[string]any{"file_path": path}) }
	timed := func(c result.ToolCall, ms int64) result.ToolCall { c.DurationMS = ms; return c }
	trace := []result.ToolCall{
		read("a.go"),
		call("Grep", map[string]any{"pattern": "func", "opts": map[string]any{"i": true, "n": 3}}),
		call("Edit", map[string]any{"file_path": "a.go", "old": "x", "new": "y"}),
		call("Bash", map[string]any{"command": "go test ./..."}),
	}
	exp := func(items ...map[string]any) []any {
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = it
		}
		return out
	}
	tool := func(name string) map[string]any { return map[string]any{"tool": name} }
	withArgs := func(name string, args map[string]any, extra ...any) map[string]any {
		m := map[string]any{"tool": name, "args": args}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	tests := []struct {
		name   string
		params map[string]any
		calls  []result.ToolCall
		score  float64
		want   result.Verdict
	}{
		// any_order
		{"any_order met", map[string]any{"mode": "any_order", "minimums": map[string]any{"Read": 1, "Bash": 1}}, trace, 1, result.Pass},
		{"any_order half", map[string]any{"mode": "any_order", "minimums": map[string]any{"Read": 2, "Bash": 1}}, trace, 0.5, result.Fail},
		{"any_order no calls", map[string]any{"mode": "any_order", "minimums": map[string]any{"Read": 1}}, nil, 0, result.Fail},
		{"any_order empty minimums", map[string]any{"mode": "any_order", "minimums": map[string]any{}}, trace, 1, result.Pass},
		// in_order
		{"in_order skips between", map[string]any{"mode": "in_order", "expected": exp(tool("Read"), tool("Bash"))}, trace, 1, result.Pass},
		{"in_order wrong order", map[string]any{"mode": "in_order", "expected": exp(tool("Bash"), tool("Read"))}, trace, 0.5, result.Fail},
		{"in_order args mismatch", map[string]any{"mode": "in_order", "expected": exp(withArgs("Read", map[string]any{"file_path": "b.go"}), tool("Edit"))}, trace, 0.5, result.Fail},
		{"in_order empty", map[string]any{"mode": "in_order", "expected": []any{}}, trace, 1, result.Pass},
		{"in_order latency ok", map[string]any{"mode": "in_order", "expected": exp(withArgs("Bash", nil, "max_duration_ms", 500))},
			[]result.ToolCall{timed(call("Bash", nil), 300)}, 1, result.Pass},
		{"in_order latency over", map[string]any{"mode": "in_order", "expected": exp(withArgs("Bash", nil, "max_duration_ms", 500))},
			[]result.ToolCall{timed(call("Bash", nil), 900)}, 0.5, result.Fail},
		// A budget without duration data is neither met nor missed.
		{"in_order latency unknown", map[string]any{"mode": "in_order", "expected": exp(withArgs("Bash", nil, "max_duration_ms", 500))},
			[]result.ToolCall{call("Bash", nil)}, 1, result.Pass},
		// An unmatched item keeps its budget in the denominator (AgentV): 1 hit of 3.
		{"in_order unmatched budget", map[string]any{"mode": "in_order", "expected": exp(tool("Read"), withArgs("Write", nil, "max_duration_ms", 5))}, trace, 1.0 / 3, result.Fail},
		// exact
		{"exact match", map[string]any{"mode": "exact", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"), tool("Edit"), tool("Bash"))}, trace, 1, result.Pass},
		{"exact one wrong", map[string]any{"mode": "exact", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"), tool("Write"), tool("Bash"))}, trace, 0.75, result.Borderline},
		{"exact too few calls", map[string]any{"mode": "exact", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"), tool("Edit"), tool("Bash"), tool("Bash"))}, trace, 0.8, result.Pass},
		// Extra calls count as one failed check (stricter than AgentV): 2 hits of 3.
		{"exact extra calls", map[string]any{"mode": "exact", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"))}, trace, 2.0 / 3, result.Borderline},
		{"exact latency", map[string]any{"mode": "exact", "expected": exp(withArgs("Bash", nil, "max_duration_ms", 100))},
			[]result.ToolCall{timed(call("Bash", nil), 100)}, 1, result.Pass},
		// superset
		{"superset all found", map[string]any{"mode": "superset", "expected": exp(tool("Bash"), withArgs("Read", map[string]any{"file_path": "a.go"}))}, trace, 1, result.Pass},
		{"superset consumes calls", map[string]any{"mode": "superset", "expected": exp(tool("Read"), tool("Read"))}, trace, 0.5, result.Fail},
		{"superset empty", map[string]any{"mode": "superset", "expected": []any{}}, trace, 1, result.Pass},
		// subset
		{"subset allowed", map[string]any{"mode": "subset", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"), tool("Edit"), tool("Bash"), tool("Write"))}, trace, 1, result.Pass},
		{"subset one disallowed", map[string]any{"mode": "subset", "args_match": "ignore", "expected": exp(tool("Read"), tool("Grep"), tool("Edit"))}, trace, 0.75, result.Borderline},
		{"subset no calls", map[string]any{"mode": "subset", "expected": exp(tool("Read"))}, nil, 1, result.Pass},
		{"subset empty allowed list", map[string]any{"mode": "subset", "expected": []any{}}, trace, 0, result.Fail},
		{"subset empty both", map[string]any{"mode": "subset", "expected": []any{}}, nil, 1, result.Pass},
		// args_match
		{"args exact", map[string]any{"mode": "superset", "expected": exp(withArgs("Edit", map[string]any{"file_path": "a.go", "old": "x", "new": "y"}))}, trace, 1, result.Pass},
		{"args exact rejects missing key", map[string]any{"mode": "superset", "expected": exp(withArgs("Edit", map[string]any{"file_path": "a.go"}))}, trace, 0, result.Fail},
		{"args superset", map[string]any{"mode": "superset", "args_match": "superset", "expected": exp(withArgs("Edit", map[string]any{"file_path": "a.go"}))}, trace, 1, result.Pass},
		{"args superset wrong value", map[string]any{"mode": "superset", "args_match": "superset", "expected": exp(withArgs("Edit", map[string]any{"file_path": "b.go"}))}, trace, 0, result.Fail},
		{"args subset", map[string]any{"mode": "superset", "expected": exp(withArgs("Bash", map[string]any{"command": "go test ./...", "timeout": 60}, "args_match", "subset"))}, trace, 1, result.Pass},
		{"args subset extra actual key", map[string]any{"mode": "superset", "expected": exp(withArgs("Edit", map[string]any{"file_path": "a.go", "old": "x"}, "args_match", "subset"))}, trace, 0, result.Fail},
		{"args ignore", map[string]any{"mode": "superset", "args_match": "ignore", "expected": exp(withArgs("Edit", map[string]any{"file_path": "zzz"}))}, trace, 1, result.Pass},
		{"args any", map[string]any{"mode": "superset", "expected": []any{map[string]any{"tool": "Edit", "args": "any"}}}, trace, 1, result.Pass},
		// Numbers compare by value: YAML's int 3 equals JSON's 3.0.
		{"args field list", map[string]any{"mode": "superset", "args_match": []any{"pattern", "opts.n"}, "expected": exp(withArgs("Grep", map[string]any{"pattern": "func", "opts": map[string]any{"n": 3.0, "i": false}}))}, trace, 1, result.Pass},
		{"args field list mismatch", map[string]any{"mode": "superset", "args_match": []any{"opts.i"}, "expected": exp(withArgs("Grep", map[string]any{"opts": map[string]any{"i": false}}))}, trace, 0, result.Fail},
		{"args field not pinned", map[string]any{"mode": "superset", "args_match": []any{"other"}, "expected": exp(withArgs("Grep", map[string]any{"pattern": "nope"}))}, trace, 1, result.Pass},
		{"args per item overrides", map[string]any{"mode": "superset", "args_match": "exact", "expected": exp(withArgs("Edit", map[string]any{"file_path": "a.go"}, "args_match", "superset"))}, trace, 1, result.Pass},
		{"args as JSON text", map[string]any{"mode": "superset", "expected": exp(withArgs("Bash", map[string]any{"command": "ls"}))},
			[]result.ToolCall{{Tool: "Bash", Input: `{"command":"ls"}`}}, 1, result.Pass},
		{"args missing input", map[string]any{"mode": "superset", "expected": exp(withArgs("Bash", map[string]any{"command": "ls"}))},
			[]result.ToolCall{{Tool: "Bash"}}, 0, result.Fail},
		{"bare tool name item", map[string]any{"mode": "in_order", "expected": []any{"Read", "Bash"}}, trace, 1, result.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gradeIn(t, spec("tool-trajectory", tt.params), outputWith(tt.calls...))
			wantResult(t, r, tt.score, tt.want)
			if len(r.Assertions) == 0 {
				t.Error("no assertions")
			}
		})
	}
}

func TestTrajectoryFromMessagesAndNoTrace(t *testing.T) {
	t.Parallel()
	p := map[string]any{"mode": "any_order", "minimums": map[string]any{"Read": 1}}
	in := &Input{Output: &result.Output{Messages: []result.Message{{Role: "assistant", ToolCalls: []result.ToolCall{call("Read", nil)}}}}}
	wantResult(t, gradeIn(t, spec("tool-trajectory", p), in), 1, result.Pass)
	wantResult(t, gradeIn(t, spec("tool-trajectory", p), &Input{}), 0, result.Fail)
}

func TestTrajectoryConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{}, "needs mode"},
		{map[string]any{"mode": "sometimes"}, "unknown tool-trajectory mode"},
		{map[string]any{"mode": "any_order"}, "needs minimums"},
		{map[string]any{"mode": "any_order", "minimums": map[string]any{"Read": "x"}}, "minimums.Read"},
		{map[string]any{"mode": "in_order"}, "needs expected"},
		{map[string]any{"mode": "exact", "expected": []any{map[string]any{"args": map[string]any{}}}}, "expected[0] needs tool"},
		{map[string]any{"mode": "exact", "expected": []any{map[string]any{"tool": "R", "args": 3}}}, "args must be a mapping"},
		{map[string]any{"mode": "exact", "args_match": "fuzzy", "expected": []any{}}, "args_match must be"},
		{map[string]any{"mode": "exact", "expected": []any{map[string]any{"tool": "R", "args_match": []any{1}}}}, "not a path"},
		{map[string]any{"mode": "exact", "expected": []any{map[string]any{"tool": "R", "max_duration_ms": -5}}}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			wantConfigError(t, spec("tool-trajectory", tt.params), tt.want)
		})
	}
}

func TestTrajectoryMinimumsOrder(t *testing.T) {
	t.Parallel()
	minimums := map[string]any{"Write": 1, "Read": 1, "Bash": 1}
	tests := []struct {
		name  string
		order any // Params["minimums_order"], as the loader records the YAML order
		want  []string
	}{
		{"yaml order", []string{"Write", "Read", "Bash"}, []string{"Write", "Read", "Bash"}},
		{"no order: sorted", nil, []string{"Bash", "Read", "Write"}},
		// A stale or partial order still checks every tool exactly once.
		{"partial order", []string{"Write", "Grep", "Write"}, []string{"Write", "Bash", "Read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := map[string]any{"mode": "any_order", "minimums": minimums}
			if tt.order != nil {
				p["minimums_order"] = tt.order
			}
			r := gradeIn(t, spec("tool-trajectory", p), outputWith(call("Read", nil)))
			var got []string
			for _, a := range r.Assertions {
				got = append(got, strings.SplitN(a.Text, ":", 2)[0])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("checks in order %v, want %v", got, tt.want)
			}
		})
	}
}
