package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/reports"
)

// shortComment is the comment budget after GitHub refuses a full one with 422.
const shortComment = 16 * 1024

// publisher posts one run: the check run (opened before the run), the comment, the summary.
type publisher struct {
	d         *deps
	in        inputs
	p         plan
	checkID   int64
	checkURL  string
	forbidden bool // the token cannot write (fork PR or missing permissions)

	// base is the baseline fetched before the run (adaptive trials); nil: not yet.
	base *fetched
}

// fetched is a baseline fetched once, with its note for the reports.
type fetched struct {
	run  *result.Run
	note string
}

func (d *deps) marker(in inputs) string {
	return fmt.Sprintf("<!-- evalgate:comment key=%s -->", in.CheckName)
}

// publisher opens the in_progress check run on the graded commit (a dry run shows one even
// when it cannot tell the commit).
func (d *deps) publisher(ctx context.Context, in inputs, p plan) *publisher {
	pub := &publisher{d: d, in: in, p: p}
	if p.sha == "" && !d.DryRun {
		return pub
	}
	id, url, err := d.Publisher.CreateCheckRun(ctx, github.CheckRunOptions{Name: in.CheckName, HeadSHA: p.sha, DetailsURL: d.Event.RunURL(), Title: "Running evals", Summary: "evalgate is running the eval suites for this commit."})
	switch {
	case errors.Is(err, github.ErrForbidden):
		pub.forbidden = true
		d.logf("evalgate: cannot create a check run (read-only token); results go to the job summary")
	case err != nil:
		d.logf("evalgate: create check run: %v", err)
	default:
		pub.checkID, pub.checkURL = id, url
	}
	return pub
}

// abort completes the check run when the run itself failed (or was cancelled first), with the
// failure's report as its summary.
func (pub *publisher) abort(ctx context.Context, f failure, body string) {
	if pub.checkID == 0 {
		return
	}
	conclusion := "failure"
	if f.cancelled != nil {
		conclusion = "cancelled"
	}
	if err := pub.d.Publisher.CompleteCheckRun(ctx, pub.checkID, github.CheckRunOutput{Name: pub.in.CheckName, Conclusion: conclusion, Title: f.title(), Summary: body}); err != nil {
		pub.d.logf("evalgate: complete check run: %v", err)
	}
}

// publish renders and posts a finished (or, with cancelled set, interrupted) run; it returns
// how the action ends: nil, errGateFailed or errCancelled. The run is rendered once, from one
// view: the check run is completed first, then the report files, the job log's table, the
// comment and the summary are written from what was rendered.
func (pub *publisher) publish(ctx context.Context, run *result.Run, cancelled error, cancelledAt time.Time) error {
	d, in := pub.d, pub.in
	r := pub.render(ctx, run, cancelled, cancelledAt)
	failed := gate.Fails(r.check.Conclusion)
	if pub.checkID != 0 {
		pub.complete(ctx, r.posted)
	}
	files := &reports.Rendered{Comment: r.comment, Summary: r.summary, Check: r.check}
	if err := r.rep.WriteAll(d.reportDir(in), reports.FilesOptions{Posted: files, JUnit: reports.JUnitOptions{Gate: r.decision}, Root: d.Root, Scrub: d.Scrub}); err != nil {
		d.logf("evalgate: write reports: %v", err)
	}
	d.logTable(r.rep, r.decision)
	commentURL := ""
	if (pub.p.pr != 0 || d.DryRun) && !pub.forbidden && (in.Comment == "always" || (in.Comment == "on_failure" && failed)) {
		commentURL = pub.comment(ctx, r)
	}
	summary := r.summary
	if pub.forbidden {
		summary = "> evalgate could not post a comment or check run (the token is read-only); the results are here.\n\n" + summary
	}
	d.summary(summary)
	verdict := string(run.Summary.Verdict)
	if cancelled != nil {
		verdict = "cancelled"
	}
	d.finish(in, run, verdict, commentURL, pub.checkID)
	switch {
	case cancelled != nil:
		return errCancelled
	case failed:
		return errGateFailed
	}
	return nil
}

// rendered is a finished run rendered once: what the check run, the comment, the step summary,
// the report files and the job log show.
type rendered struct {
	rep      *reports.Report
	decision gate.Decision
	// check has every annotation (check-run.json); posted is what the completing request
	// carries.
	check, posted reports.CheckOutput
	copts         reports.CommentOptions
	comment       string
	// render renders the comment again with other options (a shorter one after a 422).
	render  func(reports.CommentOptions) string
	summary string
}

// render concludes the run (baseline, gate) and renders the check run, the comment and the
// summary, with the partial-rerun and cancellation notes.
func (pub *publisher) render(ctx context.Context, run *result.Run, cancelled error, cancelledAt time.Time) *rendered {
	d, in := pub.d, pub.in
	rerun := in.Command + " rerun"
	// report.html is the page to browse: the comment and check run point at it.
	hint := "the job summary and " + path.Join(in.ReportDir, reports.FileHTML) + " in the report artifact"
	var base *result.Run
	var baseNote string
	if pub.base != nil {
		base, baseNote = pub.base.run, pub.base.note
	} else {
		base, baseNote = d.baseline(ctx, in, pub.p, cancelled != nil)
	}
	policy := gate.Policy{FailOn: in.FailOn, FailOnRegression: in.FailOnRegression, RegressionAlpha: in.RegressionAlpha}
	c := pipeline.Conclude(run, base, policy)
	g := newGate(run, policy, pub.p, rerun, d.ShardKey, pub.checkID, cancelled, cancelledAt)
	g.note = joinNotes(g.note, baseNote)
	r := &rendered{rep: c.Report, decision: g.Decide(c.Decision, rerun)}
	// Room for the note before the results and the state block after them (plus the flags
	// conclude may still set in it), and for the line saying how many annotations were posted.
	reserve := len(g.note) + len(g.block()) + 64 + maxAnnotationNote
	r.check = r.rep.CheckRun(reports.CheckOptions{Gate: r.decision, RunURL: d.Event.RunURL(), ReportHint: hint, RepoRoot: d.Root, MaxBytes: reports.MaxCheckTextBytes - reserve})
	g.conclude(&r.check)
	r.posted = postedCheck(r.check, in.ReportDir, cancelled == nil)
	r.copts = reports.CommentOptions{Marker: d.marker(in), CheckURL: pub.checkURL, RunURL: d.Event.RunURL(), ReportHint: hint, RerunCommand: rerun, Gate: r.decision}
	if g.note != "" {
		r.copts.MaxBytes = reports.MaxCommentBytes - len(g.note) - 2
	}
	r.render = func(copts reports.CommentOptions) string { return withNote(r.rep.Comment(copts), g.note) }
	r.comment = r.render(r.copts)
	r.summary = r.rep.StepSummary(reports.SummaryOptions{CheckURL: pub.checkURL, RunURL: d.Event.RunURL(), ReportHint: in.ReportDir, Gate: r.decision})
	if g.note != "" {
		r.summary = g.note + "\n\n" + r.summary
	}
	return r
}

// maxAnnotationNote bounds the line postedCheck puts before the check run's text.
const maxAnnotationNote = 300

// postedCheck is the check run as the gate posts it: the most important annotations that fit
// in the request completing it (none for a cancelled run: the gate comes first while the clock
// runs), and a line before the text saying where the others are. check itself, with every
// annotation, goes to check-run.json.
func postedCheck(check reports.CheckOutput, reportDir string, annotate bool) reports.CheckOutput {
	all := len(check.Annotations)
	if !annotate {
		check.Annotations = nil
		return check
	}
	check.Annotations = reports.TopAnnotations(check.Annotations, reports.MaxPostedAnnotations)
	if n := len(check.Annotations); n < all {
		note := fmt.Sprintf("> Annotations: the %d most important of %d (failed required criteria first) are marked on the files; all of them are in %s in %s.",
			n, all, reports.FileCheckRun, code(reportDir))
		check.Text = safetext.Truncate(note, maxAnnotationNote) + "\n\n" + check.Text
	}
	return check
}

// complete completes the check run in one request, which carries the posted annotations.
func (pub *publisher) complete(ctx context.Context, check reports.CheckOutput) {
	d := pub.d
	anns := make([]github.Annotation, len(check.Annotations))
	for i, a := range check.Annotations {
		anns[i] = github.Annotation{Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine, Level: a.Level, Title: a.Title, Message: a.Message, RawDetails: a.RawDetails}
	}
	if err := d.Publisher.CompleteCheckRun(ctx, pub.checkID, github.CheckRunOutput{Name: pub.in.CheckName, Conclusion: check.Conclusion, Title: check.Title, Summary: check.Summary, Text: check.Text, Annotations: anns}); err != nil {
		d.logf("evalgate: complete check run: %v", err)
	}
}

// comment posts the sticky comment, rendering a shorter one when GitHub says it is too long.
func (pub *publisher) comment(ctx context.Context, r *rendered) string {
	d := pub.d
	url, err := d.Publisher.UpsertComment(ctx, pub.p.pr, github.CommentOptions{Marker: r.copts.Marker, Body: r.comment})
	if errors.Is(err, github.ErrBodyTooLong) {
		copts := r.copts
		copts.MaxBytes = shortComment
		url, err = d.Publisher.UpsertComment(ctx, pub.p.pr, github.CommentOptions{Marker: copts.Marker, Body: r.render(copts)})
	}
	if errors.Is(err, github.ErrForbidden) {
		pub.forbidden = true
		d.logf("evalgate: cannot comment (read-only token); results go to the job summary")
		return ""
	}
	if err != nil {
		d.logf("evalgate: comment: %v", err)
	}
	return url
}

// noSuites reports a run with nothing to do as a success that says so. Its (empty) gate state
// lets a later partial rerun on the commit build on it.
func (d *deps) noSuites(ctx context.Context, in inputs, p plan) {
	const title = "No eval suites touched"
	body := "This change touches no eval suite, file a suite reads, or `run_all_paths` glob, so no evals ran."
	d.logf("evalgate: %s", title)
	if p.sha != "" || d.DryRun {
		id, _, err := d.Publisher.CreateCheckRun(ctx, github.CheckRunOptions{Name: in.CheckName, HeadSHA: p.sha, DetailsURL: d.Event.RunURL(), Title: title, Summary: body})
		if err == nil {
			err = d.Publisher.CompleteCheckRun(ctx, id, github.CheckRunOutput{Name: in.CheckName, Conclusion: "success", Title: title, Summary: body + emptyState(p.sha, id, d.ShardKey)})
		}
		if err != nil {
			d.logf("evalgate: check run: %v", err)
		}
	}
	d.summary("## evalgate: " + title + "\n\n" + body + "\n")
	d.finish(in, nil, "pass", "", 0)
}

// summary appends Markdown to the step summary. go-githubactions panics when the file cannot
// be written; that must not crash a run whose results are already posted.
func (d *deps) summary(md string) {
	if d.Actions == nil || d.Event.StepSummary == "" {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			d.logf("evalgate: step summary: %v", r)
		}
	}()
	d.Actions.AddStepSummary(d.Scrub.String(md))
}

// finish sets the outputs: only values evalgate computed, never model text.
func (d *deps) finish(in inputs, run *result.Run, verdict, commentURL string, checkID int64) {
	if d.Actions == nil || !d.Outputs {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			d.logf("evalgate: outputs: %v", r)
		}
	}()
	var s result.Summary
	if run != nil {
		s = run.Summary
	}
	// Outputs are values evalgate computed, but a credential must not reach them by any path.
	set := func(k, v string) { d.Actions.SetOutput(k, d.Scrub.String(v)) }
	set("verdict", verdict)
	set("score", strconv.FormatFloat(s.Score, 'f', 4, 64))
	set("passed", strconv.Itoa(s.Passed))
	set("failed", strconv.Itoa(s.Failed))
	set("errors", strconv.Itoa(s.Errors))
	set("report-path", in.ReportDir)
	set("comment-url", commentURL)
	if checkID != 0 {
		set("check-run-id", strconv.FormatInt(checkID, 10))
	}
}

// reportDir is the report directory: relative paths are inside the checked-out repository.
func (d *deps) reportDir(in inputs) string {
	if filepath.IsAbs(in.ReportDir) || d.Root == "" {
		return in.ReportDir
	}
	return filepath.Join(d.Root, in.ReportDir)
}
