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
}

// ListCheckRuns lists, across every page, every check run on ref that opts selects
// (filter=all: a partial rerun weighs each app's runs itself), newest first. A ref GitHub
// does not know is an error; a commit without such a run gives an empty list.
//
// Docs: https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
func (r *Repo) ListCheckRuns(ctx context.Context, ref string, o ListCheckRunsOptions) ([]CheckRun, error) {
	opts := &gh.ListCheckRunsOptions{CheckName: gh.String(o.CheckName), Filter: gh.String("all"), ListOptions: gh.ListOptions{PerPage: checkRunsPerPage}}
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
