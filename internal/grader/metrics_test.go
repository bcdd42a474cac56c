package grader

import (
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

func TestMetricGraders(t *testing.T) {
	t.Parallel()
	full := &result.Output{
		DurationMS: 1200,
		Usage:      result.Usage{InputTokens: 800, OutputTokens: 150, CachedTokens: 50, CostUSD: 0.012, Calls: 3},
		ToolCalls:  []result.ToolCall{call("Read", nil), call("Grep", nil), call("Edit", nil), call("Bash", nil)},
	}
	tests := []struct {
		name   string
		typ    string
		params map[string]any
		negate bool
		out    *result.Output
		score  float64
		want   result.Verdict
	}{
		{"latency under", "latency", map[string]any{"threshold": 2000}, false, full, 1, result.Pass},
		{"latency equal", "latency", map[string]any{"threshold": 1200}, false, full, 1, result.Pass},
		{"latency over", "latency", map[string]any{"threshold": 1000.5}, false, full, 0, result.Fail},
		{"latency no duration", "latency", map[string]any{"threshold": 2000}, false, &result.Output{}, 0, result.Fail},
		{"latency no output", "latency", map[string]any{"threshold": 2000}, false, nil, 0, result.Fail},
		{"latency negated", "latency", map[string]any{"threshold": 1000}, true, full, 1, result.Pass},
		{"cost under", "cost", map[string]any{"budget": 0.05}, false, full, 1, result.Pass},
		{"cost over", "cost", map[string]any{"budget": 0.01}, false, full, 0, result.Fail},
		{"cost unknown", "cost", map[string]any{"budget": 0.01}, false, &result.Output{}, 0, result.Fail},
		{"tokens all within", "token-usage", map[string]any{"max_input": 800, "max_output": 200, "max_total": 1000}, false, full, 1, result.Pass},
		// total counts cached tokens, as in AgentV: 800+150+50 = 1000 > 999.
		{"tokens total over", "token-usage", map[string]any{"max_total": 999}, false, full, 0, result.Fail},
		{"tokens output over", "token-usage", map[string]any{"max_output": 100}, false, full, 0, result.Fail},
		{"tokens no data", "token-usage", map[string]any{"max_total": 100}, false, &result.Output{}, 0, result.Fail},
		{"exec all pass", "execution-metrics", map[string]any{"max_tool_calls": 4, "max_llm_calls": 3, "max_tokens": 950, "max_cost_usd": 0.02, "max_duration_ms": 5000}, false, full, 1, result.Pass},
		{"exec 4 of 5", "execution-metrics", map[string]any{"max_tool_calls": 3, "max_llm_calls": 3, "max_tokens": 950, "max_cost_usd": 0.02, "max_duration_ms": 5000}, false, full, 0.8, result.Pass},
		{"exec 1 of 2", "execution-metrics", map[string]any{"max_tool_calls": 10, "max_tokens": 100}, false, full, 0.5, result.Fail},
		// Read+Grep of 4 calls = 0.5, target 0.6 ± 0.2 holds; target 0.9 does not.
		{"exploration within", "execution-metrics", map[string]any{"target_exploration_ratio": 0.6}, false, full, 1, result.Pass},
		{"exploration outside", "execution-metrics", map[string]any{"target_exploration_ratio": 0.9}, false, full, 0, result.Fail},
		{"exploration tolerance", "execution-metrics", map[string]any{"target_exploration_ratio": 0.9, "exploration_tolerance": 0.4}, false, full, 1, result.Pass},
		{"exec missing data", "execution-metrics", map[string]any{"max_llm_calls": 5, "max_tokens": 10, "max_cost_usd": 1, "max_duration_ms": 10, "target_exploration_ratio": 0.5}, false, &result.Output{}, 0, result.Fail},
		{"exec no output", "execution-metrics", map[string]any{"max_tool_calls": 5}, false, nil, 0, result.Fail},
		{"exec zero tool calls is data", "execution-metrics", map[string]any{"max_tool_calls": 0, "max_tokens": 10}, false, &result.Output{}, 0.5, result.Fail},
		{"llm calls from transcript", "execution-metrics", map[string]any{"max_llm_calls": 1}, false,
			&result.Output{Messages: []result.Message{{Role: "user"}, {Role: "assistant"}, {Role: "assistant"}}}, 0, result.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := spec(tt.typ, tt.params)
			s.Negate = tt.negate
			r := gradeIn(t, s, &Input{Output: tt.out})
			wantResult(t, r, tt.score, tt.want)
			if len(r.Assertions) == 0 {
				t.Error("no assertions")
			}
		})
	}
}

func TestMetricConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ    string
		params map[string]any
		want   string
	}{
		{"latency", nil, "needs threshold"},
		{"latency", map[string]any{"threshold": "fast"}, "threshold must be a number"},
		{"latency", map[string]any{"threshold": -1}, "must not be negative"},
		{"cost", map[string]any{}, "needs budget"},
		{"token-usage", map[string]any{}, "needs max_total"},
		{"token-usage", map[string]any{"max_total": true}, "max_total must be a number"},
		{"execution-metrics", map[string]any{}, "needs at least one"},
		{"execution-metrics", map[string]any{"target_exploration_ratio": 2}, "between 0 and 1"},
		{"execution-metrics", map[string]any{"max_tokens": 5, "exploration_tolerance": "x"}, "exploration_tolerance"},
		{"execution-metrics", map[string]any{"max_tokens": 5, "maxTokens": 6}, "max_tokens and maxTokens are the same setting"},
		{"execution-metrics", map[string]any{"maxToolCalls": -1}, "max_tool_calls must not be negative"},
		{"token-usage", map[string]any{"maxTotal": "many"}, "max_total must be a number"},
		{"tool-trajectory", map[string]any{"mode": "in_order", "expected": []any{map[string]any{"tool": "Read", "argsMatch": "fuzzy"}}}, "expected[0].args_match must be"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			wantConfigError(t, spec(tt.typ, tt.params), tt.want)
		})
	}
}

func TestExplorationRatio(t *testing.T) {
	t.Parallel()
	calls := []result.ToolCall{call("read", nil), call("LS", nil), call("WebSearch", nil), call("Write", nil)}
	if r, ok := explorationRatio(calls); !ok || r != 0.75 {
		t.Errorf("ratio = %v, %v; want 0.75", r, ok)
	}
	if _, ok := explorationRatio(nil); ok {
		t.Error("ratio of no calls is known")
	}
}
