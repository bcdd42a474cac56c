package github

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// commentsPerPage is the API's largest page: fewer round trips on long PR threads.
const commentsPerPage = 100

// CommentOptions is a sticky comment: Body must contain Marker, the hidden text that finds
// the comment again on the next run.
type CommentOptions struct {
	Marker string
	Body   string
}

// UpsertComment keeps exactly one comment per marker on a pull request: it edits the bot's
// comment holding marker in place (or leaves it when the body is unchanged), or creates one.
// Only comments written by the bot's own login count, so nobody can hijack the marker.
//
// Two runs racing on the same PR can both find nothing and both create. After creating, the
// comments are listed again; the oldest marked comment wins, the newer ones are deleted and the
// oldest is edited to the new body, so the thread settles on one comment either way.
//
// Docs: https://docs.github.com/rest/issues/comments
func (r *Repo) UpsertComment(ctx context.Context, pr int, o CommentOptions) (string, error) {
	c, marker, body := r.c, o.Marker, o.Body
	if c.opts.Scrub != nil {
		body = c.opts.Scrub(body)
	}
	if !strings.Contains(body, marker) {
		return "", fmt.Errorf("upsert comment: body does not contain its marker")
	}
	mine, err := r.markedComments(ctx, pr, marker)
	if err != nil {
		return "", err
	}
	if len(mine) == 0 {
		var created *gh.IssueComment
		err := c.write(ctx, "create comment", func() (*gh.Response, error) {
			var resp *gh.Response
			var err error
			created, resp, err = c.gh.Issues.CreateComment(ctx, r.owner, r.name, pr, &gh.IssueComment{Body: gh.String(body)})
			return resp, err
		})
		if err != nil {
			return "", err
		}
		if mine, err = r.markedComments(ctx, pr, marker); err != nil {
			return created.GetHTMLURL(), nil // created; the race check is best effort
		}
		if len(mine) <= 1 {
			return created.GetHTMLURL(), nil
		}
	}
	keep := mine[0]
	for _, dup := range mine[1:] {
		if err := c.write(ctx, "delete duplicate comment", func() (*gh.Response, error) {
			resp, err := c.gh.Issues.DeleteComment(ctx, r.owner, r.name, dup.GetID())
			if resp != nil && resp.StatusCode == http.StatusNotFound {
				return resp, nil // a racing run deleted it first
			}
			return resp, err
		}); err != nil {
			return "", err
		}
	}
	if keep.GetBody() == body {
		return keep.GetHTMLURL(), nil
	}
	var edited *gh.IssueComment
	err = c.write(ctx, "edit comment", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		edited, resp, err = c.gh.Issues.EditComment(ctx, r.owner, r.name, keep.GetID(), &gh.IssueComment{Body: gh.String(body)})
		return resp, err
	})
	if err != nil {
		return "", err
	}
	return edited.GetHTMLURL(), nil
}

// markedComments lists, oldest first, the bot's comments on the PR that hold marker, across
// every page of the thread.
func (r *Repo) markedComments(ctx context.Context, pr int, marker string) ([]*gh.IssueComment, error) {
	c := r.c
	var out []*gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: commentsPerPage}}
	for {
		var page []*gh.IssueComment
		var resp *gh.Response
		err := c.read(ctx, "list comments", func() (*gh.Response, error) {
			var err error
			page, resp, err = c.gh.Issues.ListComments(ctx, r.owner, r.name, pr, opts)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, cm := range page {
			if strings.EqualFold(cm.GetUser().GetLogin(), c.opts.BotLogin) && strings.Contains(cm.GetBody(), marker) {
				out = append(out, cm)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetID() < out[j].GetID() })
	return out, nil
}
