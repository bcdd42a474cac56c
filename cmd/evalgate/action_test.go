package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// runner is one simulated Actions job (actiontest.Job) running the evalgate binary's action
// command in process: what the binary adds to action.Run — masking, the job log's scrubbing
// and workflow-command escaping, exit codes — is tested here; the action's own behaviour is
// tested end to end in internal/action.
type runner struct{ *actiontest.Job }

func newRunner(t *testing.T, srv *githubtest.Server, eventName string, payload map[string]any) *runner {
	t.Helper()
	return &runner{actiontest.New(t, srv, eventName, payload)}
}

// run runs `evalgate action` and returns its exit code and output.
func (r *runner) run() (int, string) {
	ctx, cancel := context.WithTimeout(r.T.Context(), time.Minute)
	defer cancel()
	code, out, errb := r.runArgs(ctx)
	return code, out + errb
}

// runArgs runs the action with extra flags under ctx and returns its stdout and stderr apart.
func (r *runner) runArgs(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runEnv(ctx, append([]string{"action"}, args...), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: r.Getenv, github: github.Options{WriteSpacing: time.Millisecond}})
	return code, out.String(), errb.String()
}

func TestTrustDryRunNeutralisesWorkflowCommands(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "workflow_dispatch", map[string]any{})
	r.Write(map[string]string{
		"evals/evil/evil.eval.yaml": "name: evil\nexecution:\n  target: canned\ntests:\n  - id: evil\n    input: say hi\n    assertions:\n      - type: rubrics\n        criteria:\n          - {id: greets, outcome: The answer greets}\n",
		"evals/evil/targets.yaml": "targets:\n  - name: canned\n    provider: mock\n    response: \"hi\\n::add-mask::x\\n::error::pwned\\n\"\n    grader_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"checks\":[{\"id\":\"greets\",\"satisfied\":false,\"reasoning\":\"no\\n::add-mask::y\"}]}'\n",
	})
	r.Env["INPUT_SUITES"] = "evals/evil/*.eval.yaml"
	code, stdout, log := r.runArgs(t.Context(), "--dry-run")
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

// TestActionDryRunLocally: outside a runner, `evalgate action --dry-run --repo DIR` needs no
// token or event, runs every suite and prints the comment and the check run it would post,
// exiting with the gate's code.
func TestActionDryRunLocally(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	ws := newRunner(t, srv, "workflow_dispatch", nil).Env["GITHUB_WORKSPACE"]
	var out, errb bytes.Buffer
	code := runEnv(t.Context(), []string{"action", "--dry-run", "--repo", ws}, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return map[string]string{"INPUT_REPORT_DIR": t.TempDir()}[k] }})
	if code != exitGateFailed {
		t.Fatalf("exit %d, want %d (the calculator suite has a gated failure)\n%s", code, exitGateFailed, errb.String())
	}
	for _, want := range []string{"<!-- evalgate:comment key=evalgate -->", "add-divide", "changelog-entry"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a dry run called GitHub")
	}
}
