package action

import (
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
)

func TestAdaptive(t *testing.T) {
	t.Parallel()
	fixed := &suite.Suite{Trials: &suite.Trials{Count: 3}}
	upTo := &suite.Suite{Trials: &suite.Trials{Count: 1, Max: 10}}
	plain := &suite.Suite{}
	for _, tc := range []struct {
		name   string
		in     inputs
		suites []*suite.Suite
		want   bool
	}{
		{"no trials", inputs{}, []*suite.Suite{plain, fixed}, false},
		{"a suite's max", inputs{}, []*suite.Suite{fixed, upTo}, true},
		{"max_trials", inputs{MaxTrials: 5}, []*suite.Suite{plain}, true},
		{"max_trials at the suite's count", inputs{MaxTrials: 3}, []*suite.Suite{fixed}, false},
		{"trials at max_trials", inputs{Trials: 5, MaxTrials: 5}, []*suite.Suite{plain, upTo}, false},
		{"trials below a suite's max", inputs{Trials: 5}, []*suite.Suite{upTo}, true},
	} {
		if got := adaptive(tc.in, tc.suites); got != tc.want {
			t.Errorf("%s: adaptive %v, want %v", tc.name, got, tc.want)
		}
	}
}
