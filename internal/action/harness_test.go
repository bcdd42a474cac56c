package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// job is one simulated Actions job running the action on an event payload, with the GitHub
// fake behind the real client: the runner's variables, the event file, the step summary and
// output files, and a repository of two suites. What the engine would run is stood in for by
// execute (by default every test passes), so that what is tested is the action's own work:
// which suites, which commit, what is posted where.
type job struct {
	t      *testing.T
	srv    *githubtest.Server
	dir    string
	env    map[string]string
	inputs map[string]string
	// head is the commit checked out; suites the repository's; loadErr what loading them fails with.
	head    string
	suites  []*suite.Suite
	loadErr error
	execute func(ctx context.Context, j Job) (*result.Run, error)
	// dry runs the action as `evalgate action --dry-run`, printing to dryOut.
	dry    bool
	dryOut bytes.Buffer

	mu  sync.Mutex
	ran []Job
	log bytes.Buffer
}

const (
	billingSuite = "evals/billing.eval.yaml"
	supportSuite = "evals/support.eval.yaml"
)

// newJob prepares a job for the event name with payload (edited by edit, when not nil); the
// repository is the payload's.
func newJob(t *testing.T, name string, payload []byte, edit func(map[string]any)) *job {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
		payload, _ = json.Marshal(m)
	}
	repo, _ := m["repository"].(map[string]any)
	dir := t.TempDir()
	j := &job{t: t, srv: githubtest.New(t), dir: dir, inputs: map[string]string{"github_token": "ghs_test", "report_dir": filepath.Join(dir, "report")},
		suites: []*suite.Suite{{Name: "billing", Path: billingSuite}, {Name: "support", Path: supportSuite}}}
	j.env = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY": fmt.Sprint(repo["full_name"]), "GITHUB_API_URL": j.srv.APIURL(), "GITHUB_SERVER_URL": "https://github.example",
		"GITHUB_WORKSPACE": dir, "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": filepath.Join(dir, "output"),
		"GITHUB_RUN_ID": "99", "GITHUB_SHA": "ffffeeeeddddccccbbbbaaaa9999888877776666",
	}
	for _, f := range []struct{ path, body string }{{j.env["GITHUB_EVENT_PATH"], string(payload)}, {j.env["GITHUB_STEP_SUMMARY"], ""}, {j.env["GITHUB_OUTPUT"], ""}} {
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// rewrite edits the job's event payload.
func (j *job) rewrite(edit func(map[string]any)) {
	j.t.Helper()
	path := j.env["GITHUB_EVENT_PATH"]
	b, err := os.ReadFile(path)
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		j.t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		j.t.Fatal(err)
	}
}

// webhookPayload is one of octokit/webhooks' example payloads in testdata/webhooks.
func webhookPayload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "webhooks", name+".payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs the action once, as the container's entry point would.
func (j *job) run(ctx context.Context) error {
	j.t.Helper()
	getenv := func(k string) string { return j.env[k] }
	ev, err := event.Load(getenv, os.ReadFile)
	if err != nil {
		j.t.Fatalf("load event: %v", err)
	}
	in, err := parseInputs(func(k string) string { return j.inputs[k] })
	if err != nil {
		j.t.Fatalf("inputs: %v", err)
	}
	var stdout bytes.Buffer
	d := deps{Event: ev, Log: &lockedWriter{j: j}, Root: j.dir, Outputs: true, DryRun: j.dry,
		Actions:    githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&stdout)),
		CheckedOut: func(context.Context) (string, error) { return j.head, nil },
		Runner:     fakeRunner{j}}
	if j.dry {
		dry := &dryRun{Out: &j.dryOut}
		d.Publisher, d.Source = dry, dry
	} else {
		gh, err := github.New(j.srv.Client(), ev.APIURL, in.Token, github.Options{WriteSpacing: time.Millisecond})
		if err != nil {
			j.t.Fatal(err)
		}
		repo := gh.Repo(ev.Owner, ev.Repo)
		d.Publisher, d.Source = repo, repo
	}
	return run(ctx, in, d)
}

// fakeRunner stands in for the pipeline: it loads the job's suites and runs them through
// j.execute (by default every test passes).
type fakeRunner struct{ j *job }

func (f fakeRunner) Load([]string) ([]*suite.Suite, []*result.SuiteResult, error) {
	return f.j.suites, nil, f.j.loadErr
}

func (f fakeRunner) TargetsFiles([]*suite.Suite) []string { return nil }

func (f fakeRunner) Run(ctx context.Context, job Job) (*result.Run, error) {
	j := f.j
	j.mu.Lock()
	j.ran = append(j.ran, job)
	j.mu.Unlock()
	if j.execute != nil {
		return j.execute(ctx, job)
	}
	return passingRun(job), nil
}

// lockedWriter is the job log.
type lockedWriter struct{ j *job }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.j.mu.Lock()
	defer w.j.mu.Unlock()
	return w.j.log.Write(p)
}

func (j *job) logText() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.String()
}

// ranSuites are the suites Execute was asked to run, by path.
func (j *job) ranSuites() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, job := range j.ran {
		out = append(out, suitePaths(job.Suites)...)
	}
	return out
}

func (j *job) summary() string {
	b, _ := os.ReadFile(j.env["GITHUB_STEP_SUMMARY"])
	return string(b)
}

// outputs reads the GITHUB_OUTPUT file.
func (j *job) outputs() map[string]string {
	b, _ := os.ReadFile(j.env["GITHUB_OUTPUT"])
	return actiontest.ParseOutputs(string(b))
}

// passingRun is the result of running job's suites with one passing test each.
func passingRun(job Job) *result.Run {
	run := &result.Run{Thresholds: result.DefaultThresholds, Context: job.Context}
	for _, s := range job.Suites {
		sr := &result.SuiteResult{Name: s.Name, Path: s.Path}
		g := &result.GraderResult{Name: "answer", Type: "contains", Weight: 1, Verdict: result.Pass, Score: 1, File: s.Path, Line: 3}
		sr.Tests = append(sr.Tests, &result.TestResult{Suite: s.Name, ID: "t1", Verdict: result.Pass, Score: 1, Threshold: 0.8, File: s.Path, Line: 2, Graders: []*result.GraderResult{g}})
		run.Suites = append(run.Suites, sr)
	}
	n := len(run.Suites)
	run.Summary = result.Summary{Total: n, Passed: n, Score: 1, Verdict: result.Pass}
	return run
}
