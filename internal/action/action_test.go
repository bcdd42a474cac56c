package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

func TestActionPullRequest(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}, {"filename": "README.md"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	for i := range 3 {
		code, log := r.run()
		if code != 1 {
			t.Fatalf("run %d: exit %d (the calculator suite has a gated failure)\n%s", i, code, log)
		}
	}
	if c := srv.Comments(42); len(c) != 1 || !strings.HasPrefix(c[0].Body, "<!-- evalgate:comment key=evalgate -->") {
		t.Fatalf("want exactly one sticky comment, got %d", len(c))
	}
	runs := srv.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d check runs", len(runs))
	}
	cr := runs[2]
	if cr.HeadSHA != actiontest.HeadSHA || cr.Conclusion != "failure" || cr.Status != "completed" || len(cr.Annotations) == 0 {
		t.Fatalf("check run: sha %s conclusion %s status %s annotations %d", cr.HeadSHA, cr.Conclusion, cr.Status, len(cr.Annotations))
	}
	if p, _ := cr.Annotations[0]["path"].(string); p != "evals/calculator.eval.yaml" {
		t.Fatalf("annotation path %q", p)
	}
	// Only the changed suite ran.
	if body := srv.Comments(42)[0].Body; !strings.Contains(body, "add-divide") || strings.Contains(body, "changelog-entry") {
		t.Fatalf("comment should hold only the calculator suite:\n%s", body)
	}
	var suites []string
	for _, s := range r.Results().Suites {
		suites = append(suites, s.Path)
	}
	if diff := cmp.Diff([]string{"evals/calculator.eval.yaml"}, suites); diff != "" {
		t.Errorf("results.json suites (-want +got):\n%s", diff)
	}
	out := r.Outputs()
	if out["verdict"] != "fail" || out["check-run-id"] != strconv.FormatInt(cr.ID, 10) || out["comment-url"] == "" {
		t.Errorf("outputs %v: want verdict fail, check-run-id %d and a comment-url", out, cr.ID)
	}
	if !strings.Contains(r.File(r.Summary), "add-divide") {
		t.Error("step summary lacks the table")
	}
}

func TestActionNoSuiteTouched(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "docs/intro.md"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	if code, log := r.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if runs := srv.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "success" || runs[0].Title != "No eval suites touched" {
		t.Fatalf("check runs: %+v", runs)
	}
	if len(srv.Comments(42)) != 0 {
		t.Fatal("commented although nothing ran")
	}
}

func TestActionForkPullRequest(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(true))
	if code, log := r.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a fork PR made %d API requests", n)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "fork") {
		t.Fatalf("summary does not explain:\n%s", s)
	}
}

func TestActionRerunCommand(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Permissions = map[string]string{"alice": "write", "mallory": "read"}
	trusted := newRunner(t, srv, "issue_comment", actiontest.Comment("alice"))
	srv.PR = map[string]any{"number": 42,
		"head": map[string]any{"sha": trusted.Head, "repo": map[string]any{"full_name": "acme/agents"}},
		"base": map[string]any{"sha": "0a1b2c3d", "repo": map[string]any{"full_name": "acme/agents"}}}
	seedGate(srv, trusted.Head, "success", "") // the gate the partial rerun builds on

	untrusted := newRunner(t, srv, "issue_comment", actiontest.Comment("mallory"))
	if code, log := untrusted.run(); code != 0 || !strings.Contains(log, "write or admin permission required") {
		t.Fatalf("untrusted: exit %d\n%s", code, log)
	}
	if len(srv.CheckRuns()) != 1 || len(srv.Reactions(555)) != 0 {
		t.Fatal("an untrusted commenter triggered work")
	}

	code, log := trusted.run()
	if code != 0 {
		t.Fatalf("trusted: exit %d\n%s", code, log)
	}
	runs := srv.CheckRuns()
	if len(runs) != 2 || runs[1].HeadSHA != trusted.Head || runs[1].Conclusion != "success" {
		t.Fatalf("rerun check run: %+v", runs)
	}
	if got := strings.Join(srv.Reactions(555), ","); got != "eyes,rocket" {
		t.Fatalf("reactions %q", got)
	}
}

func TestActionRerunNeedsThePRHeadCheckedOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		matchHead bool
	}{{"other commit checked out", false}, {"PR head checked out", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.Permissions = map[string]string{"alice": "write"}
			r := newRunner(t, srv, "issue_comment", actiontest.Comment("alice"))
			head := actiontest.HeadSHA
			if tc.matchHead {
				head = r.Head
			}
			srv.PR = map[string]any{"number": 42,
				"head": map[string]any{"sha": head, "repo": map[string]any{"full_name": "acme/agents"}},
				"base": map[string]any{"sha": "0a1b2c3d", "repo": map[string]any{"full_name": "acme/agents"}}}
			seedGate(srv, head, "success", "")
			code, log := r.run()
			runs := srv.CheckRuns()[1:]
			if tc.matchHead {
				if code != 0 || len(runs) != 1 || runs[0].HeadSHA != head {
					t.Fatalf("exit %d, check runs %+v\n%s", code, runs, log)
				}
				return
			}
			if code != 0 || len(runs) != 0 || !strings.Contains(log, "rerun refused") {
				t.Fatalf("exit %d, check runs %+v\n%s", code, runs, log)
			}
			if got := strings.Join(srv.Reactions(555), ","); got != "confused" {
				t.Errorf("reactions %q, want confused", got)
			}
			if s := r.File(r.Summary); !strings.Contains(s, "refs/pull/${{ github.event.issue.number }}/head") {
				t.Errorf("summary does not say how to fix it:\n%s", s)
			}
		})
	}
}

func TestActionReadOnlyTokenFallsBackToSummary(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml"}}
	forbidden := githubtest.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration"}`, Times: 10}
	srv.Fail(githubtest.CreateCheck, forbidden)
	srv.Fail(githubtest.CreateComment, forbidden)
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	code, log := r.run()
	if code != 1 {
		t.Fatalf("exit %d: the gate still follows the results\n%s", code, log)
	}
	if srv.Count(githubtest.CreateCheck) != 1 || srv.Count(githubtest.CreateComment) != 0 {
		t.Fatalf("a 403 was retried or writes went on: %d check creates, %d comment creates", srv.Count(githubtest.CreateCheck), srv.Count(githubtest.CreateComment))
	}
	if s := r.File(r.Summary); !strings.Contains(s, "read-only") || !strings.Contains(s, "add-divide") {
		t.Fatalf("summary lacks the fallback:\n%s", s)
	}
}

func TestActionCommentTooLongIsShortened(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml"}}
	srv.Fail(githubtest.CreateComment, githubtest.Fault{Status: 422,
		Body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}]}`})
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	if code, log := r.run(); code != 1 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	c := srv.Comments(42)
	if len(c) != 1 || len(c[0].Body) > 16*1024 || strings.Count(c[0].Body, "<details>") != strings.Count(c[0].Body, "</details>") {
		t.Fatalf("want one shortened, balanced comment; got %d", len(c))
	}
}

func TestActionConclusions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, conclusion string
		code             int
	}{
		{"evals/quality.eval.yaml", "success", 0},       // pass
		{"evals/review-legacy.eval.yaml", "neutral", 0}, // borderline
		{"evals/calculator.eval.yaml", "failure", 1},    // a required gate fails
		{"evals/changelog.eval.yaml", "failure", 1},     // the judge never returns a criterion: error
	} {
		t.Run(tc.conclusion+" "+tc.file, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			srv.Files = []map[string]any{{"filename": tc.file}}
			r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
			code, log := r.run()
			runs := srv.CheckRuns()
			if code != tc.code || len(runs) != 1 || runs[0].Conclusion != tc.conclusion || runs[0].HeadSHA != actiontest.HeadSHA {
				t.Fatalf("exit %d, check runs %+v; want exit %d and %s\n%s", code, runs, tc.code, tc.conclusion, log)
			}
		})
	}
}

func TestActionAnnotationsInBatches(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/many.eval.yaml"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	var suite, reply strings.Builder
	suite.WriteString("name: many\nexecution:\n  target: canned\ntests:\n  - id: everything\n    input: do it all\n    assertions:\n      - type: rubrics\n        criteria:\n")
	reply.WriteString(`{"checks":[`)
	for i := range 120 {
		fmt.Fprintf(&suite, "          - {id: c%03d, outcome: criterion %d}\n", i, i)
		if i > 0 {
			reply.WriteString(",")
		}
		fmt.Fprintf(&reply, `{"id":"c%03d","satisfied":false,"reasoning":"no"}`, i)
	}
	reply.WriteString(`]}`)
	targets := "targets:\n  - name: canned\n    provider: mock\n    response: done\n    grader_target: judge\n  - name: judge\n    provider: mock\n    response: '" + reply.String() + "'\n"
	ws := r.Env["GITHUB_WORKSPACE"]
	for name, body := range map[string]string{"evals/many.eval.yaml": suite.String(), "evals/targets.yaml": targets} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, log := r.run(); code != 1 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	// The gate is completed in one request carrying the 50 most important annotations; all
	// 120 are in check-run.json, and the check run's text says so.
	runs := srv.CheckRuns()
	if len(runs) != 1 || fmt.Sprint(runs[0].Batches) != "[50]" || srv.Count(githubtest.UpdateCheck) != 1 {
		t.Fatalf("annotation batches %v in %d updates, want [50] in the one that completes the check", runs[0].Batches, srv.Count(githubtest.UpdateCheck))
	}
	if line, _ := runs[0].Annotations[0]["start_line"].(float64); line != 10 {
		t.Fatalf("first annotation on line %v, want the criterion's line 10", line)
	}
	if !strings.Contains(runs[0].Text, "the 50 most important of 120") {
		t.Fatalf("the check run does not say annotations were left out: %.300s", runs[0].Text)
	}
	raw, err := os.ReadFile(filepath.Join(r.Env["INPUT_REPORT_DIR"], "check-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Annotations []map[string]any }
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Annotations) != 120 {
		t.Fatalf("check-run.json: %d annotations (%v), want all 120", len(file.Annotations), err)
	}
}

// TestActionMergeGroup runs the quickstart in a merge queue: the suites the group's change
// touches (from the compare API) run, the check run goes on the group's head, and no PR is
// commented on.
func TestActionMergeGroup(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.CompareFiles = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	r := newRunner(t, srv, "merge_group", nil)
	b, _ := json.Marshal(map[string]any{"action": "checks_requested",
		"merge_group": map[string]any{"head_sha": r.Head, "base_sha": "0a1b2c3d", "head_ref": "refs/heads/gh-readonly-queue/main/pr-42-0a1b2c3d", "base_ref": "refs/heads/main"},
		"repository":  map[string]any{"full_name": "acme/agents"}})
	if err := os.WriteFile(r.Env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, log := r.run()
	if code != 1 {
		t.Fatalf("exit %d (the calculator suite has a gated failure)\n%s", code, log)
	}
	runs := srv.CheckRuns()
	if len(runs) != 1 || runs[0].HeadSHA != r.Head || runs[0].Conclusion != "failure" {
		t.Fatalf("check runs %+v, want one failure on the group's head %s", runs, r.Head)
	}
	if n := srv.Count(githubtest.CreateComment) + srv.Count(githubtest.ListComments); n != 0 {
		t.Fatalf("a merge group made %d comment requests", n)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "add-divide") || strings.Contains(s, "changelog-entry") {
		t.Fatalf("the summary should hold only the calculator suite:\n%s", s)
	}
	if out := r.Outputs(); out["verdict"] != "fail" {
		t.Fatalf("outputs %v, want verdict fail", out)
	}
}

// TestActionConfigErrorReplacesComment: a configuration error after an earlier run replaces
// the sticky comment, fails the check run, and fills the summary and outputs; the log has no
// escaped line breaks.
func TestActionConfigErrorReplacesComment(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "evals/calculator.eval.yaml", "status": "modified"}}
	srv.AddComment(42, srv.BotLogin, "<!-- evalgate:comment key=evalgate -->\n## ✅ evalgate: all 9 tests passed (an earlier run)")
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	r.Env["INPUT_TARGET"] = "no-such-target"
	code, log := r.run()
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, log)
	}
	cs := srv.Comments(42)
	if len(cs) != 1 || strings.Contains(cs[0].Body, "earlier run)") || !strings.Contains(cs[0].Body, "no-such-target") || !strings.Contains(cs[0].Body, "evals/calculator.eval.yaml") {
		t.Fatalf("comment %+v: want the earlier run replaced by the error and what did not run", cs)
	}
	if runs := srv.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "failure" || runs[0].HeadSHA != actiontest.HeadSHA {
		t.Fatalf("check runs %+v", runs)
	}
	if s := r.File(r.Summary); !strings.Contains(s, "no-such-target") {
		t.Fatalf("summary:\n%s", s)
	}
	if out := r.Outputs(); out["verdict"] != "error" {
		t.Fatalf("outputs %v, want verdict error", out)
	}
	if strings.Contains(log, `\n`) {
		t.Fatalf("the log has an escaped line break:\n%s", log)
	}
}
