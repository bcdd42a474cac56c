package action

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
)

// TestFailuresAreReported runs the action into each way it can fail after accepting the event:
// the check run, the sticky comment (which showed the previous run), the step summary and the
// outputs all say what failed and what did not run, and the log has no escaped line breaks.
func TestFailuresAreReported(t *testing.T) {
	t.Parallel()
	const head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	configErr := errors.New(".agentv/targets.yaml:4: target \"gpt\": unknown provider \"opneai\" (did you mean openai?)\nevals/billing.eval.yaml:9: judge \"grader\" is not a target")
	tests := []struct {
		name       string
		loadErr    error
		execute    func(ctx context.Context, cancel context.CancelFunc, j Job) (*result.Run, error)
		want       error
		conclusion string
		verdict    string
		says       []string // in the comment, the summary and the check run
		logs       []string
	}{
		{name: "the eval files do not load", loadErr: errors.New("evals/billing.eval.yaml:3: unknown key \"asserts\" (did you mean assert?)\nevals/support.eval.yaml:7: tests: want a list"),
			want: errConfig, conclusion: "failure", verdict: "error",
			says: []string{"could not load the eval files", "evals/billing.eval.yaml:3: unknown key", "evals/support.eval.yaml:7: tests", "Not run:** every eval suite", "has no eval results"},
			logs: []string{"evalgate: could not load the eval files: evals/billing.eval.yaml:3: unknown key", "\nevalgate:   evals/support.eval.yaml:7: tests: want a list\n"}},
		{name: "the configuration is refused before the first test",
			execute: func(context.Context, context.CancelFunc, Job) (*result.Run, error) { return nil, configErr },
			want:    errConfig, conclusion: "failure", verdict: "error",
			says: []string{"could not run the eval suites", "unknown provider", "judge \"grader\" is not a target", "the 1 eval suite(s) selected", "`evals/billing.eval.yaml`"},
			logs: []string{"evalgate: could not run the eval suites: .agentv/targets.yaml:4:", "\nevalgate:   evals/billing.eval.yaml:9: judge"}},
		{name: "a stage crashes",
			execute: func(context.Context, context.CancelFunc, Job) (*result.Run, error) {
				panic("index out of range [3] with length 3")
			},
			want: errConfig, conclusion: "failure", verdict: "error",
			says: []string{"evalgate crashed (internal error", "index out of range", "`evals/billing.eval.yaml`"},
			logs: []string{"evalgate: internal error: index out of range"}},
		{name: "the run is cancelled before any result",
			execute: func(ctx context.Context, cancel context.CancelFunc, _ Job) (*result.Run, error) {
				cancel()
				return nil, ctx.Err()
			},
			want: errCancelled, conclusion: "cancelled", verdict: "cancelled",
			says: []string{"Cancelled before any result", "The run was cancelled", "`evals/billing.eval.yaml`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := newJob(t, "pull_request", webhookPayload(t, "pull_request.synchronize"), nil)
			j.head, j.loadErr = head, tt.loadErr
			j.srv.Files = []map[string]any{{"filename": billingSuite}}
			// The previous run's results, which must not stand.
			j.srv.AddComment(2, j.srv.BotLogin, "<!-- evalgate:comment key=evalgate -->\n## ✅ evalgate: all 3 tests passed")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.execute != nil {
				j.execute = func(ctx context.Context, job Job) (*result.Run, error) { return tt.execute(ctx, cancel, job) }
			}
			if err := j.run(ctx); !errors.Is(err, tt.want) {
				t.Fatalf("Run: %v, want %v\n%s", err, tt.want, j.logText())
			}
			cs := j.srv.Comments(2)
			if len(cs) != 1 || strings.Contains(cs[0].Body, "all 3 tests passed") {
				t.Fatalf("comments %+v: want the one sticky comment, no longer showing the previous run", cs)
			}
			runs := j.srv.CheckRuns()
			if len(runs) != 1 || runs[0].HeadSHA != head || runs[0].Status != "completed" || runs[0].Conclusion != tt.conclusion {
				t.Fatalf("check runs %+v, want one completed %s on %s", runs, tt.conclusion, head)
			}
			for where, text := range map[string]string{"comment": cs[0].Body, "summary": j.summary(), "check run": runs[0].Title + "\n" + runs[0].Summary} {
				for _, want := range tt.says {
					if !strings.Contains(text, want) {
						t.Errorf("the %s lacks %q:\n%s", where, want, text)
					}
				}
			}
			out := j.outputs()
			if out["verdict"] != tt.verdict || out["check-run-id"] == "" || out["comment-url"] == "" || out["passed"] != "0" {
				t.Errorf("outputs %v, want verdict %s with the check run and the comment", out, tt.verdict)
			}
			log := j.logText()
			if strings.Contains(log, `\n`) {
				t.Errorf("the log has an escaped line break:\n%s", log)
			}
			for _, want := range tt.logs {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

// TestFailureWithoutAComment: a merge group has no PR to comment on, and comment: never
// posts none; the check run, summary and outputs still report the failure.
func TestFailureWithoutAComment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, event, payload, head string }{
		{"merge group", "merge_group", "merge_group.checks_requested", "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"},
		{"comment: never", "pull_request", "pull_request.synchronize", "ec26c3e57ca3a959ca5aad62de7213c562f8c821"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := newJob(t, tt.event, webhookPayload(t, tt.payload), nil)
			j.head, j.loadErr = tt.head, errors.New("evals/billing.eval.yaml:3: bad")
			j.inputs["comment"] = "never"
			if err := j.run(t.Context()); !errors.Is(err, errConfig) {
				t.Fatalf("Run: %v", err)
			}
			if n := j.srv.Count(githubtest.CreateComment) + j.srv.Count(githubtest.ListComments); n != 0 {
				t.Errorf("%d comment requests, want none", n)
			}
			if runs := j.srv.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != tt.head || runs[0].Conclusion != "failure" {
				t.Errorf("check runs %+v, want one failure on %s", runs, tt.head)
			}
			if out := j.outputs(); out["verdict"] != "error" || !strings.Contains(j.summary(), "could not load the eval files") {
				t.Errorf("outputs %v, summary %q", out, j.summary())
			}
		})
	}
}

// TestDryRunPrintsTheFailure: `evalgate action --dry-run` prints the failed check run and the
// comment it would post.
func TestDryRunPrintsTheFailure(t *testing.T) {
	t.Parallel()
	j := newJob(t, "pull_request", webhookPayload(t, "pull_request.synchronize"), nil)
	j.dry, j.head, j.loadErr = true, "ec26c3e57ca3a959ca5aad62de7213c562f8c821", errors.New("evals/billing.eval.yaml:3: bad")
	if err := j.run(t.Context()); !errors.Is(err, errConfig) {
		t.Fatalf("Run: %v", err)
	}
	got := j.dryOut.String()
	for _, want := range []string{"=== check run", `"conclusion": "failure"`, "=== comment (PR #2", "could not load the eval files", "evals/billing.eval.yaml:3: bad"} {
		if !strings.Contains(got, want) {
			t.Errorf("the dry run's output lacks %q:\n%s", want, got)
		}
	}
	if len(j.srv.Requests()) != 0 {
		t.Errorf("a dry run called the API: %+v", j.srv.Requests())
	}
}

// TestRerunWhosePullRequestCannotBeRead: an accepted rerun command whose pull request cannot
// be read ends in an error that the summary, the outputs and the reaction report.
func TestRerunWhosePullRequestCannotBeRead(t *testing.T) {
	t.Parallel()
	j := newJob(t, "issue_comment", webhookPayload(t, "issue_comment.created"), func(m map[string]any) {
		m["issue"].(map[string]any)["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
		m["comment"].(map[string]any)["body"] = "/evalgate rerun"
	})
	j.srv.Permissions["Codertocat"] = "write"
	j.srv.Fail(githubtest.GetPull, githubtest.Fault{Status: 404, Body: `{"message":"Not Found"}`})
	if err := j.run(t.Context()); !errors.Is(err, errConfig) {
		t.Fatalf("Run: %v, want %v\n%s", err, errConfig, j.logText())
	}
	if got := j.ranSuites(); len(got) != 0 {
		t.Fatalf("ran %v", got)
	}
	if out := j.outputs(); out["verdict"] != "error" || !strings.Contains(j.summary(), "rerun failed") {
		t.Fatalf("outputs %v, summary %q", out, j.summary())
	}
	if got := strings.Join(j.srv.Reactions(492700400), ","); !strings.HasSuffix(got, "confused") {
		t.Fatalf("reactions %q, want confused last", got)
	}
}
