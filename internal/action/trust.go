package action

import "fmt"

// origin is where the code under test comes from.
type origin int

// Origins.
const (
	// sameRepo: the head commit lives in the repository itself, pushed by someone with write
	// access.
	sameRepo origin = iota + 1
	// fork: the head commit comes from another repository (or from one GitHub no longer knows):
	// anyone can write it.
	fork
)

func (o origin) String() string {
	if o == fork {
		return "fork"
	}
	return "same repository"
}

// checkout is what the workspace must hold for results to be posted, and where they go.
type checkout int

// Checkout rules.
const (
	// checkoutHeadOrMerge accepts the head commit, or GITHUB_SHA: a pull_request job checks out
	// the test merge commit (refs/pull/N/merge, whose second parent is the head). Results go on
	// the head commit, as GitHub's own CI reports a merge-commit build on the head.
	checkoutHeadOrMerge checkout = iota + 1
	// checkoutHead requires exactly the head commit: events whose default checkout is the base
	// branch (pull_request_target, workflow_run, issue_comment) must check the head out.
	checkoutHead
	// checkoutAny grades whatever is checked out and posts on that commit (push, dispatch).
	checkoutAny
)

// trust is evalgate's decision for one event and origin: whether it runs at all, whether
// untrusted code runs with the job's secrets, which commit it grades and where results go.
type trust struct {
	Event  string
	Origin origin
	// Run is false when evalgate must not run; Why says why, for the log and the summary.
	Run bool
	Why string
	// ForkCode is true when code from a fork runs with the job's secrets because a maintainer
	// opted in (allow_fork_code): callers must not read or write the reply cache and may send
	// vendor keys only to hosts the base branch configures.
	ForkCode bool
	// Checkout is the commit that must be checked out, which is also the commit results go on.
	Checkout checkout
}

// admission says whether an event and origin may run.
type admission int

const (
	// admit: the job's code is the repository's own (or has no secrets to misuse).
	admit admission = iota + 1
	// noSecrets: GitHub gives the job a read-only token and no secrets, so there is nothing to
	// grade with and nowhere to post.
	noSecrets
	// optIn: the job has secrets and write access, and the code is a stranger's: it runs only
	// when a maintainer opted in.
	optIn
)

// rule is one row of the trust table (docs/security.md is the same table in prose).
type rule struct {
	event    string
	origin   origin
	admit    admission
	checkout checkout
	// allowed reports the opt-in for an optIn row.
	allowed func(inputs) bool
}

func allowForkCode(in inputs) bool { return in.AllowForkCode }

// allowForkRerun also honours allow_fork_reruns, the older name of the opt-in for comment
// reruns.
func allowForkRerun(in inputs) bool { return in.AllowForkCode || in.AllowForkReruns }

var rules = []rule{
	{event: "pull_request", origin: sameRepo, admit: admit, checkout: checkoutHeadOrMerge},
	{event: "pull_request", origin: fork, admit: noSecrets, checkout: checkoutHeadOrMerge},
	{event: "pull_request_target", origin: sameRepo, admit: admit, checkout: checkoutHead},
	{event: "pull_request_target", origin: fork, admit: optIn, checkout: checkoutHead, allowed: allowForkCode},
	{event: "workflow_run", origin: sameRepo, admit: admit, checkout: checkoutHead},
	{event: "workflow_run", origin: fork, admit: optIn, checkout: checkoutHead, allowed: allowForkCode},
	{event: "issue_comment", origin: sameRepo, admit: admit, checkout: checkoutHead},
	{event: "issue_comment", origin: fork, admit: optIn, checkout: checkoutHead, allowed: allowForkRerun},
	// Pushing and dispatching need write access to the repository itself: never a fork.
	{event: "push", origin: sameRepo, admit: admit, checkout: checkoutAny},
	{event: "workflow_dispatch", origin: sameRepo, admit: admit, checkout: checkoutAny},
	// A merge group's head is the base branch with queued pull requests merged in: code that
	// someone with write access put in the queue, after the branch's required reviews and
	// checks, on a branch of the repository itself. It is what the base branch becomes, so it
	// is trusted as a push is; it is never a fork, whoever wrote the queued pull requests.
	{event: "merge_group", origin: sameRepo, admit: admit, checkout: checkoutHead},
}

// decide looks up the trust table for an event and origin under the inputs' opt-ins.
func decide(event string, o origin, in inputs) trust {
	t := trust{Event: event, Origin: o}
	for _, r := range rules {
		if r.event != event || r.origin != o {
			continue
		}
		t.Checkout = r.checkout
		switch r.admit {
		case admit:
			t.Run = true
		case noSecrets:
			t.Why = "GitHub gives fork workflows a read-only token and no secrets, so evalgate can neither call a model nor post a check run"
		case optIn:
			t.Run = r.allowed(in)
			t.ForkCode = t.Run
			if !t.Run {
				t.Why = fmt.Sprintf("%s runs with the repository's secrets and a write token, and running a stranger's code there needs a maintainer's opt-in (%s)", event, optInName(event))
			}
		}
		return t
	}
	t.Why = fmt.Sprintf("evalgate has no trust rule for %s from a %s", event, o)
	return t
}

// optInName names the input that lets fork code run for an event.
func optInName(event string) string {
	if event == "issue_comment" {
		return "allow_fork_code, or allow_fork_reruns"
	}
	return "allow_fork_code"
}

func originOf(isFork bool) origin {
	if isFork {
		return fork
	}
	return sameRepo
}
