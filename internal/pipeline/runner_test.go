package pipeline

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/resolve"
)

// TestPreflightBuildsEachClientOnce checks that the clients the preflight built are the ones
// the run uses: one target and one judge, each built once.
func TestPreflightBuildsEachClientOnce(t *testing.T) {
	t.Parallel()
	root := "testdata/preflight"
	cfg := Config{Config: resolve.Config{Root: root, Getenv: func(k string) string { return map[string]string{"FAKE_URL": "http://127.0.0.1:1"}[k] }, Log: &strings.Builder{}}}
	l, err := New(cfg).Search([]string{root + "/evals/clean.eval.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	w := newWiring(cfg, nil)
	plan, err := w.preflight(l.Suites)
	if err != nil {
		t.Fatal(err)
	}
	targets, judges := w.res.Built()
	if len(plan.targets) != 1 || len(plan.judges) != 1 || targets != 1 || judges != 1 {
		t.Fatalf("plan %d targets %d judges; built %d targets %d judges, want one of each", len(plan.targets), len(plan.judges), targets, judges)
	}
	s := l.Suites[0]
	first, _, err := w.res.TargetFor(s, s.Tests[0])
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := w.res.TargetFor(s, s.Tests[0])
	if targets, _ = w.res.Built(); again != first || targets != 1 {
		t.Error("the run built a second client for the target the preflight built")
	}
}

func TestThresholds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		pass, borderline  float64
		wantPass, wantBdl float64
	}{
		{"defaults", 0, 0.6, 0.8, 0.6},
		{"a pass threshold", 0.9, 0.6, 0.9, 0.6},
		{"borderline capped at pass", 0.5, 0.6, 0.5, 0.5},
		{"borderline capped at the default pass", 0, 0.95, 0.8, 0.8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Thresholds(tc.pass, tc.borderline)
			if got.Pass != tc.wantPass || got.Borderline != tc.wantBdl {
				t.Errorf("Thresholds(%v, %v) = %+v, want pass %v borderline %v", tc.pass, tc.borderline, got, tc.wantPass, tc.wantBdl)
			}
		})
	}
}
