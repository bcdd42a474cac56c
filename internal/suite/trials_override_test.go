package suite

import (
	"strings"
	"testing"
)

// TestTrialsCountFromOverride: an execution.trials that sets only a strategy is complete
// when the run overrides the count (--trials, the trials input), and an error without one.
func TestTrialsCountFromOverride(t *testing.T) {
	t.Parallel()
	const body = "name: s\nexecution:\n  trials: {strategy: mean}\ntests:\n  - id: a\n    input: hi\n    criteria: says hi\n"
	for _, tc := range []struct {
		name   string
		trials int
		err    string
	}{
		{"with --trials", 3, ""},
		{"without", 0, "execution.trials needs a count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, ds := parse([]byte(body), "evals/s.eval.yaml", LoadOptions{Root: t.TempDir(), Trials: tc.trials})
			if tc.err != "" {
				if !ds.HasErrors() || !strings.Contains(ds.Error(), tc.err) {
					t.Fatalf("diagnostics %v, want %q", ds, tc.err)
				}
				return
			}
			if ds.HasErrors() || s == nil || s.Trials == nil || s.Trials.Strategy != TrialsMean {
				t.Fatalf("suite %+v, diagnostics %v", s, ds)
			}
		})
	}
}
