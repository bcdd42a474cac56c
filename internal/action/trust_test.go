package action

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	none, code, reruns := Inputs{}, Inputs{AllowForkCode: true}, Inputs{AllowForkReruns: true}
	tests := []struct {
		event    string
		origin   Origin
		in       Inputs
		run      bool
		forkCode bool
		checkout Checkout
		why      string // in Why when it does not run
	}{
		{"pull_request", SameRepo, none, true, false, CheckoutHeadOrMerge, ""},
		{"pull_request", Fork, code, false, false, CheckoutHeadOrMerge, "read-only token"}, // no secrets to opt into
		{"pull_request_target", SameRepo, none, true, false, CheckoutHead, ""},
		{"pull_request_target", Fork, none, false, false, CheckoutHead, "allow_fork_code"},
		{"pull_request_target", Fork, reruns, false, false, CheckoutHead, "allow_fork_code"}, // the old opt-in covers comments only
		{"pull_request_target", Fork, code, true, true, CheckoutHead, ""},
		{"workflow_run", SameRepo, none, true, false, CheckoutHead, ""},
		{"workflow_run", Fork, none, false, false, CheckoutHead, "allow_fork_code"},
		{"workflow_run", Fork, code, true, true, CheckoutHead, ""},
		{"issue_comment", SameRepo, none, true, false, CheckoutHead, ""},
		{"issue_comment", Fork, none, false, false, CheckoutHead, "allow_fork_reruns"},
		{"issue_comment", Fork, reruns, true, true, CheckoutHead, ""},
		{"issue_comment", Fork, code, true, true, CheckoutHead, ""},
		{"push", SameRepo, none, true, false, CheckoutAny, ""},
		{"workflow_dispatch", SameRepo, none, true, false, CheckoutAny, ""},
		{"merge_group", SameRepo, none, true, false, CheckoutHead, ""},
		{"merge_group", Fork, code, false, false, 0, "no trust rule"}, // the queue branch is never a fork
		{"push", Fork, code, false, false, 0, "no trust rule"},
		{"schedule", SameRepo, none, false, false, 0, "no trust rule"},
	}
	for _, tt := range tests {
		got := Decide(tt.event, tt.origin, tt.in)
		if got.Run != tt.run || got.ForkCode != tt.forkCode || got.Checkout != tt.checkout || got.Event != tt.event || got.Origin != tt.origin {
			t.Errorf("Decide(%s, %s, %+v) = %+v", tt.event, tt.origin, tt.in, got)
		}
		if !tt.run && !strings.Contains(got.Why, tt.why) {
			t.Errorf("Decide(%s, %s): why %q lacks %q", tt.event, tt.origin, got.Why, tt.why)
		}
	}
}
