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
}

// checkRunsPerPage is the API's largest page.
const checkRunsPerPage = 100

// ListCheckRuns lists, across every page, the check runs named name on ref, newest first. With
// latest, GitHub keeps only the newest run per check name and app (filter=latest); without it,
// every run (filter=all). A ref GitHub does not know is an error; a commit without such a run
// gives an empty list.
//
// Docs: https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
func (c *Client) ListCheckRuns(ctx context.Context, owner, repo, ref, name string, latest bool) ([]CheckRun, error) {
	filter := "all"
	if latest {
		filter = "latest"
	}
	opts := &gh.ListCheckRunsOptions{CheckName: gh.String(name), Filter: gh.String(filter), ListOptions: gh.ListOptions{PerPage: checkRunsPerPage}}
	var out []CheckRun
	for {
		var res *gh.ListCheckRunsResults
		var resp *gh.Response
		err := c.read(ctx, "list check runs", func() (*gh.Response, error) {
			var err error
			res, resp, err = c.gh.Checks.ListCheckRunsForRef(ctx, owner, repo, ref, opts)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, r := range res.CheckRuns {
			out = append(out, CheckRun{
				ID: r.GetID(), Name: r.GetName(), HeadSHA: r.GetHeadSHA(), Status: r.GetStatus(), Conclusion: r.GetConclusion(),
				Title: r.GetOutput().GetTitle(), Summary: r.GetOutput().GetSummary(), Text: r.GetOutput().GetText(),
				StartedAt: r.GetStartedAt().Time, Finished: r.GetCompletedAt().Time,
			})
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
