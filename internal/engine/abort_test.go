package engine_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/target/model"
)

// TestUnreachableEndpointStopsTheRun points a judge or an LLM target at a local
// OpenAI-compatible server that is down (a closed port on 127.0.0.1) and checks that the run
// stops after the first refusal with one error naming the host and the target or judge,
// instead of every test waiting through the retry backoff (1 s + 2 s + 4 s each).
func TestUnreachableEndpointStopsTheRun(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	down := &suite.TargetConfig{Name: "local-vllm", Provider: "openai", Settings: map[string]any{
		"model": "qwen", "api_key": "k", "base_url": "http://" + host + "/v1"}}
	client, err := provider.New(down, provider.Options{Prices: price.Builtin(), Limiters: provider.NewLimiters()})
	if err != nil {
		t.Fatal(err)
	}
	const tests, workers = 20, 2
	s := &suite.Suite{Name: "greeter"}
	for i := range tests {
		s.Tests = append(s.Tests, &suite.Test{ID: fmt.Sprintf("t%02d", i), Input: []suite.Message{{Role: "user", Content: "hi"}},
			Graders: []*suite.Grader{{Name: "rubrics", Type: "rubrics", Weight: 1,
				Criteria: []*suite.Criterion{{ID: "greets", Outcome: "Greets the user", Weight: 1, Required: true}}}}})
	}
	judgeDown := func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
		return grader.New(g, grader.Deps{Judge: func(string) (*judge.Judge, error) {
			return &judge.Judge{Client: client, Name: "local-vllm"}, nil
		}})
	}
	cases := []struct {
		name   string
		target target.Target
		who    string
	}{
		{"judge down", answer{}, "judge local-vllm"},
		{"target down", &model.Target{Client: client, Name: "local-vllm"}, "target local-vllm"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			run, err := engine.Run(t.Context(), []*suite.Suite{s}, engine.Config{
				Workers: workers,
				Target:  func(*suite.Suite, *suite.Test) (target.Target, string, error) { return tc.target, "local-vllm", nil },
				Grader:  judgeDown,
			})
			elapsed := time.Since(start)
			var stopped *engine.StoppedError
			var ue *llm.UnreachableError
			if !errors.As(err, &stopped) || !errors.As(err, &ue) {
				t.Fatalf("err = %v, want an engine.StoppedError wrapping an llm.UnreachableError", err)
			}
			msg := err.Error()
			for _, want := range []string{tc.who, "cannot reach " + host, "connection refused", "test(s) not run"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			errs, notRun := 0, 0
			for _, tr := range run.Suites[0].Tests {
				switch tr.Verdict {
				case result.Error:
					errs++
				case result.Skip:
					notRun++
					if !strings.HasPrefix(tr.Error, "not run: the run stopped when greeter/") || !strings.Contains(tr.Error, host+" (connection refused)") {
						t.Errorf("%s: reason %q", tr.ID, tr.Error)
					}
				default:
					t.Errorf("%s: verdict %s after the endpoint refused", tr.ID, tr.Verdict)
				}
			}
			// Only the tests already running when the first refusal came back report it.
			if errs < 1 || errs > workers || errs+notRun != tests || stopped.NotRun != notRun {
				t.Errorf("%d errors, %d not run (error says %d), want 1–%d errors and the rest not run", errs, notRun, stopped.NotRun, workers)
			}
			if run.Summary.Verdict != result.Error || run.Summary.Passed != 0 {
				t.Errorf("summary %+v", run.Summary)
			}
			if elapsed > 3*time.Second {
				t.Errorf("run took %s: the refusal was retried with backoff", elapsed)
			}
		})
	}
}
