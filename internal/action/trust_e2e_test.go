package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
)

// End-to-end tests of the trust model (docs/security.md): the action binary, in process,
// against the GitHub fake, on workspaces that are git repositories whose HEAD the events name.

// rerunComment is a PR comment by alice (who has write access) with body.
func rerunComment(body string) map[string]any {
	ev := actiontest.Comment("alice")
	ev["comment"].(map[string]any)["body"] = body
	return ev
}

// samePR makes the fake's pull request #42 a same-repository PR at head.
func samePR(srv *githubtest.Server, head string) {
	srv.PR = map[string]any{"number": 42,
		"head": map[string]any{"sha": head, "repo": map[string]any{"full_name": "acme/agents"}},
		"base": map[string]any{"sha": "0a1b2c3d", "repo": map[string]any{"full_name": "acme/agents"}}}
	srv.Permissions = map[string]string{"alice": "write"}
}

// seedGate adds a completed check run of the gate on sha, as an earlier job left it; state is
// the JSON of its hidden gate state, or "" for none.
func seedGate(srv *githubtest.Server, sha, conclusion, state string) int64 {
	summary := "earlier results"
	if state != "" {
		summary += "\n\n<!-- evalgate:state " + state + " -->"
	}
	return srv.AddCheckRun(githubtest.CheckRun{Name: "evalgate", HeadSHA: sha, Status: "completed", Conclusion: conclusion, Title: "earlier", Summary: summary})
}

// lastCheck is the newest check run, failing the test when there is none.
func lastCheck(t *testing.T, srv *githubtest.Server) githubtest.CheckRun {
	t.Helper()
	runs := srv.CheckRuns()
	if len(runs) == 0 {
		t.Fatal("no check run")
	}
	return runs[len(runs)-1]
}

// judgedByVendor puts a suite in the workspace whose judge is a model on the fake vendor,
// paid for with the job's OPENAI_API_KEY.
func judgedByVendor(r *runner, vendor *llmtest.Server) {
	r.Env["OPENAI_API_KEY"] = "sk-live-secret"
	r.Env["FAKE_URL"] = vendor.URL
	r.Env["INPUT_ENV_ALLOW"] = "FAKE_URL"
	vendor.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"checks":[{"id":"greets","satisfied":true,"reasoning":"it does"}]}`}
	}
	r.Write(map[string]string{
		"evals/fork/greet.eval.yaml": "name: greet\nexecution:\n  target: canned\ntests:\n  - id: greet\n    input: say hi\n    assertions:\n      - type: rubrics\n        criteria:\n          - {id: greets, outcome: The answer greets}\n",
		"evals/fork/targets.yaml": "targets:\n  - name: canned\n    provider: mock\n    response: hi\n    grader_target: judge\n" +
			"  - name: judge\n    provider: openai\n    model: gpt-4o-mini\n    api_key: ${{ OPENAI_API_KEY }}\n    base_url: ${{ FAKE_URL }}/v1\n",
	})
}

func TestTrustForkPullRequestTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		allow bool
		// moveHost points the fork's judge at a host the base branch does not configure.
		moveHost bool
	}{{"refused by default", false, false}, {"runs with allow_fork_code", true, false}, {"fork moves the vendor key to its own host", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			vendor := llmtest.New(t)
			srv.Files = []map[string]any{{"filename": "evals/fork/greet.eval.yaml"}}
			r := newRunner(t, srv, "pull_request_target", nil)
			judgedByVendor(r, vendor)
			// The base branch configures the judge's host; the fork's head is a commit on top.
			base := actiontest.CommitWorkspace(t, r.Job)
			if tc.moveHost {
				r.Env["EVIL_URL"] = "http://127.0.0.2:9"
				r.Env["INPUT_ENV_ALLOW"] = "FAKE_URL, EVIL_URL"
				r.Write(map[string]string{"evals/fork/targets.yaml": strings.Replace(r.Read("evals/fork/targets.yaml"), "${{ FAKE_URL }}", "${{ EVIL_URL }}", 1)})
			} else {
				r.Write(map[string]string{"evals/fork/NOTES.md": "a fork's change\n"})
			}
			r.Head = actiontest.CommitWorkspace(t, r.Job)
			ev := actiontest.PREventAt(true, r.Head)
			ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = base
			r.SetEvent("pull_request_target", ev)
			if tc.allow {
				r.Env["INPUT_ALLOW_FORK_CODE"] = "true"
			}
			code, log := r.run()
			switch {
			case !tc.allow:
				if code != 0 || len(srv.Requests()) != 0 || vendor.Count() != 0 {
					t.Fatalf("exit %d, %d GitHub requests, %d vendor calls: a fork ran with the job's secrets\n%s", code, len(srv.Requests()), vendor.Count(), log)
				}
				if s := r.File(r.Summary); !strings.Contains(s, "allow_fork_code") || !strings.Contains(s, "mallory/agents") {
					t.Fatalf("summary does not explain the refusal:\n%s", s)
				}
			case tc.moveHost:
				cr := lastCheck(t, srv)
				if code != errConfig.Code || cr.Conclusion == "success" || vendor.Count() != 0 {
					t.Fatalf("exit %d, check %+v, %d vendor calls: the fork chose where the key goes\n%s", code, cr, vendor.Count(), log)
				}
				if !strings.Contains(log, "127.0.0.2 is not one of them") {
					t.Fatalf("the refusal does not name the host:\n%s", log)
				}
			default:
				cr := lastCheck(t, srv)
				if code != 0 || cr.HeadSHA != r.Head || cr.Conclusion != "success" || vendor.Count() == 0 {
					t.Fatalf("exit %d, check %+v, %d vendor calls\n%s", code, cr, vendor.Count(), log)
				}
				if !strings.Contains(log, "running code from the fork mallory/agents with this job's secrets") || !strings.Contains(log, "reply cache off") {
					t.Fatalf("the opt-in is not logged:\n%s", log)
				}
			}
		})
	}
}

func TestTrustPullRequestTargetWithTheBaseCheckedOut(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/quality.eval.yaml"}}
	r := newRunner(t, srv, "pull_request_target", nil)
	// pull_request_target checks out the base branch by default: HEAD is not the PR head.
	r.SetEvent("pull_request_target", actiontest.PREventAt(false, actiontest.HeadSHA))
	code, log := r.run()
	if code != errConfig.Code || len(srv.CheckRuns()) != 0 || len(srv.Comments(42)) != 0 {
		t.Fatalf("exit %d, check runs %+v, %d comments: results of the base posted on the head\n%s", code, srv.CheckRuns(), len(srv.Comments(42)), log)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "ref: ${{ github.event.pull_request.head.sha }}") {
		t.Fatalf("summary does not say which checkout to use:\n%s", s)
	}
}

func workflowRunEvent(fork bool, head string) map[string]any {
	headRepo := "acme/agents"
	var prs []any
	if fork {
		headRepo = "mallory/agents" // GitHub names no pull request for a fork's run
	} else {
		prs = []any{map[string]any{"number": 42, "head": map[string]any{"sha": head}, "base": map[string]any{"sha": "0a1b2c3d"}}}
	}
	return map[string]any{"action": "completed",
		"workflow_run": map[string]any{"head_sha": head, "head_branch": "feature", "pull_requests": prs,
			"repository": map[string]any{"full_name": "acme/agents"}, "head_repository": map[string]any{"full_name": headRepo}},
		"repository": map[string]any{"full_name": "acme/agents"}}
}

func TestTrustWorkflowRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		fork, ran bool
		checkout  bool // the head commit is checked out
		code      int
	}{
		{"fork refused by default", true, false, true, 0},
		{"same repository runs on its head", false, true, true, 0},
		{"same repository with another commit checked out", false, false, false, errConfig.Code},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.Files = []map[string]any{{"filename": "evals/quality.eval.yaml"}}
			r := newRunner(t, srv, "workflow_run", nil)
			head := actiontest.HeadSHA
			if tc.checkout {
				head = r.Head
			}
			r.SetEvent("workflow_run", workflowRunEvent(tc.fork, head))
			code, log := r.run()
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, log)
			}
			if !tc.ran {
				if len(srv.CheckRuns()) != 0 || len(srv.Comments(42)) != 0 {
					t.Fatalf("posted: %+v\n%s", srv.CheckRuns(), log)
				}
				if s := r.File(r.Summary); !strings.Contains(s, "not run") {
					t.Fatalf("summary does not explain:\n%s", s)
				}
				if tc.fork && !strings.Contains(log, "allow_fork_code") {
					t.Fatalf("log does not name the opt-in:\n%s", log)
				}
				return
			}
			cr := lastCheck(t, srv)
			if cr.HeadSHA != r.Head || cr.Conclusion != "success" || len(srv.Comments(42)) != 1 {
				t.Fatalf("check %+v, %d comments\n%s", cr, len(srv.Comments(42)), log)
			}
		})
	}
}

func TestTrustPushPostsOnTheCheckedOutCommit(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "push", nil)
	r.SetEvent("push", map[string]any{"after": actiontest.HeadSHA, "ref": "refs/heads/main", "repository": map[string]any{"full_name": "acme/agents"}})
	r.Env["INPUT_SUITES"] = "evals/quality.eval.yaml"
	if code, log := r.run(); code != 0 || lastCheck(t, srv).HeadSHA != r.Head {
		t.Fatalf("exit %d, check %+v: want it on the graded HEAD %s\n%s", code, srv.CheckRuns(), r.Head, log)
	}
}

func TestTrustUnreadableCheckoutPostsNothing(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/quality.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	if err := os.RemoveAll(filepath.Join(r.Env["GITHUB_WORKSPACE"], ".git")); err != nil {
		t.Fatal(err)
	}
	code, log := r.run()
	if code == 0 || len(srv.CheckRuns()) != 0 {
		t.Fatalf("exit %d, check runs %+v: posted on a guessed commit\n%s", code, srv.CheckRuns(), log)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "git rev-parse HEAD") {
		t.Fatalf("summary does not explain:\n%s", s)
	}
}
