package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// prFilesAll are a pull request's changed files touching every quickstart suite.
var prFilesAll = []map[string]any{
	{"filename": "evals/calculator.eval.yaml", "status": "modified"},
	{"filename": "evals/changelog.eval.yaml", "status": "modified"},
	{"filename": "evals/quality.eval.yaml", "status": "modified"},
	{"filename": "evals/review-legacy.eval.yaml", "status": "modified"},
}

// TestActionShardedEqualsUnsharded runs the quickstart as one job, then as four matrix shards
// and a merge job, against two GitHub fakes: the merge posts exactly one comment and one
// completed check run, equal to the unsharded run's.
func TestActionShardedEqualsUnsharded(t *testing.T) {
	t.Parallel()
	one := githubtest.New(t)
	one.Files = prFilesAll
	r := newRunner(t, one, "pull_request", actiontest.PREvent(false))
	if code, log := r.run(); code != 1 {
		t.Fatalf("unsharded: exit %d (the calculator suite has a gated failure)\n%s", code, log)
	}
	wantComment, wantCheck := onlyResults(t, one)
	reportDir := r.Env["INPUT_REPORT_DIR"]

	sharded := githubtest.New(t)
	sharded.Files = prFilesAll
	r.Srv = sharded
	r.Env["GITHUB_API_URL"] = sharded.APIURL()
	dir := t.TempDir()
	runShards(t, r, dir, 4, 1, 2, 3, 4)
	if n := len(sharded.Comments(42)) + len(sharded.CheckRuns()); n != 0 {
		t.Fatalf("the shards posted %d comment(s) or check run(s); a shard publishes nothing", n)
	}
	// The same report directory as the unsharded run: the comment names it.
	r.Env["INPUT_REPORT_DIR"] = reportDir
	wantResults := r.File(filepath.Join(reportDir, "results.json"))
	if err := os.RemoveAll(reportDir); err != nil {
		t.Fatal(err)
	}
	code, log := r.run()
	if code != 1 {
		t.Fatalf("merge: exit %d, want the unsharded run's 1\n%s", code, log)
	}
	gotComment, gotCheck := onlyResults(t, sharded)
	if actiontest.Untimed(gotComment) != actiontest.Untimed(wantComment) {
		t.Errorf("merged comment differs from the unsharded one:\n--- merged\n%s\n--- unsharded\n%s", gotComment, wantComment)
	}
	if actiontest.Untimed(gotCheck) != actiontest.Untimed(wantCheck) {
		t.Errorf("merged check run differs from the unsharded one:\n--- merged\n%s\n--- unsharded\n%s", gotCheck, wantCheck)
	}
	if got := r.File(filepath.Join(reportDir, "results.json")); actiontest.Untimed(got) != actiontest.Untimed(wantResults) || got == "" {
		t.Errorf("merged results.json differs from the unsharded one:\n--- merged\n%s\n--- unsharded\n%s", got, wantResults)
	}
	for _, f := range []string{"junit.xml", "comment.md", "check-run.json", "index.jsonl"} {
		if _, err := os.Stat(filepath.Join(reportDir, f)); err != nil {
			t.Errorf("merged report: %v", err)
		}
	}
}

// TestActionMissingShardFailsGate merges three of four shards: the fourth's tests are errors
// naming it, and the gate fails.
func TestActionMissingShardFailsGate(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = prFilesAll
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	runShards(t, r, t.TempDir(), 4, 1, 2, 3)
	code, log := r.run()
	if code != 1 {
		t.Fatalf("merge with a missing shard: exit %d, want 1 (gate failed)\n%s", code, log)
	}
	comment, check := onlyResults(t, srv)
	if !strings.HasPrefix(check, "conclusion failure") || !strings.Contains(comment, "shard 4/4") {
		t.Fatalf("the missing shard must fail the gate and be named:\n%s\n%s", check, comment)
	}
}

// onlyResults is the one sticky comment on PR 42 and the one completed check run, as text.
func onlyResults(t *testing.T, srv *githubtest.Server) (comment, check string) {
	t.Helper()
	cs := srv.Comments(42)
	runs := srv.CheckRuns()
	if len(cs) != 1 || len(runs) != 1 {
		t.Fatalf("want exactly one comment and one check run, got %d and %d", len(cs), len(runs))
	}
	cr := runs[0]
	if cr.Status != "completed" {
		t.Fatalf("check run is %s, want completed", cr.Status)
	}
	return cs[0].Body, fmt.Sprintf("conclusion %s\ntitle %s\nsummary %s\ntext %s\nannotations %v", cr.Conclusion, cr.Title, cr.Summary, cr.Text, cr.Annotations)
}

// TestActionShardsOfNothing: a pull request touching no suite still has every shard write its
// (empty) part, and the merge posts the same "no eval suites touched" success an unsharded run
// would, with no comment.
func TestActionShardsOfNothing(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = []map[string]any{{"filename": "README.md", "status": "modified"}}
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	dir := t.TempDir()
	runShards(t, r, dir, 2, 1, 2)
	code, log := r.run()
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, log)
	}
	runs := srv.CheckRuns()
	if len(runs) != 1 || runs[0].Conclusion != "success" || runs[0].Title != "No eval suites touched" || len(srv.Comments(42)) != 0 {
		t.Fatalf("want one success check saying no suite was touched and no comment; got %+v, %d comments", runs, len(srv.Comments(42)))
	}
}

// TestActionShardsThatDisagree: a shard that graded another commit is refused, and the gate's
// check run and the comment fail with the reason rather than stay open, pass or stay stale.
func TestActionShardsThatDisagree(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t)
	srv.Files = prFilesAll
	r := newRunner(t, srv, "pull_request", actiontest.PREvent(false))
	dir := t.TempDir()
	runShards(t, r, dir, 2, 1, 2)
	manifest := filepath.Join(dir, "artifacts", "evalgate-shard-2", "shard.json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), actiontest.HeadSHA, strings.Repeat("e", 40), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, log := r.run()
	if code != 2 {
		t.Fatalf("merge of shards of two commits: exit %d, want 2\n%s", code, log)
	}
	runs := srv.CheckRuns()
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "eeeeeee") {
		t.Fatalf("want one failed check run naming the other commit; got %+v", runs)
	}
	// The sticky comment says the gate was not decided, rather than show an earlier run.
	if cs := srv.Comments(42); len(cs) != 1 || !strings.Contains(cs[0].Body, "could not merge the shards") || !strings.Contains(cs[0].Body, "Not graded") {
		t.Fatalf("a refused merge's comment: %+v", cs)
	}
}

// runShards runs the given shards of n with r, each writing to its artifact directory under
// dir, then points r at the merge of dir/artifacts.
func runShards(t *testing.T, r *runner, dir string, n int, which ...int) {
	t.Helper()
	for _, i := range which {
		r.Env["INPUT_SHARD"] = fmt.Sprintf("%d/%d", i, n)
		r.Env["INPUT_REPORT_DIR"] = filepath.Join(dir, "artifacts", fmt.Sprintf("evalgate-shard-%d", i))
		if code, log := r.run(); code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s", i, n, code, log)
		}
	}
	delete(r.Env, "INPUT_SHARD")
	r.Env["INPUT_MERGE"] = filepath.Join(dir, "artifacts")
	r.Env["INPUT_REPORT_DIR"] = filepath.Join(dir, "report")
}

// TestActionForgedShardIsRefused is attack 6 against the action's merge: the only shard's
// artifact is a consistent partial result of another selection (here made by running the
// shard on a pull request that touches only the suite that passes). The merge job re-plans
// from its own event — the pull request touches every suite — refuses the shard and fails
// the check run instead of passing it.
func TestActionForgedShardIsRefused(t *testing.T) {
	t.Parallel()
	forger := githubtest.New(t)
	forger.Files = []map[string]any{{"filename": "evals/quality.eval.yaml", "status": "modified"}}
	r := newRunner(t, forger, "pull_request", actiontest.PREvent(false))
	runShards(t, r, t.TempDir(), 1, 1)
	srv := githubtest.New(t)
	srv.Files = prFilesAll
	r.Srv = srv
	r.Env["GITHUB_API_URL"] = srv.APIURL()
	code, log := r.run()
	if code != 1 {
		t.Fatalf("merge of a forged shard: exit %d, want 1 (the gate fails)\n%s", code, log)
	}
	if !strings.Contains(log, "REFUSED shard 1/1") || !strings.Contains(log, "not the plan this merge computed") {
		t.Errorf("the log does not name the refusal:\n%s", log)
	}
	_, check := onlyResults(t, srv)
	if !strings.HasPrefix(check, "conclusion failure") || !strings.Contains(check, "was refused") {
		t.Errorf("the check run does not fail naming the refused shard:\n%s", check)
	}
}
