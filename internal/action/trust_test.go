package action

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	none, code, reruns := inputs{}, inputs{AllowForkCode: true}, inputs{AllowForkReruns: true}
	tests := []struct {
		event    string
		origin   origin
		in       inputs
		run      bool
		forkCode bool
		checkout checkout
		why      string // in Why when it does not run
	}{
		{"pull_request", sameRepo, none, true, false, checkoutHeadOrMerge, ""},
		{"pull_request", fork, code, false, false, checkoutHeadOrMerge, "read-only token"}, // no secrets to opt into
		{"pull_request_target", sameRepo, none, true, false, checkoutHead, ""},
		{"pull_request_target", fork, none, false, false, checkoutHead, "allow_fork_code"},
		{"pull_request_target", fork, reruns, false, false, checkoutHead, "allow_fork_code"}, // the old opt-in covers comments only
		{"pull_request_target", fork, code, true, true, checkoutHead, ""},
		{"workflow_run", sameRepo, none, true, false, checkoutHead, ""},
		{"workflow_run", fork, none, false, false, checkoutHead, "allow_fork_code"},
		{"workflow_run", fork, code, true, true, checkoutHead, ""},
		{"issue_comment", sameRepo, none, true, false, checkoutHead, ""},
		{"issue_comment", fork, none, false, false, checkoutHead, "allow_fork_reruns"},
		{"issue_comment", fork, reruns, true, true, checkoutHead, ""},
		{"issue_comment", fork, code, true, true, checkoutHead, ""},
		{"push", sameRepo, none, true, false, checkoutAny, ""},
		{"workflow_dispatch", sameRepo, none, true, false, checkoutAny, ""},
		{"merge_group", sameRepo, none, true, false, checkoutHead, ""},
		{"merge_group", fork, code, false, false, 0, "no trust rule"}, // the queue branch is never a fork
		{"push", fork, code, false, false, 0, "no trust rule"},
		{"schedule", sameRepo, none, false, false, 0, "no trust rule"},
	}
	for _, tt := range tests {
		got := decide(tt.event, tt.origin, tt.in)
		if got.Run != tt.run || got.ForkCode != tt.forkCode || got.Checkout != tt.checkout || got.Event != tt.event || got.Origin != tt.origin {
			t.Errorf("Decide(%s, %s, %+v) = %+v", tt.event, tt.origin, tt.in, got)
		}
		if !tt.run && !strings.Contains(got.Why, tt.why) {
			t.Errorf("Decide(%s, %s): why %q lacks %q", tt.event, tt.origin, got.Why, tt.why)
		}
	}
}
