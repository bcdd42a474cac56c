package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// The freeform cases come from AgentV 4.42.4's own tests (packages/core/test/evaluation/
// graders.test.ts, "LlmGrader (llm-grader)"): the same judge replies must mean the same here.
func TestFreeformRepliesAsAgentV(t *testing.T) {
	t.Parallel()
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type a = map[string]any
	eleven := []a{}
	for i := range 11 {
		eleven = append(eleven, a{"text": "item", "passed": i < 6})
	}
	tests := []struct {
		name       string
		replies    []string
		calls      int
		verdict    result.Verdict
		score      float64
		assertions []result.Assertion // nil = not checked
		errHas     string
	}{
		{name: "parses JSON response", replies: []string{js(a{"score": 0.8, "assertions": []a{{"text": "Captured logging requirement", "passed": true}, {"text": "Did not mention tests", "passed": false}}})},
			calls: 1, verdict: result.Pass, score: 0.8,
			assertions: []result.Assertion{{Text: "Captured logging requirement", Passed: true}, {Text: "Did not mention tests"}}},
		{name: "parses JSON from markdown code block", replies: []string{"Here is the evaluation:\n\n```json\n" + js(a{"score": 0.75, "assertions": []a{{"text": "Clear structure", "passed": true}}}) + "\n```"},
			calls: 1, verdict: result.Borderline, score: 0.75},
		{name: "recovers when a freeform assertion uses passed: mixed", replies: []string{`{
            "score": 0.65,
            "assertions": [
              {
                "text": "Addressed the core request",
                "passed": mixed,
                "evidence": "The answer covers part of the requested behavior."
              }
            ]
          }`}, calls: 1, verdict: result.Borderline, score: 0.65,
			assertions: []result.Assertion{{Text: "Addressed the core request", Evidence: "The answer covers part of the requested behavior."}}},
		{name: "quoted non-boolean passed is false, a yes word true", replies: []string{`{"score": 0.9, "assertions": [{"text": "a", "passed": "partly"}, {"text": "b", "passed": "Yes"}, {"text": "c", "passed": True}]}`},
			calls: 1, verdict: result.Pass, score: 0.9,
			assertions: []result.Assertion{{Text: "a"}, {Text: "b", Passed: true}, {Text: "c", Passed: true}}},
		{name: "validates score is in range [0.0, 1.0]", replies: []string{js(a{"score": 1.5, "assertions": []a{{"text": "Good", "passed": true}}})},
			calls: 4, verdict: result.Error, errHas: "outside 0.0–1.0"},
		{name: "negative score is an error", replies: []string{`{"score": -0.2}`}, calls: 4, verdict: result.Error, errHas: "outside 0.0–1.0"},
		{name: "NaN score is an error", replies: []string{`{"score": "NaN"}`}, calls: 4, verdict: result.Error, errHas: `score is the string "NaN", not a number`},
		{name: "bare NaN is not JSON", replies: []string{`{"score": NaN}`}, calls: 4, verdict: result.Error, errHas: "no JSON object"},
		{name: "an out-of-range score repaired by the structure-fix call", replies: []string{`{"score": 1.5}`, `{"score": 1.5}`, `{"score": 1.5}`, `{"score": 1}`},
			calls: 4, verdict: result.Pass, score: 1},
		{name: "enforces max 8 assertion entries", replies: []string{js(a{"score": 0.9, "assertions": eleven})}, calls: 1, verdict: result.Pass, score: 0.9},
		{name: "rejects JSON with invalid assertions types", replies: []string{js(a{"score": 0.8, "assertions": "Not an array"})}, calls: 4, verdict: result.Error, errHas: "does not match the schema"},
		{name: "tolerates non-JSON output by falling back to error", replies: []string{"Final score: 0.5"}, calls: 4, verdict: result.Error, errHas: "no JSON object"},
		// A quoted score is a failed reply, as in AgentV: asked again three times, then the
		// structure-fix call, whose unquoted number is read.
		{name: "a quoted score is a failed reply", replies: []string{js(a{"score": "0.8", "assertions": []a{{"text": "Captured logging requirement", "passed": true}}})},
			calls: 4, verdict: result.Error, errHas: `score is the string "0.8", not a number`},
		{name: "a quoted score repaired by the structure-fix call", replies: []string{`{"score": "0.8"}`, `{"score": "0.8"}`, `{"score": "0.8"}`, `{"score": 0.8}`},
			calls: 4, verdict: result.Pass, score: 0.8},
		{name: "keeps failing when the structure-fix attempt is also malformed", replies: []string{`{"score":"high"}`, `{"score":"high"}`, `{"score":"high"}`, `{"score":`},
			calls: 4, verdict: result.Error, errHas: "not a number"},
		{name: "keeps failing on unrecoverable malformed JSON", replies: []string{`{"score":`}, calls: 4, verdict: result.Error, errHas: "unusable after 3 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &scripted{replies: tt.replies}
			r := (&Judge{Client: c, Name: "judge"}).Grade(t.Context(), &suite.Grader{Name: "llm-grader", Type: "llm-grader", Weight: 1}, input(), th)
			if len(c.reqs) != tt.calls || r.Verdict != tt.verdict {
				t.Fatalf("calls %d verdict %s (%s); want %d %s", len(c.reqs), r.Verdict, r.Error, tt.calls, tt.verdict)
			}
			if tt.verdict == result.Error {
				if r.Score != 0 || !strings.Contains(r.Error, tt.errHas) {
					t.Fatalf("error result: score %v error %q, want 0 and %q", r.Score, r.Error, tt.errHas)
				}
				return
			}
			if r.Score != tt.score {
				t.Fatalf("score %v, want %v", r.Score, tt.score)
			}
			if len(r.Assertions) > 8 {
				t.Fatalf("%d assertions kept, AgentV keeps 8", len(r.Assertions))
			}
			if tt.assertions != nil {
				if len(r.Assertions) != len(tt.assertions) {
					t.Fatalf("assertions %+v, want %+v", r.Assertions, tt.assertions)
				}
				for i, want := range tt.assertions {
					if r.Assertions[i] != want {
						t.Errorf("assertion %d = %+v, want %+v", i, r.Assertions[i], want)
					}
				}
			}
			if tt.calls == 4 && !strings.Contains(c.reqs[3].Messages[0].Content, "Previous reply:") {
				t.Fatalf("fourth call is not the structure-fix call: %q", c.reqs[3].Messages[0].Content)
			}
		})
	}
}

func TestRubricRepliesRepaired(t *testing.T) {
	t.Parallel()
	full := func(sat string) string {
		return `{"checks":[{"id":"subtract-added","satisfied":` + sat + `},{"id":"no-regress","satisfied":true},{"id":"style","satisfied":true}],"overall_reasoning":"ok"}`
	}
	rangeReply := func(acc string) string {
		return `{"checks":[{"id":"accuracy","score":` + acc + `},{"id":"brevity","score":9}]}`
	}
	tests := []struct {
		name    string
		g       *suite.Grader
		replies []string
		calls   int
		verdict result.Verdict
		errHas  string
	}{
		{"bare yes is satisfied", checklist(), []string{full("yes")}, 1, result.Pass, ""},
		{"Python True is satisfied", checklist(), []string{full("True")}, 1, result.Pass, ""},
		{"bare no is unsatisfied", checklist(), []string{full("no")}, 1, result.Fail, ""},
		{"mixed is asked again", checklist(), []string{full("mixed"), full("true")}, 2, result.Pass, ""},
		{"mixed every time is an error, never a pass", checklist(), []string{full(`"mixed"`)}, 3, result.Error, "not a boolean"},
		{"malformed JSON in rubric mode is an error", checklist(), []string{"not valid json at all"}, 4, result.Error, "no JSON object"},
		{"malformed JSON in score-range mode is an error", ranged(), []string{"truncated {"}, 4, result.Error, "no JSON object"},
		{"a range score above 10 is asked again", ranged(), []string{rangeReply("11"), rangeReply("8")}, 2, result.Pass, ""},
		{"a range score above 10 every time is an error", ranged(), []string{rangeReply("11")}, 3, result.Error, "outside 0–10"},
		{"a negative range score is an error", ranged(), []string{rangeReply("-1")}, 3, result.Error, "outside 0–10"},
		{"a quoted range score is a number", ranged(), []string{rangeReply(`"8"`)}, 1, result.Pass, ""},
		{"a Likert rating off the scale is an error", likert(), []string{`{"checks":[{"id":"correctness","score":9},{"id":"efficiency","score":4}]}`}, 3, result.Error, "outside 1–5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &scripted{replies: tt.replies}
			r := (&Judge{Client: c, Name: "judge"}).Grade(t.Context(), tt.g, input(), th)
			if len(c.reqs) != tt.calls || r.Verdict != tt.verdict || !strings.Contains(r.Error, tt.errHas) {
				t.Fatalf("calls %d verdict %s (%q); want %d %s (%q)", len(c.reqs), r.Verdict, r.Error, tt.calls, tt.verdict, tt.errHas)
			}
		})
	}
}

func TestRepairBooleans(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"passed": mixed}`, `{"passed": false}`},
		{`{"passed":"true"}`, `{"passed":true}`},
		{`{"PASSED": "no"}`, `{"PASSED": false}`},
		{`{"passed": true, "x": 1}`, `{"passed": true, "x": 1}`},
		{`{"passed": null}`, `{"passed": false}`},
		{`{"satisfied": yes}`, `{"satisfied": "yes"}`},
		{`{"satisfied": "yes"}`, `{"satisfied": "yes"}`},
		{`{"satisfied": false}`, `{"satisfied": false}`},
		// A key quoted inside a string is text, not a field.
		{`{"reasoning": "it said \"passed\": maybe", "passed": true}`, `{"reasoning": "it said \"passed\": maybe", "passed": true}`},
	}
	for _, tt := range tests {
		if got := repairBooleans(tt.in); got != tt.want {
			t.Errorf("repairBooleans(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
