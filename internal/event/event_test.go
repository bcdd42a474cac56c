package event

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func load(t *testing.T, name, file string) (*Event, error) {
	t.Helper()
	env := map[string]string{
		"GITHUB_EVENT_NAME":  name,
		"GITHUB_EVENT_PATH":  filepath.Join("testdata", file),
		"GITHUB_REPOSITORY":  "acme/agents",
		"GITHUB_SHA":         "ffffeeeeddddccccbbbbaaaa9999888877776666",
		"GITHUB_API_URL":     "https://ghe.example.com/api/v3",
		"GITHUB_SERVER_URL":  "https://ghe.example.com",
		"GITHUB_RUN_ID":      "777",
		"GITHUB_RUN_ATTEMPT": "2",
		"GITHUB_WORKSPACE":   "/github/workspace",
	}
	return Load(func(k string) string { return env[k] }, os.ReadFile)
}

func TestLoad(t *testing.T) {
	t.Parallel()
	const head = "4f1c0d2e9b8a7f6e5d4c3b2a1908f7e6d5c4b3a2"
	tests := []struct {
		name, event, file string
		check             func(t *testing.T, e *Event)
	}{
		{"pull request uses the head sha, not GITHUB_SHA", "pull_request", "pull_request.json", func(t *testing.T, e *Event) {
			if e.HeadSHA != head || e.PR != 42 || e.IsFork || !e.Supported || e.BaseRef != "main" || e.Owner != "acme" || e.Repo != "agents" {
				t.Fatalf("%+v", e)
			}
			if e.APIURL != "https://ghe.example.com/api/v3" || e.RunURL() != "https://ghe.example.com/acme/agents/actions/runs/777" || e.RunAttempt != 2 {
				t.Fatalf("urls: %s %s", e.APIURL, e.RunURL())
			}
		}},
		{"fork pull request", "pull_request", "pull_request_fork.json", func(t *testing.T, e *Event) {
			if !e.IsFork || !e.Supported || e.Sender != "mallory" {
				t.Fatalf("%+v", e)
			}
		}},
		{"closed pull request is ignored", "pull_request", "pull_request_closed.json", func(t *testing.T, e *Event) {
			if e.Supported || e.Why == "" {
				t.Fatalf("%+v", e)
			}
		}},
		{"comment on a PR", "issue_comment", "issue_comment.json", func(t *testing.T, e *Event) {
			if !e.Supported || e.PR != 42 || e.HeadSHA != "" || e.Comment == nil || e.Comment.Author != "bob" || e.Comment.ID != 555 {
				t.Fatalf("%+v %+v", e, e.Comment)
			}
		}},
		{"comment on an issue is ignored", "issue_comment", "issue_comment_issue.json", func(t *testing.T, e *Event) {
			if e.Supported || e.PR != 0 {
				t.Fatalf("%+v", e)
			}
		}},
		{"edited comment is ignored", "issue_comment", "issue_comment_edited.json", func(t *testing.T, e *Event) {
			if e.Supported {
				t.Fatalf("%+v", e)
			}
		}},
		{"push", "push", "push.json", func(t *testing.T, e *Event) {
			if !e.Supported || e.HeadSHA != "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a291807" || e.HeadRef != "main" {
				t.Fatalf("%+v", e)
			}
		}},
		{"workflow_dispatch", "workflow_dispatch", "workflow_dispatch.json", func(t *testing.T, e *Event) {
			if !e.Supported || e.Inputs["suites"] != "evals/**" || e.Inputs["workers"] != "8" || e.HeadSHA != "ffffeeeeddddccccbbbbaaaa9999888877776666" {
				t.Fatalf("%+v", e)
			}
		}},
		{"pull_request_target from a fork", "pull_request_target", "pull_request_fork.json", func(t *testing.T, e *Event) {
			if !e.IsFork || !e.Supported || e.HeadSHA != head || e.HeadRepo != "mallory/agents" {
				t.Fatalf("%+v", e)
			}
		}},
		{"workflow_run from the same repository", "workflow_run", "workflow_run.json", func(t *testing.T, e *Event) {
			if !e.Supported || e.IsFork || e.HeadSHA != head || e.PR != 42 || e.BaseSHA != "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567" || e.HeadRef != "feature" || e.Sender != "alice" {
				t.Fatalf("%+v", e)
			}
		}},
		{"workflow_run from a fork names no pull request", "workflow_run", "workflow_run_fork.json", func(t *testing.T, e *Event) {
			if !e.Supported || !e.IsFork || e.HeadSHA != head || e.PR != 0 || e.HeadRepo != "mallory/agents" {
				t.Fatalf("%+v", e)
			}
		}},
		// GitHub's own example payloads (octokit/webhooks), kept with the action's end-to-end test.
		{"merge group", "merge_group", webhook("merge_group.checks_requested"), func(t *testing.T, e *Event) {
			if !e.Supported || e.IsFork || e.PR != 0 || e.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" || e.BaseSHA != "380387fbc80638b734a49e1be1c4dfec1c01b33c" ||
				e.BaseRef != "main" || e.HeadRef != "gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64" || e.Owner != "acme" {
				t.Fatalf("%+v", e)
			}
		}},
		{"a merge group without commits is ignored", "merge_group", "push.json", func(t *testing.T, e *Event) {
			if e.Supported || e.Why == "" {
				t.Fatalf("%+v", e)
			}
		}},
		{"a push that deletes a tag is ignored", "push", webhook("push.1"), func(t *testing.T, e *Event) {
			if e.Supported || e.Why != "the push deleted refs/tags/simple-tag" {
				t.Fatalf("%+v", e)
			}
		}},
		{"unknown event", "schedule", "push.json", func(t *testing.T, e *Event) {
			if e.Supported || e.Why == "" {
				t.Fatalf("%+v", e)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := load(t, tt.event, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, e)
		})
	}
}

// webhook is an example payload of octokit/webhooks, relative to testdata.
func webhook(name string) string {
	return filepath.Join("..", "..", "action", "testdata", "webhooks", name+".payload.json")
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	if _, err := Load(func(string) string { return "" }, os.ReadFile); err == nil {
		t.Error("no GITHUB_EVENT_NAME accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": bad}
	if _, err := Load(func(k string) string { return env[k] }, os.ReadFile); err == nil {
		t.Error("invalid event JSON accepted")
	}
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		ok   bool
		want Command
	}{
		{"/evalgate rerun", true, Command{Name: "rerun", Args: []string{}}},
		{"Thanks!\n/evalgate rerun evals/billing/**\n", true, Command{Name: "rerun", Args: []string{"evals/billing/**"}}},
		{"  /evalgate   rerun  a b\r\n", true, Command{Name: "rerun", Args: []string{"a", "b"}}},
		{"/evalgaterun", false, Command{}},
		{"/evalgate", false, Command{}},
		{"please run /evalgate rerun", false, Command{}},
		{"> /evalgate rerun", false, Command{}},
		{"```\n/evalgate rerun\n```", false, Command{}},
		{"/EVALGATE rerun", false, Command{}},
	}
	for _, tt := range tests {
		got, ok := ParseCommand(tt.body, "")
		if ok != tt.ok {
			t.Errorf("ParseCommand(%q) ok = %v, want %v", tt.body, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		// EquateEmpty: a command without arguments may carry nil or empty Args.
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("ParseCommand(%q) (-want +got):\n%s", tt.body, diff)
		}
	}
}
