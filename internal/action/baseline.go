package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/baseline"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/pipeline"
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
func (d *deps) baseline(ctx context.Context, in inputs, p plan, cancelled bool) (*result.Run, string) {
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
	base, err := pipeline.ReadResults(path)
	if err != nil {
		d.logf("evalgate: baseline: %v (reporting without deltas)", err)
		return nil, ""
	}
	return base, ""
}

// autoBaseline downloads the results of a push run of this job's own workflow on the pull
// request's base commit (or, failing that, the newest older one on its base branch) from the
// workflow-runs and artifacts APIs; damaged artifacts are skipped (see baseline.Find). It
// needs the actions: read permission, which a fork's read-only token has too.
func (d *deps) autoBaseline(ctx context.Context, in inputs, p plan) (*result.Run, string) {
	if (p.pr == 0 && d.Event.Name != "merge_group") || (p.base == "" && p.baseRef == "") {
		// The runs that upload the baseline (pushes to the default branch) have no base.
		d.logf("evalgate: baseline: auto compares pull requests with their base; not a pull request")
		return nil, ""
	}
	ev := d.Event
	var base *result.Run
	q := baseline.Query{Artifact: in.BaselineArtifact, BaseSHA: p.base, BaseRef: p.baseRef,
		Workflow: baseline.WorkflowFile(ev.WorkflowRef, ev.Owner+"/"+ev.Repo), RunID: ev.RunID,
		Check: func(b []byte) error {
			run, err := reports.ReadResults(bytes.NewReader(b))
			base = run
			return err
		}}
	found, err := baseline.Find(ctx, d.Source, q)
	if err != nil {
		d.logf("evalgate: %s (reporting without deltas)", oneLine(err.Error()))
		return nil, noBaseline(err)
	}
	for _, s := range found.Skipped {
		d.logf("evalgate: baseline: skipped %s", oneLine(s))
	}
	a, run := found.Artifact, found.Run
	where := fmt.Sprintf("the base commit %s", code(baseline.Short(run.HeadSHA)))
	if !found.OnCommit {
		where = fmt.Sprintf("the newest usable run on the base branch %s (commit %s; none usable on the base commit %s)", code(run.HeadBranch), code(baseline.Short(run.HeadSHA)), code(baseline.Short(p.base)))
	}
	d.logf("evalgate: baseline: artifact %d (%s) of push run %d of %s on %s", a.ID, oneLine(a.Name), run.ID, oneLine(found.Workflow), oneLine(run.HeadSHA))
	note := fmt.Sprintf("> Baseline: artifact %s of the push run of %s on %s, uploaded %s.", code(a.Name), code(found.Workflow), where, a.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if n := len(found.Skipped); n > 0 {
		note += fmt.Sprintf(" Skipped %d newer unusable run(s): %s.", n, safetext.Truncate(oneLine(strings.Join(found.Skipped, "; ")), maxBaselineReason))
	}
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
