// Package baseline finds the results of an earlier evalgate run on a pull request's base (the
// report directory a push to the default branch uploaded as a workflow artifact), downloads
// it and takes results.json out of the zip.
package baseline

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/github"
)

// Limits on what is downloaded and read: an artifact is data from another run, and a zip can
// claim any size.
const (
	MaxZipBytes     = 64 << 20
	MaxResultsBytes = 128 << 20
	// ResultsFile is the file taken from the artifact: the report directory's results.json.
	ResultsFile = "results.json"
)

// DefaultArtifact is the artifact name the README's workflow uploads the report under.
const DefaultArtifact = "evalgate-report"

// Source lists and downloads one repository's workflow artifacts (*github.Repo).
type Source interface {
	ListArtifacts(ctx context.Context, name string) ([]github.Artifact, error)
	DownloadArtifact(ctx context.Context, id, maxBytes int64) ([]byte, error)
}

// Query says which baseline to find in the Source's repository.
type Query struct {
	Artifact string // the artifact name
	BaseSHA  string // the pull request's base commit
	BaseRef  string // its base branch, when no run on the commit left an artifact
}

// Found is a downloaded baseline.
type Found struct {
	Artifact github.Artifact
	// OnCommit is true when the artifact's run was on the base commit itself, false when it
	// is the newest one on the base branch.
	OnCommit bool
	// Results is the content of results.json.
	Results []byte
}

// ErrNone is returned (wrapped, with the reason) when there is no baseline to use.
var ErrNone = errors.New("no baseline")

// Find returns the newest baseline for q: an unexpired artifact of a run of the repository
// itself (never a fork's, whose branch names prove nothing) on the base commit, else on the
// base branch. Any failure is an error wrapping ErrNone, for a note rather than a failure.
func Find(ctx context.Context, src Source, q Query) (*Found, error) {
	arts, err := src.ListArtifacts(ctx, q.Artifact)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNone, err)
	}
	a, onCommit, why := pick(arts, q)
	if a == nil {
		return nil, fmt.Errorf("%w: %s", ErrNone, why)
	}
	if a.Size > MaxZipBytes {
		return nil, fmt.Errorf("%w: artifact %d is %d bytes, over the %d-byte limit", ErrNone, a.ID, a.Size, MaxZipBytes)
	}
	zipped, err := src.DownloadArtifact(ctx, a.ID, MaxZipBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNone, err)
	}
	results, err := Extract(zipped, ResultsFile, MaxResultsBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: artifact %d: %v", ErrNone, a.ID, err)
	}
	return &Found{Artifact: *a, OnCommit: onCommit, Results: results}, nil
}

// pick chooses the newest usable artifact on the base commit, else on the base branch; arts
// are newest first. why explains an empty choice.
func pick(arts []github.Artifact, q Query) (a *github.Artifact, onCommit bool, why string) {
	var branch *github.Artifact
	usable, expired := 0, 0
	for i := range arts {
		c := &arts[i]
		switch {
		case c.Name != q.Artifact || !c.SameRepo:
			continue
		case c.Expired:
			expired++
			continue
		}
		usable++
		if q.BaseSHA != "" && c.HeadSHA == q.BaseSHA {
			return c, true, ""
		}
		if branch == nil && q.BaseRef != "" && c.HeadBranch == q.BaseRef {
			branch = c
		}
	}
	if branch != nil {
		return branch, false, ""
	}
	switch {
	case usable+expired == 0:
		why = fmt.Sprintf("no artifact named %q from this repository's runs", q.Artifact)
	case usable == 0:
		why = fmt.Sprintf("every artifact named %q has expired", q.Artifact)
	default:
		why = fmt.Sprintf("no unexpired artifact named %q from a run on the base commit %s or the base branch %s", q.Artifact, Short(q.BaseSHA), q.BaseRef)
	}
	return nil, false, why
}

// Extract returns the content of the zip entry called exactly name, at most max bytes. Only
// that entry is read and nothing is written to disk; entry names are not cleaned, so
// "../results.json", "/results.json" or "x/../results.json" never match. A zip with two
// entries of that name is refused as ambiguous.
func Extract(zipped []byte, name string, max int64) ([]byte, error) {
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
