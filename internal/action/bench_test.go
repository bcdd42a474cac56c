package action

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/reports"
)

// BenchmarkCompleteCheck completes the gate's check run of a 5,000-test run with 6,991 failed
// criteria against the GitHub fake. The client's sleeps (write spacing, backoff) are counted,
// not slept: slept-s/op is how long the real client would hold the gate in_progress on them,
// requests/op how many writes it sends.
func BenchmarkCompleteCheck(b *testing.B) {
	const failed = 6991
	srv := githubtest.New(b)
	var slept time.Duration
	// A client per completion: the one that opened the check run wrote long before.
	client := func() *github.Client {
		gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{
			Sleep: func(_ context.Context, d time.Duration) error { slept += d; return nil }})
		if err != nil {
			b.Fatal(err)
		}
		return gh
	}
	d := &deps{Event: &event.Event{Owner: "acme", Repo: "agents"}, Log: io.Discard}
	check := reports.CheckOutput{Title: "6991 failed", Summary: "summary", Text: "details", Conclusion: gate.Failure}
	for i := range failed {
		check.Annotations = append(check.Annotations, reports.Annotation{Path: "evals/big.eval.yaml", StartLine: i + 1, EndLine: i + 1,
			Level: reports.LevelFailure, Title: fmt.Sprintf("big › t%04d › rubrics › c: fail", i), Message: "criterion failed\nJudge: no"})
	}
	ctx := b.Context()
	var requests int
	for b.Loop() {
		d.Publisher = client().Repo("acme", "agents")
		id, _, err := d.Publisher.CreateCheckRun(ctx, github.CheckRunOptions{Name: "evalgate", HeadSHA: "0123456789abcdef0123456789abcdef01234567", Title: "Running", Summary: "running"})
		if err != nil {
			b.Fatal(err)
		}
		before := srv.Count(githubtest.UpdateCheck)
		pub := &publisher{d: d, in: inputs{CheckName: "evalgate"}, checkID: id}
		pub.complete(ctx, postedCheck(check, "evalgate-report", true))
		requests += srv.Count(githubtest.UpdateCheck) - before
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	b.ReportMetric(slept.Seconds()/float64(b.N), "slept-s/op")
}
