package suite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrials(t *testing.T) {
	t.Parallel()
	const tests = "tests:\n  - id: a\n    input: hi\n    criteria: c\n"
	cases := []struct {
		name string
		exec string
		want *Trials // nil: an error is wanted
		line int
		col  int
		err  string
	}{
		{"none", "", nil, 0, 0, ""},
		{"count only", "  trials: {count: 3}\n", &Trials{Count: 3, Strategy: TrialsPassAtK}, 0, 0, ""},
		{"mean", "  trials:\n    count: 5\n    strategy: mean\n    cost_limit_usd: 0.5\n", &Trials{Count: 5, Strategy: TrialsMean, CostLimitUSD: 0.5}, 0, 0, ""},
		{"ci camel cost", "  trials: {count: 4, strategy: confidence_interval, costLimitUsd: 2}\n", &Trials{Count: 4, Strategy: TrialsConfidenceInterval, CostLimitUSD: 2}, 0, 0, ""},
		{"one", "  trials: {count: 1}\n", &Trials{Count: 1, Strategy: TrialsPassAtK}, 0, 0, ""},
		{"zero count", "  trials: {count: 0}\n", nil, 2, 19, "execution.trials.count must be between 1 and 100, not 0"},
		{"huge count", "  trials:\n    count: 1000\n", nil, 3, 12, "execution.trials.count must be between 1 and 100, not 1000"},
		{"fractional count", "  trials: {count: 2.5}\n", nil, 2, 19, "execution.trials.count must be a whole number"},
		{"no count", "  trials: {strategy: mean}\n", nil, 2, 11, "execution.trials needs a count"},
		{"bad strategy", "  trials: {count: 2, strategy: best}\n", nil, 2, 32, `execution.trials.strategy must be pass_at_k, mean or confidence_interval, not "best"`},
		{"negative cost", "  trials: {count: 2, cost_limit_usd: -1}\n", nil, 2, 38, "execution.trials.cost_limit_usd must be a positive amount"},
		{"not a mapping", "  trials: 3\n", nil, 2, 11, "execution.trials must be a mapping, not"},
		{"max", "  trials: {count: 1, max: 10}\n", &Trials{Count: 1, Strategy: TrialsPassAtK, Max: 10}, 0, 0, ""},
		{"max is count", "  trials:\n    count: 3\n    strategy: mean\n    max: 3\n", &Trials{Count: 3, Strategy: TrialsMean, Max: 3}, 0, 0, ""},
		{"max below count", "  trials:\n    count: 5\n    max: 3\n", nil, 4, 10, "execution.trials.max (3) must not be below execution.trials.count (5)"},
		{"max fractional", "  trials: {count: 1, max: 2.5}\n", nil, 2, 27, "execution.trials.max must be a whole number"},
		{"max huge", "  trials: {count: 1, max: 500}\n", nil, 2, 27, "execution.trials.max must be between 1 and 100, not 500"},
		{"max zero", "  trials: {count: 1, max: 0}\n", nil, 2, 27, "execution.trials.max must be between 1 and 100, not 0"},
		{"max not a number", "  trials: {count: 1, max: lots}\n", nil, 2, 27, "execution.trials.max"},
		{"typo key", "  trials: {count: 2, stratgy: mean}\n", nil, 2, 22, `unknown key "stratgy"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			body := tests
			if c.exec != "" {
				body = "execution:\n" + c.exec + tests
			}
			s, ds := parseString(t, body, nil)
			if c.err != "" {
				if s != nil {
					t.Errorf("loaded despite the error: %s", dump(ds))
				}
				wantError(t, ds, c.line, c.col, c.err)
				return
			}
			if s == nil || ds.HasErrors() {
				t.Fatalf("load: %s", dump(ds))
			}
			if s.Trials != nil {
				if s.Trials.Pos.Line != 2 {
					t.Errorf("trials at line %d, want 2", s.Trials.Pos.Line)
				}
				s.Trials.Pos = Pos{}
			}
			if diff := cmp.Diff(c.want, s.Trials); diff != "" {
				t.Errorf("trials (-want +got):\n%s", diff)
			}
		})
	}
}
