package github

import (
	"context"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// CheckRun is a check run as read back from the API.
type CheckRun struct {
	ID                  int64
	Name, HeadSHA       string
	Status, Conclusion  string
	Title, Summary      string
	Text                string
	StartedAt, Finished time.Time
	// AppID and AppSlug are the GitHub App that created the check run (github-actions for
	// the workflow's GITHUB_TOKEN): only that app can edit it.
	AppID   int64
	AppSlug string
}

// checkRunsPerPage is the API's largest page.
const checkRunsPerPage = 100

// ListCheckRunsOptions filters ListCheckRuns.
type ListCheckRunsOptions struct {
	// CheckName is the check runs' name.
	CheckName string
	// Latest keeps only the newest run per check name and app (filter=latest); false lists
	// every run (filter=all).
	Latest bool
}

// ListCheckRuns lists, across every page, the check runs on ref that opts selects, newest
// first. A ref GitHub does not know is an error; a commit without such a run
// gives an empty list.
//
// Docs: https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
func (r *Repo) ListCheckRuns(ctx context.Context, ref string, o ListCheckRunsOptions) ([]CheckRun, error) {
	filter := "all"
	if o.Latest {
		filter = "latest"
	}
	opts := &gh.ListCheckRunsOptions{CheckName: gh.String(o.CheckName), Filter: gh.String(filter), ListOptions: gh.ListOptions{PerPage: checkRunsPerPage}}
	var out []CheckRun
	for {
		var res *gh.ListCheckRunsResults
		var resp *gh.Response
		err := r.c.read(ctx, "list check runs", func() (*gh.Response, error) {
			var err error
			res, resp, err = r.c.gh.Checks.ListCheckRunsForRef(ctx, r.owner, r.name, ref, opts)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, run := range res.CheckRuns {
			out = append(out, CheckRun{
				ID: run.GetID(), Name: run.GetName(), HeadSHA: run.GetHeadSHA(), Status: run.GetStatus(), Conclusion: run.GetConclusion(),
				Title: run.GetOutput().GetTitle(), Summary: run.GetOutput().GetSummary(), Text: run.GetOutput().GetText(),
				StartedAt: run.GetStartedAt().Time, Finished: run.GetCompletedAt().Time,
				AppID: run.GetApp().GetID(), AppSlug: run.GetApp().GetSlug(),
			})
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
