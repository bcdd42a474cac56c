package gate

import (
	"fmt"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// suiteOf builds a suite whose tests have the given verdicts.
func suiteOf(name string, verdicts ...result.Verdict) *result.SuiteResult {
	s := &result.SuiteResult{Name: name, Path: "evals/" + name + ".yaml"}
	for i, v := range verdicts {
		s.Tests = append(s.Tests, &result.TestResult{ID: fmt.Sprintf("t%d", i), Verdict: v, Score: 0.9})
	}
	return s
}

// runOf builds a one-suite run whose tests have the given verdicts.
func runOf(verdicts ...result.Verdict) *result.Run {
	return &result.Run{Suites: []*result.SuiteResult{suiteOf("s", verdicts...)}}
}

func withBudget(r *result.Run, notRun int) *result.Run {
	r.Budget = &result.Budget{LimitUSD: 1, SpentUSD: 1.2, NotRun: notRun}
	return r
}

func TestDecideConclusion(t *testing.T) {
	t.Parallel()
	P, B, F, E, S := result.Pass, result.Borderline, result.Fail, result.Error, result.Skip
	trials := runOf(P)
	trials.Suites[0].Tests[0].Verdict = F // the combined verdict counts, not the trials'
	trials.Suites[0].Tests[0].Trials = []*result.TrialResult{{Trial: 1, Verdict: P}, {Trial: 2, Verdict: F}}
	conv := runOf(B)
	conv.Suites[0].Tests[0].Turns = []*result.TurnResult{{Turn: 1, Verdict: F}} // the test's verdict counts, not its turns'
	matrix := runOf(P, F)
	for i, tr := range matrix.Suites[0].Tests {
		tr.ID, tr.Matrix, tr.Target = "same", true, fmt.Sprint("target", i) // each row counts
	}
	tests := []struct {
		name   string
		run    *result.Run
		failOn FailOn
		want   string
	}{
		{"all pass", runOf(P, P), FailOnFail, Success},
		{"default policy is fail", runOf(P, B), "", Neutral},
		{"borderline is neutral", runOf(P, B), FailOnFail, Neutral},
		{"fail fails", runOf(P, B, F), FailOnFail, Failure},
		{"error fails", runOf(P, E), FailOnFail, Failure},
		{"unknown verdict fails", runOf(P, "weird"), FailOnFail, Failure},
		{"skips do not fail", runOf(P, S), FailOnFail, Success},
		{"borderline policy", runOf(P, B), FailOnBorderline, Failure},
		{"borderline policy, all pass", runOf(P), FailOnBorderline, Success},
		{"never, failing", runOf(P, F, E), FailOnNever, Neutral},
		{"never, borderline", runOf(B), FailOnNever, Neutral},
		{"never, passing", runOf(P), FailOnNever, Success},
		{"unknown policy acts as fail", runOf(F), "sometimes", Failure},
		{"nothing ran", runOf(), FailOnFail, Neutral},
		{"only skips", runOf(S, S), FailOnFail, Neutral},
		{"nil run", nil, FailOnFail, Neutral},
		{"nil suite and test", &result.Run{Suites: []*result.SuiteResult{nil, {Name: "x", Tests: []*result.TestResult{nil, {Verdict: P}}}}}, FailOnFail, Success},
		{"budget cut tests", withBudget(runOf(P, S), 1), FailOnFail, Failure},
		{"budget cut tests, never", withBudget(runOf(P, S), 1), FailOnNever, Neutral},
		{"budget not reached", withBudget(runOf(P, P), 0), FailOnFail, Success},
		{"suite error", &result.Run{Suites: []*result.SuiteResult{{Name: "x", Error: "bad yaml"}, suiteOf("s", P)}}, FailOnFail, Failure},
		{"trials: combined verdict", trials, FailOnFail, Failure},
		{"conversation: the test's verdict", conv, FailOnFail, Neutral},
		{"matrix rows each count", matrix, FailOnFail, Failure},
		{"stale summary is ignored", &result.Run{Suites: []*result.SuiteResult{suiteOf("s", F)}, Summary: result.Summary{Passed: 1, Verdict: P}}, FailOnFail, Failure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Policy{FailOn: tc.failOn}.Decide(tc.run, 0)
			if d.Conclusion != tc.want || d.Reason != "" || d.FailOn != tc.failOn.Normal() {
				t.Errorf("Decide = %+v, want conclusion %s, fail_on %s, no reason", d, tc.want, tc.failOn.Normal())
			}
			if d.Failed() != (tc.want == Failure) {
				t.Errorf("Failed() = %v for %s", d.Failed(), d.Conclusion)
			}
		})
	}
}

func TestDecideRegressions(t *testing.T) {
	t.Parallel()
	P, B, F := result.Pass, result.Borderline, result.Fail
	tests := []struct {
		name        string
		policy      Policy
		run         *result.Run
		regressions int
		want        string
		reason      string
	}{
		{"regressions fail a passing run", Policy{FailOnRegression: true}, runOf(P), 2, Failure, "2 significant regression(s) against the baseline"},
		{"regressions fail a neutral run", Policy{FailOnRegression: true}, runOf(P, B), 1, Failure, "1 significant regression(s) against the baseline"},
		{"regressions fail under never", Policy{FailOn: FailOnNever, FailOnRegression: true}, runOf(F), 1, Failure, "1 significant regression(s) against the baseline"},
		{"the verdicts decided first: no reason", Policy{FailOnRegression: true}, runOf(F), 3, Failure, ""},
		{"no regressions", Policy{FailOnRegression: true}, runOf(P), 0, Success, ""},
		{"regressions without the policy", Policy{}, runOf(P), 4, Success, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := tc.policy.Decide(tc.run, tc.regressions)
			if d.Conclusion != tc.want || d.Reason != tc.reason || d.Regressions != tc.regressions {
				t.Errorf("Decide = %+v, want %s %q with %d regression(s)", d, tc.want, tc.reason, tc.regressions)
			}
		})
	}
}

func TestSuiteCountsBudgetCuts(t *testing.T) {
	t.Parallel()
	P, B, S := result.Pass, result.Borderline, result.Skip
	cut, ok, border := suiteOf("cut", P, S), suiteOf("ok", P), suiteOf("border", P, B)
	run := &result.Run{Suites: []*result.SuiteResult{cut, ok, border, {Name: "broken", Error: "bad yaml"}}, Budget: &result.Budget{NotRun: 1}}
	p := Policy{FailOn: FailOnFail, FailOnRegression: true}
	for s, want := range map[*result.SuiteResult]string{cut: Failure, ok: Success, border: Neutral, run.Suites[3]: Failure} {
		if got := p.suite(run, s); got != want {
			t.Errorf("Suite(%s) = %s, want %s", s.Name, got, want)
		}
	}
	if got := p.suite(&result.Run{Suites: []*result.SuiteResult{cut}}, cut); got != Success {
		t.Errorf("a skip without a budget cut is no failure: %s", got)
	}
	if got := (Policy{FailOn: FailOnBorderline}).suite(run, border); got != Failure {
		t.Errorf("borderline policy: %s", got)
	}
}

func TestParseFailOn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]FailOn{"": FailOnFail, "fail": FailOnFail, " Borderline ": FailOnBorderline, "never": FailOnNever} {
		got, err := ParseFailOn(in)
		if err != nil || got != want {
			t.Errorf("ParseFailOn(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFailOn("always"); err == nil || err.Error() != `fail_on "always": want fail, borderline or never` {
		t.Errorf("ParseFailOn(always) = %v", err)
	}
}

func TestFails(t *testing.T) {
	t.Parallel()
	for c, want := range map[string]bool{Success: false, Neutral: false, Failure: true, Cancelled: true, "": true, "stale": true} {
		if got := Fails(c); got != want {
			t.Errorf("Fails(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestDecidePooledRegression(t *testing.T) {
	t.Parallel()
	P := result.Pass
	tests := []struct {
		name   string
		policy Policy
		r      Regressions
		want   string
		reason string
	}{
		{"the pooled test alone fails the gate", Policy{FailOnRegression: true}, Regressions{Pooled: true}, Failure, "the run as a whole regressed significantly against the baseline"},
		{"significant tests are named first", Policy{FailOnRegression: true}, Regressions{Tests: 2, Pooled: true}, Failure, "2 significant regression(s) against the baseline"},
		{"without the policy it is shown only", Policy{}, Regressions{Pooled: true}, Success, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := tc.policy.DecideRegressions(runOf(P), tc.r)
			if d.Conclusion != tc.want || d.Reason != tc.reason || d.Pooled != tc.r.Pooled || d.Regressions != tc.r.Tests {
				t.Errorf("DecideRegressions = %+v, want %s %q", d, tc.want, tc.reason)
			}
		})
	}
}
