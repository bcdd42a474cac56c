package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/baseline"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/reports"
)

// baselineAuto is the baseline input that finds the base run's artifact on its own.
const baselineAuto = "auto"

// autoBaselineTimeout bounds finding and downloading the baseline: rate-limit waits must not
// hold up the results.
const autoBaselineTimeout = 90 * time.Second

// maxBaselineReason bounds the reason in a "no baseline" note (it can quote an API error).
const maxBaselineReason = 400

// baseline returns the base run to compare with (nil: none), and a note for the comment, the
// summary and the check run. A missing or unreadable baseline never fails the run: the results are
// reported without deltas (the first run on a branch has none). A baseline only adds deltas
// and, with fail_on_regression, failures: it can never make the gate pass.
func (d *Deps) baseline(ctx context.Context, in Inputs, p plan, cancelled bool) (*result.Run, string) {
	switch {
	case in.Baseline == "":
		return nil, ""
	case in.Baseline == baselineAuto && cancelled:
		// The few seconds a cancelled run has left belong to completing the check run.
		d.logf("evalgate: baseline: skipped, the run was cancelled")
		return nil, ""
	case in.Baseline == baselineAuto:
		ctx, cancel := context.WithTimeout(ctx, autoBaselineTimeout)
		defer cancel()
		return d.autoBaseline(ctx, in, p)
	}
	path := in.Baseline
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.Root, path)
	}
	f, err := os.Open(path)
	if err != nil {
		d.logf("evalgate: baseline: %v (reporting without deltas)", err)
		return nil, ""
	}
	defer f.Close()
	base, err := reports.ReadResults(f)
	if err != nil {
		d.logf("evalgate: baseline %s: %v (reporting without deltas)", in.Baseline, err)
		return nil, ""
	}
	return base, ""
}

// autoBaseline downloads the results of this workflow's run on the pull request's base commit
// (or, failing that, the newest on its base branch) from the Actions artifacts API. It needs
// the actions: read permission, which a fork's read-only token has too.
func (d *Deps) autoBaseline(ctx context.Context, in Inputs, p plan) (*result.Run, string) {
	if p.pr == 0 || (p.base == "" && p.baseRef == "") {
		// The runs that upload the baseline (pushes to the default branch) have no base.
		d.logf("evalgate: baseline: auto compares pull requests with their base; not a pull request")
		return nil, ""
	}
	q := baseline.Query{Artifact: in.BaselineArtifact, BaseSHA: p.base, BaseRef: p.baseRef}
	found, err := baseline.Find(ctx, d.Source, q)
	if err != nil {
		d.logf("evalgate: %s (reporting without deltas)", oneLine(err.Error()))
		return nil, noBaseline(err)
	}
	base, err := reports.ReadResults(bytes.NewReader(found.Results))
	if err != nil {
		err = fmt.Errorf("artifact %d: %s: %w", found.Artifact.ID, baseline.ResultsFile, err)
		d.logf("evalgate: baseline: %s (reporting without deltas)", oneLine(err.Error()))
		return nil, noBaseline(err)
	}
	a := found.Artifact
	where := fmt.Sprintf("the base commit %s", code(baseline.Short(a.HeadSHA)))
	if !found.OnCommit {
		where = fmt.Sprintf("the newest run on the base branch %s (commit %s; none on the base commit %s)", code(a.HeadBranch), code(baseline.Short(a.HeadSHA)), code(baseline.Short(p.base)))
	}
	d.logf("evalgate: baseline: artifact %d (%s) of the run on %s", a.ID, oneLine(a.Name), oneLine(a.HeadSHA))
	note := fmt.Sprintf("> Baseline: artifact %s of %s, uploaded %s.", code(a.Name), where, a.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	return base, note
}

// noBaseline is the note saying why there are no deltas.
func noBaseline(err error) string {
	reason := safetext.Truncate(oneLine(strings.TrimPrefix(err.Error(), baseline.ErrNone.Error()+": ")), maxBaselineReason)
	if errors.Is(err, github.ErrForbidden) || github.IsNotFound(err) {
		reason += " (does the workflow grant `permissions: actions: read`?)"
	}
	return "> **No baseline:** " + reason + " — the results are reported without deltas."
}

// joinNotes puts notes (Markdown blockquotes) one after the other.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
