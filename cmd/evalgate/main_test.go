package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/result"
)

// invoke runs the program in-process as a user would from the shell.
func invoke(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return invokeGetenv(t, func(string) string { return "" }, args...)
}

func TestCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    []string
		stderr    []string
		notStdout []string
	}{
		{"no args", nil, 2, nil, []string{"Usage:\n", "\n  evalgate [command]\n", "Available Commands:"}, nil},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}, nil},
		{"fail-on never", []string{"run", "--root", "testdata/fail", "--fail-on", "never", "testdata/fail"}, 0, nil, nil, nil},
		{"bad flag", []string{"run", "--workers", "0", "testdata/pass"}, 2, nil, []string{"--workers must be at least 1"}, nil},
		{"bad format", []string{"run", "--format", "xml", "testdata/pass"}, 2, nil, []string{"--format"}, nil},
		{"no suites", []string{"run", "--root", "testdata", "testdata/pass/targets.yaml.missing"}, 2, nil, []string{"evalgate:"}, nil},
		{"bad suite", []string{"run", "--root", "testdata/bad", "testdata/bad"}, 2, nil, []string{"math.eval.yaml:", "none of the 1 eval files could be loaded"}, nil},
		{"validate ok", []string{"validate", "--root", "testdata/pass", "testdata/pass"}, 0, []string{"1 file, 0 errors"}, nil, nil},
		{"validate bad", []string{"validate", "--root", "testdata/bad", "testdata/bad"}, 2, []string{"math.eval.yaml:", "1 file, 1 error"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

// TestRunTable checks the table run prints, whole, against testdata/golden (-update rewrites).
func TestRunTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dir string
		code      int
	}{
		{"pass", "testdata/pass", 0},
		{"fail", "testdata/fail", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, "run", "--root", tt.dir, tt.dir)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			golden.Check(t, filepath.Join("testdata", "golden", "run-"+tt.name+".txt"), untimed(stdout), updating())
		})
	}
}

// wallClock is the run's duration at the end of the table's summary line: absent when the
// tests took no measurable time, so it comes and goes with the machine's speed.
var wallClock = regexp.MustCompile(`(?m) · (\d+ms|\d+\.\ds|\d+m \d\ds|\d+h \d\dm)$`)

// untimed is the table without the run's duration, for comparing with a golden file.
func untimed(table string) string { return wallClock.ReplaceAllString(table, "") }

func TestRunJSONAndOut(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := invoke(t, "run", "--root", "testdata/fail", "--format", "json", "--out", out, "testdata/fail")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatalf("stdout is not results.json: %v\n%s", err, stdout)
	}
	if run.SchemaVersion != result.SchemaVersion || run.Summary.Total != 2 || run.Summary.Passed != 1 || run.Summary.Failed != 1 {
		t.Fatalf("summary: %+v", run.Summary)
	}
	for _, f := range []string{"results.json", "comment.md", "summary.md", "check-run.json", "index.jsonl", "junit.xml", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing report file: %v", err)
		}
	}
}

// TestQuickstart runs the README's first command and checks it shows every verdict.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "quickstart")
	code, stdout, stderr := invoke(t, "run", "--format", "json", "--root", dir, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the quickstart's gate fails on purpose)\nstderr:\n%s", code, stderr)
	}
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatal(err)
	}
	got := map[string]result.Verdict{}
	for _, s := range run.Suites {
		if s.Error != "" {
			t.Errorf("suite %s did not load: %s", s.Path, s.Error)
		}
		for _, tr := range s.Tests {
			got[tr.ID] = tr.Verdict
		}
	}
	want := map[string]result.Verdict{
		"add-subtract":    result.Pass,
		"add-divide":      result.Fail,
		"summarize-diff":  result.Borderline,
		"changelog-entry": result.Error,
		"code-quality":    result.Pass,
	}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: verdict %q, want %q", id, got[id], v)
		}
	}
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			switch tr.ID {
			case "add-divide":
				if tr.Score < 0.8 || len(tr.Gates) == 0 {
					t.Errorf("add-divide should score ≥ 0.8 and still fail on its required gate: %.2f %v", tr.Score, tr.Gates)
				}
			case "changelog-entry":
				if !strings.Contains(tr.Error, "user-facing") {
					t.Errorf("changelog-entry error should name the missing criterion: %q", tr.Error)
				}
			}
		}
	}
}

// TestBaselineRegression compares a failing run with a passing baseline of the same tests.
func TestBaselineRegression(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if code, _, stderr := invoke(t, "run", "--root", "testdata/pass", "--out", base, "testdata/pass"); code != 0 {
		t.Fatalf("baseline run: %d %s", code, stderr)
	}
	// The same suite with the mock answering "5" flips two-plus-two from pass to fail: one
	// sample per side, so it is shown as a change but is not significant (Boschloo p 0.25);
	// regression_e2e_test.go has the runs with trials that do fail the gate.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	suite, _ := os.ReadFile("testdata/pass/evals/math.eval.yaml")
	targets := "targets:\n  - name: default\n    provider: mock\n    response: \"The answer is 5.\"\n"
	for name, body := range map[string]string{"evals/math.eval.yaml": string(suite), "targets.yaml": targets} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	baseline := filepath.Join(base, "results.json")
	code, stdout, stderr := invoke(t, "run", "--root", dir, "--baseline", baseline, "--fail-on", "never", "--fail-on-regression", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0: a single flip is not significant\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "run-baseline.txt"), untimed(strings.NewReplacer(base, "BASE", dir, "DIR").Replace(stdout)), updating())
	if code, _, stderr := invoke(t, "run", "--fail-on-regression", dir); code != 2 || !strings.Contains(stderr, "needs --baseline") {
		t.Fatalf("flag check: %d %s", code, stderr)
	}
}

// TestCLIAgentInWorkspace runs a real command agent in per-test copies of a template: the diff
// of what it changed is the test's file_changes, and the failed test's workspace is kept.
func TestCLIAgentInWorkspace(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := invoke(t, "run", "--root", "testdata/agent", "--format", "json", "testdata/agent")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatal(err)
	}
	ok, bad := run.Suites[0].Tests[0], run.Suites[0].Tests[1]
	if ok.Verdict != result.Pass || ok.Output == nil || !strings.Contains(ok.Output.FileChanges, "+world") || ok.Workspace != "" {
		t.Fatalf("append: %s %+v workspace %q", ok.Verdict, ok.Output, ok.Workspace)
	}
	if bad.Verdict != result.Error || !strings.Contains(bad.Error, "exited with code 4: cannot do that") || bad.Workspace == "" {
		t.Fatalf("refuse: %s %q workspace %q", bad.Verdict, bad.Error, bad.Workspace)
	}
	if b, err := os.ReadFile(filepath.Join(bad.Workspace, "README.md")); err != nil || string(b) != "hello\n" {
		t.Fatalf("kept workspace: %q %v", b, err)
	}
	os.RemoveAll(bad.Workspace)
	if b, _ := os.ReadFile("testdata/agent/evals/ws/README.md"); string(b) != "hello\n" {
		t.Fatal("the agent changed the template itself")
	}
}
