package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// End-to-end tests of the gate's integrity: reruns that grade nothing or only some suites,
// and a run cancelled halfway. Helpers are in trust_e2e_test.go.

func TestTrustRerunSelectingNothingChangesNothing(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "issue_comment", nil)
	samePR(srv, r.Head)
	failed := seedGate(srv, r.Head, "failure", `{"v":1,"blocking":{"evals/calculator.eval.yaml":{"conclusion":"failure","verdict":"fail"}},"ran":["evals/calculator.eval.yaml"]}`)
	r.SetEvent("issue_comment", rerunComment("/evalgate rerun evals/nothing/**"))
	code, log := r.run()
	runs := srv.CheckRuns()
	if code != 0 || len(runs) != 1 || runs[0].ID != failed || runs[0].Conclusion != "failure" || srv.Count(githubtest.CreateCheck) != 0 {
		t.Fatalf("exit %d, check runs %+v: a rerun that graded nothing changed the gate\n%s", code, runs, log)
	}
	if got := srv.Reactions(555); len(got) == 0 || got[len(got)-1] != "confused" {
		t.Fatalf("reactions %v, want 😕 last", got)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "`evals/nothing/**` matches none") || !strings.Contains(s, "evals/calculator.eval.yaml") {
		t.Fatalf("summary does not say why:\n%s", s)
	}
	if !strings.Contains(log, "selects no eval suite") {
		t.Fatalf("log does not say why:\n%s", log)
	}
}

func TestTrustPartialRerunCarriesFailuresForward(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "pull_request", nil)
	samePR(srv, r.Head)
	// The full run: calculator fails its gate, quality passes.
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml"}, {"filename": "evals/quality.eval.yaml"}}
	r.SetEvent("pull_request", actiontest.PREventAt(false, r.Head))
	if code, log := r.run(); code != 1 || lastCheck(t, srv).Conclusion != "failure" {
		t.Fatalf("full run: exit %d\n%s", code, log)
	}
	// A partial rerun of the suite that passes cannot turn the gate green.
	r.SetEvent("issue_comment", rerunComment("/evalgate rerun evals/quality.eval.yaml"))
	code, log := r.run()
	cr := lastCheck(t, srv)
	if code != 1 || cr.Conclusion != "failure" || cr.HeadSHA != r.Head || !strings.Contains(cr.Title, "not regraded") {
		t.Fatalf("partial rerun: exit %d, check %s %q\n%s", code, cr.Conclusion, cr.Title, log)
	}
	body := srv.Comments(42)[0].Body
	for _, text := range []string{cr.Summary, body, r.File(r.Summary)} {
		if !strings.Contains(text, "carried forward") || !strings.Contains(text, "`evals/calculator.eval.yaml`: failure (fail)") {
			t.Fatalf("the carried-forward suite is not named:\n%s", text)
		}
		// Every report shows the gate the check run posts, not the rerun's own verdict.
		if !strings.Contains(text, "Gate: **failure**") || strings.Contains(text, "Gate: **success**") {
			t.Fatalf("a report's gate line disagrees with the posted failure:\n%s", text)
		}
	}
	state, err := gate.ParseBlock(cr.Summary, r.Head, cr.ID, "")
	if err != nil {
		t.Fatalf("the partial rerun's state: %v\n%s", err, cr.Summary)
	}
	want := &gate.State{Version: 1, Blocking: map[string]gate.SuiteState{"evals/calculator.eval.yaml": {Conclusion: "failure", Verdict: "fail"}},
		Ran: []string{"evals/quality.eval.yaml"}, Carried: []string{"evals/calculator.eval.yaml"}}
	if diff := cmp.Diff(want, state); diff != "" {
		t.Fatalf("the state does not chain (-want +got):\n%s", diff)
	}
	// Regrading the failed suite as well is what the gate needs: it still fails, on its merits.
	r.SetEvent("issue_comment", rerunComment("/evalgate rerun evals/calculator.eval.yaml"))
	if code, log := r.run(); code != 1 || lastCheck(t, srv).Conclusion != "failure" || strings.Contains(lastCheck(t, srv).Summary, "carried forward") {
		t.Fatalf("rerun of the failed suite: exit %d, %+v\n%s", code, lastCheck(t, srv), log)
	}
}

func TestTrustPartialRerunOfEveryFailedSuitePasses(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "pull_request", nil)
	samePR(srv, r.Head)
	// A suite whose judge says no the first time (a flaky judge) and yes on the rerun.
	judge := func(ok bool) string {
		return "targets:\n  - name: canned\n    provider: mock\n    response: hi\n    grader_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"checks\":[{\"id\":\"greets\",\"satisfied\":" + map[bool]string{true: "true", false: "false"}[ok] + ",\"reasoning\":\"r\"}]}'\n"
	}
	r.Write(map[string]string{
		"evals/flaky/flaky.eval.yaml": "name: flaky\nexecution:\n  target: canned\ntests:\n  - id: greet\n    input: say hi\n    assertions:\n      - type: rubrics\n        criteria:\n          - {id: greets, outcome: The answer greets}\n",
		"evals/flaky/targets.yaml":    judge(false),
	})
	srv.Files = []map[string]any{{"filename": "evals/flaky/flaky.eval.yaml"}, {"filename": "evals/quality.eval.yaml"}}
	r.SetEvent("pull_request", actiontest.PREventAt(false, r.Head))
	if code, log := r.run(); code != 1 {
		t.Fatalf("full run: exit %d\n%s", code, log)
	}
	r.Write(map[string]string{"evals/flaky/targets.yaml": judge(true)})
	r.SetEvent("issue_comment", rerunComment("/evalgate rerun evals/flaky/**"))
	code, log := r.run()
	if cr := lastCheck(t, srv); code != 0 || cr.Conclusion != "success" || cr.HeadSHA != r.Head {
		t.Fatalf("exit %d, check %s %q\n%s", code, cr.Conclusion, cr.Title, log)
	}
}

func TestTrustPartialRerunWithoutAKnownGateCannotPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		seed func(srv *githubtest.Server, sha string)
	}{
		{"no earlier check run", func(*githubtest.Server, string) {}},
		{"an earlier failure without state", func(srv *githubtest.Server, sha string) { seedGate(srv, sha, "failure", "") }},
		{"an earlier check that never completed", func(srv *githubtest.Server, sha string) {
			srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: sha, Status: "in_progress"})
		}},
		{"the earlier check cannot be read", func(srv *githubtest.Server, sha string) {
			srv.Fail(githubtest.ListChecks, githubtest.Fault{Status: 404, Body: `{"message":"Not Found"}`})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			r := newRunner(t, srv, "issue_comment", nil)
			samePR(srv, r.Head)
			tc.seed(srv, r.Head)
			r.SetEvent("issue_comment", rerunComment("/evalgate rerun evals/quality.eval.yaml"))
			code, log := r.run()
			cr := lastCheck(t, srv)
			if code != 1 || cr.Conclusion != "failure" || !strings.Contains(cr.Title, "run") || !strings.Contains(cr.Title, "/evalgate rerun") {
				t.Fatalf("exit %d, check %s %q\n%s", code, cr.Conclusion, cr.Title, log)
			}
		})
	}
}

func TestTrustCancelCompletesTheGate(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/slow/slow.eval.yaml"}, {"filename": "evals/quality.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", nil)
	started := filepath.Join(t.TempDir(), "started")
	r.Write(map[string]string{
		"evals/slow/slow.eval.yaml": "name: slow\nexecution:\n  target: sleeper\ntests:\n  - id: takes-forever\n    input: wait\n    assertions:\n      - type: rubrics\n        criteria:\n          - {id: done, outcome: It finished}\n",
		"evals/slow/targets.yaml": "targets:\n  - name: sleeper\n    provider: cli\n    command: touch " + started + " && exec sleep 60\n    timeout_seconds: 120\n    grader_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"checks\":[{\"id\":\"done\",\"satisfied\":true,\"reasoning\":\"r\"}]}'\n",
	})
	r.SetEvent("pull_request", actiontest.PREventAt(false, r.Head))
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	type res struct {
		code        int
		stdout, log string
	}
	done := make(chan res, 1)
	go func() {
		code, out, log := r.runArgs(ctx)
		done <- res{code, out, log}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow agent never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the quick suite finishes meanwhile
	cancel(errors.New("terminated signal received"))
	cancelled := time.Now()
	var got res
	select {
	case got = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the action did not return after the cancel")
	}
	if took := time.Since(cancelled); took > 5*time.Second {
		t.Fatalf("took %s after the cancel", took)
	}
	cr := lastCheck(t, srv)
	if got.code != errCancelled.Code || cr.Status != "completed" || cr.Conclusion != "cancelled" || cr.HeadSHA != r.Head {
		t.Fatalf("exit %d, check %s/%s on %s\n%s", got.code, cr.Status, cr.Conclusion, cr.HeadSHA, got.log)
	}
	for _, text := range []string{cr.Summary, srv.Comments(42)[0].Body} {
		if !strings.Contains(text, "This run was cancelled") || !strings.Contains(text, "terminated signal received") ||
			!strings.Contains(text, "1 of 2 test(s) finished") || !strings.Contains(text, "code-quality") {
			t.Fatalf("does not say it was cancelled, why and what finished:\n%s", text)
		}
	}
}
