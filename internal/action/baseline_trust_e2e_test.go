package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// TestActionAutoBaselineTrustedRuns drives the action with baseline: auto where the base commit
// has, besides its push runs, newer runs a baseline must never come from: a comment rerun of
// the same workflow, a nightly schedule of another workflow, and a pull request run. The
// newest push run's artifact is damaged: it is skipped with a note, and the older push run's
// good artifact is the baseline.
func TestActionAutoBaselineTrustedRuns(t *testing.T) {
	t.Parallel()
	const base = "0a1b2c3d"
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	if code, log := r.run(); code != 1 {
		t.Fatalf("base run: exit %d\n%s", code, log)
	}
	good := zipDir(t, r.Env["INPUT_REPORT_DIR"])

	add := func(run githubtest.WorkflowRun, zip []byte) (artifact, runID int64) {
		runID = srv.AddWorkflowRun(run)
		return srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: runID, Zip: zip}), runID
	}
	// Oldest first: the good push run, then the damaged push run, then the runs not to take,
	// each with a good artifact that would be the newest on the base commit.
	want, _ := add(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "push", HeadBranch: "main", HeadSHA: base}, good)
	damaged, damagedRun := add(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "push", HeadBranch: "main", HeadSHA: base}, []byte("PK\x03\x04 truncated"))
	var untrusted []int64
	for _, run := range []githubtest.WorkflowRun{
		{Workflow: "evals.yml", Event: "issue_comment", HeadBranch: "main", HeadSHA: base},
		{Workflow: "nightly.yml", Event: "schedule", HeadBranch: "main", HeadSHA: base},
		{Workflow: "evals.yml", Event: "pull_request", HeadBranch: "main", HeadSHA: base},
	} {
		id, _ := add(run, good)
		untrusted = append(untrusted, id)
	}

	r.Env["INPUT_BASELINE"] = "auto"
	r.Env["GITHUB_WORKFLOW_REF"] = "acme/agents/.github/workflows/evals.yml@refs/pull/42/merge"
	code, log := r.run()
	if code != 1 {
		t.Fatalf("run with baseline: exit %d, want the gate's 1\n%s", code, log)
	}
	if !strings.Contains(log, fmt.Sprintf("baseline: artifact %d (evalgate-report) of push run", want)) {
		t.Errorf("the log does not name artifact %d as the baseline:\n%s", want, log)
	}
	for _, id := range untrusted {
		if strings.Contains(log, fmt.Sprintf("artifact %d ", id)) {
			t.Errorf("artifact %d of a run that is not a push of evals.yml was looked at:\n%s", id, log)
		}
	}
	body := srv.Comments(42)[0].Body
	for _, w := range []string{
		"Baseline: artifact `evalgate-report` of the push run of `evals.yml` on the base commit `0a1b2c3d`",
		fmt.Sprintf("Skipped 1 newer unusable run(s): run %d (commit 0a1b2c3d): artifact %d: read zip", damagedRun, damaged),
		"Δ",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("comment lacks %q:\n%s", w, body)
		}
	}
	if n := len(srv.BlobRequests()); n != 2 {
		t.Errorf("%d downloads, want 2 (the damaged artifact, then the good one)", n)
	}
	for _, b := range srv.BlobRequests() {
		if b.Authorization != "" {
			t.Errorf("the blob host got Authorization %q", b.Authorization)
		}
	}
}
