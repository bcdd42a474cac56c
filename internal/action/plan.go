package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/suite"
)

// plan decides, before anything runs, whether this event may run (decide), which commit it
// grades, and that this commit is the one checked out. ok is false when nothing runs; err is
// then how the action ends (nil: nothing to do).
func (d *deps) plan(ctx context.Context, in inputs) (p plan, err error, ok bool) {
	ev := d.Event
	// A merge group is graded like a pull request (the suites its change touches) but has no
	// pull request of its own to comment on.
	p = plan{sha: ev.HeadSHA, pr: ev.PR, base: ev.BaseSHA, baseRef: ev.BaseRef, selected: ev.PR != 0 || ev.Name == "merge_group"}
	fork, headRepo := ev.IsFork, ev.HeadRepo
	if ev.Name == "issue_comment" {
		pr, err, ok := d.command(ctx, in, &p)
		if !ok {
			return p, err, false
		}
		fork, headRepo = pr.IsFork || pr.HeadRepo == "", pr.HeadRepo
	}
	p.trust = decide(ev.Name, originOf(fork), in)
	if !p.trust.Run {
		d.refuse(in, p, headRepo)
		d.react(ctx, p, "confused")
		return p, nil, false
	}
	if p.trust.ForkCode {
		d.logf("evalgate: warning: running code from the fork %s with this job's secrets, as allowed by %s", headRepo, optInName(ev.Name))
	}
	if err, ok := d.verifyCheckout(ctx, in, &p); !ok {
		// Nothing is posted on a commit that was not checked out; the summary says why.
		verdict := "skip"
		if err != nil {
			verdict = "error"
		}
		d.finish(in, nil, verdict, "", 0)
		d.react(ctx, p, "confused")
		return p, err, false
	}
	d.react(ctx, p, "eyes")
	return p, nil, true
}

// command reads a rerun command: who may give it, and which commit it grades. The head is
// pinned when the command arrives: a push after it does not change what this run grades. ok
// is false when nothing runs; err is then how the action ends (nil: nothing to do).
func (d *deps) command(ctx context.Context, in inputs, p *plan) (*github.PullRequest, error, bool) {
	ev := d.Event
	cmd, ok := event.ParseCommand(ev.Comment.Body, in.Command)
	if !ok || cmd.Name != "rerun" {
		d.logf("evalgate: comment %d is not a %s rerun command; ignored", ev.Comment.ID, in.Command)
		return nil, nil, false
	}
	if d.DryRun {
		d.logf("evalgate: dry run: a rerun command needs the GitHub API; ignored")
		return nil, nil, false
	}
	// author_association misreports private org members, so permission is asked of the API.
	perm, err := d.Source.PermissionLevel(ctx, ev.Comment.Author)
	if err != nil || (perm != "admin" && perm != "write") {
		d.logf("evalgate: rerun by %s ignored: write or admin permission required (have %q, err %v)", ev.Comment.Author, perm, err)
		return nil, nil, false
	}
	p.comment = ev.Comment
	pr, err := d.Source.GetPullRequest(ctx, ev.PR)
	if err != nil {
		// The command was accepted: its failure is reported, though with no head commit there
		// is no check run to fail and nothing to put in the comment.
		d.logErr("evalgate: rerun: could not read the pull request", err)
		d.summary(fmt.Sprintf("## ❌ evalgate: rerun failed\n\nThe `%s rerun` command was accepted, but evalgate could not read pull request #%d to find its head commit, so nothing ran:\n\n%s\n", in.Command, ev.PR, fence(err.Error())))
		d.finish(in, nil, "error", "", 0)
		d.react(ctx, *p, "confused")
		if ctx.Err() != nil {
			return nil, errCancelled, false
		}
		return nil, errConfig, false
	}
	p.sha, p.base, p.baseRef = pr.HeadSHA, pr.BaseSHA, pr.BaseRef
	if len(cmd.Args) > 0 {
		p.only = cmd.Args[0]
	}
	return pr, nil, true
}

// refuse explains in the log and the step summary why this event runs nothing. Nothing is
// posted on the head commit: a required check stays pending rather than pass unchecked.
func (d *deps) refuse(in inputs, p plan, headRepo string) {
	ev := d.Event
	what := fmt.Sprintf("%s event", ev.Name)
	if p.pr != 0 {
		what = fmt.Sprintf("pull request #%d (%s)", p.pr, ev.Name)
	}
	d.logf("evalgate: not run: %s: %s", what, p.trust.Why)
	var b strings.Builder
	b.WriteString("## evalgate: not run\n\n")
	if p.trust.Origin != fork {
		fmt.Fprintf(&b, "%s: %s.\n", what, p.trust.Why)
	} else {
		fmt.Fprintf(&b, "This %s comes from the fork %s: %s.\n\n", what, code(orUnknown(headRepo)), p.trust.Why)
		if ev.Name == "pull_request" {
			fmt.Fprintf(&b, "A maintainer can run the suites once the code is reviewed, with a `%s rerun` comment (which needs `allow_fork_code` or `allow_fork_reruns`).\n", in.Command)
		} else {
			b.WriteString("Nothing was posted on the head commit, so a required evalgate check stays pending. After reviewing the code, a maintainer can set `allow_fork_code: true` on the evalgate step, whose workflow must check out the head commit.\n")
		}
	}
	d.summary(b.String())
	d.finish(in, nil, "skip", "", 0)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// verifyCheckout makes sure results go only on the commit that was checked out and graded. It
// sets p.sha to that commit. In a dry run nothing is posted, so it only warns.
func (d *deps) verifyCheckout(ctx context.Context, in inputs, p *plan) (error, bool) {
	ev := d.Event
	dry := d.DryRun
	head, err := d.checkedOut(ctx)
	if err != nil {
		if dry {
			d.logf("evalgate: dry run: cannot tell which commit is checked out (%v); grading the workspace as %s", err, orUnknown(p.sha))
			return nil, true
		}
		d.logf("evalgate: not run: cannot tell which commit is checked out in %s (%v), and results go only on the commit that was graded", d.Root, err)
		d.summary(fmt.Sprintf("## evalgate: not run\n\nevalgate could not tell which commit is checked out in the workspace (`git rev-parse HEAD` failed), so it would not know which commit it graded. Check the repository out with `actions/checkout` before the evalgate step.\n\n%s\n", fence(err.Error())))
		return errConfig, false
	}
	switch p.trust.Checkout {
	case checkoutAny:
		if p.sha != "" && p.sha != head {
			d.logf("evalgate: the event names %s, but %s is checked out: grading and reporting on %s", p.sha, head, head)
		}
		p.sha = head
		return nil, true
	case checkoutHeadOrMerge:
		if head == p.sha {
			return nil, true
		}
		if ev.SHA != "" && head == ev.SHA {
			d.logf("evalgate: grading the test merge commit %s (GITHUB_SHA) and reporting on the pull request head %s, as GitHub's CI does", head, p.sha)
			return nil, true
		}
	case checkoutHead:
		if head == p.sha {
			return nil, true
		}
	}
	if dry {
		d.logf("evalgate: dry run: %s is checked out, but the results would go on %s", head, orUnknown(p.sha))
		return nil, true
	}
	d.mismatch(in, p, head)
	if ev.Name == "issue_comment" {
		// The head moved after the checkout: the push has its own pull_request run.
		return nil, false
	}
	return errConfig, false
}

// checkoutFix is the actions/checkout step that puts the graded commit in the workspace.
var checkoutFix = map[string]string{
	"pull_request":        "# the default checkout: the test merge commit (GITHUB_SHA)\n- uses: actions/checkout@v4",
	"pull_request_target": "- uses: actions/checkout@v4\n  with:\n    ref: ${{ github.event.pull_request.head.sha }}",
	"workflow_run":        "- uses: actions/checkout@v4\n  with:\n    ref: ${{ github.event.workflow_run.head_sha }}",
	"merge_group":         "# the default checkout: the merge group's head (GITHUB_SHA)\n- uses: actions/checkout@v4",
	"issue_comment":       "- uses: actions/checkout@v4\n  with:\n    ref: refs/pull/${{ github.event.issue.number }}/head",
}

// mismatch reports a checkout that is not the commit the results would go on.
func (d *deps) mismatch(in inputs, p *plan, head string) {
	ev := d.Event
	verb := "not run"
	if ev.Name == "issue_comment" {
		verb = "rerun refused"
	}
	d.logf("evalgate: %s: the workflow checked out %s, but the results would go on %s (%s); grading one commit and reporting on another could pass code nobody checked", verb, head, orUnknown(p.sha), ev.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "## evalgate: %s\n\nThe workflow checked out `%s`, but ", verb, head)
	if p.pr != 0 {
		fmt.Fprintf(&b, "pull request #%d is at `%s`", p.pr, orUnknown(p.sha))
	} else {
		fmt.Fprintf(&b, "the %s event is about `%s`", ev.Name, orUnknown(p.sha))
	}
	b.WriteString(", so evalgate would have graded one commit and reported on another. Nothing was posted.")
	if fix := checkoutFix[ev.Name]; fix != "" {
		fmt.Fprintf(&b, " Check out the graded commit in the workflow that handles `%s`:\n\n```yaml\n%s\n```\n", ev.Name, fix)
		if ev.Name == "pull_request_target" || ev.Name == "workflow_run" {
			b.WriteString("\nThis runs the pull request's code with the repository's secrets: evalgate does so for fork pull requests only with `allow_fork_code: true`.\n")
		}
	}
	if ev.Name == "issue_comment" {
		fmt.Fprintf(&b, "\nIf a push landed after the `%s rerun` comment, the new head gets its own run.\n", in.Command)
	}
	d.summary(b.String())
}

func (d *deps) checkedOut(ctx context.Context) (string, error) {
	if d.CheckedOut == nil {
		return "", errors.New("no way to read the checkout")
	}
	head, err := d.CheckedOut(ctx)
	if err == nil && head == "" {
		err = errors.New("empty HEAD")
	}
	return head, err
}

// nothingSelected answers a rerun whose glob selects no suite: nothing was graded, so the
// gate is left exactly as it was.
func (d *deps) nothingSelected(in inputs, p plan, suites []*suite.Suite) {
	d.logf("evalgate: rerun %s selects no eval suite: nothing ran, and the check run on %s is left as it was", p.only, p.sha)
	var b strings.Builder
	what := fmt.Sprintf("none of the %d eval suite(s)", len(suites))
	if suites == nil {
		// A merge job sees only what its shards selected.
		what = "no eval suite in any shard"
	}
	fmt.Fprintf(&b, "## evalgate: rerun selected nothing\n\n%s matches %s, so nothing was graded and the `%s` check run on `%s` was left as it was.", code(p.only), what, in.CheckName, p.sha)
	if len(suites) > 0 {
		b.WriteString(" The suites are:\n")
		for i, s := range suites {
			if i == 30 {
				fmt.Fprintf(&b, "- … and %d more\n", len(suites)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", code(s.Path))
		}
	}
	d.summary(b.String())
	d.finish(in, nil, "skip", "", 0)
}

// fence puts text in a fenced code block longer than any backtick run inside it.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + s + "\n" + f
}
