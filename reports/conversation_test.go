package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

func conversationRun() *result.Run {
	conv := 0.5
	tr := &result.TestResult{Suite: "chat", ID: "tutor", Score: 0.5, Verdict: result.Fail, Threshold: 0.8, Aggregation: "mean",
		ConversationScore: &conv,
		Graders: []*result.GraderResult{{Name: "rubrics", Type: "rubrics", Score: 0.5, Weight: 1, Verdict: result.Fail,
			Assertions: []result.Assertion{{Text: "[rubric-1] Stays consistent", Passed: false, Evidence: "contradicts itself"}}}},
		Turns: []*result.TurnResult{
			{Turn: 1, Input: "15% of 200?", Score: 1, Verdict: result.Pass, Graders: []*result.GraderResult{{Name: "turn-rubrics", Type: "rubrics", Score: 1, Weight: 1, Verdict: result.Pass,
				Assertions: []result.Assertion{{Text: "[rubric-1] Says 30", Passed: true}, {Text: "[rubric-2] Shows steps", Passed: false}}}}},
			{Turn: 2, Input: "Double it", Score: 0, Verdict: result.Error, Error: "agent exited with code 2", FailureStage: result.StageAgent},
			{Turn: 3, Input: "Recall", Verdict: result.Skip, Error: "skipped: turn 2 did not pass (on_turn_failure: stop)"},
		}}
	return &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{{Name: "chat", Path: "evals/chat.eval.yaml", Tests: []*result.TestResult{tr}}}}
}

func TestIndexConversationScores(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteIndex(&buf, conversationRun()); err != nil {
		t.Fatal(err)
	}
	var row indexRow
	if err := json.Unmarshal(buf.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		name, verdict string
		score         float64
		assertions    string
		children      int
	}
	want := []entry{
		{"turn-1", "pass", 1, "[rubric-1] Says 30; [rubric-2] Shows steps", 1},
		{"turn-2", "fail", 0, "Provider error: agent exited with code 2", 0},
		{"turn-3", "skip", 0, "Skipped due to previous turn failure", 0},
		{"conversation", "fail", 0.5, "[rubric-1] Stays consistent", 1},
	}
	if len(row.Scores) != len(want) {
		t.Fatalf("scores = %+v", row.Scores)
	}
	for i, w := range want {
		sc := row.Scores[i]
		var texts []string
		for _, a := range sc.Assertions {
			texts = append(texts, a.Text)
		}
		got := entry{sc.Name, sc.Verdict, sc.Score, strings.Join(texts, "; "), len(sc.Scores)}
		if got != w || sc.Type != "llm-grader" {
			t.Errorf("scores[%d] = %+v (type %s), want %+v", i, got, sc.Type, w)
		}
	}
	if row.Metadata["aggregation"] != "mean" {
		t.Errorf("metadata = %v", row.Metadata)
	}
}

func TestMarkdownConversationTurns(t *testing.T) {
	t.Parallel()
	md := NewReport(conversationRun(), nil).Comment(CommentOptions{})
	for _, want := range []string{
		"**Turns** (mean): 1 ✅ 1.00 · 2 💥 error · 3 ⏭️ skip\n",
		"- ❌ \\[rubric-1\\] Stays consistent — contradicts itself",
		"- ❌ turn 1: \\[rubric-2\\] Shows steps",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q:\n%s", want, md)
		}
	}
}
