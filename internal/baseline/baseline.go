// Package baseline finds the results of an earlier evalgate run on a pull request's base (the
// report directory a push run of the same workflow uploaded as an artifact), downloads it and
// takes results.json out of the zip.
package baseline

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/github"
)

// Limits on what is downloaded and read: an artifact is data from another run, and a zip can
// claim any size.
const (
	maxZipBytes     = 64 << 20
	maxResultsBytes = 128 << 20
	// resultsFile is the file taken from the artifact: the report directory's results.json.
	resultsFile = "results.json"
)

// DefaultArtifact is the artifact name the README's workflow uploads the report under.
const DefaultArtifact = "evalgate-report"

// Bounds on one search: the runs looked at, and the downloads tried. A damaged artifact
// costs one download; past these the search ends with "no baseline".
const (
	maxRuns      = 5
	maxDownloads = 3
)

// Source lists a repository's workflow runs and their artifacts, and downloads an artifact
// (*github.Repo).
type Source interface {
	GetWorkflowRun(ctx context.Context, id int64) (*github.WorkflowRun, error)
	ListWorkflowRuns(ctx context.Context, workflow string, o github.ListWorkflowRunsOptions) ([]github.WorkflowRun, error)
	ListRunArtifacts(ctx context.Context, runID int64, name string) ([]github.Artifact, error)
	DownloadArtifact(ctx context.Context, id, maxBytes int64) ([]byte, error)
}

// Query says which baseline to find in the Source's repository.
type Query struct {
	Artifact string // the artifact name
	// Workflow is the job's own workflow file (evals.yml, from GITHUB_WORKFLOW_REF); when it is
	// empty, the workflow of the run RunID (GITHUB_RUN_ID) is looked up.
	Workflow string
	RunID    int64
	BaseSHA  string // the pull request's base commit
	BaseRef  string // its base branch
	// Check vets a downloaded results.json (nil: any content); an artifact it refuses is
	// skipped as damaged, like a bad zip.
	Check func(results []byte) error
}

// Found is a downloaded baseline.
type Found struct {
	Artifact github.Artifact
	Run      github.WorkflowRun
	// Workflow is the workflow file or id whose runs were searched.
	Workflow string
	// OnCommit is true when the run was on the base commit itself, false when it is the
	// newest usable one on the base branch.
	OnCommit bool
	// Results is the content of results.json.
	Results []byte
	// Skipped says, newest first, which newer candidates were passed over and why.
	Skipped []string
}

// ErrNone is returned (wrapped, with the reason) when there is no baseline to use.
var ErrNone = errors.New("no baseline")

// Find returns the baseline for q: the evalgate artifact of a completed run (concluded
// success, or failure as when the gate failed) of the job's own workflow, triggered by a push
// to the base branch from the repository itself — never a pull request, comment rerun,
// schedule or dispatch run, whose results need not stand for the branch. The base commit's
// runs come first, newest first; then the newest runs on the base branch (older than the base
// commit's runs when it has any: a later push is a commit the pull request lacks). A candidate
// whose artifact is missing, expired, too big, not a zip, or holds no valid results.json is
// skipped with a note and the next one tried, up to maxRuns runs and maxDownloads downloads.
// Any failure is an error wrapping ErrNone, for a note rather than a failure.
func Find(ctx context.Context, src Source, q Query) (*Found, error) {
	if q.BaseRef == "" {
		return nil, fmt.Errorf("%w: the pull request has no base branch", ErrNone)
	}
	workflow := q.Workflow
	if workflow == "" {
		if q.RunID == 0 {
			return nil, fmt.Errorf("%w: neither GITHUB_WORKFLOW_REF nor GITHUB_RUN_ID names this job's workflow", ErrNone)
		}
		run, err := src.GetWorkflowRun(ctx, q.RunID)
		if err != nil {
			return nil, fmt.Errorf("%w: this job's workflow: %w", ErrNone, err)
		}
		workflow = strconv.FormatInt(run.WorkflowID, 10)
	}
	s := &search{src: src, q: q, workflow: workflow, tried: map[int64]bool{}}
	if q.BaseSHA != "" {
		if f, err := s.runs(ctx, q.BaseSHA, true); f != nil || err != nil {
			return f, err
		}
	}
	if f, err := s.runs(ctx, "", false); f != nil || err != nil {
		return f, err
	}
	return nil, s.none()
}

// search is one Find: what has been tried so far.
type search struct {
	src       Source
	q         Query
	workflow  string
	tried     map[int64]bool // run ids
	downloads int
	skipped   []string
	found     bool // some candidate run existed
	// before, once a run on the base commit was seen, is its time: a branch run after it is
	// on a later commit, which the pull request does not contain.
	before time.Time
}

// runs tries the completed push runs on the base branch (at sha, when given), newest first.
func (s *search) runs(ctx context.Context, sha string, onCommit bool) (*Found, error) {
	left := maxRuns - len(s.tried)
	if left <= 0 || s.downloads >= maxDownloads {
		return nil, nil
	}
	o := github.ListWorkflowRunsOptions{Branch: s.q.BaseRef, Event: "push", HeadSHA: sha, Status: "completed", Limit: left + len(s.tried)}
	if !onCommit && !s.before.IsZero() {
		o.Created = "<=" + s.before.UTC().Format(time.RFC3339)
	}
	runs, err := s.src.ListWorkflowRuns(ctx, s.workflow, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNone, err)
	}
	for _, run := range runs {
		if s.tried[run.ID] || len(s.tried) >= maxRuns || s.downloads >= maxDownloads || (!onCommit && !s.before.IsZero() && run.CreatedAt.After(s.before)) {
			continue
		}
		if onCommit && run.CreatedAt.After(s.before) {
			s.before = run.CreatedAt
		}
		s.tried[run.ID] = true
		if !run.SameRepo || run.Event != "push" || run.HeadBranch != s.q.BaseRef {
			continue // the API filtered these out already; a fork's run never stands for the branch
		}
		s.found = true
		if run.Conclusion != "success" && run.Conclusion != "failure" {
			// A failed gate fails the run after the report is uploaded (if: always()); a
			// cancelled or timed-out run's report, if any, is incomplete.
			s.skipped = append(s.skipped, fmt.Sprintf("run %d (commit %s): the run ended %s", run.ID, Short(run.HeadSHA), run.Conclusion))
			continue
		}
		f, err := s.try(ctx, run)
		if f != nil || err != nil {
			if f != nil {
				f.OnCommit = onCommit
			}
			return f, err
		}
	}
	return nil, nil
}

// try downloads run's artifact; a damaged one is noted in s.skipped and nil returned.
func (s *search) try(ctx context.Context, run github.WorkflowRun) (*Found, error) {
	skip := func(format string, args ...any) (*Found, error) {
		s.skipped = append(s.skipped, fmt.Sprintf("run %d (commit %s): ", run.ID, Short(run.HeadSHA))+fmt.Sprintf(format, args...))
		return nil, nil
	}
	arts, err := s.src.ListRunArtifacts(ctx, run.ID, s.q.Artifact)
	if err != nil {
		return nil, fmt.Errorf("%w: run %d: %w", ErrNone, run.ID, err)
	}
	var a *github.Artifact
	expired := false
	for i := range arts {
		if arts[i].Name != s.q.Artifact {
			continue
		}
		if arts[i].Expired {
			expired = true
			continue
		}
		a = &arts[i]
		break
	}
	switch {
	case a == nil && expired:
		return skip("its artifact %q has expired", s.q.Artifact)
	case a == nil:
		return skip("no artifact named %q", s.q.Artifact)
	case a.Size > maxZipBytes:
		return skip("artifact %d is %d bytes, over the %d-byte limit", a.ID, a.Size, maxZipBytes)
	}
	s.downloads++
	zipped, err := s.src.DownloadArtifact(ctx, a.ID, maxZipBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrNone, err)
		}
		return skip("artifact %d: %v", a.ID, err)
	}
	results, err := extract(zipped, resultsFile, maxResultsBytes)
	if err == nil && s.q.Check != nil {
		if err = s.q.Check(results); err != nil {
			err = fmt.Errorf("%s: %w", resultsFile, err)
		}
	}
	if err != nil {
		return skip("artifact %d: %v", a.ID, err)
	}
	return &Found{Artifact: *a, Run: run, Workflow: s.workflow, Results: results, Skipped: s.skipped}, nil
}

// none is the error when no candidate gave a baseline.
func (s *search) none() error {
	where := fmt.Sprintf("of the workflow %s on the base branch %s", s.workflow, s.q.BaseRef)
	if !s.found {
		return fmt.Errorf("%w: no completed push run %s", ErrNone, where)
	}
	return fmt.Errorf("%w: no usable artifact %q in the %d newest completed push runs %s (at most %d runs and %d downloads are tried): %s",
		ErrNone, s.q.Artifact, len(s.tried), where, maxRuns, maxDownloads, strings.Join(s.skipped, "; "))
}

// extract returns the content of the zip entry called exactly name, at most max bytes. Only
// that entry is read and nothing is written to disk; entry names are not cleaned, so
// "../results.json", "/results.json" or "x/../results.json" never match. A zip with two
// entries of that name is refused as ambiguous.
func extract(zipped []byte, name string, max int64) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		return nil, fmt.Errorf("read zip: %w", err)
	}
	var entry *zip.File
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		if entry != nil {
			return nil, fmt.Errorf("the zip holds %s twice", name)
		}
		entry = f
	}
	if entry == nil {
		return nil, fmt.Errorf("the zip holds no %s at its top level", name)
	}
	if entry.FileInfo().IsDir() || !entry.Mode().IsRegular() {
		return nil, fmt.Errorf("%s in the zip is not a regular file", name)
	}
	if entry.UncompressedSize64 > uint64(max) {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", name, entry.UncompressedSize64, max)
	}
	rc, err := entry.Open()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer rc.Close()
	// The header's size can lie: the read itself is capped.
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over the %d-byte limit", name, max)
	}
	return b, nil
}

// Short abbreviates a commit SHA for messages.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// WorkflowFile is the workflow file's name (evals.yml) in GITHUB_WORKFLOW_REF
// ("owner/repo/.github/workflows/evals.yml@refs/heads/main") when that names a workflow of
// repo (owner/repo); "" otherwise, and the caller asks the API for the run's workflow.
func WorkflowFile(ref, repo string) string {
	prefix := repo + "/.github/workflows/"
	if repo == "" || len(ref) < len(prefix) || !strings.EqualFold(ref[:len(prefix)], prefix) {
		return ""
	}
	rest := ref[len(prefix):]
	// A ref can hold an '@' too; the runner's refs start with refs/.
	at := strings.Index(rest, "@refs/")
	if at < 0 {
		at = strings.LastIndex(rest, "@")
	}
	if at <= 0 || strings.ContainsAny(rest[:at], "/\\") {
		return ""
	}
	return rest[:at]
}
