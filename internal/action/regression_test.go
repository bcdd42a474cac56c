package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// passingTrials is a one-test run whose test passed by the mean of its trials' scores.
func passingTrials(scores ...float64) *result.Run {
	t := &result.TestResult{Suite: "s", ID: "t", Verdict: result.Pass, Threshold: 0.8,
		TrialSummary: &result.Trials{Strategy: "mean", Count: len(scores), Ran: len(scores), Passed: len(scores)}}
	for i, s := range scores {
		t.Score += s / float64(len(scores))
		t.Trials = append(t.Trials, &result.TrialResult{Trial: i + 1, Score: s, Verdict: result.Pass})
	}
	return &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{{Name: "s", Tests: []*result.TestResult{t}}}}
}

// TestFailOnRegressionGatesOnSignificantTests publishes a passing run against a baseline with
// fail_on_regression: only a significant per-test regression fails the gate, and when it does,
// check-run.json says what the posted check run says (issue #15).
func TestFailOnRegressionGatesOnSignificantTests(t *testing.T) {
	t.Parallel()
	base := passingTrials(1, 1, 0.95, 1, 1)
	tests := []struct {
		name  string
		head  *result.Run
		want  string
		code  error
		title string
	}{
		{"significant drop fails", passingTrials(0.85, 0.8, 0.85, 0.8, 0.85), gate.Failure, errGateFailed, "1 significant regression(s) against the baseline"},
		{"noisy drop beyond the noise threshold passes", passingTrials(1, 0.4, 1, 1, 0.9), gate.Success, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var buf bytes.Buffer
			if err := reports.WriteResults(&buf, base); !errors.Is(err, nil) {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "base.json"), buf.Bytes(), 0o644); !errors.Is(err, nil) {
				t.Fatal(err)
			}
			srv := githubtest.New(t)
			gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{})
			if err != nil {
				t.Fatal(err)
			}
			id := srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "abc", Status: "in_progress"})
			d := &deps{Publisher: gh.Repo("acme", "agents"), Source: gh.Repo("acme", "agents"), Event: &event.Event{Owner: "acme", Repo: "agents"}, Log: io.Discard, Root: dir}
			in := inputs{CheckName: "evalgate", ReportDir: "report", Command: "/evalgate", Baseline: "base.json", FailOnRegression: true}
			pub := &publisher{d: d, in: in, p: plan{sha: "abc"}, checkID: id}
			if err := pub.publish(t.Context(), tc.head, nil, time.Time{}); !errors.Is(err, tc.code) {
				t.Errorf("publish: %v, want %v", err, tc.code)
			}
			runs := srv.CheckRuns()
			if len(runs) != 1 || runs[0].Conclusion != tc.want || !strings.HasPrefix(runs[0].Title, tc.title) {
				t.Fatalf("check runs %+v, want one concluded %s titled %q…", runs, tc.want, tc.title)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "report", reports.FileCheckRun))
			if err != nil {
				t.Fatal(err)
			}
			var file reports.CheckOutput
			if err := json.Unmarshal(raw, &file); !errors.Is(err, nil) {
				t.Fatal(err)
			}
			if file.Conclusion != runs[0].Conclusion || file.Title != runs[0].Title {
				t.Errorf("check-run.json says %s %q, the posted check run %s %q", file.Conclusion, file.Title, runs[0].Conclusion, runs[0].Title)
			}
			// The comment and the summary show the same decision as the check run.
			for _, name := range []string{reports.FileComment, reports.FileSummary} {
				md, err := os.ReadFile(filepath.Join(dir, "report", name))
				if err != nil || !strings.Contains(string(md), "Gate: **"+tc.want+"**") {
					t.Errorf("%s does not say the gate is %s (%v)", name, tc.want, err)
				}
			}
		})
	}
}
