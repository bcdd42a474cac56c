package engine

import (
	"testing"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// TestSuiteNamesTheTargetThatRan: with `--target other` the suite result (and so the comment)
// names other, not the suite's own execution.target; tests on several targets keep it.
func TestSuiteNamesTheTargetThatRan(t *testing.T) {
	t.Parallel()
	tg := &fakeTarget{}
	cfgOn := func(pick func(*suite.Test) string) Config {
		return Config{
			Workers: 2,
			Target:  func(_ *suite.Suite, st *suite.Test) (target.Target, string, error) { return tg, pick(st), nil },
			Grader: func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
				return scoreGrader{spec: g}, nil
			},
		}
	}
	tests := []struct {
		name string
		pick func(*suite.Test) string
		want string
	}{
		{"--target other", func(*suite.Test) string { return "other" }, "other"},
		{"tests on two targets", func(st *suite.Test) string {
			if st.ID == "t00" {
				return "a"
			}
			return "b"
		}, "agent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mkSuite("s", 1, 0.9)
			s.Target = "agent"
			cfg := cfgOn(tc.pick)
			cfg.SingleTarget = tc.want == "other"
			run, err := Run(t.Context(), []*suite.Suite{s}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Suites[0].Target; got != tc.want {
				t.Errorf("suite target %q, want %q", got, tc.want)
			}
			if run.Suites[0].Tests[0].Verdict == result.Error {
				t.Errorf("test errored: %s", run.Suites[0].Tests[0].Error)
			}
		})
	}
}
