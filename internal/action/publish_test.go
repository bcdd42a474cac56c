package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// failingRun has n tests, each failing a required criterion (a gate) and an optional one.
func failingRun(n int) *result.Run {
	run := &result.Run{Thresholds: result.DefaultThresholds}
	s := &result.SuiteResult{Name: "big", Path: "evals/big.eval.yaml"}
	no := false
	for i := range n {
		g := &result.GraderResult{Name: "rubrics", Type: "rubrics", Weight: 1, Verdict: result.Fail, Gated: true, File: s.Path, Line: 5,
			Criteria: []*result.CriterionResult{
				{ID: "style", Weight: 1, Satisfied: &no, Verdict: result.Fail, Reasoning: "terse", Line: 2*i + 10},
				{ID: "correct", Weight: 1, Required: true, Gated: true, Satisfied: &no, Verdict: result.Fail, Reasoning: "wrong", Line: 2*i + 11},
			}}
		s.Tests = append(s.Tests, &result.TestResult{Suite: s.Name, ID: fmt.Sprintf("t%04d", i), Verdict: result.Fail, Threshold: 0.8,
			Gates: []string{"required criterion correct (rubrics) not satisfied"}, File: s.Path, Line: 2*i + 9, Graders: []*result.GraderResult{g}})
	}
	run.Suites = []*result.SuiteResult{s}
	return run
}

// TestGateCompletesInOneRequest publishes a run with thousands of failed criteria: the check run
// is completed by one request, without waiting, carrying the 50 failed required criteria that
// come first; check-run.json keeps every annotation.
func TestGateCompletesInOneRequest(t *testing.T) {
	t.Parallel()
	const tests = 2000
	srv := githubtest.New(t)
	var mu sync.Mutex
	var slept []time.Duration
	gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{Sleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slept = append(slept, d)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	id := srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "abc", Status: "in_progress"})
	dir := t.TempDir()
	d := &deps{Publisher: gh.Repo("acme", "agents"), Source: gh.Repo("acme", "agents"), Event: &event.Event{Owner: "acme", Repo: "agents"}, Log: io.Discard, Root: dir}
	pub := &publisher{d: d, in: inputs{CheckName: "evalgate", ReportDir: "report", Command: "/evalgate"}, p: plan{sha: "abc"}, checkID: id}
	if err := pub.publish(t.Context(), failingRun(tests), nil, time.Time{}); !errors.Is(err, errGateFailed) {
		t.Fatalf("publish: %v, want %v", err, errGateFailed)
	}
	runs := srv.CheckRuns()
	if n := srv.Count(githubtest.UpdateCheck); n != 1 || len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" {
		t.Fatalf("%d updates, check runs %+v; want one update completing the check", n, runs)
	}
	if len(slept) != 0 {
		t.Errorf("the gate waited %v", slept)
	}
	cr := runs[0]
	if fmt.Sprint(cr.Batches) != "[50]" {
		t.Fatalf("annotation batches %v, want [50]", cr.Batches)
	}
	for i, a := range cr.Annotations {
		if title, _ := a["title"].(string); !strings.Contains(title, "correct: fail · gate") || !strings.Contains(title, fmt.Sprintf("t%04d", i)) {
			t.Fatalf("annotation %d is %q, want test %d's failed required criterion", i, title, i)
		}
	}
	if want := fmt.Sprintf("the 50 most important of %d", 2*tests); !strings.Contains(cr.Text, want) {
		t.Errorf("the check run's text does not say %q: %.300s", want, cr.Text)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "report", reports.FileCheckRun))
	if err != nil {
		t.Fatal(err)
	}
	var file reports.CheckOutput
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Annotations) != 2*tests || file.Conclusion != "failure" {
		t.Fatalf("check-run.json: %d annotations, conclusion %q (%v); want all %d", len(file.Annotations), file.Conclusion, err, 2*tests)
	}
}
