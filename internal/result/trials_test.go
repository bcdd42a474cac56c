package result

import (
	"slices"
	"testing"
)

func TestOutcomes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		t    *TestResult
		want []bool
	}{
		{"once, pass", &TestResult{Verdict: Pass}, []bool{true}},
		{"once, borderline", &TestResult{Verdict: Borderline}, []bool{false}},
		{"skipped", &TestResult{Verdict: Skip}, nil},
		{"every trial errored", &TestResult{Verdict: Error, Trials: []*TrialResult{{Verdict: Error}}}, nil},
		{"trials", &TestResult{Verdict: Pass, Trials: []*TrialResult{{Verdict: Pass}, {Verdict: Error}, {Verdict: Fail}}}, []bool{true, false, false}},
		{"nil", nil, nil},
	} {
		if got := tc.t.Outcomes(); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
