package github

import (
	"context"

	gh "github.com/google/go-github/v60/github"
)

// maxCompareFiles is how many files the compare API lists at most; beyond it, evalgate falls
// back to git diff.
const maxCompareFiles = 300

// CompareFiles lists the files head changes since base (the three-dot comparison base...head,
// as a merge group's checks see it); truncated reports that GitHub's cap was reached and the
// list may be incomplete. GitHub paginates only the commits of a comparison: the first page
// carries the files of the whole comparison, so one request is enough.
//
// Docs: https://docs.github.com/rest/commits/commits#compare-two-commits
func (r *Repo) CompareFiles(ctx context.Context, base, head string) ([]ChangedFile, bool, error) {
	var cmp *gh.CommitsComparison
	err := r.c.read(ctx, "compare commits", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		cmp, resp, err = r.c.gh.Repositories.CompareCommits(ctx, r.owner, r.name, base, head, &gh.ListOptions{PerPage: 100})
		return resp, err
	})
	if err != nil {
		return nil, false, err
	}
	files := make([]ChangedFile, 0, len(cmp.Files))
	for _, f := range cmp.Files {
		files = append(files, ChangedFile{Name: f.GetFilename(), PreviousName: f.GetPreviousFilename(), Status: f.GetStatus()})
	}
	return files, len(files) >= maxCompareFiles, nil
}
