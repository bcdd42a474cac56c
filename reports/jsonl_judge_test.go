package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

// replies is an llm.Client answering every request with one fixed reply.
type replies string

func (r replies) Complete(context.Context, *llm.Request) (*llm.Response, error) {
	return &llm.Response{Text: string(r)}, nil
}

// TestIndexListsEachCriterionOnce grades with the real judge, so the GraderResult carries what
// a run carries (criteria and the judge's assertions), and checks that index.jsonl lists every
// criterion exactly once, in AgentV's text.
func TestIndexListsEachCriterionOnce(t *testing.T) {
	t.Parallel()
	checklist := &suite.Grader{Name: "review", Type: "rubrics", Weight: 1, Criteria: []*suite.Criterion{
		{ID: "adds", Outcome: "Adds subtract", Weight: 1, Required: true},
		{ID: "keeps", Outcome: "Keeps add", Weight: 1},
	}}
	ranged := &suite.Grader{Name: "quality", Type: "rubrics", Weight: 1, Criteria: []*suite.Criterion{
		{ID: "accuracy", Outcome: "Accurate", Weight: 1, ScoreRanges: []suite.ScoreRange{{Min: 0, Max: 6, Outcome: "wrong"}, {Min: 7, Max: 10, Outcome: "right"}}},
	}}
	in := &judge.Input{Question: "q", Answer: "a"}
	th := result.DefaultThresholds
	graders := []*result.GraderResult{
		(&judge.Judge{Client: replies(`{"checks":[{"id":"adds","satisfied":true,"reasoning":"yes"},{"id":"keeps","satisfied":false,"reasoning":"no"}],"overall_reasoning":"half"}`)}).Grade(t.Context(), checklist, in, th),
		(&judge.Judge{Client: replies(`{"checks":[{"id":"accuracy","score":8,"reasoning":"close"}]}`)}).Grade(t.Context(), ranged, in, th),
	}
	for _, g := range graders {
		g.DurationMS = 0 // wall time would make the golden flaky
	}
	tr := &result.TestResult{Suite: "calc", ID: "t1", Graders: graders, StartedAt: time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC), DurationMS: 1000}
	rubric.Test(tr, th)
	run := &result.Run{Thresholds: th, Suites: []*result.SuiteResult{{Name: "calc", Path: "evals/calc.eval.yaml", Tests: []*result.TestResult{tr}}}}
	var buf bytes.Buffer
	if err := WriteIndex(&buf, run); err != nil {
		t.Fatal(err)
	}
	var row indexRow
	if err := json.Unmarshal(buf.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"[adds] Adds subtract", "[keeps] Keeps add"}, {"[accuracy] Accurate - Score: 8/10 (right)"}}
	for i, sc := range row.Scores {
		var got []string
		for _, a := range sc.Assertions {
			got = append(got, a.Text)
		}
		if strings.Join(got, "\n") != strings.Join(want[i], "\n") {
			t.Errorf("scores[%d].assertions = %q, want %q", i, got, want[i])
		}
	}
	golden.Check(t, goldenPath("judged/index.jsonl"), buf.String(), *update)
}
