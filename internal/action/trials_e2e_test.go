package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// TestActionTrialsInput: the action's trials input reaches the engine, and the comment
// shows each test's trial count.
func TestActionTrialsInput(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	r.Env["INPUT_TRIALS"] = "2"
	if code, log := r.run(); code != 1 {
		t.Fatalf("exit %d (the calculator suite has a gated failure)\n%s", code, log)
	}
	c := srv.Comments(42)
	if len(c) != 1 || !strings.Contains(c[0].Body, "0/2 trials passed (pass\\_at\\_k)") {
		t.Fatalf("comment lacks the failing test's trials:\n%v", c)
	}
	r.Env["INPUT_TRIALS"] = "101"
	if code, log := r.run(); code == 0 || !strings.Contains(log, "input trials must be a number from 0 to 100") {
		t.Errorf("trials 101: exit %d\n%s", code, log)
	}
}

// TestActionMaxTrialsInput: the action fetches its baseline before the run when trials are
// adaptive, and the engine compares each test with it.
func TestActionMaxTrialsInput(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	r.Env["INPUT_TRIALS"] = "3"
	if code, log := r.run(); code != 1 {
		t.Fatalf("base: exit %d (the calculator suite has a gated failure)\n%s", code, log)
	}
	base := filepath.Join(t.TempDir(), "base.json")
	if err := os.Rename(filepath.Join(r.Env["INPUT_REPORT_DIR"], "results.json"), base); err != nil {
		t.Fatal(err)
	}
	r.Env["INPUT_TRIALS"], r.Env["INPUT_MAX_TRIALS"], r.Env["INPUT_BASELINE"] = "1", "3", base
	if code, log := r.run(); code != 1 {
		t.Fatalf("head: exit %d\n%s", code, log)
	}
	run := r.Results()
	compared := 0
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			ts := tr.TrialSummary
			if ts == nil || ts.MaxTrials != 3 || ts.StopReason == "" {
				t.Errorf("%s/%s: %+v", s.Name, tr.ID, ts)
				continue
			}
			if ts.BaseRan > 0 && ts.PValue != nil {
				compared++
			}
		}
	}
	if compared == 0 {
		t.Error("no test was compared with the baseline")
	}
	r.Env["INPUT_MAX_TRIALS"] = "2.5"
	if code, log := r.run(); code == 0 || !strings.Contains(log, "input max_trials must be a number from 0 to 100") {
		t.Errorf("max_trials 2.5: exit %d\n%s", code, log)
	}
}
