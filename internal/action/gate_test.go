package action

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

func suiteResult(path string, verdicts ...result.Verdict) *result.SuiteResult {
	s := &result.SuiteResult{Name: path, Path: path}
	for i, v := range verdicts {
		s.Tests = append(s.Tests, &result.TestResult{ID: path + string(rune('a'+i)), Verdict: v, Score: map[result.Verdict]float64{result.Pass: 1, result.Borderline: 0.7}[v]})
	}
	s.Summary.Verdict = verdicts[0]
	return s
}

func TestGateCarriesForward(t *testing.T) {
	t.Parallel()
	failedCalc := gate.Prior{State: &gate.State{Version: 1, Blocking: map[string]gate.SuiteState{"calc": {Conclusion: "failure", Verdict: result.Fail}, "quality": {Conclusion: "neutral", Verdict: result.Borderline}}}}
	tests := []struct {
		name       string
		only       string
		prev       previous
		run        []*result.SuiteResult
		conclusion string
		carried    []string
		unknown    bool
	}{
		{"a full run decides alone", "", previous{found: true, prior: failedCalc}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "success", nil, false},
		{"a failure not regraded is carried", "quality", previous{found: true, conclusion: "failure", prior: failedCalc}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", []string{"calc"}, false},
		{"regrading every blocking suite passes", "*", previous{found: true, conclusion: "failure", prior: failedCalc},
			[]*result.SuiteResult{suiteResult("quality", result.Pass), suiteResult("calc", result.Pass)}, "success", nil, false},
		{"a carried borderline keeps the gate neutral", "calc", previous{found: true, conclusion: "failure", prior: failedCalc}, []*result.SuiteResult{suiteResult("calc", result.Pass)}, "neutral", []string{"quality"}, false},
		{"a believed stateless success carries nothing", "quality", previous{found: true, conclusion: "success", prior: gate.Prior{Passed: true}}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "success", nil, false},
		{"a stateless failure is unknown", "quality", previous{found: true, conclusion: "failure"}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"no earlier run is unknown", "quality", previous{}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"a stateless success not believed is unknown", "quality", previous{found: true, conclusion: "success", refused: "not signed"}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"an unreadable gate is unknown", "quality", previous{err: errors.New("404")}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"an incomplete state is unknown", "quality", previous{found: true, conclusion: "failure", prior: gate.Prior{State: &gate.State{Version: 1, Incomplete: true}}}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
	}
	for _, tt := range tests {
		run := &result.Run{Thresholds: result.DefaultThresholds, Suites: tt.run}
		g := newGate(run, gate.Policy{}, plan{sha: "abc", only: tt.only, prev: tt.prev}, "/evalgate rerun", "", 0, nil, time.Time{})
		d := g.Decide(gate.Policy{}.Decide(run, 0), "/evalgate rerun")
		check := reports.CheckOutput{Conclusion: d.Conclusion, Title: "t", Summary: "s"}
		g.conclude(&check)
		if (tt.unknown || len(tt.carried) > 0) && d.Reason == "" {
			t.Errorf("%s: decision %+v: the reason must say why the gate is not the run's own", tt.name, d)
		}
		if check.Conclusion != tt.conclusion || g.Unknown != tt.unknown {
			t.Errorf("%s: conclusion %s unknown %v; want %s %v", tt.name, check.Conclusion, g.Unknown, tt.conclusion, tt.unknown)
		}
		if diff := cmp.Diff(tt.carried, g.State.Carried); diff != "" {
			t.Errorf("%s: carried (-want +got):\n%s", tt.name, diff)
		}
		if tt.prev.refused != "" && !strings.Contains(check.Summary, tt.prev.refused) {
			t.Errorf("%s: the note does not say why the earlier gate is not believed:\n%s", tt.name, check.Summary)
		}
		state, err := gate.ParseBlock(check.Summary, "abc", 0, "")
		if err != nil || state.Incomplete != tt.unknown {
			t.Errorf("%s: state %+v %v", tt.name, state, err)
			continue
		}
		for _, path := range tt.carried {
			if !strings.Contains(check.Summary, "`"+path+"`") || state.Blocking[path].Conclusion == "" {
				t.Errorf("%s: %s not named or not kept blocking:\n%s", tt.name, path, check.Summary)
			}
		}
	}
}

func TestGateStateIncompleteWhenSuitesDoNotExplainTheConclusion(t *testing.T) {
	t.Parallel()
	run := &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{suiteResult("quality", result.Pass)}}
	g := newGate(run, gate.Policy{}, plan{sha: "abc"}, "/evalgate rerun", "", 0, nil, time.Time{})
	d := g.Decide(gate.Decision{Conclusion: gate.Failure, Reason: "1 regression(s) against the baseline"}, "/evalgate rerun")
	check := reports.CheckOutput{Conclusion: d.Conclusion, Title: d.Reason}
	g.conclude(&check)
	if s, err := gate.ParseBlock(check.Summary, "abc", 0, ""); err != nil || !s.Incomplete || len(s.Blocking) != 0 {
		t.Fatalf("state %+v %v: a regression failure must not let a partial rerun pass", s, err)
	}
}

func TestCancelledGate(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	s := &result.SuiteResult{Path: "evals/a.yaml", Tests: []*result.TestResult{
		{ID: "done", Verdict: result.Pass, StartedAt: at.Add(-time.Second), DurationMS: 500},
		{ID: "broke-earlier", Verdict: result.Error, StartedAt: at.Add(-time.Second), DurationMS: 10},
		{ID: "interrupted", Verdict: result.Error, StartedAt: at.Add(-time.Second), DurationMS: 1000},
		{ID: "never-started", Verdict: result.Skip},
	}}
	g := newGate(&result.Run{Suites: []*result.SuiteResult{s}}, gate.Policy{}, plan{}, "/evalgate rerun", "", 0, errors.New("interrupt signal received"), at)
	d := g.Decide(gate.Decision{Conclusion: gate.Success}, "/evalgate rerun")
	check := reports.CheckOutput{Conclusion: d.Conclusion, Title: "1 passed", Summary: "s"}
	g.conclude(&check)
	if check.Conclusion != "cancelled" || !strings.HasPrefix(check.Title, "Cancelled") {
		t.Fatalf("%+v", check)
	}
	for _, want := range []string{"interrupt signal received", "2 of 4 test(s) finished", "`evals/a.yaml › done` pass", "`evals/a.yaml › broke-earlier` error"} {
		if !strings.Contains(check.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, check.Summary)
		}
	}
	if strings.Contains(check.Summary, "interrupted`") || strings.Contains(check.Summary, "evalgate:state") {
		t.Errorf("an interrupted test counted as finished, or a state was recorded:\n%s", check.Summary)
	}
}
