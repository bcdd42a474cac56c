package github

import (
	"net/http"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// TestListRunArtifactsPaginates lists more of one run's artifacts than a page holds, filtered
// by name, newest first, with each one's run, expired and fork flags.
func TestListRunArtifactsPaginates(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	run := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadSHA: "sha", HeadBranch: "main"})
	other := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", HeadSHA: "sha2", HeadBranch: "main"})
	for i := range 150 {
		srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: run, Expired: i%50 == 0})
	}
	srv.AddArtifact(githubtest.Artifact{Name: "other", RunID: run})
	srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", RunID: other})
	c, _ := newClient(t, srv)
	arts, err := c.Repo("acme", "agents").ListRunArtifacts(t.Context(), run, "evalgate-report")
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 150 {
		t.Fatalf("listed %d artifacts, want 150", len(arts))
	}
	if got := srv.Count(githubtest.ListRunArtifacts); got != 2 {
		t.Errorf("%d list requests, want 2 pages", got)
	}
	expired := 0
	for i, a := range arts {
		if a.Name != "evalgate-report" || a.RunID != run || a.HeadSHA != "sha" || !a.SameRepo {
			t.Errorf("artifact %+v: want run %d's evalgate-report on sha, same repository", a, run)
		}
		if i > 0 && a.CreatedAt.After(arts[i-1].CreatedAt) {
			t.Errorf("artifact %d is newer than the one before it", a.ID)
		}
		if a.Expired {
			expired++
		}
	}
	if expired != 3 {
		t.Errorf("%d expired, want 3", expired)
	}
}

// TestDownloadArtifactRedirect follows the 302 to the blob host without the token.
func TestDownloadArtifactRedirect(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	id := srv.AddArtifact(githubtest.Artifact{Name: "evalgate-report", Zip: []byte("PK zip bytes")})
	c, _ := newClient(t, srv)
	b, err := c.Repo("acme", "agents").DownloadArtifact(t.Context(), id, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "PK zip bytes" {
		t.Errorf("downloaded %q", b)
	}
	reqs := srv.BlobRequests()
	if len(reqs) != 1 {
		t.Fatalf("blob host got %d requests, want 1", len(reqs))
	}
	if reqs[0].Authorization != "" {
		t.Errorf("the token reached the blob host: Authorization %q", reqs[0].Authorization)
	}
	if _, err := c.Repo("acme", "agents").DownloadArtifact(t.Context(), id, 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("over the cap: err %v", err)
	}
}

// TestDownloadArtifactErrors: a 404, an expired artifact (410) and a missing blob fail at
// once, without retries; a 502 is retried.
func TestDownloadArtifactErrors(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	expired := srv.AddArtifact(githubtest.Artifact{Name: "r", Expired: true})
	c, sl := newClient(t, srv)
	ctx := t.Context()
	for _, id := range []int64{999999, expired} {
		if _, err := c.Repo("acme", "agents").DownloadArtifact(ctx, id, 1<<20); err == nil {
			t.Errorf("artifact %d: no error", id)
		}
	}
	if n := srv.Count(githubtest.DownloadArtifact); n != 2 {
		t.Errorf("%d download requests, want 2 (no retry of a 404 or 410)", n)
	}
	if len(sl.all()) != 0 {
		t.Errorf("waited %v before failing for good", sl.all())
	}
	ok := srv.AddArtifact(githubtest.Artifact{Name: "r", Zip: []byte("zip")})
	srv.Fail(githubtest.DownloadArtifact, githubtest.Fault{Status: http.StatusBadGateway, Body: `{"message":"bad gateway"}`})
	if b, err := c.Repo("acme", "agents").DownloadArtifact(ctx, ok, 1<<20); err != nil || string(b) != "zip" {
		t.Errorf("after a 502: %q, %v", b, err)
	}
}

// TestListRunArtifactsNotFound: a 404 (an unknown run, no access, Actions disabled) is an
// error, not retried.
func TestListRunArtifactsNotFound(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, _ := newClient(t, srv)
	_, err := c.Repo("acme", "agents").ListRunArtifacts(t.Context(), 4242, "evalgate-report")
	if err == nil || !strings.Contains(err.Error(), "404") || !IsNotFound(err) {
		t.Fatalf("err %v, want a 404", err)
	}
	if n := srv.Count(githubtest.ListRunArtifacts); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestDownloadArtifactBlobMissing: a 404 from the blob host fails at once, and the error does
// not quote the signed URL.
func TestDownloadArtifactBlobMissing(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Fail(githubtest.DownloadArtifact, githubtest.Fault{Status: http.StatusFound, Headers: map[string]string{"Location": srv.BlobURL() + "/blob/999?sig=signed"}})
	c, _ := newClient(t, srv)
	_, err := c.Repo("acme", "agents").DownloadArtifact(t.Context(), 5, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "sig=") {
		t.Fatalf("err %v: want a 404 that does not quote the signed URL", err)
	}
	if n := len(srv.BlobRequests()); n != 1 {
		t.Errorf("%d blob requests, want 1 (a 404 is not retried)", n)
	}
}

// TestDownloadArtifactBadRedirect: a Location that cannot be fetched fails without quoting it
// (its query string is a signature).
func TestDownloadArtifactBadRedirect(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{"ftp://blob.example/x?sig=secret", "https://blob.example/%zz?sig=secret"} {
		srv := githubtest.New(t)
		srv.Fail(githubtest.DownloadArtifact, githubtest.Fault{Status: http.StatusFound, Headers: map[string]string{"Location": loc}})
		c, _ := newClient(t, srv)
		_, err := c.Repo("acme", "agents").DownloadArtifact(t.Context(), 5, 1<<20)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("Location %s: err %v, want an error that does not quote the signature", loc, err)
		}
		if n := len(srv.BlobRequests()); n != 0 {
			t.Errorf("Location %s: %d blob requests, want none", loc, n)
		}
	}
}
