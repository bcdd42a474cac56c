package baseline

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
)

// zipOf builds a zip of name → content entries, in order.
func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtract(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200)
	tests := []struct {
		name    string
		zip     []byte
		want    string
		wantErr string
	}{
		{"top-level file", zipOf(t, "junit.xml", "<x/>", "results.json", `{"ok":1}`), `{"ok":1}`, ""},
		{"traversal names never match", zipOf(t, "../results.json", "evil", "/results.json", "evil", "a/../results.json", "evil", `..\results.json`, "evil"), "", "no results.json at its top level"},
		{"traversal beside the real one is ignored", zipOf(t, "../../etc/passwd", "evil", "results.json", "good"), "good", ""},
		{"nested is not top level", zipOf(t, "report/results.json", "x"), "", "no results.json"},
		{"twice is ambiguous", zipOf(t, "results.json", "a", "results.json", "b"), "", "twice"},
		{"over the cap", zipOf(t, "results.json", big), "", "over the 100-byte limit"},
		{"not a zip", []byte("<html>sign in</html>"), "", "read zip"},
		{"empty", nil, "", "read zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := extract(tt.zip, resultsFile, 100)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestExtractLyingHeader: a central directory claiming a small size does not let more bytes
// through (archive/zip stops at the claimed size; the capped read is the second guard).
func TestExtractLyingHeader(t *testing.T) {
	t.Parallel()
	z := zipOf(t, "results.json", strings.Repeat("y", 500))
	cd := bytes.LastIndex(z, []byte("PK\x01\x02"))
	if cd < 0 {
		t.Fatal("no central directory header")
	}
	binary.LittleEndian.PutUint32(z[cd+24:], 10) // uncompressed size
	b, err := extract(z, resultsFile, 100)
	if err == nil {
		t.Fatalf("a 500-byte entry claiming 10 bytes was read: %d bytes", len(b))
	}
}

// seed is one workflow run of the fake and, when zip is set, its evalgate-report artifact.
type seed struct {
	run     githubtest.WorkflowRun
	zip     []byte
	expired bool
	name    string // the artifact name (DefaultArtifact when empty)
}

func TestFind(t *testing.T) {
	t.Parallel()
	good := zipOf(t, "results.json", `{"schema_version":1}`)
	bad := zipOf(t, "results.json", "{}")
	push := func(sha string) githubtest.WorkflowRun {
		return githubtest.WorkflowRun{Workflow: "evals.yml", HeadBranch: "main", HeadSHA: sha}
	}
	with := func(r githubtest.WorkflowRun, f func(*githubtest.WorkflowRun)) githubtest.WorkflowRun {
		f(&r)
		return r
	}
	check := func(b []byte) error {
		if !bytes.Contains(b, []byte("schema_version")) {
			return errors.New("no schema_version")
		}
		return nil
	}
	tests := []struct {
		name     string
		seeds    []seed // oldest first
		q        func(q *Query, job int64)
		fault    string // a route that answers 404 once
		wantSeed int    // the seed whose artifact is found
		onCommit bool
		skipped  int
		wantErr  string
	}{
		{name: "the base commit's push run, though a branch run is newer",
			seeds: []seed{{run: push("base"), zip: good}, {run: push("later"), zip: good}}, wantSeed: 0, onCommit: true},
		{name: "a comment rerun, a schedule, a dispatch and a pull request run on the base commit are not taken",
			seeds: []seed{{run: push("older"), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Event = "issue_comment" }), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Event = "schedule" }), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Event = "workflow_dispatch" }), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Event = "pull_request" }), zip: good}},
			wantSeed: 0},
		{name: "another workflow's push run on the base commit is not taken",
			seeds:    []seed{{run: push("older"), zip: good}, {run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Workflow = "nightly.yml" }), zip: good}},
			wantSeed: 0},
		{name: "a push to another branch is not taken",
			seeds:   []seed{{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.HeadBranch = "release" }), zip: good}},
			wantErr: "no completed push run of the workflow evals.yml on the base branch main"},
		{name: "a run whose gate failed is taken",
			seeds:    []seed{{run: push("older"), zip: good}, {run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Conclusion = "failure" }), zip: good}},
			wantSeed: 1, onCommit: true},
		{name: "a cancelled or unfinished run is not taken",
			seeds: []seed{{run: push("older"), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Status, r.Conclusion = "in_progress", "" }), zip: good},
				{run: with(push("base"), func(r *githubtest.WorkflowRun) { r.Conclusion = "cancelled" }), zip: good}},
			wantSeed: 0, skipped: 1},
		{name: "a damaged newest artifact is skipped for an older good one on the base commit",
			seeds: []seed{{run: push("base"), zip: good}, {run: push("base"), zip: []byte("not a zip")}}, wantSeed: 0, onCommit: true, skipped: 1},
		{name: "a damaged base commit falls back to an older branch run, never a later one",
			seeds: []seed{{run: push("older"), zip: good}, {run: push("base"), zip: bad}, {run: push("later"), zip: good}}, wantSeed: 0, skipped: 1},
		{name: "no run on the base commit: the newest on the branch",
			seeds: []seed{{run: push("old"), zip: good}, {run: push("newer"), zip: good}}, wantSeed: 1},
		{name: "expired, missing and oversized artifacts are skipped without a download",
			seeds:    []seed{{run: push("a"), zip: good}, {run: push("b"), zip: good, expired: true}, {run: push("c")}, {run: push("d"), zip: good, name: "other"}},
			wantSeed: 0, skipped: 3},
		{name: "the run bound",
			seeds:   []seed{{run: push("a"), zip: good}, {run: push("b")}, {run: push("c")}, {run: push("d")}, {run: push("e")}, {run: push("f")}},
			wantErr: "in the 5 newest completed push runs"},
		{name: "the download bound",
			seeds:   []seed{{run: push("a"), zip: good}, {run: push("b"), zip: bad}, {run: push("c"), zip: bad}, {run: push("d"), zip: bad}},
			wantErr: "at most 5 runs and 3 downloads"},
		{name: "wrong schema everywhere",
			seeds: []seed{{run: push("base"), zip: bad}}, wantErr: "results.json: no schema_version"},
		{name: "the workflow found from the job's run", q: func(q *Query, job int64) { q.Workflow, q.RunID = "", job },
			seeds: []seed{{run: push("base"), zip: good}}, wantSeed: 0, onCommit: true},
		{name: "an unknown workflow file is a 404", q: func(q *Query, _ int64) { q.Workflow = "gone.yml" },
			seeds: []seed{{run: push("base"), zip: good}}, wantErr: "404"},
		{name: "listing a run's artifacts fails", fault: githubtest.ListRunArtifacts,
			seeds: []seed{{run: push("base"), zip: good}}, wantErr: "404"},
		{name: "a download 404 is a skip", fault: githubtest.DownloadArtifact,
			seeds: []seed{{run: push("older"), zip: good}, {run: push("base"), zip: good}}, wantSeed: 0, skipped: 1},
		{name: "no base branch", q: func(q *Query, _ int64) { q.BaseRef = "" }, wantErr: "no base branch"},
		{name: "no workflow", q: func(q *Query, _ int64) { q.Workflow = "" }, wantErr: "neither GITHUB_WORKFLOW_REF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			var arts []int64
			for _, sd := range tt.seeds {
				id := srv.AddWorkflowRun(sd.run)
				var art int64
				if sd.zip != nil {
					art = srv.AddArtifact(githubtest.Artifact{Name: cmpOr(sd.name, DefaultArtifact), RunID: id, Expired: sd.expired, Zip: sd.zip})
				}
				arts = append(arts, art)
			}
			job := srv.AddWorkflowRun(githubtest.WorkflowRun{Workflow: "evals.yml", Event: "pull_request", HeadBranch: "feature", HeadSHA: "head"})
			if tt.fault != "" {
				srv.Fail(tt.fault, githubtest.Fault{Status: http.StatusNotFound, Body: `{"message":"Not Found"}`})
			}
			q := Query{Artifact: DefaultArtifact, Workflow: "evals.yml", BaseSHA: "base", BaseRef: "main", Check: check}
			if tt.q != nil {
				tt.q(&q, job)
			}
			c, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{Sleep: func(context.Context, time.Duration) error { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			f, err := Find(t.Context(), c.Repo("acme", "agents"), q)
			if n := len(srv.BlobRequests()); n > maxDownloads {
				t.Errorf("%d downloads, over the bound %d", n, maxDownloads)
			}
			if n := srv.Count(githubtest.ListRunArtifacts); n > maxRuns {
				t.Errorf("%d runs' artifacts listed, over the bound %d", n, maxRuns)
			}
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrNone with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Artifact.ID != arts[tt.wantSeed] || f.OnCommit != tt.onCommit || !bytes.Contains(f.Results, []byte("schema_version")) {
				t.Errorf("found artifact %d (on commit %v, %q), want %d (%v)", f.Artifact.ID, f.OnCommit, f.Results, arts[tt.wantSeed], tt.onCommit)
			}
			if f.Run.Event != "push" || f.Run.HeadBranch != "main" || f.Run.ID != f.Artifact.RunID {
				t.Errorf("run %+v for artifact %+v", f.Run, f.Artifact)
			}
			if len(f.Skipped) != tt.skipped {
				t.Errorf("skipped %q, want %d", f.Skipped, tt.skipped)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestWorkflowFile(t *testing.T) {
	t.Parallel()
	tests := []struct{ ref, repo, want string }{
		{"acme/agents/.github/workflows/evals.yml@refs/pull/7/merge", "acme/agents", "evals.yml"},
		{"acme/agents/.github/workflows/evals.yaml@refs/heads/main", "acme/agents", "evals.yaml"},
		{"acme/agents/.github/workflows/my@evals.yml@refs/heads/x@y", "acme/agents", "my@evals.yml"},
		{"acme/agents/.github/workflows/evals.yml@6a7b8c9d", "acme/agents", "evals.yml"},
		{"Acme/Agents/.github/workflows/evals.yml@refs/heads/main", "acme/agents", "evals.yml"},
		{"other/repo/.github/workflows/evals.yml@refs/heads/main", "acme/agents", ""},
		{"acme/agents/.github/workflows/sub/evals.yml@refs/heads/main", "acme/agents", ""},
		{"acme/agents/.github/workflows/evals.yml", "acme/agents", ""},
		{"", "acme/agents", ""},
		{"/.github/workflows/evals.yml@refs/heads/main", "", ""},
	}
	for _, tt := range tests {
		if got := WorkflowFile(tt.ref, tt.repo); got != tt.want {
			t.Errorf("WorkflowFile(%q, %q) = %q, want %q", tt.ref, tt.repo, got, tt.want)
		}
	}
}
