package github

import (
	"context"

	gh "github.com/google/go-github/v60/github"
)

// maxPullRequestFiles is how many files the PR files API lists at most; beyond it, evalgate
// falls back to git diff.
const maxPullRequestFiles = 3000

// PullRequest is what evalgate needs of a pull request.
type PullRequest struct {
	Number           int
	HeadSHA, BaseSHA string
	HeadRef, BaseRef string
	HeadRepo         string // owner/name
	BaseRepo         string
	// IsFork is true when the head branch lives in another repository.
	IsFork bool
}

// ChangedFile is one file a pull request changes; PreviousName is set for renames.
type ChangedFile struct {
	Name, PreviousName, Status string
}

// GetPullRequest fetches a pull request, e.g. to pin the head SHA when a command arrives.
//
// Docs: https://docs.github.com/rest/pulls/pulls#get-a-pull-request
func (r *Repo) GetPullRequest(ctx context.Context, n int) (*PullRequest, error) {
	var pr *gh.PullRequest
	err := r.c.read(ctx, "get pull request", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		pr, resp, err = r.c.gh.PullRequests.Get(ctx, r.owner, r.name, n)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	out := &PullRequest{
		Number: pr.GetNumber(), HeadSHA: pr.GetHead().GetSHA(), BaseSHA: pr.GetBase().GetSHA(),
		HeadRef: pr.GetHead().GetRef(), BaseRef: pr.GetBase().GetRef(),
		HeadRepo: pr.GetHead().GetRepo().GetFullName(), BaseRepo: pr.GetBase().GetRepo().GetFullName(),
	}
	out.IsFork = out.HeadRepo != out.BaseRepo
	return out, nil
}

// ListPullRequestFiles lists every file a pull request changes, 100 a page, up to GitHub's
// cap; truncated reports that the cap was reached and the list may be incomplete.
//
// Docs: https://docs.github.com/rest/pulls/pulls#list-pull-requests-files
func (r *Repo) ListPullRequestFiles(ctx context.Context, n int) ([]ChangedFile, bool, error) {
	var files []ChangedFile
	opts := &gh.ListOptions{PerPage: 100}
	for {
		var page []*gh.CommitFile
		var resp *gh.Response
		err := r.c.read(ctx, "list pull request files", func() (*gh.Response, error) {
			var err error
			page, resp, err = r.c.gh.PullRequests.ListFiles(ctx, r.owner, r.name, n, opts)
			return resp, err
		})
		if err != nil {
			return nil, false, err
		}
		for _, f := range page {
			files = append(files, ChangedFile{Name: f.GetFilename(), PreviousName: f.GetPreviousFilename(), Status: f.GetStatus()})
		}
		if len(files) >= maxPullRequestFiles {
			return files, true, nil
		}
		if resp == nil || resp.NextPage == 0 {
			return files, false, nil
		}
		opts.Page = resp.NextPage
	}
}

// PermissionLevel returns a user's permission on the repository: admin, write, read or none.
// go-github v60 exposes only this legacy field, where maintain reads as write and triage as read.
//
// Docs: https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
func (r *Repo) PermissionLevel(ctx context.Context, user string) (string, error) {
	var p *gh.RepositoryPermissionLevel
	err := r.c.read(ctx, "get permission level", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		p, resp, err = r.c.gh.Repositories.GetPermissionLevel(ctx, r.owner, r.name, user)
		return resp, err
	})
	if err != nil {
		return "", err
	}
	return p.GetPermission(), nil
}

// React adds a reaction ("eyes", "rocket", "confused", …) to an issue comment.
//
// Docs: https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment
func (r *Repo) React(ctx context.Context, commentID int64, content string) error {
	return r.c.write(ctx, "react to comment", func() (*gh.Response, error) {
		_, resp, err := r.c.gh.Reactions.CreateIssueCommentReaction(ctx, r.owner, r.name, commentID, content)
		return resp, err
	})
}
