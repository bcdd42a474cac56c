package action

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// TestWebhookEvents drives GitHub's own example payload of every event evalgate handles
// (testdata/webhooks, from octokit/webhooks) through the action, with the GitHub fake behind
// the real client: which suites run, which commit the check run goes on, whether the PR gets
// the sticky comment, and what the outputs say.
func TestWebhookEvents(t *testing.T) {
	t.Parallel()
	const (
		prHead    = "ec26c3e57ca3a959ca5aad62de7213c562f8c821" // pull_request.head.sha
		groupHead = "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" // merge_group.head_sha
		groupBase = "380387fbc80638b734a49e1be1c4dfec1c01b33c"
		pushed    = "6113728f27ae82c7b1a177c8d03f9e96e0adf246" // push.after
		runHead   = "3484a3fb816e0859fd6e1cea078d76385ff50625" // workflow_run.head_sha
		rerunHead = "abcdefabcdefabcdefabcdefabcdefabcdef0001" // the PR head when the command arrives
		dispatch  = "ffffeeeeddddccccbbbbaaaa9999888877776666" // GITHUB_SHA
	)
	tests := []struct {
		name, event, payload string
		edit                 func(map[string]any)
		setup                func(j *job)
		head                 string   // the checkout; "" runs nothing
		ran                  []string // the suites run
		check                string   // the commit the check run goes on ("" none)
		comment              int      // the PR the sticky comment goes on (0 none)
		verdict              string
		requests             []string // routes that must have been called
	}{
		{name: "pull_request synchronize runs the suites the PR touches", event: "pull_request", payload: "pull_request.synchronize",
			head: prHead, ran: []string{billingSuite}, check: prHead, comment: 2, verdict: "pass", requests: []string{githubtest.ListFiles}},
		{name: "issue_comment on an issue does nothing", event: "issue_comment", payload: "issue_comment.created",
			verdict: "skip"},
		{name: "issue_comment rerun on a PR grades the head read when it arrives", event: "issue_comment", payload: "issue_comment.created",
			edit: func(m map[string]any) {
				m["issue"].(map[string]any)["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
				m["comment"].(map[string]any)["body"] = "Looks fixed.\n/evalgate rerun"
			},
			setup: func(j *job) {
				j.srv.Permissions["Codertocat"] = "admin"
				j.srv.PR = map[string]any{"number": 1,
					"head": map[string]any{"sha": rerunHead, "ref": "changes", "repo": map[string]any{"full_name": "Codertocat/Hello-World"}},
					"base": map[string]any{"sha": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "ref": "master", "repo": map[string]any{"full_name": "Codertocat/Hello-World"}}}
			},
			head: rerunHead, ran: []string{billingSuite}, check: rerunHead, comment: 1, verdict: "pass",
			requests: []string{githubtest.GetPermission, githubtest.GetPull, githubtest.ListFiles, githubtest.CreateReaction}},
		{name: "merge_group runs what the queued change touches, on the group's head, without a comment", event: "merge_group", payload: "merge_group.checks_requested",
			head: groupHead, ran: []string{supportSuite}, check: groupHead, verdict: "pass", requests: []string{githubtest.Compare}},
		{name: "push runs every suite on the pushed commit", event: "push", payload: "push.with-new-branch",
			head: pushed, ran: []string{billingSuite, supportSuite}, check: pushed, verdict: "pass"},
		{name: "a push deleting a tag does nothing", event: "push", payload: "push.1", verdict: "skip"},
		{name: "workflow_dispatch runs every suite on GITHUB_SHA", event: "workflow_dispatch", payload: "workflow_dispatch",
			head: dispatch, ran: []string{billingSuite, supportSuite}, check: dispatch, verdict: "pass"},
		{name: "workflow_run of a PR runs the suites it touches and comments", event: "workflow_run", payload: "workflow_run.completed.with-pull-requests",
			head: runHead, ran: []string{billingSuite}, check: runHead, comment: 2, verdict: "pass", requests: []string{githubtest.ListFiles}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := newJob(t, tt.event, webhookPayload(t, tt.payload), tt.edit)
			j.head = tt.head
			// The PR changes the billing suite; the merge group's change is the support suite.
			j.srv.Files = []map[string]any{{"filename": billingSuite, "status": "modified"}, {"filename": "README.md", "status": "modified"}}
			j.srv.CompareFiles = []map[string]any{{"filename": supportSuite, "status": "modified"}}
			if tt.setup != nil {
				tt.setup(j)
			}
			if err := j.run(t.Context()); err != nil {
				t.Fatalf("Run: %v\n%s", err, j.logText())
			}
			if got := j.ranSuites(); !slices.Equal(got, tt.ran) {
				t.Errorf("ran %v, want %v\n%s", got, tt.ran, j.logText())
			}
			// What the selection left out goes with the job, for the comment to name.
			if tt.ran != nil {
				var want, got []string
				for _, s := range []string{billingSuite, supportSuite} {
					if !slices.Contains(tt.ran, s) {
						want = append(want, s)
					}
				}
				for _, u := range j.ran[0].Unselected {
					got = append(got, u.Path)
				}
				if !slices.Equal(got, want) {
					t.Errorf("unselected %v, want %v", got, want)
				}
			}
			runs := j.srv.CheckRuns()
			switch {
			case tt.check == "" && len(runs) != 0:
				t.Errorf("check runs %+v, want none", runs)
			case tt.check != "" && (len(runs) != 1 || runs[0].HeadSHA != tt.check || runs[0].Status != "completed" || runs[0].Conclusion != "success"):
				t.Errorf("check runs %+v, want one completed success on %s", runs, tt.check)
			}
			for _, pr := range []int{1, 2} {
				want := 0
				if pr == tt.comment {
					want = 1
				}
				cs := j.srv.Comments(pr)
				if len(cs) != want || (want == 1 && !strings.Contains(cs[0].Body, "<!-- evalgate:comment key=evalgate -->")) {
					t.Errorf("PR #%d has comments %+v, want %d sticky comment(s)", pr, cs, want)
				}
			}
			if tt.comment == 0 && j.srv.Count(githubtest.CreateComment)+j.srv.Count(githubtest.ListComments) != 0 {
				t.Errorf("the action looked for a PR comment on %s", tt.event)
			}
			for _, route := range tt.requests {
				if j.srv.Count(route) == 0 {
					t.Errorf("no %s request", route)
				}
			}
			if tt.ran == nil && len(j.srv.Requests()) != 0 {
				t.Errorf("an event with nothing to do called the API: %+v", j.srv.Requests())
			}
			out := j.outputs()
			if out["verdict"] != tt.verdict {
				t.Errorf("outputs %v, want verdict %s", out, tt.verdict)
			}
			if tt.ran != nil && (out["passed"] != fmt.Sprint(len(tt.ran)) || !strings.Contains(j.summary(), "evalgate")) {
				t.Errorf("outputs %v, summary %q: want %d passed and a summary", out, j.summary(), len(tt.ran))
			}
		})
	}
}

// TestMergeGroupCompare checks the merge group's diff: the compare API is asked for exactly
// base_sha...head_sha, and past its cap the suites come from git diff of the checkout instead.
func TestMergeGroupCompare(t *testing.T) {
	t.Parallel()
	t.Run("compare API", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, "merge_group", webhookPayload(t, "merge_group.checks_requested"), nil)
		j.head = "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"
		j.srv.CompareFiles = []map[string]any{{"filename": supportSuite}}
		if err := j.run(t.Context()); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, r := range j.srv.Requests() {
			if r.Route == githubtest.Compare {
				paths = append(paths, r.Path)
			}
		}
		want := githubtest.Prefix + "repos/octo-org/octo-repo/compare/380387fbc80638b734a49e1be1c4dfec1c01b33c...2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"
		if len(paths) != 1 || paths[0] != want {
			t.Fatalf("compare requests %v, want [%s]", paths, want)
		}
	})
	t.Run("git diff past the cap", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, "merge_group", webhookPayload(t, "merge_group.checks_requested"), nil)
		base := commit(t, j.dir, map[string]string{billingSuite: "a", supportSuite: "a"})
		head := commit(t, j.dir, map[string]string{supportSuite: "b"})
		j.rewrite(func(m map[string]any) {
			g := m["merge_group"].(map[string]any)
			g["base_sha"], g["head_sha"] = base, head
		})
		j.head = head
		for i := range 300 {
			j.srv.CompareFiles = append(j.srv.CompareFiles, map[string]any{"filename": fmt.Sprintf("docs/%03d.md", i)})
		}
		if err := j.run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := j.ranSuites(); !slices.Equal(got, []string{supportSuite}) || j.srv.Count(githubtest.Compare) != 1 {
			t.Fatalf("ran %v after %d compare request(s), want the support suite from git diff\n%s", got, j.srv.Count(githubtest.Compare), j.logText())
		}
		if runs := j.srv.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != head {
			t.Fatalf("check runs %+v, want one on %s", runs, head)
		}
	})
}

// commit writes files into the git repository at dir (creating it) and commits them.
func commit(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		git("init", "-q")
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", name)
	}
	git("commit", "-q", "-m", "c")
	return git("rev-parse", "HEAD")
}
