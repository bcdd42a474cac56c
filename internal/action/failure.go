package action

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

// failure is a run that ended without results after the event was accepted: the eval files did
// not load, the configuration was refused before the first test, a stage crashed, or the run was
// cancelled first. Everything that would have shown the results says so instead: the check run,
// the sticky comment (which must not go on showing an earlier run's results as this commit's),
// the step summary and the outputs.
type failure struct {
	stage string // what failed, as a verb phrase: "load the eval files"
	err   error
	// cancelled is the interruption when the run was cancelled (err is then what it cut short).
	cancelled error
	// notRun are the suites that were to run; nil when nothing was selected yet.
	notRun []string
	// notGraded, when set, replaces the list of what did not run (the shards of a merge ran).
	notGraded string
}

// fail publishes f and returns how the action ends: errCancelled or errConfig. pub is the
// publisher whose check run is open, or nil to open one now.
func (d *deps) fail(ctx context.Context, in inputs, p plan, pub *publisher, f failure) error {
	if f.cancelled != nil && ctx.Err() != nil {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
		defer cancel()
		ctx = fctx
	}
	d.logErr("evalgate: could not "+f.stage, f.err)
	if pub == nil {
		pub = d.publisher(ctx, in, p)
	}
	body := f.body(in, p)
	pub.abort(ctx, f, body)
	commentURL := ""
	if (p.pr != 0 || d.DryRun) && !pub.forbidden && in.Comment != "never" {
		commentURL = pub.postComment(ctx, d.marker(in)+"\n"+body)
	}
	summary := body
	if pub.forbidden {
		summary = "> evalgate could not post a comment or check run (the token is read-only); this is the only report.\n\n" + summary
	}
	d.summary(summary)
	verdict := "error"
	if f.cancelled != nil {
		verdict = "cancelled"
	}
	d.finish(in, nil, verdict, commentURL, pub.checkID)
	d.react(ctx, p, "confused")
	if f.cancelled != nil {
		return errCancelled
	}
	return errConfig
}

// maxFailureText bounds the error a failure shows, so that its comment and check run always fit.
const maxFailureText = 8 * 1024

// title is the failure's headline (check run title, first line of the comment).
func (f failure) title() string {
	if f.cancelled != nil {
		return "Cancelled before any result"
	}
	return "evalgate failed: could not " + f.stage
}

// body is the Markdown the comment, the summary and the check run show: what failed, the
// error, and what did not run.
func (f failure) body(in inputs, p plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## ❌ %s\n\n", f.title())
	if f.cancelled != nil {
		fmt.Fprintf(&b, "The run was cancelled (%s) while evalgate was trying to %s.\n\n", oneLine(f.cancelled.Error()), f.stage)
	}
	if f.err != nil {
		b.WriteString(fence(safetext.Truncate(f.err.Error(), maxFailureText)) + "\n\n")
	}
	switch n := len(f.notRun); {
	case f.notGraded != "":
		b.WriteString("**Not graded:** " + f.notGraded)
	case n == 0:
		b.WriteString("**Not run:** every eval suite — no test ran and nothing was graded.")
	default:
		fmt.Fprintf(&b, "**Not run:** the %d eval suite(s) selected for this commit — no test ran and nothing was graded:\n", n)
		for i, s := range f.notRun {
			if i == 30 {
				fmt.Fprintf(&b, "- … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", code(s))
		}
	}
	out := strings.TrimRight(b.String(), "\n")
	if p.sha != "" {
		out += fmt.Sprintf("\n\nCommit %s has no eval results; any earlier results shown for this pull request were for an earlier run.", code(p.sha))
	}
	if p.pr != 0 && f.cancelled == nil {
		out += fmt.Sprintf(" Fix the error and push, or comment `%s rerun`.", in.Command)
	}
	return out + "\n"
}

// suitePaths lists the suites' paths, for what a failure did not run.
func suitePaths(suites []*suite.Suite) []string {
	out := make([]string, 0, len(suites))
	for _, s := range suites {
		out = append(out, s.Path)
	}
	return out
}

// execute runs the job with what trust allows, turning a crash of a stage into an error so that it is reported like
// one rather than leave the check run in progress and the comment stale.
func (d *deps) execute(ctx context.Context, tr trust, job Job) (run *result.Run, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.logErr("evalgate: internal error", fmt.Errorf("%v\n%s", r, debug.Stack()))
			run, err = nil, fmt.Errorf("evalgate crashed (internal error, please report it): %v", r)
		}
	}()
	if tr.ForkCode {
		// The preflight builds the clients of the whole selection (a shard checks them all),
		// so the hosts allowed are those of every suite it checks.
		checked := job.Check
		if checked == nil {
			checked = job.Suites
		}
		job.Fork = d.forkPolicy(ctx, checked)
		d.logf("evalgate: fork code runs with this job's secrets (allow_fork_code): reply cache off, vendor keys only to the base branch's hosts, no variables or credentials in an agent's env:")
	}
	return d.Runner.Run(ctx, job)
}

// logErr writes an error that may span lines (a configuration error lists every problem) to
// the job log one line at a time, each with evalgate's prefix, so that no repository text
// starts a line of its own and no literal \n appears.
func (d *deps) logErr(prefix string, err error) {
	if err == nil {
		d.logf("%s", prefix)
		return
	}
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	d.logf("%s: %s", prefix, lines[0])
	for _, l := range lines[1:] {
		d.logf("evalgate:   %s", l)
	}
}

// postComment upserts the sticky comment with body (a failure's: short, its error bounded).
func (pub *publisher) postComment(ctx context.Context, body string) string {
	d := pub.d
	url, err := d.Publisher.UpsertComment(ctx, pub.p.pr, github.CommentOptions{Marker: d.marker(pub.in), Body: body})
	if errors.Is(err, github.ErrForbidden) {
		pub.forbidden = true
		d.logf("evalgate: cannot comment (read-only token); the report goes to the job summary")
		return ""
	}
	if err != nil {
		d.logf("evalgate: comment: %v", err)
	}
	return url
}
