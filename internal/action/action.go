package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/evalgate/evalgate/internal/changes"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/glob"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// deps are the action's connections to the world; cmd/evalgate builds them.
type deps struct {
	Event *event.Event
	// Publisher posts the check run, the comment and reactions; Source reads from GitHub.
	// Both are the repository's *github.Repo, or in a dry run a *dryRun, which posts nothing
	// and prints what it would post. Neither is nil.
	Publisher Publisher
	Source    source
	// DryRun is true for `evalgate action --dry-run`: a checkout that is not the event's
	// commit only warns, and the comment is shown even without a pull request.
	DryRun bool
	// Actions writes outputs, the step summary and workflow commands.
	Actions *githubactions.Action
	Log     io.Writer // the job log
	Root    string    // the checked-out repository
	// Runner loads and runs the suites (a *pipeline.Runner).
	Runner Runner
	// Getenv reads the job's environment: with fork code, the vendor hosts and keys the
	// workflow configures (nil = none).
	Getenv func(string) string
	// Outputs is true when the runner provides GITHUB_OUTPUT; a local dry run sets none.
	Outputs bool
	// CheckedOut returns the commit checked out at Root; nil or an error means unknown, and
	// then nothing is posted (results go only on the commit that was graded).
	CheckedOut func(ctx context.Context) (string, error)
	// Scrub holds the job's credentials: they are removed from the step summary, the
	// outputs, the report files and a dry run's output (the GitHub client scrubs what it
	// sends on its own). nil scrubs nothing.
	Scrub *redact.Redactor
	// ShardKey is the workflow's shard.KeyEnv: shards sign their partial results with it and
	// the merge refuses a shard not signed with it. "" signs and checks nothing.
	ShardKey string
}

// plan is what this event asks for.
type plan struct {
	sha      string // the commit graded and reported on, once the checkout is verified
	pr       int
	comment  *event.Comment // the rerun command, when there is one
	only     string         // suite glob from "/evalgate rerun <glob>": a partial rerun
	selected bool           // false: run every suite (push, dispatch)
	base     string
	baseRef  string // the pull request's base branch (for baseline: auto)
	trust    trust
	prev     previous // the gate before a partial rerun
}

// ExitError ends the action with a non-zero exit status: the gate failed (1), the event or
// the configuration could not be handled (2), or the run was cancelled (130). Main returns nil
// when the gate passed or there was nothing to do.
type ExitError struct {
	Code   int
	Reason string
}

// Error is the reason the action ended.
func (e *ExitError) Error() string { return e.Reason }

// The ways a run of the action ends other than a pass. Everything they stand for has been
// reported (log, summary, check run) by the time run returns one.
var (
	errGateFailed = &ExitError{Code: 1, Reason: "the gate failed"}
	errConfig     = &ExitError{Code: 2, Reason: "the event or configuration could not be handled"}
	errCancelled  = &ExitError{Code: 130, Reason: "cancelled"}
)

// finishTimeout bounds the writes that complete the gate after the run was cancelled. The
// runner escalates a cancel from SIGINT to SIGTERM after 7.5 s and kills 2.5 s later.
const finishTimeout = 7 * time.Second

// run handles one event. It returns errGateFailed when the gate fails, errCancelled when the
// run was interrupted (after completing its check run as cancelled), errConfig when the event
// or configuration could not be handled, and nil otherwise.
func run(ctx context.Context, in inputs, d deps) error {
	if d.Publisher == nil || d.Source == nil || d.Event == nil || d.Runner == nil {
		return errors.New("action: deps needs an Event, a Publisher and a Source (a *github.Repo, or a *dryRun) and a Runner")
	}
	ev := d.Event
	if !ev.Supported {
		d.logf("evalgate: nothing to do: %s", ev.Why)
		d.finish(in, nil, "skip", "", 0)
		return nil
	}
	if in.Shard != nil {
		// First of all: a shard that stops from here on leaves no earlier result behind.
		if err := pipeline.ClearPartial(d.reportDir(in)); err != nil {
			return d.shardFailed(ctx, in, *in.Shard, "clear its report directory", err, nil)
		}
	}
	p, err, ok := d.plan(ctx, in)
	if !ok {
		if ctx.Err() != nil {
			return errCancelled
		}
		return err
	}
	if in.Merge != "" {
		return d.runMerged(ctx, in, p)
	}
	suites, loadErrs, err := d.Runner.Load(in.Suites)
	if err != nil {
		return d.fail(ctx, in, p, nil, failure{stage: "load the eval files", err: err})
	}
	picked, why := d.pick(ctx, in, p, suites)
	if ctx.Err() != nil {
		return d.fail(ctx, in, p, nil, failure{stage: "select the suites to run", err: ctx.Err(), cancelled: interruption(ctx)})
	}
	if in.Shard != nil {
		return d.runShard(ctx, in, p, picked, loadErrs, why)
	}
	if len(picked) == 0 && len(loadErrs) == 0 {
		return d.nothingRan(ctx, in, p, suites)
	}
	return d.runSuites(ctx, in, p, Job{Suites: picked, LoadErrors: loadErrs, Why: why, Unselected: unselected(suites, picked, why)})
}

// runSuites runs the selected suites and publishes the run: the check run opens before the
// first test and is completed even when the run is cancelled.
func (d *deps) runSuites(ctx context.Context, in inputs, p plan, job Job) error {
	pub := d.openGate(ctx, in, p)
	// When the cancel came tells tests it interrupted from tests that had finished.
	cancelledAt := make(chan time.Time, 1)
	stop := context.AfterFunc(ctx, func() { cancelledAt <- time.Now() })
	job.Context = d.context(p, pub.checkURL)
	if adaptive(in, job.Suites) {
		// Adaptive trials compare with the baseline as they run: fetch it first, once.
		base, note := d.baseline(ctx, in, p, false)
		job.Baseline, pub.base = base, &fetched{base, note}
	}
	run, err := d.execute(ctx, p.trust, job)
	var at time.Time
	if !stop() {
		at = <-cancelledAt
	}
	// After a cancel (SIGINT, SIGTERM, the job's timeout) the gate is still completed: the
	// final writes get their own short budget instead of the dead context.
	cause := interruption(ctx)
	if cause != nil {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
		defer cancel()
		ctx = fctx
		d.logf("evalgate: %v: completing the check run as cancelled", cause)
	}
	if run == nil {
		if err == nil {
			err = errors.New("the run ended without a result")
		}
		return d.fail(ctx, in, p, pub, failure{stage: "run the eval suites", err: err, cancelled: cause, notRun: suitePaths(job.Suites)})
	}
	if err != nil && cause == nil {
		// The run stopped early with a complete result (an unreachable model endpoint): the
		// results say which tests did not run; the log says why, once.
		d.logErr("evalgate", err)
	}
	err = pub.publish(ctx, run, cause, at)
	d.react(ctx, p, reaction(err))
	return err
}

// adaptive reports whether some suite's trials are adaptive (max above count).
func adaptive(in inputs, suites []*suite.Suite) bool {
	for _, s := range suites {
		// The engine's own rule (suite.TrialsWith), so the baseline is fetched exactly when
		// the engine will compare with it.
		if t := s.TrialsWith(in.Trials, in.MaxTrials); t.Max > t.Count {
			return true
		}
	}
	return false
}

// nothingRan answers a selection with no test in it. A partial rerun whose glob matched
// nothing leaves the gate as it was; anything else touched no eval suite.
func (d *deps) nothingRan(ctx context.Context, in inputs, p plan, suites []*suite.Suite) error {
	if p.only != "" {
		d.nothingSelected(in, p, suites)
		d.react(ctx, p, "confused")
		return nil
	}
	d.noSuites(ctx, in, p)
	d.react(ctx, p, "rocket")
	return nil
}

// interruption is why ctx ended (a signal, a deadline), or nil while it is live.
func interruption(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// unselected lists the suites of all that pick left out, with why (from pick's why).
func unselected(all, picked []*suite.Suite, why map[string]string) []result.Unselected {
	in := map[*suite.Suite]bool{}
	for _, s := range picked {
		in[s] = true
	}
	var out []result.Unselected
	for _, s := range all {
		if !in[s] {
			out = append(out, result.Unselected{Path: s.Path, Why: why[s.Path]})
		}
	}
	return out
}

// pick selects the suites to run and says why for each.
func (d *deps) pick(ctx context.Context, in inputs, p plan, suites []*suite.Suite) ([]*suite.Suite, map[string]string) {
	why := map[string]string{}
	if p.only != "" || !p.selected {
		var out []*suite.Suite
		for _, s := range suites {
			if p.only == "" || glob.Match(p.only, s.Path) {
				why[s.Path] = "rerun requested"
				if p.only == "" {
					why[s.Path] = "runs on " + d.Event.Name
				}
				out = append(out, s)
			}
		}
		return out, why
	}
	changed, err := d.changedFiles(ctx, p)
	if err != nil {
		d.logf("evalgate: could not list changed files (%v); running every suite", err)
		for _, s := range suites {
			why[s.Path] = "changed files unknown: running everything"
		}
		return suites, why
	}
	refs := make([]changes.Suite, len(suites))
	for i, s := range suites {
		refs[i] = changes.Suite{Path: s.Path, Refs: s.Refs}
	}
	var out []*suite.Suite
	for i, sel := range changes.Select(refs, changed, in.RunAllPaths) {
		d.logf("evalgate: %s: %s", sel.Path, sel.Why)
		why[sel.Path] = sel.Why
		if sel.Selected {
			out = append(out, suites[i])
		}
	}
	return out, why
}

// changedFiles lists the PR's files (a merge group's: the files its head changes since its
// base) through the API, falling back to git diff when the API caps the list or is unavailable
// (a dry run has no API).
func (d *deps) changedFiles(ctx context.Context, p plan) ([]string, error) {
	what := "PR files"
	var files []github.ChangedFile
	var truncated bool
	var err error
	if p.pr == 0 {
		what = "compare"
		files, truncated, err = d.Source.CompareFiles(ctx, p.base, p.sha)
	} else {
		files, truncated, err = d.Source.ListPullRequestFiles(ctx, p.pr)
	}
	if err == nil && !truncated {
		var out []string
		for _, f := range files {
			out = append(out, f.Name)
			if f.PreviousName != "" {
				out = append(out, f.PreviousName)
			}
		}
		return out, nil
	}
	d.logf("evalgate: %s API incomplete (truncated %v, err %v); using git diff", what, truncated, err)
	if p.base == "" || p.sha == "" {
		return nil, errors.New("no base and head commits to diff")
	}
	return changes.FromGitDiff(ctx, d.Root, p.base, p.sha)
}

func (d *deps) react(ctx context.Context, p plan, content string) {
	if p.comment != nil {
		if err := d.Publisher.React(ctx, p.comment.ID, content); err != nil {
			d.logf("evalgate: reaction: %v", err)
		}
	}
}

// logf writes one of evalgate's own lines to the job log. Arguments may carry repository
// text (paths, globs, logins, API errors): the line is escaped so it stays one line.
func (d *deps) logf(format string, args ...any) {
	fmt.Fprintln(d.Log, oneLine(fmt.Sprintf(format, args...)))
}
