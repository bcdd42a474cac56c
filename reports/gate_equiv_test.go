package reports

import (
	"testing"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// TestGateEquivalence checks, before the renderers' own conclusion goes, that gate.Decide
// concludes exactly as it does over every fixture and policy.
func TestGateEquivalence(t *testing.T) {
	t.Parallel()
	runs := map[string]*result.Run{"large": bigRun(300), "nil": nil}
	for _, name := range []string{"all-pass", "base", "hostile", "mixed"} {
		runs[name] = loadRun(t, name)
	}
	cut := loadRun(t, "mixed")
	cut.Budget = &result.Budget{NotRun: 2}
	runs["mixed+budget"] = cut
	for name, run := range runs {
		for _, f := range []FailOn{"", FailOnFail, FailOnBorderline, FailOnNever, "odd"} {
			old := conclusion(newView(run, nil), f)
			if got := (gate.Policy{FailOn: gate.FailOn(f)}).Decide(run, 0).Conclusion; got != old {
				t.Errorf("%s, fail_on %q: gate %s, reports %s", name, f, got, old)
			}
			if run == nil {
				continue
			}
			for _, s := range run.Suites {
				one := &result.Run{Suites: []*result.SuiteResult{s}}
				if old, got := conclusion(newView(one, nil), f), (gate.Policy{FailOn: gate.FailOn(f)}).Suite(&result.Run{}, s); got != old {
					t.Errorf("%s suite %s, fail_on %q: gate %s, reports %s", name, s.Name, f, got, old)
				}
			}
		}
	}
}
