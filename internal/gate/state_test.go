package gate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/result"
)

// suiteAt is a suite at path whose tests have the given verdicts; its summary verdict is the
// first one's.
func suiteAt(path string, verdicts ...result.Verdict) *result.SuiteResult {
	s := suiteOf(path, verdicts...)
	s.Path = path
	s.Summary.Verdict = verdicts[0]
	return s
}

func TestCommitDecide(t *testing.T) {
	t.Parallel()
	P, B, F := result.Pass, result.Borderline, result.Fail
	// calcFailed is a full run's state: calc failed, quality was borderline.
	calcFailed := &State{Version: stateVersion, Blocking: map[string]SuiteState{
		"calc": {Conclusion: Failure, Verdict: F}, "quality": {Conclusion: Neutral, Verdict: B}}, Ran: []string{"calc", "quality"}}
	tests := []struct {
		name      string
		suites    []*result.SuiteResult
		cancelled bool
		partial   bool // Carry(prior) is called: a partial rerun
		prior     Prior
		own       string // the run's own conclusion; "" takes Policy.Decide's
		want      string
		// wantState is what the check run records.
		wantState State
		unknown   bool
		reason    bool // the decision names a reason
	}{
		{name: "a full run decides alone", suites: []*result.SuiteResult{suiteAt("quality", P)}, prior: Prior{State: calcFailed},
			want: Success, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality"}}},
		{name: "a full run records its blocking suites", suites: []*result.SuiteResult{suiteAt("calc", F), suiteAt("quality", B)},
			want: Failure, wantState: State{Version: 1, Blocking: map[string]SuiteState{"calc": {Failure, F}, "quality": {Neutral, B}}, Ran: []string{"calc", "quality"}}},
		{name: "a failure not regraded is carried", suites: []*result.SuiteResult{suiteAt("quality", P)}, partial: true, prior: Prior{State: calcFailed},
			want: Failure, reason: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{"calc": {Failure, F}}, Ran: []string{"quality"}, Carried: []string{"calc"}}},
		{name: "regrading every blocking suite passes", suites: []*result.SuiteResult{suiteAt("quality", P), suiteAt("calc", P)}, partial: true, prior: Prior{State: calcFailed},
			want: Success, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality", "calc"}}},
		{name: "a carried borderline keeps the gate neutral", suites: []*result.SuiteResult{suiteAt("calc", P)}, partial: true, prior: Prior{State: calcFailed},
			want: Neutral, reason: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{"quality": {Neutral, B}}, Ran: []string{"calc"}, Carried: []string{"quality"}}},
		{name: "a regraded suite's own failure wins over a carried borderline", suites: []*result.SuiteResult{suiteAt("calc", F)}, partial: true, prior: Prior{State: calcFailed},
			want: Failure, wantState: State{Version: 1, Blocking: map[string]SuiteState{"calc": {Failure, F}, "quality": {Neutral, B}}, Ran: []string{"calc"}, Carried: []string{"quality"}}},
		{name: "a believed stateless success carries nothing", suites: []*result.SuiteResult{suiteAt("quality", P)}, partial: true, prior: Prior{Passed: true},
			want: Success, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality"}}},
		{name: "no usable prior state is unknown", suites: []*result.SuiteResult{suiteAt("quality", P)}, partial: true,
			want: Failure, unknown: true, reason: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality"}, Incomplete: true}},
		{name: "an incomplete prior state is unknown", suites: []*result.SuiteResult{suiteAt("quality", P)}, partial: true, prior: Prior{State: &State{Version: 1, Incomplete: true}},
			want: Failure, unknown: true, reason: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality"}, Incomplete: true}},
		{name: "a state with Passed set still carries", suites: []*result.SuiteResult{suiteAt("quality", P)}, partial: true, prior: Prior{State: calcFailed, Passed: true},
			want: Failure, reason: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{"calc": {Failure, F}}, Ran: []string{"quality"}, Carried: []string{"calc"}}},
		{name: "an unknown gate keeps the run's own failure and its reason", suites: []*result.SuiteResult{suiteAt("quality", F)}, partial: true,
			want: Failure, unknown: true, wantState: State{Version: 1, Blocking: map[string]SuiteState{"quality": {Failure, F}}, Ran: []string{"quality"}, Incomplete: true}},
		{name: "a conclusion the suites do not explain is incomplete", suites: []*result.SuiteResult{suiteAt("quality", P)}, own: Failure,
			want: Failure, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{"quality"}, Incomplete: true}},
		{name: "a cancelled run is cancelled and records nothing", suites: []*result.SuiteResult{suiteAt("quality", P)}, cancelled: true, partial: true, prior: Prior{State: calcFailed},
			want: Cancelled, wantState: State{Version: 1, Blocking: map[string]SuiteState{}, Ran: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := &result.Run{Thresholds: result.DefaultThresholds, Suites: tt.suites}
			c := Policy{}.Record(run, tt.cancelled)
			if tt.partial {
				c.Carry(tt.prior)
			}
			own := Policy{}.Decide(run, 0)
			if tt.own != "" {
				own.Conclusion = tt.own
			}
			d := c.Decide(own, "/evalgate rerun")
			if d.Conclusion != tt.want || c.Unknown != tt.unknown {
				t.Errorf("conclusion %s, unknown %v; want %s, %v", d.Conclusion, c.Unknown, tt.want, tt.unknown)
			}
			if (d.Reason != "") != tt.reason {
				t.Errorf("reason %q, want one: %v", d.Reason, tt.reason)
			}
			if diff := cmp.Diff(tt.wantState, c.State); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if tt.cancelled && c.Block("abc", 1, "") != "" {
				t.Errorf("a cancelled run records a state block: %s", c.Block("abc", 1, ""))
			}
		})
	}
}

func TestWorse(t *testing.T) {
	t.Parallel()
	order := []string{Success, Neutral, Failure}
	for i, a := range order {
		for j, b := range order {
			want := order[max(i, j)]
			if got := worse(a, b); got != want {
				t.Errorf("Worse(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
	for _, odd := range []string{Cancelled, "", "timed_out"} {
		if got := worse(Neutral, odd); got != odd {
			t.Errorf("Worse(neutral, %q) = %q: an unknown conclusion must block", odd, got)
		}
	}
}
