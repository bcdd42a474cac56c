package github

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// TestListWorkflowRuns: the API's filters (branch, event, commit, status or conclusion) are
// sent and applied, the newest runs come first, pages are followed through the Link header
// up to the limit, and a workflow is named by its file or its id.
func TestListWorkflowRuns(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	for i := range 130 {
		srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "sha" + strconv.Itoa(i)})
	}
	onBase := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "base"})
	srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "base", Event: "issue_comment"})
	srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "base", Conclusion: "failure", Status: "completed"})
	srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "feature", HeadSHA: "base"})
	srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "nightly.yml", HeadBranch: "main", HeadSHA: "base", Event: "schedule"})
	forked := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "fork", Event: "pull_request", Fork: true})
	repo := func() *Repo { c, _ := newClient(t, srv); return c.Repo("acme", "agents") }()
	ctx := t.Context()
	push := ListWorkflowRunsOptions{Branch: "main", Event: "push", Status: "success"}

	tests := []struct {
		name     string
		workflow string
		o        ListWorkflowRunsOptions
		want     int   // runs returned
		first    int64 // the newest run's id (0: any)
		requests int
	}{
		{"the base commit's push run", "evals.yml", ListWorkflowRunsOptions{Branch: "main", Event: "push", HeadSHA: "base", Status: "success"}, 1, onBase, 1},
		{"by workflow id", strconv.FormatInt(srv.AddWorkflow("evals.yml"), 10), ListWorkflowRunsOptions{Branch: "main", Event: "push", HeadSHA: "base", Status: "success"}, 1, onBase, 1},
		{"limit within a page", "evals.yml", ListWorkflowRunsOptions{Branch: push.Branch, Event: push.Event, Status: push.Status, Limit: 5}, 5, onBase, 1},
		{"every page", "evals.yml", push, 131, onBase, 2},
		{"a fork's pull request run", "evals.yml", ListWorkflowRunsOptions{Event: "pull_request"}, 1, forked, 1},
		{"nothing matches", "evals.yml", ListWorkflowRunsOptions{HeadSHA: "nope"}, 0, 0, 1},
	}
	for _, tt := range tests {
		before := srv.Count(githubtest.ListWorkflowRuns)
		runs, err := repo.ListWorkflowRuns(ctx, tt.workflow, tt.o)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(runs) != tt.want {
			t.Errorf("%s: %d runs, want %d", tt.name, len(runs), tt.want)
		}
		if tt.first != 0 && (len(runs) == 0 || runs[0].ID != tt.first) {
			t.Errorf("%s: newest run %+v, want %d", tt.name, runs, tt.first)
		}
		if n := srv.Count(githubtest.ListWorkflowRuns) - before; n != tt.requests {
			t.Errorf("%s: %d requests, want %d", tt.name, n, tt.requests)
		}
		for i, r := range runs {
			if i > 0 && r.CreatedAt.After(runs[i-1].CreatedAt) {
				t.Errorf("%s: run %d is newer than the one before it", tt.name, r.ID)
			}
			if (tt.o.Event != "" && r.Event != tt.o.Event) || (tt.o.Branch != "" && r.HeadBranch != tt.o.Branch) || r.SameRepo == (r.ID == forked) {
				t.Errorf("%s: run %+v does not match the filter", tt.name, r)
			}
		}
	}
}

// TestListWorkflowRunsErrors: an unknown workflow file is GitHub's 404, final at once; a rate
// limit (403 with no remaining quota, or 429) is waited out and the listing retried.
func TestListWorkflowRunsErrors(t *testing.T) {
	t.Parallel()
	// A reset already reached: go-github itself refuses requests before the reset, in real time.
	reset := strconv.FormatInt(time.Now().Add(-time.Second).Unix(), 10)
	tests := []struct {
		name     string
		workflow string
		fault    *githubtest.Fault
		wantErr  string
		requests int
	}{
		{"unknown workflow file", "gone.yml", nil, "404", 1},
		{"no actions: read", "evals.yml", &githubtest.Fault{Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`}, "Resource not accessible", 1},
		{"primary rate limit", "evals.yml", &githubtest.Fault{Status: http.StatusForbidden, Headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, Body: `{"message":"API rate limit exceeded"}`}, "", 2},
		{"429", "evals.yml", &githubtest.Fault{Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "3"}, Body: `{"message":"slow down"}`}, "", 2},
		{"502 twice", "evals.yml", &githubtest.Fault{Status: http.StatusBadGateway, Body: `{"message":"bad gateway"}`, Times: 2}, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: "base"})
			if tt.fault != nil {
				srv.Fail(githubtest.ListWorkflowRuns, *tt.fault)
			}
			c, sl := newClient(t, srv)
			runs, err := c.Repo("acme", "agents").ListWorkflowRuns(t.Context(), tt.workflow, ListWorkflowRunsOptions{Branch: "main"})
			switch {
			case tt.wantErr == "" && (err != nil || len(runs) != 1):
				t.Fatalf("runs %+v, err %v; want the one run after the retry", runs, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
			if n := srv.Count(githubtest.ListWorkflowRuns); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if waits := sl.all(); tt.wantErr == "" && len(waits) != tt.requests-1 {
				t.Errorf("waits %v, want %d", waits, tt.requests-1)
			}
		})
	}
}

// TestGetWorkflowRun reads the job's own run for its workflow id; an unknown run is a 404.
func TestGetWorkflowRun(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	id := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "pull_request", HeadBranch: "feature", HeadSHA: "head"})
	c, _ := newClient(t, srv)
	run, err := c.Repo("acme", "agents").GetWorkflowRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.WorkflowID != srv.AddWorkflow("evals.yml") || run.Event != "pull_request" || run.HeadSHA != "head" {
		t.Errorf("run %+v", run)
	}
	if _, err := c.Repo("acme", "agents").GetWorkflowRun(t.Context(), 1); !IsNotFound(err) {
		t.Errorf("unknown run: err %v, want a 404", err)
	}
}
