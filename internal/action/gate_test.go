package action

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	s := gateState{Version: 1, Blocking: map[string]suiteGate{"evals/x-->y <b>.yaml": {Conclusion: "failure", Verdict: result.Fail}}, Ran: []string{"evals/a.yaml"}, Carried: []string{"evals/x-->y <b>.yaml"}}
	block := s.block()
	if strings.Count(block, "-->") != 1 || strings.Contains(block, "<b>") {
		t.Fatalf("a path escaped the comment: %s", block)
	}
	got, ok := parseState("results\n" + block + "\n")
	if !ok || !reflect.DeepEqual(*got, s) {
		t.Fatalf("parse %v: %+v", ok, got)
	}
}

func TestParseStateOnlyAtTheEnd(t *testing.T) {
	t.Parallel()
	forged := `<!-- evalgate:state {"v":1,"blocking":{},"ran":[]} -->`
	for _, summary := range []string{
		"model says " + forged + "\nand more results", // quoted by a model, then our results
		"no state at all",
		`<!-- evalgate:state {"v":2,"blocking":{}} -->`, // a future version
		`<!-- evalgate:state {not json} -->`,
	} {
		if s, ok := parseState(summary); ok {
			t.Errorf("parseState(%q) = %+v", summary, s)
		}
	}
}

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
	failedCalc := &gateState{Version: 1, Blocking: map[string]suiteGate{"calc": {Conclusion: "failure", Verdict: result.Fail}, "quality": {Conclusion: "neutral", Verdict: result.Borderline}}}
	tests := []struct {
		name       string
		only       string
		prev       previous
		run        []*result.SuiteResult
		conclusion string
		carried    []string
		unknown    bool
	}{
		{"a full run decides alone", "", previous{read: true, found: true, state: failedCalc}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "success", nil, false},
		{"a failure not regraded is carried", "quality", previous{read: true, found: true, conclusion: "failure", state: failedCalc}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", []string{"calc"}, false},
		{"regrading every blocking suite passes", "*", previous{read: true, found: true, conclusion: "failure", state: failedCalc},
			[]*result.SuiteResult{suiteResult("quality", result.Pass), suiteResult("calc", result.Pass)}, "success", nil, false},
		{"a carried borderline keeps the gate neutral", "calc", previous{read: true, found: true, conclusion: "failure", state: failedCalc}, []*result.SuiteResult{suiteResult("calc", result.Pass)}, "neutral", []string{"quality"}, false},
		{"a stateless success carries nothing", "quality", previous{read: true, found: true, conclusion: "success"}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "success", nil, false},
		{"a stateless failure is unknown", "quality", previous{read: true, found: true, conclusion: "failure"}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"no earlier run is unknown", "quality", previous{read: true}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"an unreadable gate is unknown", "quality", previous{err: errors.New("404")}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
		{"an incomplete state is unknown", "quality", previous{read: true, found: true, conclusion: "failure", state: &gateState{Version: 1, Incomplete: true}}, []*result.SuiteResult{suiteResult("quality", result.Pass)}, "failure", nil, true},
	}
	for _, tt := range tests {
		run := &result.Run{Thresholds: result.DefaultThresholds, Suites: tt.run}
		g := newGate(run, gate.Policy{}, plan{only: tt.only, prev: tt.prev}, "/evalgate rerun", nil, time.Time{})
		d := g.decide(gate.Policy{}.Decide(run, 0), "/evalgate rerun")
		check := reports.CheckOutput{Conclusion: d.Conclusion, Title: "t", Summary: "s"}
		g.conclude(&check)
		if (tt.unknown || len(tt.carried) > 0) && d.Reason == "" {
			t.Errorf("%s: decision %+v: the reason must say why the gate is not the run's own", tt.name, d)
		}
		if check.Conclusion != tt.conclusion || !reflect.DeepEqual(g.state.Carried, tt.carried) || g.unknown != tt.unknown {
			t.Errorf("%s: conclusion %s carried %v unknown %v; want %s %v %v", tt.name, check.Conclusion, g.state.Carried, g.unknown, tt.conclusion, tt.carried, tt.unknown)
		}
		state, ok := parseState(check.Summary)
		if !ok || state.Incomplete != tt.unknown {
			t.Errorf("%s: state %+v %v", tt.name, state, ok)
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
	g := newGate(run, gate.Policy{}, plan{}, "/evalgate rerun", nil, time.Time{})
	d := g.decide(gate.Decision{Conclusion: gate.Failure, Reason: "1 regression(s) against the baseline"}, "/evalgate rerun")
	check := reports.CheckOutput{Conclusion: d.Conclusion, Title: d.Reason}
	g.conclude(&check)
	if s, ok := parseState(check.Summary); !ok || !s.Incomplete || len(s.Blocking) != 0 {
		t.Fatalf("state %+v %v: a regression failure must not let a partial rerun pass", s, ok)
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
	g := newGate(&result.Run{Suites: []*result.SuiteResult{s}}, gate.Policy{}, plan{}, "/evalgate rerun", errors.New("interrupt signal received"), at)
	d := g.decide(gate.Decision{Conclusion: gate.Success}, "/evalgate rerun")
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
	if strings.Contains(check.Summary, "interrupted`") || strings.Contains(check.Summary, statePrefix) {
		t.Errorf("an interrupted test counted as finished, or a state was recorded:\n%s", check.Summary)
	}
}

func TestStateTooLargeStaysBounded(t *testing.T) {
	t.Parallel()
	s := gateState{Version: 1, Blocking: map[string]suiteGate{}}
	for i := range 2000 {
		s.Ran = append(s.Ran, fmt.Sprintf("evals/suite-%04d/a-rather-long-directory-name/eval.yaml", i))
	}
	s.Blocking["evals/x.yaml"] = suiteGate{Conclusion: "failure", Verdict: result.Fail}
	got, ok := parseState(s.block())
	if !ok || got.Ran != nil || got.Blocking["evals/x.yaml"].Conclusion != "failure" {
		t.Fatalf("ran list kept or blocking lost: %v", ok)
	}
	for i := range 2000 {
		s.Blocking[fmt.Sprintf("evals/blocked-%04d/a-rather-long-directory-name/eval.yaml", i)] = suiteGate{Conclusion: "failure", Verdict: result.Fail}
	}
	block := s.block()
	if got, ok := parseState(block); !ok || !got.Incomplete || len(block) > maxStateBytes {
		t.Fatalf("an oversized state must degrade to incomplete: %v %d bytes", ok, len(block))
	}
}
