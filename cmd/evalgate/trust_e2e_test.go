package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
)

// End-to-end tests of the trust model (docs/security.md): the action binary, in process,
// against the GitHub fake, on workspaces that are git repositories whose HEAD the events name.

// runArgs runs the action with extra flags under ctx and returns its stdout and stderr apart.
func (r *runner) runArgs(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runEnv(ctx, append([]string{"action"}, args...), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return r.env[k] }, github: github.Options{WriteSpacing: time.Millisecond}})
	return code, out.String(), errb.String()
}

// setEvent replaces the job's event.
func (r *runner) setEvent(name string, payload map[string]any) {
	r.t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		r.t.Fatal(err)
	}
	r.env["GITHUB_EVENT_NAME"] = name
	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// write adds files to the workspace after its commit (HEAD stays what the event names).
func (r *runner) write(files map[string]string) {
	r.t.Helper()
	for name, body := range files {
		path := filepath.Join(r.env["GITHUB_WORKSPACE"], name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// read returns a workspace file's content.
func (r *runner) read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.env["GITHUB_WORKSPACE"], name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// prEventAt is a pull request event whose head is sha.
func prEventAt(fork bool, sha string) map[string]any {
	ev := prEvent(fork)
	ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	return ev
}

// rerunComment is a PR comment by alice (who has write access) with body.
func rerunComment(body string) map[string]any {
	ev := comment("alice")
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
	r.env["OPENAI_API_KEY"] = "sk-live-secret"
	r.env["FAKE_URL"] = vendor.URL
	r.env["INPUT_ENV_ALLOW"] = "FAKE_URL"
	vendor.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"checks":[{"id":"greets","satisfied":true,"reasoning":"it does"}]}`}
	}
	r.write(map[string]string{
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
			base := commitWorkspace(t, r)
			if tc.moveHost {
				r.env["EVIL_URL"] = "http://127.0.0.2:9"
				r.env["INPUT_ENV_ALLOW"] = "FAKE_URL, EVIL_URL"
				r.write(map[string]string{"evals/fork/targets.yaml": strings.Replace(r.read("evals/fork/targets.yaml"), "${{ FAKE_URL }}", "${{ EVIL_URL }}", 1)})
			} else {
				r.write(map[string]string{"evals/fork/NOTES.md": "a fork's change\n"})
			}
			r.head = commitWorkspace(t, r)
			ev := prEventAt(true, r.head)
			ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = base
			r.setEvent("pull_request_target", ev)
			if tc.allow {
				r.env["INPUT_ALLOW_FORK_CODE"] = "true"
			}
			code, log := r.run()
			switch {
			case !tc.allow:
				if code != 0 || len(srv.Requests()) != 0 || vendor.Count() != 0 {
					t.Fatalf("exit %d, %d GitHub requests, %d vendor calls: a fork ran with the job's secrets\n%s", code, len(srv.Requests()), vendor.Count(), log)
				}
				if s := r.file(r.summary); !strings.Contains(s, "allow_fork_code") || !strings.Contains(s, "mallory/agents") {
					t.Fatalf("summary does not explain the refusal:\n%s", s)
				}
			case tc.moveHost:
				cr := lastCheck(t, srv)
				if code != exitUsage || cr.Conclusion == "success" || vendor.Count() != 0 {
					t.Fatalf("exit %d, check %+v, %d vendor calls: the fork chose where the key goes\n%s", code, cr, vendor.Count(), log)
				}
				if !strings.Contains(log, "127.0.0.2 is not one of them") {
					t.Fatalf("the refusal does not name the host:\n%s", log)
				}
			default:
				cr := lastCheck(t, srv)
				if code != 0 || cr.HeadSHA != r.head || cr.Conclusion != "success" || vendor.Count() == 0 {
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
	r.setEvent("pull_request_target", prEventAt(false, headSHA))
	code, log := r.run()
	if code != exitUsage || len(srv.CheckRuns()) != 0 || len(srv.Comments(42)) != 0 {
		t.Fatalf("exit %d, check runs %+v, %d comments: results of the base posted on the head\n%s", code, srv.CheckRuns(), len(srv.Comments(42)), log)
	}
	if s := r.file(r.summary); !strings.Contains(s, "ref: ${{ github.event.pull_request.head.sha }}") {
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
		{"same repository with another commit checked out", false, false, false, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.Files = []map[string]any{{"filename": "evals/quality.eval.yaml"}}
			r := newRunner(t, srv, "workflow_run", nil)
			head := headSHA
			if tc.checkout {
				head = r.head
			}
			r.setEvent("workflow_run", workflowRunEvent(tc.fork, head))
			code, log := r.run()
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, log)
			}
			if !tc.ran {
				if len(srv.CheckRuns()) != 0 || len(srv.Comments(42)) != 0 {
					t.Fatalf("posted: %+v\n%s", srv.CheckRuns(), log)
				}
				if s := r.file(r.summary); !strings.Contains(s, "not run") {
					t.Fatalf("summary does not explain:\n%s", s)
				}
				if tc.fork && !strings.Contains(log, "allow_fork_code") {
					t.Fatalf("log does not name the opt-in:\n%s", log)
				}
				return
			}
			cr := lastCheck(t, srv)
			if cr.HeadSHA != r.head || cr.Conclusion != "success" || len(srv.Comments(42)) != 1 {
				t.Fatalf("check %+v, %d comments\n%s", cr, len(srv.Comments(42)), log)
			}
		})
	}
}

func TestTrustPushPostsOnTheCheckedOutCommit(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "push", nil)
	r.setEvent("push", map[string]any{"after": headSHA, "ref": "refs/heads/main", "repository": map[string]any{"full_name": "acme/agents"}})
	r.env["INPUT_SUITES"] = "evals/quality.eval.yaml"
	if code, log := r.run(); code != 0 || lastCheck(t, srv).HeadSHA != r.head {
		t.Fatalf("exit %d, check %+v: want it on the graded HEAD %s\n%s", code, srv.CheckRuns(), r.head, log)
	}
}

func TestTrustUnreadableCheckoutPostsNothing(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/quality.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", prEvent(false))
	if err := os.RemoveAll(filepath.Join(r.env["GITHUB_WORKSPACE"], ".git")); err != nil {
		t.Fatal(err)
	}
	code, log := r.run()
	if code == 0 || len(srv.CheckRuns()) != 0 {
		t.Fatalf("exit %d, check runs %+v: posted on a guessed commit\n%s", code, srv.CheckRuns(), log)
	}
	if s := r.file(r.summary); !strings.Contains(s, "git rev-parse HEAD") {
		t.Fatalf("summary does not explain:\n%s", s)
	}
}

func TestTrustDryRunNeutralisesWorkflowCommands(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "workflow_dispatch", map[string]any{})
	r.write(map[string]string{
		"evals/evil/evil.eval.yaml": "name: evil\nexecution:\n  target: canned\ntests:\n  - id: evil\n    input: say hi\n    assertions:\n      - type: rubrics\n        criteria:\n          - {id: greets, outcome: The answer greets}\n",
		"evals/evil/targets.yaml": "targets:\n  - name: canned\n    provider: mock\n    response: \"hi\\n::add-mask::x\\n::error::pwned\\n\"\n    grader_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"checks\":[{\"id\":\"greets\",\"satisfied\":false,\"reasoning\":\"no\\n::add-mask::y\"}]}'\n",
	})
	r.env["INPUT_SUITES"] = "evals/evil/*.eval.yaml"
	code, stdout, log := r.runArgs(context.Background(), "--dry-run")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	if !strings.Contains(stdout, "::add-mask::x") {
		t.Fatalf("the comment does not carry the answer:\n%s", stdout)
	}
	for name, out := range map[string]string{"stdout": stdout, "log": log} {
		if line, ok := liveCommand(out); ok {
			t.Fatalf("%s: the runner would honour %q:\n%s", name, line, out)
		}
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a dry run called GitHub")
	}
}

// liveCommand returns the first line the Actions runner would honour as a workflow command:
// one starting with "::" outside a ::stop-commands:: pause.
func liveCommand(out string) (string, bool) {
	stop := ""
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r", "\n"), "\n") {
		l := strings.TrimLeft(line, " ")
		switch {
		case stop != "" && l == "::"+stop+"::":
			stop = ""
		case stop != "":
		case strings.HasPrefix(l, "::stop-commands::"):
			stop = strings.TrimPrefix(l, "::stop-commands::")
		case strings.HasPrefix(l, "::"):
			return l, true
		}
	}
	return "", false
}
