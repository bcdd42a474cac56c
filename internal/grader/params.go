package grader

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

// params reads the typed fields of a grader's Params (or Config). The loader decodes YAML into
// plain values (int, float64, string, bool, []any, map[string]any); a value of the wrong type
// is a configuration error naming the key, never a silent default.
type params map[string]any

// camelAliases are the camelCase spellings AgentV 4.42 also accepts for the agent graders'
// keys (loaders/grader-parser.ts reads `max_tool_calls ?? maxToolCalls` and so on).
var camelAliases = map[string]string{
	"maxToolCalls": "max_tool_calls", "maxLlmCalls": "max_llm_calls", "maxTokens": "max_tokens",
	"maxCostUsd": "max_cost_usd", "maxDurationMs": "max_duration_ms",
	"targetExplorationRatio": "target_exploration_ratio", "explorationTolerance": "exploration_tolerance",
	"maxTotal": "max_total", "maxInput": "max_input", "maxOutput": "max_output", "argsMatch": "args_match",
}

// snakeCase returns p with AgentV's camelCase aliases moved to their snake_case keys (p itself
// is not changed: specs are shared between tests). Writing both spellings of one key is an
// error, where AgentV silently takes the snake_case one.
func (p params) snakeCase() (params, error) {
	out := make(params, len(p))
	for k, v := range p {
		out[k] = v
	}
	for camel, snake := range camelAliases {
		v, ok := p[camel]
		if !ok {
			continue
		}
		if _, both := p[snake]; both {
			return nil, fmt.Errorf("%s and %s are the same setting: keep one", snake, camel)
		}
		delete(out, camel)
		out[snake] = v
	}
	return out, nil
}

// has reports whether key is set to a non-null value.
func (p params) has(key string) bool {
	v, ok := p[key]
	return ok && v != nil
}

// num reads a finite number; ok is false when the key is absent.
func (p params) num(key string) (v float64, ok bool, err error) {
	if !p.has(key) {
		return 0, false, nil
	}
	f, isNum := number(p[key])
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("%s must be a number, not %v", key, p[key])
	}
	return f, true, nil
}

// limit reads a non-negative number; ok is false when the key is absent.
func (p params) limit(key string) (v float64, ok bool, err error) {
	v, ok, err = p.num(key)
	if err == nil && ok && v < 0 {
		err = fmt.Errorf("%s must not be negative, not %v", key, v)
	}
	return v, ok, err
}

// boolean reads a bool, def when absent.
func (p params) boolean(key string, def bool) (bool, error) {
	if !p.has(key) {
		return def, nil
	}
	b, ok := p[key].(bool)
	if !ok {
		return false, fmt.Errorf("%s must be true or false, not %v", key, p[key])
	}
	return b, nil
}

// str reads a string, "" when absent.
func (p params) str(key string) (string, error) {
	if !p.has(key) {
		return "", nil
	}
	s, ok := p[key].(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, not %v", key, p[key])
	}
	return s, nil
}

// number converts any Go numeric value (or a json.Number) to float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float32:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// canon normalises a YAML- or JSON-decoded value so that equal data compares equal: every
// number becomes float64 (YAML gives int, JSON float64), and typed slices and maps become
// []any and map[string]any.
func canon(v any) any {
	if f, ok := number(v); ok {
		return f
	}
	switch x := v.(type) {
	case nil, string, bool:
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canon(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canon(e)
		}
		return out
	}
	// Anything else (typed slices, structs from tests) takes the JSON round trip.
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return canon(out)
}

// equalJSON is deep equality of decoded JSON-like values, numbers compared by value.
func equalJSON(a, b any) bool {
	return reflect.DeepEqual(canon(a), canon(b))
}

// asObject returns v as a JSON object; a string holding a JSON object is decoded, because some
// trace sources keep tool arguments as the raw JSON text.
func asObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(x), &m) == nil && m != nil {
			return m, true
		}
		return nil, false
	case nil:
		return nil, false
	}
	m, ok := canon(v).(map[string]any)
	return m, ok
}

// thresholds are the verdict bands for in; a zero value (a caller that set none) means the
// defaults, because zero thresholds would pass every score.
func thresholds(in *Input) result.Thresholds {
	if in == nil || in.Thresholds == (result.Thresholds{}) {
		return result.DefaultThresholds
	}
	return in.Thresholds
}

// scored sets a graded score and its verdict by the input's thresholds.
func scored(r *result.GraderResult, score float64, in *Input) {
	r.Score, r.Verdict = score, rubric.VerdictOf(score, thresholds(in))
}

// binary sets an all-or-nothing result: 1 pass or 0 fail.
func binary(r *result.GraderResult, ok bool) {
	if ok {
		r.Score, r.Verdict = 1, result.Pass
	} else {
		r.Score, r.Verdict = 0, result.Fail
	}
}

// passedShare is passed/total of the assertions, 0 when there are none.
func passedShare(as []result.Assertion) float64 {
	if len(as) == 0 {
		return 0
	}
	n := 0
	for _, a := range as {
		if a.Passed {
			n++
		}
	}
	return float64(n) / float64(len(as))
}

// errorResult is the result of a grader that could not grade.
func errorResult(spec *suite.Grader, msg string) *result.GraderResult {
	r := base(spec)
	r.Verdict, r.Error = result.Error, msg
	return r
}

// toolCalls are the calls of an output: the flat list when the target reported one, else the
// calls carried by the transcript messages (never both, which would count each call twice).
func toolCalls(out *result.Output) []result.ToolCall {
	if out == nil {
		return nil
	}
	if len(out.ToolCalls) > 0 {
		return out.ToolCalls
	}
	var calls []result.ToolCall
	for _, m := range out.Messages {
		calls = append(calls, m.ToolCalls...)
	}
	return calls
}

// formatNum prints a number without a trailing ".0" for integers.
func formatNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
