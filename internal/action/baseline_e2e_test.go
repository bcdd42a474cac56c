package action

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// zipDir zips a directory as actions/upload-artifact uploads one: paths relative to it.
func zipDir(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestActionAutoBaseline: a first run's report directory, uploaded as the artifact of a push run
// of the same workflow on the pull request's base commit, is the next run's baseline with
// baseline: auto; when the workflow-runs API answers 404 the run goes on with a note. Neither
// changes the gate.
func TestActionAutoBaseline(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	if code, log := r.run(); code != 1 {
		t.Fatalf("base run: exit %d\n%s", code, log)
	}
	run := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadSHA: "0a1b2c3d", HeadBranch: "main"})
	srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: run, Zip: zipDir(t, r.Env["INPUT_REPORT_DIR"])})

	r.Env["INPUT_BASELINE"] = "auto"
	r.Env["GITHUB_WORKFLOW_REF"] = "acme/agents/.github/workflows/evals.yml@refs/pull/42/merge"
	code, log := r.run()
	if code != 1 {
		t.Fatalf("run with baseline: exit %d, want the gate's 1\n%s", code, log)
	}
	body := srv.Comments(42)[0].Body
	for _, want := range []string{"Baseline: artifact `evalgate-report` of the push run of `evals.yml` on the base commit `0a1b2c3d`", "Δ"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if runs := srv.CheckRuns(); runs[len(runs)-1].Conclusion != "failure" {
		t.Errorf("conclusion %q, want failure: a baseline never passes the gate", runs[len(runs)-1].Conclusion)
	}
	blobs := srv.BlobRequests()
	if len(blobs) != 1 || blobs[0].Authorization != "" {
		t.Errorf("blob requests %+v: want one, without the token", blobs)
	}

	srv.Fail(githubtest.ListWorkflowRuns, githubtest.Fault{Status: 404, Body: `{"message":"Not Found"}`})
	if code, log := r.run(); code != 1 {
		t.Fatalf("run without a baseline: exit %d, want the gate's 1\n%s", code, log)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "**No baseline:** list workflow runs of evals.yml:") || !strings.Contains(s, "404") {
		t.Errorf("step summary does not say why there is no baseline:\n%s", s)
	}
	if body := srv.Comments(42)[0].Body; !strings.Contains(body, "No baseline:") || strings.Contains(body, "Δ") {
		t.Errorf("comment: want the note and no deltas:\n%s", body)
	}
}
