package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// maxRunPages bounds one workflow-runs listing: callers ask for a few runs, newest first.
const maxRunPages = 10

// WorkflowRun is what evalgate needs of a workflow run.
type WorkflowRun struct {
	ID, WorkflowID     int64
	Event              string // push, pull_request, issue_comment, schedule, …
	HeadBranch         string
	HeadSHA            string
	Status, Conclusion string
	CreatedAt          time.Time
	// SameRepo is true when the run's head was the repository itself, not a fork.
	SameRepo bool
}

// ListWorkflowRunsOptions are the API's own filters of a workflow's runs, and a bound.
type ListWorkflowRunsOptions struct {
	Branch, Event, HeadSHA string
	// Status is a status or a conclusion ("success" means completed successfully).
	Status string
	// Created filters on the run's creation time in GitHub's date syntax ("<=2026-01-02T15:04:05Z").
	Created string
	// Limit is the most runs returned, newest first (0: as many as maxRunPages pages hold).
	Limit int
}

// ListWorkflowRuns lists the runs of one workflow, newest first. workflow is the workflow
// file's name (evals.yml) or its numeric id, as the API's {workflow_id} takes either; an
// unknown workflow is GitHub's 404.
//
// Docs: https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
func (r *Repo) ListWorkflowRuns(ctx context.Context, workflow string, o ListWorkflowRunsOptions) ([]WorkflowRun, error) {
	c := r.c
	per := 100
	if o.Limit > 0 && o.Limit < per {
		per = o.Limit
	}
	id, numeric := strconv.ParseInt(workflow, 10, 64)
	var out []WorkflowRun
	for page := 1; page > 0 && page <= maxRunPages && (o.Limit <= 0 || len(out) < o.Limit); {
		opts := &gh.ListWorkflowRunsOptions{Branch: o.Branch, Event: o.Event, HeadSHA: o.HeadSHA, Status: o.Status,
			Created: o.Created, ListOptions: gh.ListOptions{Page: page, PerPage: per}}
		var list *gh.WorkflowRuns
		var resp *gh.Response
		err := c.read(ctx, "list workflow runs of "+workflow, func() (*gh.Response, error) {
			var err error
			if numeric == nil {
				list, resp, err = c.gh.Actions.ListWorkflowRunsByID(ctx, r.owner, r.name, id, opts)
			} else {
				list, resp, err = c.gh.Actions.ListWorkflowRunsByFileName(ctx, r.owner, r.name, url.PathEscape(workflow), opts)
			}
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, run := range list.WorkflowRuns {
			out = append(out, workflowRun(run))
		}
		page = 0
		if resp != nil {
			page = resp.NextPage
		}
	}
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[:o.Limit]
	}
	return out, nil
}

// GetWorkflowRun returns one run (the job's own, GITHUB_RUN_ID, to learn its workflow).
//
// Docs: https://docs.github.com/rest/actions/workflow-runs#get-a-workflow-run
func (r *Repo) GetWorkflowRun(ctx context.Context, id int64) (*WorkflowRun, error) {
	var run *gh.WorkflowRun
	err := r.c.read(ctx, "get workflow run", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		run, resp, err = r.c.gh.Actions.GetWorkflowRunByID(ctx, r.owner, r.name, id)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	w := workflowRun(run)
	return &w, nil
}

// ListRunArtifacts lists one run's artifacts called name, newest first, expired ones
// included (callers skip them). go-github v60's ListWorkflowRunArtifacts has no name filter,
// so the request is built here with its NewRequest and Do.
//
// Docs: https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts
func (r *Repo) ListRunArtifacts(ctx context.Context, runID int64, name string) ([]Artifact, error) {
	c := r.c
	var out []Artifact
	for page := 1; page > 0 && page <= maxArtifactPages; {
		q := url.Values{"name": {name}, "per_page": {"100"}, "page": {fmt.Sprint(page)}}
		u := fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts?%s", url.PathEscape(r.owner), url.PathEscape(r.name), runID, q.Encode())
		var list gh.ArtifactList
		var resp *gh.Response
		err := c.read(ctx, "list run artifacts", func() (*gh.Response, error) {
			req, err := c.gh.NewRequest(http.MethodGet, u, nil)
			if err != nil {
				return nil, err
			}
			list = gh.ArtifactList{}
			resp, err = c.gh.Do(ctx, req, &list)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, a := range list.Artifacts {
			out = append(out, artifact(a))
		}
		page = 0
		if resp != nil {
			page = resp.NextPage
		}
	}
	sortNewest(out)
	return out, nil
}

func workflowRun(run *gh.WorkflowRun) WorkflowRun {
	repo, head := run.GetRepository().GetID(), run.GetHeadRepository().GetID()
	return WorkflowRun{ID: run.GetID(), WorkflowID: run.GetWorkflowID(), Event: run.GetEvent(),
		HeadBranch: run.GetHeadBranch(), HeadSHA: run.GetHeadSHA(), Status: run.GetStatus(), Conclusion: run.GetConclusion(),
		CreatedAt: run.GetCreatedAt().Time, SameRepo: repo != 0 && head == repo}
}
