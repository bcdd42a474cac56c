package engine_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// answer is a target that answers at once, so the judge is all the run waits for.
type answer struct{}

func (answer) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	return &result.Output{Answer: "answer to " + req.Test.ID}, nil
}

// judgeRun is a run of tests one-criterion rubric tests graded by an OpenAI-wire judge on srv
// (which answers every call with a pass after latency), through the real stack, at workers.
func judgeRun(b *testing.B, srv *llmtest.Server, latency time.Duration, tests, workers int) (*suite.Suite, engine.Config) {
	b.Helper()
	srv.Latency = latency
	srv.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"checks":[{"id":"correct","satisfied":true,"reasoning":"ok"}]}`}
	}
	cfg := &suite.TargetConfig{Name: "judge", Provider: "openai", Settings: map[string]any{
		"model": "gpt-4o-mini", "api_key": "k", "base_url": srv.URL + "/v1"}}
	client, err := provider.New(cfg, provider.Options{Prices: price.Builtin(), Limiters: provider.NewLimiters()})
	if err != nil {
		b.Fatal(err)
	}
	j := &judge.Judge{Client: client, Name: "judge"}
	s := &suite.Suite{Name: "bench"}
	for i := range tests {
		s.Tests = append(s.Tests, &suite.Test{ID: fmt.Sprintf("t%04d", i), Input: []suite.Message{{Role: "user", Content: "q"}},
			Graders: []*suite.Grader{{Name: "rubrics", Type: "rubrics", Weight: 1,
				Criteria: []*suite.Criterion{{ID: "correct", Outcome: "The answer is correct", Weight: 1}}}}})
	}
	return s, engine.Config{
		Workers: workers,
		Target:  func(*suite.Suite, *suite.Test) (target.Target, string, error) { return answer{}, "answer", nil },
		Grader: func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
			return grader.New(g, grader.Deps{Judge: func(string) (*judge.Judge, error) { return j, nil }})
		},
	}
}

// BenchmarkJudgeThroughput grades 200 tests with an LLM judge on a fake vendor that takes
// 50 ms a call, at 8 workers, through the real stack (engine, judge, OpenAI SDK client,
// retry layer, limiter). It reports wall time over the ideal, ceil(calls/workers) × latency:
// 1.00 would mean evalgate adds nothing to the vendor's own latency.
func BenchmarkJudgeThroughput(b *testing.B) {
	const tests, workers, latency = 200, 8, 50 * time.Millisecond
	srv := llmtest.New(b)
	s, config := judgeRun(b, srv, latency, tests, workers)
	ideal := time.Duration(math.Ceil(float64(tests)/workers)) * latency
	var worst float64
	b.ResetTimer()
	for range b.N {
		before := srv.Count()
		start := time.Now()
		run, err := engine.Run(b.Context(), []*suite.Suite{s}, config)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if run.Summary.Passed != tests || srv.Count()-before != tests {
			b.Fatalf("%d passed with %d calls, want %d and %d", run.Summary.Passed, srv.Count()-before, tests, tests)
		}
		worst = max(worst, float64(wall)/float64(ideal))
	}
	b.ReportMetric(worst, "wall/ideal")
}
