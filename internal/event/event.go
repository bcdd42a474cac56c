// Package event turns what a GitHub Actions runner provides (GITHUB_* variables and the event
// payload file) into the few facts evalgate acts on: which event, which repository and pull
// request, which commit to grade, whether the head is a fork, and the slash command if any.
package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-githubactions"
)

// Event is one workflow trigger, decoded.
type Event struct {
	Name   string // GITHUB_EVENT_NAME
	Action string // the payload's action (opened, synchronize, created, …)
	Owner  string
	Repo   string
	// PR is the pull request number (0 when the event is not about one).
	PR int
	// HeadSHA is the commit to grade and to put the check run on: pull_request.head.sha for
	// pull requests (never GITHUB_SHA, the test merge commit), workflow_run.head_sha, the pushed
	// commit for push, and empty for issue_comment (the caller fetches the PR when the command
	// arrives).
	HeadSHA string
	BaseSHA string
	HeadRef string
	BaseRef string
	// HeadRepo is the owner/name the head commit comes from (pull requests, workflow_run).
	HeadRepo string
	// IsFork is true when the head repository is not the base repository, or is unknown (a
	// deleted fork): the code under test is not the repository's own.
	IsFork  bool
	Comment *Comment
	Sender  string
	// SHA is GITHUB_SHA as the runner set it.
	SHA           string
	APIURL        string
	ServerURL     string
	RunID         int64
	RunAttempt    int64
	Workspace     string
	StepSummary   string
	DefaultBranch string
	Inputs        map[string]string // workflow_dispatch inputs
	// Supported is false for events and actions evalgate does not act on; Why says why.
	Supported bool
	Why       string

	// WorkflowRef is GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/file.yml@ref): the
	// workflow whose push runs baseline: auto compares with.
	WorkflowRef string
}

// Comment is the PR comment of an issue_comment event.
type Comment struct {
	ID          int64
	Body        string
	Author      string
	Association string
}

// RunURL is the workflow run's page.
func (e *Event) RunURL() string {
	if e.RunID == 0 || e.Owner == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", strings.TrimSuffix(e.ServerURL, "/"), e.Owner, e.Repo, e.RunID)
}

// prActions are the pull_request actions that mean "the code under review changed".
var prActions = map[string]bool{"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true}

// Load reads the runner environment through go-githubactions and decodes the event payload
// into go-github's typed events.
func Load(getenv func(string) string, readFile func(string) ([]byte, error)) (*Event, error) {
	action := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)))
	// Context returns a usable context alongside joined parse errors of optional numeric and
	// boolean variables; only a missing event name is fatal here.
	gc, ctxErr := action.Context()
	if gc == nil {
		return nil, fmt.Errorf("read runner environment: %w", ctxErr)
	}
	e := &Event{
		Name: gc.EventName, SHA: gc.SHA, APIURL: gc.APIURL, ServerURL: gc.ServerURL, RunID: gc.RunID,
		RunAttempt: gc.RunAttempt, Workspace: gc.Workspace, StepSummary: gc.StepSummary,
		WorkflowRef: getenv("GITHUB_WORKFLOW_REF"),
	}
	e.Owner, e.Repo = splitRepo(gc.Repository)
	if e.Name == "" {
		return nil, errors.New("GITHUB_EVENT_NAME is not set: not running in GitHub Actions (use evalgate run locally)")
	}
	var payload []byte
	if gc.EventPath != "" {
		b, err := readFile(gc.EventPath)
		if err != nil {
			return nil, fmt.Errorf("read event file: %w", err)
		}
		payload = b
	}
	if err := e.decode(payload); err != nil {
		return nil, fmt.Errorf("decode %s event: %w", e.Name, err)
	}
	return e, nil
}

func splitRepo(full string) (string, string) {
	owner, repo, _ := strings.Cut(full, "/")
	return owner, repo
}

// decode reads the payload of the event the runner named; an event evalgate does not handle is
// not an error but an unsupported Event.
func (e *Event) decode(payload []byte) error {
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	switch e.Name {
	case "pull_request", "pull_request_target":
		return decodeAs(payload, e.decodePullRequest)
	case "issue_comment":
		return decodeAs(payload, e.decodeIssueComment)
	case "push":
		return decodeAs(payload, e.decodePush)
	case "workflow_dispatch":
		return decodeAs(payload, e.decodeDispatch)
	case "workflow_run":
		return decodeAs(payload, e.decodeWorkflowRun)
	case "merge_group":
		return decodeAs(payload, e.decodeMergeGroup)
	default:
		e.Why = fmt.Sprintf("event %q is not one evalgate handles (pull_request, pull_request_target, issue_comment, merge_group, workflow_run, workflow_dispatch, push)", e.Name)
	}
	return nil
}

// decodeAs unmarshals the payload into the event's type and hands it to apply.
func decodeAs[T any](payload []byte, apply func(*T)) error {
	var ev T
	if err := json.Unmarshal(payload, &ev); err != nil {
		return err
	}
	apply(&ev)
	return nil
}

// decodePullRequest reads a pull_request or pull_request_target event; only the actions that
// change the code under review are acted on.
func (e *Event) decodePullRequest(ev *github.PullRequestEvent) {
	e.Action = ev.GetAction()
	pr := ev.GetPullRequest()
	e.PR = pr.GetNumber()
	e.HeadSHA, e.BaseSHA = pr.GetHead().GetSHA(), pr.GetBase().GetSHA()
	e.HeadRef, e.BaseRef = pr.GetHead().GetRef(), pr.GetBase().GetRef()
	e.HeadRepo = pr.GetHead().GetRepo().GetFullName()
	e.IsFork = e.HeadRepo == "" || e.HeadRepo != pr.GetBase().GetRepo().GetFullName()
	e.Sender = ev.GetSender().GetLogin()
	e.DefaultBranch = ev.GetRepo().GetDefaultBranch()
	e.setRepo(ev.GetRepo())
	e.Supported = prActions[e.Action]
	if !e.Supported {
		e.Why = fmt.Sprintf("pull_request action %q does not change the code under review", e.Action)
	}
}

// decodeIssueComment reads an issue_comment event: a possible slash command, acted on only when
// it is a new comment on a pull request. The head commit is left for the caller to fetch.
func (e *Event) decodeIssueComment(ev *github.IssueCommentEvent) {
	e.Action = ev.GetAction()
	e.Sender = ev.GetSender().GetLogin()
	e.DefaultBranch = ev.GetRepo().GetDefaultBranch()
	e.setRepo(ev.GetRepo())
	c := ev.GetComment()
	e.Comment = &Comment{ID: c.GetID(), Body: c.GetBody(), Author: c.GetUser().GetLogin(), Association: c.GetAuthorAssociation()}
	switch {
	case ev.GetIssue().GetPullRequestLinks() == nil:
		e.Why = "the comment is on an issue, not a pull request"
	case e.Action != "created":
		e.Why = fmt.Sprintf("comment action %q: only new comments are commands", e.Action)
	default:
		e.PR, e.Supported = ev.GetIssue().GetNumber(), true
	}
}

// decodePush reads a push event: the pushed commit, or GITHUB_SHA when the payload has none.
func (e *Event) decodePush(ev *github.PushEvent) {
	e.HeadSHA = ev.GetAfter()
	if e.HeadSHA == "" {
		e.HeadSHA = e.SHA
	}
	e.HeadRef = strings.TrimPrefix(ev.GetRef(), "refs/heads/")
	e.Sender = ev.GetSender().GetLogin()
	e.DefaultBranch = ev.GetRepo().GetDefaultBranch()
	if ev.GetDeleted() {
		// after is all zeros: there is no commit to grade.
		e.Why = fmt.Sprintf("the push deleted %s", ev.GetRef())
		return
	}
	e.Supported = true
}

// decodeMergeGroup reads a merge_group event: the merge queue's candidate commit (the base
// branch with the queued pull requests merged in), graded against the base it was built on.
// The group's branch (gh-readonly-queue/…) lives in the repository itself, and only someone
// with write access can queue a pull request, so it is never a fork (docs/security.md).
func (e *Event) decodeMergeGroup(ev *github.MergeGroupEvent) {
	e.Action = ev.GetAction()
	e.Sender = ev.GetSender().GetLogin()
	e.DefaultBranch = ev.GetRepo().GetDefaultBranch()
	e.setRepo(ev.GetRepo())
	g := ev.GetMergeGroup()
	e.HeadSHA, e.BaseSHA = g.GetHeadSHA(), g.GetBaseSHA()
	e.HeadRef = strings.TrimPrefix(g.GetHeadRef(), "refs/heads/")
	e.BaseRef = strings.TrimPrefix(g.GetBaseRef(), "refs/heads/")
	switch {
	case e.Action != "checks_requested":
		e.Why = fmt.Sprintf("merge_group action %q: evalgate runs when checks are requested", e.Action)
	case e.HeadSHA == "" || e.BaseSHA == "":
		e.Why = "the merge_group event names no head or base commit"
	default:
		e.Supported = true
	}
}

// dispatchEvent is the part of a workflow_dispatch payload evalgate reads; its inputs may be
// any JSON value (a boolean input arrives as true, not "true").
type dispatchEvent struct {
	Inputs map[string]any `json:"inputs"`
	Ref    string         `json:"ref"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// decodeDispatch reads a workflow_dispatch event: the inputs, as text, and GITHUB_SHA as the
// commit to grade.
func (e *Event) decodeDispatch(ev *dispatchEvent) {
	e.Inputs = map[string]string{}
	for k, v := range ev.Inputs {
		e.Inputs[k] = fmt.Sprint(v)
	}
	e.HeadSHA, e.HeadRef = e.SHA, strings.TrimPrefix(ev.Ref, "refs/heads/")
	e.Sender, e.DefaultBranch = ev.Sender.Login, ev.Repository.DefaultBranch
	e.Supported = true
}

// decodeWorkflowRun reads a workflow_run event: the head commit of the run that triggered it,
// whether that commit comes from a fork, and its pull request when GitHub names one (it names
// none for fork pull requests).
func (e *Event) decodeWorkflowRun(ev *github.WorkflowRunEvent) {
	e.Action = ev.GetAction()
	e.Sender = ev.GetSender().GetLogin()
	e.DefaultBranch = ev.GetRepo().GetDefaultBranch()
	e.setRepo(ev.GetRepo())
	run := ev.GetWorkflowRun()
	e.HeadSHA, e.HeadRef = run.GetHeadSHA(), run.GetHeadBranch()
	e.HeadRepo = run.GetHeadRepository().GetFullName()
	base := run.GetRepository().GetFullName()
	if base == "" {
		base = ev.GetRepo().GetFullName()
	}
	e.IsFork = e.HeadRepo == "" || e.HeadRepo != base
	if prs := run.PullRequests; len(prs) > 0 {
		e.PR = prs[0].GetNumber()
		e.BaseSHA, e.BaseRef = prs[0].GetBase().GetSHA(), prs[0].GetBase().GetRef()
	}
	switch {
	case e.Action != "completed" && e.Action != "requested":
		e.Why = fmt.Sprintf("workflow_run action %q: evalgate runs on requested or completed", e.Action)
	case e.HeadSHA == "":
		e.Why = "the workflow_run event names no head commit"
	default:
		e.Supported = true
	}
}

// setRepo takes owner and name from the payload when GITHUB_REPOSITORY was not set.
func (e *Event) setRepo(r *github.Repository) {
	if e.Owner == "" && r != nil {
		e.Owner, e.Repo = splitRepo(r.GetFullName())
	}
}
