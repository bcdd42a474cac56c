package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github/githubtest"
)

const marker = "<!-- evalgate:comment key=evalgate -->"

// sleeps records requested waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newClient(t *testing.T, srv *githubtest.Server) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	c, err := New(srv.Client(), srv.APIURL(), "token", Options{Sleep: sl.sleep, WriteSpacing: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, sl
}

func TestUpsertCommentEditsInPlace(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, _ := newClient(t, srv)
	ctx := t.Context()
	for i := range 3 {
		if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 42, CommentOptions{Marker: marker, Body: fmt.Sprintf("%s\nrun %d", marker, i)}); err != nil {
			t.Fatal(err)
		}
	}
	got := srv.Comments(42)
	if len(got) != 1 || !strings.HasSuffix(got[0].Body, "run 2") {
		t.Fatalf("comments: %+v", got)
	}
	if srv.Count(githubtest.CreateComment) != 1 || srv.Count(githubtest.EditComment) != 2 {
		t.Fatalf("creates %d edits %d", srv.Count(githubtest.CreateComment), srv.Count(githubtest.EditComment))
	}
	// An unchanged body is not sent again.
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 42, CommentOptions{Marker: marker, Body: marker + "\nrun 2"}); err != nil {
		t.Fatal(err)
	}
	if srv.Count(githubtest.EditComment) != 2 {
		t.Fatal("unchanged body was edited")
	}
}

func TestUpsertCommentFindsOwnCommentOnLaterPage(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	for i := range 230 {
		srv.AddComment(7, "someone", fmt.Sprintf("comment %d", i))
	}
	srv.AddComment(7, "mallory", marker+" forged") // a marker by another user is ignored
	own := srv.AddComment(7, "github-actions[bot]", marker+" old")
	c, _ := newClient(t, srv)
	if _, err := c.Repo("acme", "agents").UpsertComment(t.Context(), 7, CommentOptions{Marker: marker, Body: marker + " new"}); err != nil {
		t.Fatal(err)
	}
	for _, cm := range srv.Comments(7) {
		if cm.ID == own && cm.Body != marker+" new" {
			t.Fatalf("own comment not edited: %q", cm.Body)
		}
		if cm.User.Login == "mallory" && cm.Body != marker+" forged" {
			t.Fatal("another user's comment was edited")
		}
	}
	if srv.Count(githubtest.CreateComment) != 0 || srv.Count(githubtest.ListComments) != 3 {
		t.Fatalf("creates %d lists %d", srv.Count(githubtest.CreateComment), srv.Count(githubtest.ListComments))
	}
}

func TestUpsertCommentRaceEndsWithOne(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	var wg sync.WaitGroup
	for i := range 2 {
		c, _ := newClient(t, srv) // two runs, two clients: no shared lock
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Repo("acme", "agents").UpsertComment(t.Context(), 1, CommentOptions{Marker: marker, Body: fmt.Sprintf("%s run %d", marker, i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := srv.Comments(1); len(got) != 1 {
		t.Fatalf("%d comments after a race: %+v", len(got), got)
	}
}

func TestUpsertCommentErrors(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, sl := newClient(t, srv)
	ctx := t.Context()
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 1, CommentOptions{Marker: marker, Body: marker + strings.Repeat("x", 70000)}); !errors.Is(err, ErrBodyTooLong) {
		t.Fatalf("too long: %v", err)
	}
	srv.Fail(githubtest.CreateComment, githubtest.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 1, CommentOptions{Marker: marker, Body: marker}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("403: %v", err)
	}
	if n := srv.Count(githubtest.CreateComment); n != 2 || len(sl.all()) > 1 {
		t.Fatalf("403 was retried: %d creates, sleeps %v", n, sl.all())
	}
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 1, CommentOptions{Marker: "<!-- other -->", Body: marker}); err == nil {
		t.Fatal("body without its marker accepted")
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, sl := newClient(t, srv)
	ctx := t.Context()
	srv.Fail(githubtest.ListComments, githubtest.Fault{Status: 429, Headers: map[string]string{"Retry-After": "7"}, Body: `{"message":"API rate limit exceeded"}`})
	srv.Fail(githubtest.ListComments, githubtest.Fault{Status: 502, Body: `{"message":"Bad Gateway"}`, Times: 2})
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 3, CommentOptions{Marker: marker, Body: marker}); err != nil {
		t.Fatal(err)
	}
	waits := sl.all()
	// Backoff doubles per attempt, the rate-limited one included.
	if len(waits) < 3 || waits[0] != 7*time.Second || waits[1] != 2*time.Second || waits[2] != 4*time.Second {
		t.Fatalf("waits %v: want retry-after 7s, then backoff 2s, 4s", waits)
	}
	srv.Fail(githubtest.GetPermission, githubtest.Fault{Status: 503, Times: 5})
	if _, err := c.Repo("acme", "agents").PermissionLevel(ctx, "bob"); err == nil || !strings.Contains(err.Error(), "get permission level") {
		t.Fatalf("persistent 503: %v", err)
	}
	if n := srv.Count(githubtest.GetPermission); n != 5 {
		t.Fatalf("attempts = %d, want 5", n)
	}
	srv.Fail(githubtest.GetPermission, githubtest.Fault{Status: 429, Headers: map[string]string{"Retry-After": "3600"}})
	if _, err := c.Repo("acme", "agents").PermissionLevel(ctx, "bob"); err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("hour-long limit: %v", err)
	}
}

func TestCheckRunAnnotationsInBatches(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, _ := newClient(t, srv)
	ctx := t.Context()
	id, url, err := c.Repo("acme", "agents").CreateCheckRun(ctx, CheckRunOptions{Name: "evalgate", HeadSHA: "abc123", DetailsURL: "https://ci/run", Title: "Running 3 suites", Summary: "…"})
	if err != nil || id == 0 || url == "" {
		t.Fatalf("create: %d %q %v", id, url, err)
	}
	anns := make([]Annotation, 120)
	for i := range anns {
		anns[i] = Annotation{Path: "evals/a.eval.yaml", StartLine: i + 1, Level: "failure", Title: strings.Repeat("t", 300), Message: "criterion failed"}
	}
	if err := c.Repo("acme", "agents").CompleteCheckRun(ctx, id, CheckRunOutput{Name: "evalgate", Conclusion: "failure", Title: "2 failed", Summary: strings.Repeat("s", 70000), Text: "text", Annotations: anns}); err != nil {
		t.Fatal(err)
	}
	// The gate is completed by the first write, with the first 50 annotations; the rest follow.
	var updates []map[string]any
	for _, r := range srv.Requests() {
		if r.Route == githubtest.UpdateCheck {
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatalf("update body %.200s: %v", r.Body, err)
			}
			updates = append(updates, body)
		}
	}
	if len(updates) != 3 {
		t.Fatalf("%d updates, want 3", len(updates))
	}
	if _, later := updates[1]["status"]; updates[0]["status"] != "completed" || later {
		t.Fatalf("the first update must complete the check run and the next leave the status alone: status %v, then %v", updates[0]["status"], updates[1]["status"])
	}
	runs := srv.CheckRuns()
	if len(runs) != 1 {
		t.Fatalf("%d check runs", len(runs))
	}
	cr := runs[0]
	if fmt.Sprint(cr.Batches) != "[50 50 20]" || len(cr.Annotations) != 120 {
		t.Fatalf("batches %v, %d annotations", cr.Batches, len(cr.Annotations))
	}
	if cr.HeadSHA != "abc123" || cr.Conclusion != "failure" || cr.Status != "completed" || len(cr.Summary) != maxCheckText {
		t.Fatalf("check run: sha %s conclusion %s status %s summary %d", cr.HeadSHA, cr.Conclusion, cr.Status, len(cr.Summary))
	}
	if title, _ := cr.Annotations[0]["title"].(string); len(title) != maxAnnotationTitle {
		t.Fatalf("annotation title %d bytes", len(title))
	}
	if srv.MaxConcurrentWrites() > 1 {
		t.Fatalf("writes overlapped: %d", srv.MaxConcurrentWrites())
	}
}

func TestPullRequestFilesAndPermissions(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	for i := range 250 {
		srv.Files = append(srv.Files, map[string]any{"filename": fmt.Sprintf("f%03d.txt", i), "status": "modified"})
	}
	srv.Files = append(srv.Files, map[string]any{"filename": "evals/new.eval.yaml", "previous_filename": "evals/old.eval.yaml", "status": "renamed"})
	srv.PR = map[string]any{"number": 42,
		"head": map[string]any{"sha": "h", "ref": "feature", "repo": map[string]any{"full_name": "mallory/agents"}},
		"base": map[string]any{"sha": "b", "ref": "main", "repo": map[string]any{"full_name": "acme/agents"}}}
	srv.Permissions["alice"] = "write"
	c, _ := newClient(t, srv)
	ctx := t.Context()
	files, truncated, err := c.Repo("acme", "agents").ListPullRequestFiles(ctx, 42)
	if err != nil || truncated || len(files) != 251 || files[250].PreviousName != "evals/old.eval.yaml" {
		t.Fatalf("files: %d truncated %v err %v", len(files), truncated, err)
	}
	if srv.Count(githubtest.ListFiles) != 3 {
		t.Fatalf("pages = %d, want 3", srv.Count(githubtest.ListFiles))
	}
	pr, err := c.Repo("acme", "agents").GetPullRequest(ctx, 42)
	if err != nil || pr.HeadSHA != "h" || !pr.IsFork {
		t.Fatalf("pr: %+v %v", pr, err)
	}
	for user, want := range map[string]string{"alice": "write", "eve": "none"} {
		if got, err := c.Repo("acme", "agents").PermissionLevel(ctx, user); err != nil || got != want {
			t.Fatalf("%s: %q %v", user, got, err)
		}
	}
	if err := c.Repo("acme", "agents").React(ctx, 555, "eyes"); err != nil || fmt.Sprint(srv.Reactions(555)) != "[eyes]" {
		t.Fatalf("react: %v %v", err, srv.Reactions(555))
	}
}

func TestPullRequestFilesCap(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	for i := range 3100 {
		srv.Files = append(srv.Files, map[string]any{"filename": fmt.Sprintf("f%04d", i)})
	}
	c, _ := newClient(t, srv)
	files, truncated, err := c.Repo("acme", "agents").ListPullRequestFiles(t.Context(), 1)
	if err != nil || !truncated || len(files) != maxPullRequestFiles {
		t.Fatalf("%d files truncated %v err %v", len(files), truncated, err)
	}
}

func TestListCheckRuns(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Commits = map[string]bool{"abc": true, "empty": true}
	for i := range 230 {
		srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "abc", Status: "completed", Conclusion: "failure", Summary: fmt.Sprintf("run %d", i)})
	}
	srv.AddCheckRun(githubtest.CheckRun{Name: "other", HeadSHA: "abc", Status: "completed", Conclusion: "success"})
	srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "def", Status: "completed", Conclusion: "success"})
	newest := srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: "abc", Status: "in_progress", Title: "Running evals"})
	c, _ := newClient(t, srv)
	ctx := t.Context()

	all, err := c.Repo("acme", "agents").ListCheckRuns(ctx, "abc", ListCheckRunsOptions{CheckName: "evalgate"})
	if err != nil || len(all) != 231 || all[0].ID != newest || all[0].Status != "in_progress" || all[0].Title != "Running evals" || all[230].Summary != "run 0" || all[1].Conclusion != "failure" {
		t.Fatalf("all: %d runs, err %v", len(all), err)
	}
	if n := srv.Count(githubtest.ListChecks); n != 3 {
		t.Fatalf("requests = %d, want 3 pages", n)
	}
	if none, err := c.Repo("acme", "agents").ListCheckRuns(ctx, "empty", ListCheckRunsOptions{CheckName: "evalgate"}); err != nil || len(none) != 0 {
		t.Fatalf("commit without runs: %+v %v", none, err)
	}
	if _, err := c.Repo("acme", "agents").ListCheckRuns(ctx, "unknown", ListCheckRunsOptions{CheckName: "evalgate"}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown commit: %v", err)
	}
}

func TestRetryWaitsNotPastTheDeadline(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, sl := newClient(t, srv)
	srv.Fail(githubtest.UpdateCheck, githubtest.Fault{Status: 429, Headers: map[string]string{"Retry-After": "60"}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := c.Repo("acme", "agents").CompleteCheckRun(ctx, 1, CheckRunOutput{Name: "evalgate", Conclusion: "cancelled", Title: "Cancelled", Summary: "s"})
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err = %v, want a refusal to wait past the deadline", err)
	}
	if w := sl.all(); len(w) != 0 {
		t.Fatalf("slept %v", w)
	}
}

func TestCompleteCheckRunWithoutRefusedAnnotations(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	c, _ := newClient(t, srv)
	ctx := t.Context()
	id, _, err := c.Repo("acme", "agents").CreateCheckRun(ctx, CheckRunOptions{Name: "evalgate", HeadSHA: "abc123", Title: "Running", Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Fail(githubtest.UpdateCheck, githubtest.Fault{Status: 422, Body: `{"message":"Invalid request: annotation path"}`})
	anns := []Annotation{{Path: "evals/a.eval.yaml", StartLine: 1, Level: "failure", Title: "t", Message: "m"}}
	err = c.Repo("acme", "agents").CompleteCheckRun(ctx, id, CheckRunOutput{Name: "evalgate", Conclusion: "failure", Title: "1 failed", Summary: "s", Annotations: anns})
	if err == nil || !strings.Contains(err.Error(), "without its annotations") {
		t.Fatalf("err = %v, want the lost annotations reported", err)
	}
	runs := srv.CheckRuns()
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" || len(runs[0].Annotations) != 0 {
		t.Fatalf("check runs %+v: want it completed as failure, without annotations", runs)
	}
}

func TestCompareFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     int
		truncated bool
	}{
		{"a merge group's few files", 3, false},
		{"GitHub's cap", 350, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.CompareCommits = 250 // three pages of commits: the files come on the first
			for i := range tt.files {
				srv.CompareFiles = append(srv.CompareFiles, map[string]any{"filename": fmt.Sprintf("f%03d", i), "status": "modified"})
			}
			srv.CompareFiles[0]["previous_filename"] = "old"
			c, _ := newClient(t, srv)
			files, truncated, err := c.Repo("acme", "agents").CompareFiles(t.Context(), "base1", "head2")
			if err != nil || truncated != tt.truncated || len(files) != min(tt.files, maxCompareFiles) || files[0].PreviousName != "old" {
				t.Fatalf("%d files truncated %v err %v", len(files), truncated, err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Path != githubtest.Prefix+"repos/acme/agents/compare/base1...head2" {
				t.Fatalf("requests %+v, want one GET of compare/base1...head2", reqs)
			}
		})
	}
}
