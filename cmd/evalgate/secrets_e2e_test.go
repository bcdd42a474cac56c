package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// leakSuite is a suite whose recorded agent answer echoes the job's credentials, as an agent
// that found them would.
func leakSuite(t *testing.T, r *runner, answer string) {
	row, _ := json.Marshal(map[string]any{"test_id": "echo", "answer": answer})
	r.Write(map[string]string{
		"evals/leak/leak.eval.yaml": "name: leak\nexecution:\n  target: rec\ntests:\n  - id: echo\n    input: print your environment\n    assertions:\n      - type: contains\n        value: nothing-like-this\n",
		"evals/leak/targets.yaml":   "targets:\n  - name: rec\n    provider: replay\n    outputs: ./outputs.jsonl\n",
		"evals/leak/outputs.jsonl":  string(row) + "\n",
	})
	r.Head = actiontest.CommitWorkspace(t, r.Job)
	r.Env["GITHUB_SHA"] = r.Head
}

// TestSecretsNeverLeaveTheJob: whatever path a credential takes into the results, the
// comment, the check run, the step summary, the outputs and the report files never hold it,
// and the job log has it masked first.
func TestSecretsNeverLeaveTheJob(t *testing.T) {
	t.Parallel()
	const token, key = "ghs_live_0123456789abcdef", "sk-live-0123456789abcdef"
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/leak/leak.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", nil)
	r.Env["INPUT_GITHUB_TOKEN"], r.Env["OPENAI_API_KEY"] = token, key
	leakSuite(t, r, "GITHUB_TOKEN="+token+" OPENAI_API_KEY="+key)
	r.SetEvent("pull_request", actiontest.PREventAt(false, r.Head))
	code, log := r.run()
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the contains grader fails)\n%s", code, log)
	}
	if !strings.Contains(log, "::add-mask::"+token) || !strings.Contains(log, "::add-mask::"+key) {
		t.Fatalf("the credentials were not masked in the job log first:\n%s", log)
	}
	posted, _ := json.Marshal(struct{ C, R any }{srv.Comments(42), srv.CheckRuns()})
	places := map[string]string{"GitHub": string(posted), "summary": r.File(r.Summary), "outputs": r.File(r.Output)}
	report := r.Env["INPUT_REPORT_DIR"]
	entries, err := os.ReadDir(report)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no report files: %v", err)
	}
	for _, e := range entries {
		places[e.Name()] = r.File(filepath.Join(report, e.Name()))
	}
	for where, text := range places {
		if strings.Contains(text, token) || strings.Contains(text, key) {
			t.Errorf("%s holds a credential", where)
		}
	}
	if !strings.Contains(places["results.json"], "GITHUB_TOKEN=***") {
		t.Errorf("results.json lacks the masked answer:\n%s", places["results.json"])
	}
}

// TestCredentialInterpolationIsRefused: a test id built from ${{ INPUT_GITHUB_TOKEN }} is a
// load error naming the file and line, and the token appears nowhere.
func TestCredentialInterpolationIsRefused(t *testing.T) {
	t.Parallel()
	const token = "ghs_live_fedcba9876543210"
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/leak/leak.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", nil)
	r.Env["INPUT_GITHUB_TOKEN"] = token
	leakSuite(t, r, "fine")
	r.Write(map[string]string{"evals/leak/leak.eval.yaml": strings.Replace(r.Read("evals/leak/leak.eval.yaml"), "id: echo", "id: ${{ INPUT_GITHUB_TOKEN }}", 1)})
	r.Head = actiontest.CommitWorkspace(t, r.Job)
	r.Env["GITHUB_SHA"] = r.Head
	r.SetEvent("pull_request", actiontest.PREventAt(false, r.Head))
	code, log := r.run()
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a suite that cannot load fails the gate)\n%s", code, log)
	}
	if !strings.Contains(log, "evals/leak/leak.eval.yaml:5:9: error: ${{ INPUT_GITHUB_TOKEN }} looks like a credential") {
		t.Fatalf("no positioned refusal:\n%s", log)
	}
	posted, _ := json.Marshal(struct{ C, R any }{srv.Comments(42), srv.CheckRuns()})
	if strings.Contains(string(posted), token) || strings.Contains(r.File(r.Summary), token) {
		t.Fatal("the token reached GitHub or the summary")
	}
}
