// Package actiontest is a simulated Actions job for end-to-end tests of the action: a
// workspace that is a git repository holding a copy of the quickstart, an event file, the
// file-command files and the environment a runner sets, against the GitHub fake. The tests
// of internal/action drive action.Run with it; those of cmd/evalgate drive the binary.
package actiontest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
)

// HeadSHA is the head commit of the events' pull request, which is not the one checked out.
const HeadSHA = "4f1c0d2e9b8a7f6e5d4c3b2a1908f7e6d5c4b3a2"

// Job is one simulated Actions job (see the package doc); Head is the commit checked out in
// the workspace, which is also GITHUB_SHA.
type Job struct {
	T       *testing.T
	Srv     *githubtest.Server
	Env     map[string]string
	Summary string
	Output  string
	Head    string
}

// quickstart is the repository's testdata/quickstart, wherever the test runs from.
func quickstart() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "quickstart")
}

// New prepares a job for eventName with payload, its workspace committed.
func New(t *testing.T, srv *githubtest.Server, eventName string, payload map[string]any) *Job {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if out, err := exec.Command("cp", "-r", quickstart(), ws).CombinedOutput(); err != nil {
		t.Fatalf("copy quickstart: %v %s", err, out)
	}
	ev := filepath.Join(dir, "event.json")
	for _, f := range []string{filepath.Join(dir, "summary.md"), filepath.Join(dir, "output")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := &Job{T: t, Srv: srv, Summary: filepath.Join(dir, "summary.md"), Output: filepath.Join(dir, "output"), Env: map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": eventName, "GITHUB_EVENT_PATH": ev,
		"GITHUB_REPOSITORY": "acme/agents", "GITHUB_API_URL": srv.APIURL(), "GITHUB_SERVER_URL": "https://github.example",
		"GITHUB_WORKSPACE": ws, "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": filepath.Join(dir, "output"),
		"GITHUB_RUN_ID": "99", "INPUT_GITHUB_TOKEN": "ghs_test", "INPUT_REPORT_DIR": filepath.Join(dir, "report"), "INPUT_CHECK_NAME": "evalgate",
	}}
	j.SetEvent(eventName, payload)
	j.Head = CommitWorkspace(t, j)
	j.Env["GITHUB_SHA"] = j.Head
	return j
}

// Getenv reads the job's environment.
func (j *Job) Getenv(k string) string { return j.Env[k] }

// File returns a file's content ("" when it cannot be read).
func (j *Job) File(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// Outputs reads the step outputs the job wrote to its GITHUB_OUTPUT file.
func (j *Job) Outputs() map[string]string { return ParseOutputs(j.File(j.Output)) }

// ParseOutputs reads a GITHUB_OUTPUT file: name<<delimiter, the value's lines, delimiter.
func ParseOutputs(s string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// SetEvent replaces the job's event.
func (j *Job) SetEvent(name string, payload map[string]any) {
	j.T.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		j.T.Fatal(err)
	}
	j.Env["GITHUB_EVENT_NAME"] = name
	if err := os.WriteFile(j.Env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
		j.T.Fatal(err)
	}
}

// Write adds files to the workspace after its commit (HEAD stays what the event names).
func (j *Job) Write(files map[string]string) {
	j.T.Helper()
	for name, body := range files {
		path := filepath.Join(j.Env["GITHUB_WORKSPACE"], name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			j.T.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			j.T.Fatal(err)
		}
	}
}

// Read returns a workspace file's content.
func (j *Job) Read(name string) string {
	j.T.Helper()
	b, err := os.ReadFile(filepath.Join(j.Env["GITHUB_WORKSPACE"], name))
	if err != nil {
		j.T.Fatal(err)
	}
	return string(b)
}

// Results reads the results.json the job wrote to its report directory.
func (j *Job) Results() *result.Run {
	j.T.Helper()
	path := filepath.Join(j.Env["INPUT_REPORT_DIR"], "results.json")
	b, err := os.ReadFile(path)
	if err != nil {
		j.T.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(b, &run); err != nil {
		j.T.Fatalf("%s: %v", path, err)
	}
	return &run
}

// CommitWorkspace makes the job's workspace a git repository (or commits what changed in it)
// and returns its HEAD.
func CommitWorkspace(t *testing.T, j *Job) string {
	t.Helper()
	ws := j.Env["GITHUB_WORKSPACE"]
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "checkout"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", ws, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// PREvent is a pull_request event for #42 at HeadSHA, from a fork or the repository itself.
func PREvent(fork bool) map[string]any {
	head := map[string]any{"full_name": "acme/agents"}
	if fork {
		head = map[string]any{"full_name": "mallory/agents"}
	}
	return map[string]any{"action": "synchronize", "number": 42,
		"pull_request": map[string]any{"number": 42,
			"head": map[string]any{"sha": HeadSHA, "ref": "feature", "repo": head},
			"base": map[string]any{"sha": "0a1b2c3d", "ref": "main", "repo": map[string]any{"full_name": "acme/agents"}}},
		"repository": map[string]any{"full_name": "acme/agents"}}
}

// PREventAt is a pull request event whose head is sha.
func PREventAt(fork bool, sha string) map[string]any {
	ev := PREvent(fork)
	ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	return ev
}

// Comment is an issue_comment event on #42 by author, asking for a rerun of the quality suite.
func Comment(author string) map[string]any {
	return map[string]any{"action": "created",
		"issue":      map[string]any{"number": 42, "pull_request": map[string]any{"url": "x"}},
		"comment":    map[string]any{"id": 555, "body": "/evalgate rerun evals/quality.eval.yaml", "user": map[string]any{"login": author}, "author_association": "MEMBER"},
		"repository": map[string]any{"full_name": "acme/agents"}}
}

// timing matches what differs between two runs of the same tests: durations (with the
// separator before them: a run shorter than a millisecond shows none) and clock times.
var timing = regexp.MustCompile(`( · )?\d+(\.\d+)?\s?(ms|s|m)\b|\d{4}-\d\d-\d\dT[0-9:.]+Z|\d{4}-\d\d-\d\d \d\d:\d\d UTC|\n\s*"duration_ms":\s*\d+,?|"(started|finished)_at":\s*"[^"]*"`)

// Untimed is report text without its durations and clock times, so that two runs of the
// same tests compare equal.
func Untimed(s string) string { return timing.ReplaceAllString(s, "") }
