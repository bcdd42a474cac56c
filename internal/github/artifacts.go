package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// maxArtifactPages bounds an artifact listing (100 a page): a run keeps few artifacts.
const maxArtifactPages = 10

// Artifact is what evalgate needs of a workflow artifact.
type Artifact struct {
	ID        int64
	Name      string
	Size      int64
	Expired   bool
	CreatedAt time.Time
	// RunID, HeadSHA and HeadBranch are those of the workflow run that uploaded it.
	RunID               int64
	HeadSHA, HeadBranch string
	// SameRepo is true when that run's head was the repository itself, not a fork: only such
	// a run's artifact can stand for the base branch.
	SameRepo bool
}

func artifact(a *gh.Artifact) Artifact {
	run := a.GetWorkflowRun()
	return Artifact{
		ID: a.GetID(), Name: a.GetName(), Size: a.GetSizeInBytes(), Expired: a.GetExpired(),
		CreatedAt: a.GetCreatedAt().Time, RunID: run.GetID(), HeadSHA: run.GetHeadSHA(), HeadBranch: run.GetHeadBranch(),
		SameRepo: run.GetRepositoryID() != 0 && run.GetHeadRepositoryID() == run.GetRepositoryID(),
	}
}

func sortNewest(arts []Artifact) {
	sort.SliceStable(arts, func(i, j int) bool { return arts[i].CreatedAt.After(arts[j].CreatedAt) })
}

// IsNotFound reports whether err is GitHub's 404, which is also its answer to a token
// without the permission to see a resource.
func IsNotFound(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// DownloadArtifact returns an artifact's zip, at most maxBytes of it. GitHub answers the
// download with a redirect to a short-lived blob URL on another host; the redirect is not
// followed by the authenticated client: the blob is fetched by the plain HTTP client, so the
// token never reaches that host.
//
// Docs: https://docs.github.com/rest/actions/artifacts#download-an-artifact
func (r *Repo) DownloadArtifact(ctx context.Context, id, maxBytes int64) ([]byte, error) {
	c := r.c
	var loc *url.URL
	err := c.read(ctx, "download artifact", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		loc, resp, err = c.gh.Actions.DownloadArtifact(ctx, r.owner, r.name, id, 0)
		switch {
		case err == nil || resp == nil:
			return resp, err
		case resp.StatusCode == http.StatusFound:
			// An unreadable Location: url.Parse's error quotes it, signature and all.
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return resp, permanent{fmt.Errorf("redirect: %w", err)}
		}
		// v60 reports a non-redirect as a plain error; as an ErrorResponse, a 404 or 410 is
		// final and a 5xx or rate limit is retried.
		return resp, &gh.ErrorResponse{Response: resp.Response, Message: err.Error()}
	})
	if err != nil {
		return nil, err
	}
	loc = c.gh.BaseURL.ResolveReference(loc)
	if loc.Scheme != "https" && loc.Scheme != "http" {
		// Only the scheme: the rest of a signed URL is a credential.
		return nil, fmt.Errorf("download artifact %d: redirect to a %q URL", id, loc.Scheme)
	}
	var body []byte
	err = c.read(ctx, "download artifact blob", func() (*gh.Response, error) {
		var err error
		body, err = c.fetchBlob(ctx, loc.String(), maxBytes)
		return nil, err
	})
	return body, err
}

// fetchBlob GETs u with the plain client (no Authorization header) and reads at most max
// bytes. Errors never quote u: its query string is a signature.
func (c *Client) fetchBlob(ctx context.Context, u string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, permanent{fmt.Errorf("artifact blob request: %w", err)}
	}
	resp, err := c.plain.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the signed URL
		}
		return nil, fmt.Errorf("artifact blob: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500:
		return nil, fmt.Errorf("artifact blob: %s", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, permanent{fmt.Errorf("artifact blob: %s", resp.Status)}
	case resp.ContentLength > max:
		return nil, permanent{fmt.Errorf("artifact is larger than %d bytes", max)}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("artifact blob: %w", err)
	}
	if int64(len(b)) > max {
		return nil, permanent{fmt.Errorf("artifact is larger than %d bytes", max)}
	}
	return b, nil
}
