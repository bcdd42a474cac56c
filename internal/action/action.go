package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/sethvargo/go-githubactions"

	"github.com/evalgate/evalgate/internal/changes"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/glob"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Deps are the action's connections to the world; cmd/evalgate builds them.
type Deps struct {
	Event *event.Event
	// GitHub is nil in a dry run: nothing is posted, the payloads are printed to Out.
	GitHub *github.Client
	// Actions writes outputs, the step summary and workflow commands.
	Actions *githubactions.Action
	Log     io.Writer // the job log
	Out     io.Writer // where a dry run prints what it would post
	Root    string    // the checked-out repository
	// Load discovers and loads the suites under root.
	Load func(root string, patterns []string) ([]*suite.Suite, []*result.SuiteResult, error)
	// Execute runs suites (with the load errors reported alongside).
	Execute func(ctx context.Context, suites []*suite.Suite, loadErrors []*result.SuiteResult) (*result.Run, error)
	// Outputs is true when the runner provides GITHUB_OUTPUT; a local dry run sets none.
	Outputs bool
	// CheckedOut returns the commit checked out at Root; nil or an error means unknown.
	CheckedOut func(ctx context.Context) (string, error)
}

// plan is what this event asks for.
type plan struct {
	sha      string
	pr       int
	comment  *event.Comment // the rerun command, when there is one
	only     string         // suite glob from "/evalgate rerun <glob>"
	selected bool           // false: run every suite (push, dispatch)
	base     string
}

// Run handles one event and returns the process exit code: 1 when the gate fails.
func Run(ctx context.Context, in Inputs, d Deps) int {
	ev := d.Event
	if !ev.Supported {
		d.logf("evalgate: nothing to do: %s", ev.Why)
		d.finish(in, nil, "skip", "", 0)
		return 0
	}
	p, ok := d.plan(ctx, in)
	if !ok {
		return 0
	}
	suites, loadErrs, err := d.Load(d.Root, in.Suites)
	if err != nil {
		d.logf("evalgate: %v", err)
		return 2
	}
	picked, why := d.pick(ctx, in, p, suites)
	if len(picked) == 0 && len(loadErrs) == 0 {
		d.noSuites(ctx, in, p, why)
		d.react(ctx, p, "rocket")
		return 0
	}
	pub := d.publisher(ctx, in, p)
	run, err := d.Execute(ctx, picked, loadErrs)
	if run == nil {
		d.logf("evalgate: run failed: %v", err)
		pub.abort(ctx, err)
		d.react(ctx, p, "confused")
		return 2
	}
	run.Context = &result.Context{Repository: ev.Owner + "/" + ev.Repo, SHA: p.sha, PR: p.pr, Event: ev.Name, RunURL: ev.RunURL(), CheckURL: pub.checkURL}
	for _, s := range run.Suites {
		s.Why = why[s.Path]
	}
	code := pub.publish(ctx, run)
	if code == 0 {
		d.react(ctx, p, "rocket")
	} else {
		d.react(ctx, p, "confused")
	}
	if err != nil && errors.Is(err, context.Canceled) {
		return 130
	}
	return code
}

// plan decides which commit to grade and whether a comment command is allowed.
func (d *Deps) plan(ctx context.Context, in Inputs) (plan, bool) {
	ev := d.Event
	p := plan{sha: ev.HeadSHA, pr: ev.PR, base: ev.BaseSHA, selected: ev.PR != 0}
	switch ev.Name {
	case "pull_request", "pull_request_target":
		if ev.IsFork && ev.Name == "pull_request" {
			d.logf("evalgate: pull request #%d comes from a fork: its token is read-only and secrets are withheld, so evals did not run", ev.PR)
			d.summary("## evalgate: not run\n\nThis pull request comes from a fork. GitHub gives fork workflows a read-only token and no secrets, so evalgate did not run the eval suites. A maintainer can run them with a `" + in.Command + " rerun` comment once the code is reviewed (with `allow_fork_reruns` enabled).\n")
			d.finish(in, nil, "skip", "", 0)
			return p, false
		}
	case "issue_comment":
		cmd, ok := event.ParseCommand(ev.Comment.Body, in.Command)
		if !ok || cmd.Name != "rerun" {
			d.logf("evalgate: comment %d is not a %s rerun command; ignored", ev.Comment.ID, in.Command)
			return p, false
		}
		if d.GitHub == nil {
			d.logf("evalgate: dry run: a rerun command needs the GitHub API; ignored")
			return p, false
		}
		// author_association misreports private org members, so permission is asked of the API.
		perm, err := d.GitHub.PermissionLevel(ctx, ev.Owner, ev.Repo, ev.Comment.Author)
		if err != nil || (perm != "admin" && perm != "write") {
			d.logf("evalgate: rerun by %s ignored: write or admin permission required (have %q, err %v)", ev.Comment.Author, perm, err)
			return p, false
		}
		pr, err := d.GitHub.GetPullRequest(ctx, ev.Owner, ev.Repo, ev.PR)
		if err != nil {
			d.logf("evalgate: rerun: %v", err)
			return p, false
		}
		if pr.IsFork && !in.AllowForkReruns {
			d.logf("evalgate: rerun on fork pull request #%d ignored: set allow_fork_reruns to run fork code with secrets", ev.PR)
			_ = d.GitHub.React(ctx, ev.Owner, ev.Repo, ev.Comment.ID, "confused")
			return p, false
		}
		// Pinned now: a push after the command does not change what this run grades.
		p.sha, p.base, p.comment = pr.HeadSHA, pr.BaseSHA, ev.Comment
		if !d.checkedOutHead(ctx, in, p.sha) {
			_ = d.GitHub.React(ctx, ev.Owner, ev.Repo, ev.Comment.ID, "confused")
			return p, false
		}
		if len(cmd.Args) > 0 {
			p.only = cmd.Args[0]
		}
		_ = d.GitHub.React(ctx, ev.Owner, ev.Repo, ev.Comment.ID, "eyes")
	}
	return p, true
}

// checkedOutHead verifies that the workflow checked out the commit the check run will be
// posted on: a rerun that graded the default branch but reported on the PR head would gate the
// merge on code it never saw. When the checkout cannot be read, the run goes on with a warning.
func (d *Deps) checkedOutHead(ctx context.Context, in Inputs, sha string) bool {
	if d.CheckedOut == nil {
		return true
	}
	head, err := d.CheckedOut(ctx)
	switch {
	case err != nil:
		d.logf("evalgate: warning: cannot tell which commit is checked out (%v); grading it as the PR head %s", err, sha)
		return true
	case head == sha:
		return true
	}
	d.logf("evalgate: rerun refused: the workflow checked out %s, but the pull request head is %s", head, sha)
	d.summary(fmt.Sprintf("## evalgate: rerun not run\n\nThe workflow checked out `%s`, but pull request #%d is at `%s`, so evalgate would have graded one commit and reported on another. Check out the PR head in the workflow that handles `%s` comments:\n\n```yaml\n- uses: actions/checkout@v4\n  with:\n    ref: refs/pull/${{ github.event.issue.number }}/head\n```\n", head, d.Event.PR, sha, in.Command))
	return false
}

// pick selects the suites to run and says why for each.
func (d *Deps) pick(ctx context.Context, in Inputs, p plan, suites []*suite.Suite) ([]*suite.Suite, map[string]string) {
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

// changedFiles lists the PR's files through the API, falling back to git diff when the API
// caps the list or is unavailable (a dry run has no API).
func (d *Deps) changedFiles(ctx context.Context, p plan) ([]string, error) {
	if d.GitHub != nil {
		files, truncated, err := d.GitHub.ListPullRequestFiles(ctx, d.Event.Owner, d.Event.Repo, p.pr)
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
		d.logf("evalgate: PR files API incomplete (truncated %v, err %v); using git diff", truncated, err)
	}
	if p.base == "" || p.sha == "" {
		return nil, errors.New("no base and head commits to diff")
	}
	return changes.FromGitDiff(ctx, d.Root, p.base, p.sha)
}

func (d *Deps) react(ctx context.Context, p plan, content string) {
	if p.comment != nil && d.GitHub != nil {
		if err := d.GitHub.React(ctx, d.Event.Owner, d.Event.Repo, p.comment.ID, content); err != nil {
			d.logf("evalgate: reaction: %v", err)
		}
	}
}

// logf writes one of evalgate's own lines to the job log (never model or agent text).
func (d *Deps) logf(format string, args ...any) {
	fmt.Fprintf(d.Log, format+"\n", args...)
}

// stopToken is a fresh random token for ::stop-commands::, so text between the markers cannot
// end the pause and issue workflow commands.
func stopToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
