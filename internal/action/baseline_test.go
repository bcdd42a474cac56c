package action

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// scoredRun has n tests of one suite, each with score s (pass at 0.8).
func scoredRun(n int, s float64) *result.Run {
	run := &result.Run{Thresholds: result.DefaultThresholds}
	su := &result.SuiteResult{Name: "support", Path: "evals/support.eval.yaml"}
	for i := range n {
		v := result.Pass
		if s < 0.8 {
			v = result.Fail
		}
		g := &result.GraderResult{Name: "answer", Type: "contains", Weight: 1, Verdict: v, Score: s, File: su.Path, Line: 3}
		su.Tests = append(su.Tests, &result.TestResult{Suite: su.Name, ID: fmt.Sprintf("t%d", i), Verdict: v, Score: s, Threshold: 0.8,
			File: su.Path, Line: 2, Graders: []*result.GraderResult{g}})
	}
	run.Suites = []*result.SuiteResult{su}
	return run
}

// reportZip is an uploaded report directory: results.json at the top, beside other files.
func reportZip(t *testing.T, run *result.Run, extra ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(extra); i += 2 {
		w, _ := zw.Create(extra[i])
		_, _ = io.WriteString(w, extra[i+1])
	}
	if run != nil {
		w, _ := zw.Create("results.json")
		if err := reports.WriteResults(w, run); !errors.Is(err, nil) {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); !errors.Is(err, nil) {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAutoBaseline publishes a pull request's run with baseline: auto against the GitHub
// fake: the base commit's push run's artifact is found among newer runs of other events and
// compared with; every way
// of finding none is a note, never a failure; a baseline never turns a failing gate green.
func TestAutoBaseline(t *testing.T) {
	t.Parallel()
	const baseSHA = "b45e0000000000000000000000000000000000aa"
	tests := []struct {
		name     string
		seed     func(t *testing.T, srv *githubtest.Server)
		head     *result.Run
		fork     bool
		regress  bool
		wantExit error
		wantConc string
		wantNote string
		deltas   bool
	}{
		{"on the base commit, among newer pull request runs", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, baseSHA, "main", reportZip(t, scoredRun(2, 1), "junit.xml", "<x/>"))
			for range 120 { // newer pull request runs of the workflow
				id := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "pull_request", HeadSHA: "other", HeadBranch: "feature"})
				srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: id, Zip: reportZip(t, scoredRun(2, 0))})
			}
		}, scoredRun(2, 0.9), false, false, nil, "success", "Baseline: artifact `evalgate-report` of the push run of `evals.yml` on the base commit `b45e00000000`", true},
		{"regression fails only with fail_on_regression", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, baseSHA, "main", reportZip(t, scoredRun(8, 1)))
		}, scoredRun(8, 0.85), false, true, errGateFailed, "failure", "Baseline: artifact", true}, // 8 single-sample drops: the pooled test is significant
		{"a fork's better baseline cannot pass a failing run", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, baseSHA, "main", reportZip(t, scoredRun(2, 0)))
		}, scoredRun(2, 0.5), true, false, errGateFailed, "failure", "Baseline: artifact", true},
		{"branch fallback", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, "older", "main", reportZip(t, scoredRun(2, 1)))
		}, scoredRun(2, 0.9), false, false, nil, "success", "the newest usable run on the base branch `main`", true},
		{"runs list 404", func(t *testing.T, srv *githubtest.Server) {
			srv.Fail(githubtest.ListWorkflowRuns, githubtest.Fault{Status: http.StatusNotFound, Body: `{"message":"Not Found"}`})
		}, scoredRun(2, 0.9), false, true, nil, "success", "grant `permissions: actions: read`?)", false},
		{"runs list 403 without actions: read", func(t *testing.T, srv *githubtest.Server) {
			srv.Fail(githubtest.ListWorkflowRuns, githubtest.Fault{Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		}, scoredRun(2, 0.9), false, true, nil, "success", "Resource not accessible by integration (does the workflow grant `permissions: actions: read`?)", false},
		{"all expired", func(t *testing.T, srv *githubtest.Server) {
			for _, sha := range []string{"x", baseSHA} {
				id := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadSHA: sha, HeadBranch: "main"})
				srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: id, Expired: true})
			}
		}, scoredRun(2, 0.9), false, true, nil, "success", "its artifact \"evalgate-report\" has expired", false},
		{"fork-uploaded artifact on the base branch is ignored", func(t *testing.T, srv *githubtest.Server) {
			id := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "pull_request", HeadSHA: "evil", HeadBranch: "main", Fork: true})
			srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: id, Zip: reportZip(t, scoredRun(2, 1))})
		}, scoredRun(2, 0.9), false, true, nil, "success", "**No baseline:** no completed push run of the workflow evals.yml on the base branch main", false},
		{"zip with traversal names", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, baseSHA, "main", reportZip(t, nil, "../results.json", `{"schema_version":1}`, "../../etc/passwd", "x"))
		}, scoredRun(2, 0.9), false, true, nil, "success", "no results.json at its top level", false},
		{"not a results file", func(t *testing.T, srv *githubtest.Server) {
			pushRun(srv, baseSHA, "main", reportZip(t, nil, "results.json", "{}"))
		}, scoredRun(2, 0.9), false, true, nil, "success", "results.json: read results: no schema_version", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			tt.seed(t, srv)
			gh, err := github.New(srv.Client(), srv.APIURL(), "s3cret-token", github.Options{Sleep: func(context.Context, time.Duration) error { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			id := srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "head", Status: "in_progress"})
			ev := &event.Event{Name: "pull_request", Owner: "acme", Repo: "agents", PR: 7, HeadSHA: "head", BaseSHA: baseSHA, BaseRef: "main", IsFork: tt.fork,
				WorkflowRef: "acme/agents/.github/workflows/evals.yml@refs/pull/7/merge"}
			var log bytes.Buffer
			d := &deps{Publisher: gh.Repo("acme", "agents"), Source: gh.Repo("acme", "agents"), Event: ev, Log: &log, Root: t.TempDir()}
			in := inputs{CheckName: "evalgate", ReportDir: "report", Command: "/evalgate", Comment: "always",
				Baseline: "auto", BaselineArtifact: "evalgate-report", FailOnRegression: tt.regress}
			p := plan{sha: "head", pr: 7, base: baseSHA, baseRef: "main"}
			pub := &publisher{d: d, in: in, p: p, checkID: id, forbidden: tt.fork}
			if err := pub.publish(t.Context(), tt.head, nil, time.Time{}); !errors.Is(err, tt.wantExit) {
				t.Fatalf("publish: %v, want %v; log:\n%s", err, tt.wantExit, log.String())
			}
			if n, dl := srv.Count(githubtest.ListWorkflowRuns), len(srv.BlobRequests()); strings.HasPrefix(tt.name, "on the base commit") && (n != 1 || dl != 1) {
				t.Errorf("%d runs requests and %d downloads, want 1 (the API filters) and 1 download", n, dl)
			}
			runs := srv.CheckRuns()
			if len(runs) != 1 || runs[0].Conclusion != tt.wantConc {
				t.Fatalf("check runs %+v, want one %s", runs, tt.wantConc)
			}
			if !strings.Contains(runs[0].Summary, tt.wantNote) {
				t.Errorf("check run summary lacks %q:\n%s", tt.wantNote, runs[0].Summary)
			}
			if !tt.fork {
				comments := srv.Comments(7)
				if len(comments) != 1 || !strings.Contains(comments[0].Body, tt.wantNote) {
					t.Fatalf("comment lacks the note %q: %+v", tt.wantNote, comments)
				}
				if has := strings.Contains(comments[0].Body, "Δ"); has != tt.deltas {
					t.Errorf("comment shows deltas: %v, want %v:\n%s", has, tt.deltas, comments[0].Body)
				}
			}
			for _, r := range srv.BlobRequests() {
				if r.Authorization != "" {
					t.Errorf("the blob host got Authorization %q", r.Authorization)
				}
			}
			if strings.Contains(log.String(), "s3cret-token") {
				t.Error("the token reached the log")
			}
		})
	}
}

// pushRun seeds a successful push run of evals.yml on sha and branch, with its report.
func pushRun(srv *githubtest.Server, sha, branch string, zip []byte) {
	id := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadSHA: sha, HeadBranch: branch})
	srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: id, Zip: zip})
}

// TestAutoBaselineOutsidePullRequests: a push run (the one that uploads the baseline) and a
// cancelled run ask nothing of the API and add no note.
func TestAutoBaselineOutsidePullRequests(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &deps{Publisher: gh.Repo("acme", "agents"), Source: gh.Repo("acme", "agents"), Event: &event.Event{Name: "push", Owner: "acme", Repo: "agents"}, Log: io.Discard}
	in := inputs{Baseline: "auto", BaselineArtifact: "evalgate-report"}
	cmp, note := d.baseline(t.Context(), in, plan{sha: "abc"}, false)
	if cmp != nil || note != "" || len(srv.Requests()) != 0 {
		t.Fatalf("comparison %v, note %q, %d requests; want none", cmp, note, len(srv.Requests()))
	}
	// Nor does a cancelled pull request run, whose last seconds go to the check run.
	cmp, note = d.baseline(t.Context(), in, plan{sha: "abc", pr: 7, base: "b", baseRef: "main"}, true)
	if cmp != nil || note != "" || len(srv.Requests()) != 0 {
		t.Fatalf("cancelled: comparison %v, note %q, %d requests; want none", cmp, note, len(srv.Requests()))
	}
}

// TestAutoBaselineInAMergeGroup: a merge group compares with the push run on its base commit,
// as its pull requests did.
func TestAutoBaselineInAMergeGroup(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	pushRun(srv, "base1", "main", reportZip(t, scoredRun(2, 0.9)))
	gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &event.Event{Name: "merge_group", Owner: "acme", Repo: "agents", HeadSHA: "head", BaseSHA: "base1", BaseRef: "main",
		WorkflowRef: "acme/agents/.github/workflows/evals.yml@refs/heads/gh-readonly-queue/main/pr-1-base1"}
	var log bytes.Buffer
	d := &deps{Publisher: gh.Repo("acme", "agents"), Source: gh.Repo("acme", "agents"), Event: ev, Log: &log}
	in := inputs{Baseline: "auto", BaselineArtifact: "evalgate-report"}
	cmp, note := d.baseline(t.Context(), in, plan{sha: "head", base: "base1", baseRef: "main", selected: true}, false)
	if cmp == nil || !strings.Contains(note, "the base commit `base1`") {
		t.Fatalf("comparison %v, note %q; want the base commit's run\n%s", cmp, note, log.String())
	}
}
