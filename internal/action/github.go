package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/evalgate/evalgate/internal/baseline"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/redact"
)

// Publisher is where the action's results go: the check run that gates the merge, the sticky
// comment, and the reaction to a rerun command. *github.Repo posts them; dryRun prints what
// would be posted. deps always holds one: there is no nil client to forget to check.
type Publisher interface {
	CreateCheckRun(ctx context.Context, o github.CheckRunOptions) (id int64, url string, err error)
	CompleteCheckRun(ctx context.Context, id int64, o github.CheckRunOutput) error
	UpsertComment(ctx context.Context, pr int, o github.CommentOptions) (url string, err error)
	React(ctx context.Context, commentID int64, content string) error
}

// source is what the action reads from GitHub: who may give a rerun command, the pull request
// and its files (or a merge group's, by comparing its base and head), the gate's earlier check runs, and the base run's artifacts (baseline: auto).
// *github.Repo reads them; dryRun has no API and answers every read with errDryRun.
type source interface {
	PermissionLevel(ctx context.Context, user string) (string, error)
	GetPullRequest(ctx context.Context, n int) (*github.PullRequest, error)
	ListPullRequestFiles(ctx context.Context, n int) ([]github.ChangedFile, bool, error)
	CompareFiles(ctx context.Context, base, head string) ([]github.ChangedFile, bool, error)
	ListCheckRuns(ctx context.Context, ref string, o github.ListCheckRunsOptions) ([]github.CheckRun, error)
	baseline.Source
}

var (
	_ Publisher = (*github.Repo)(nil)
	_ source    = (*github.Repo)(nil)
	_ Publisher = (*dryRun)(nil)
	_ source    = (*dryRun)(nil)
)

// errDryRun is what a dry run answers when asked to read from GitHub.
var errDryRun = errors.New("a dry run does not call the GitHub API")

// dryRun is the Publisher and source of `evalgate action --dry-run`: nothing is read from or
// posted to GitHub; the completed check run and the comment are printed to Out, scrubbed and
// between stop-commands markers (they carry model and agent text, which must not issue
// workflow commands into the job log).
type dryRun struct {
	Out   io.Writer
	Scrub *redact.Redactor

	mu     sync.Mutex
	checks []github.CheckRunOptions // the check runs "created", by id-1
}

// CreateCheckRun remembers the check run, to print it when it is completed.
func (d *dryRun) CreateCheckRun(_ context.Context, o github.CheckRunOptions) (int64, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.checks = append(d.checks, o)
	return int64(len(d.checks)), "", nil
}

// CompleteCheckRun prints the payload that would complete the check run.
func (d *dryRun) CompleteCheckRun(_ context.Context, id int64, o github.CheckRunOutput) error {
	d.mu.Lock()
	var opened github.CheckRunOptions
	if id >= 1 && int(id) <= len(d.checks) {
		opened = d.checks[id-1]
	}
	d.mu.Unlock()
	payload := map[string]any{"name": o.Name, "head_sha": opened.HeadSHA, "status": "completed", "conclusion": o.Conclusion,
		"output": map[string]any{"title": o.Title, "summary": o.Summary, "text": o.Text, "annotations": o.Annotations}}
	b, err := json.MarshalIndent(payload, "", "  ")
	if err != nil {
		return fmt.Errorf("dry run: check run payload: %w", err)
	}
	d.print(func(w io.Writer) { fmt.Fprintf(w, "=== check run\n%s\n", b) })
	return nil
}

// UpsertComment prints the comment.
func (d *dryRun) UpsertComment(_ context.Context, pr int, o github.CommentOptions) (string, error) {
	d.print(func(w io.Writer) { fmt.Fprintf(w, "=== comment (PR #%d, marker %s)\n%s\n", pr, o.Marker, o.Body) })
	return "", nil
}

// React does nothing: a dry run never acts on a rerun command.
func (d *dryRun) React(context.Context, int64, string) error { return nil }

// PermissionLevel answers errDryRun.
func (d *dryRun) PermissionLevel(context.Context, string) (string, error) { return "", errDryRun }

// GetPullRequest answers errDryRun.
func (d *dryRun) GetPullRequest(context.Context, int) (*github.PullRequest, error) {
	return nil, errDryRun
}

// ListPullRequestFiles answers errDryRun.
func (d *dryRun) ListPullRequestFiles(context.Context, int) ([]github.ChangedFile, bool, error) {
	return nil, false, errDryRun
}

// CompareFiles answers errDryRun.
func (d *dryRun) CompareFiles(context.Context, string, string) ([]github.ChangedFile, bool, error) {
	return nil, false, errDryRun
}

// ListCheckRuns answers errDryRun.
func (d *dryRun) ListCheckRuns(context.Context, string, github.ListCheckRunsOptions) ([]github.CheckRun, error) {
	return nil, errDryRun
}

// GetWorkflowRun answers errDryRun.
func (d *dryRun) GetWorkflowRun(context.Context, int64) (*github.WorkflowRun, error) {
	return nil, errDryRun
}

// ListWorkflowRuns answers errDryRun.
func (d *dryRun) ListWorkflowRuns(context.Context, string, github.ListWorkflowRunsOptions) ([]github.WorkflowRun, error) {
	return nil, errDryRun
}

// ListRunArtifacts answers errDryRun.
func (d *dryRun) ListRunArtifacts(context.Context, int64, string) ([]github.Artifact, error) {
	return nil, errDryRun
}

// DownloadArtifact answers errDryRun.
func (d *dryRun) DownloadArtifact(context.Context, int64, int64) ([]byte, error) {
	return nil, errDryRun
}

func (d *dryRun) print(f func(io.Writer)) {
	stopped(d.Out, func(w io.Writer) {
		sw := d.Scrub.Writer(w)
		f(sw)
		_ = sw.Close()
	})
}
