package reports

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/result"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	P, B, F, E, S := result.Pass, result.Borderline, result.Fail, result.Error, result.Skip
	tests := []struct {
		name       string
		base, head result.Verdict
		bs, hs     float64
		want       Change
		wantDelta  bool
	}{
		{"steady", P, P, 0.9, 0.9, Unchanged, true},
		{"small drop is noise", P, P, 0.95, 0.9, Unchanged, true},
		{"drop of exactly noise", P, B, 0.9, 0.8, Regression, true},
		{"big drop", P, F, 0.9, 0.3, Regression, true},
		{"rise of exactly noise", B, P, 0.7, 0.8, Improvement, true},
		{"pass to fail within noise", P, F, 0.82, 0.79, Regression, true},
		{"borderline to fail within noise", B, F, 0.61, 0.59, Regression, true},
		{"pass to borderline within noise", P, B, 0.81, 0.78, Unchanged, true},
		{"score up but gated fail", P, F, 0.8, 0.95, Regression, true},
		{"pass to error", P, E, 0.9, 0, Regression, false},
		{"error to pass is not scored", E, P, 0, 0.9, Unchanged, false},
		{"skip on one side", S, P, 0, 0.9, Unchanged, false},
		{"fail to fail, lower", F, F, 0.5, 0.45, Unchanged, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, got := classify(tc.base, tc.head, tc.bs, tc.hs, DefaultNoise)
			if got != tc.want {
				t.Errorf("change = %s, want %s", got, tc.want)
			}
			if (d != nil) != tc.wantDelta {
				t.Errorf("delta = %v, want present %t", d, tc.wantDelta)
			}
			if d != nil && math.Abs(*d-(tc.hs-tc.bs)) > 1e-12 {
				t.Errorf("delta = %v, want %v", *d, tc.hs-tc.bs)
			}
		})
	}
}

func TestCompareFixtures(t *testing.T) {
	t.Parallel()
	c := Compare(loadRun(t, "base"), loadRun(t, "mixed"), 0)
	got := map[string]Change{}
	for _, d := range c.Tests {
		got[d.Suite+"/"+d.ID] = d.Change
	}
	want := map[string]Change{
		"refactor-agent/rename-helper":  Unchanged,
		"refactor-agent/fix-null-check": Regression,
		"refactor-agent/add-retry":      Improvement,
		"refactor-agent/migrate-config": Regression,
		"refactor-agent/windows-paths":  Unchanged,
		"refactor-agent/inline-docs":    Removed,
		"support-replies/refund-policy": Unchanged,
		"support-replies/escalation":    Unchanged,
		"support-replies/judge-flake":   Added,
		"legacy-greetings/hello":        Removed,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if n := c.Regressions(); n != 2 {
		t.Errorf("Regressions() = %d, want 2", n)
	}
	if c.Count(Added) != 1 || c.Count(Removed) != 2 || c.Count(Improvement) != 1 {
		t.Errorf("added %d removed %d improved %d, want 1 2 1", c.Count(Added), c.Count(Removed), c.Count(Improvement))
	}
	if c.Noise != DefaultNoise || c.BaseSHA == "" || c.HeadSHA == "" {
		t.Errorf("noise %v base %q head %q", c.Noise, c.BaseSHA, c.HeadSHA)
	}
	fix := c.Test("refactor-agent", "fix-null-check")
	crit := map[string]Change{}
	for _, cd := range fix.Criteria {
		crit[cd.Grader+"/"+cd.Criterion] = cd.Change
	}
	wantCrit := map[string]Change{
		"rubrics/tests-pass":      Regression,
		"rubrics/minimal-diff":    Improvement,
		"rubrics/explains-change": Unchanged,
		"contains-DONE/":          Unchanged,
	}
	if diff := cmp.Diff(wantCrit, crit); diff != "" {
		t.Errorf("fix-null-check criteria (-want +got):\n%s", diff)
	}
	if cd := fix.Criterion("rubrics", "tests-pass"); cd == nil || cd.Delta == nil || *cd.Delta != -1 {
		t.Errorf("tests-pass delta = %+v, want -1", cd)
	}
}

func TestCompareEdges(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	tests := []struct {
		name           string
		base, head     *result.Run
		noise          float64
		added, removed int
		regressions    int
		wantNoise      float64
	}{
		{"both nil", nil, nil, 0, 0, 0, 0, DefaultNoise},
		{"no base", nil, run, 0.2, 8, 0, 0, 0.2},
		{"no head", run, nil, -1, 0, 8, 0, DefaultNoise},
		{"same run", run, run, math.NaN(), 0, 0, 0, DefaultNoise},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(tc.base, tc.head, tc.noise)
			if c.Count(Added) != tc.added || c.Count(Removed) != tc.removed || c.Regressions() != tc.regressions {
				t.Errorf("added %d removed %d regressions %d, want %d %d %d",
					c.Count(Added), c.Count(Removed), c.Regressions(), tc.added, tc.removed, tc.regressions)
			}
			if c.Noise != tc.wantNoise {
				t.Errorf("noise = %v, want %v", c.Noise, tc.wantNoise)
			}
		})
	}
	var nilCmp *Comparison
	if nilCmp.Regressions() != 0 || nilCmp.Test("a", "b") != nil {
		t.Error("a nil *Comparison must read as empty")
	}
}

func TestCompareDuplicateIDs(t *testing.T) {
	t.Parallel()
	mk := func(scores ...float64) *result.Run {
		s := &result.SuiteResult{Name: "s"}
		for _, sc := range scores {
			s.Tests = append(s.Tests, &result.TestResult{ID: "dup", Score: sc, Verdict: result.Pass})
		}
		return &result.Run{Suites: []*result.SuiteResult{s}}
	}
	c := Compare(mk(0.9, 0.9), mk(0.9, 0.5), 0)
	if len(c.Tests) != 2 || c.Tests[0].Change != Unchanged || c.Tests[1].Change != Regression {
		t.Errorf("duplicate ids must pair in order: %+v %+v", c.Tests[0], c.Tests[1])
	}
}
