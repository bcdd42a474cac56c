package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/result"
)

// TestFlagsAnywhere parses the same run with flags before, between and after the paths, in
// both --flag value and --flag=value forms.
func TestFlagsAnywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"flags first", []string{"run", "--root", "testdata/pass", "--workers", "2", "--format", "json", "testdata/pass"}},
		{"flags last", []string{"run", "testdata/pass", "--workers", "2", "--root", "testdata/pass", "--format", "json"}},
		{"flags around", []string{"run", "--format", "json", "testdata/pass", "--root", "testdata/pass", "--workers", "2"}},
		{"equals form", []string{"run", "testdata/pass", "--workers=2", "--root=testdata/pass", "--format=json"}},
		{"after --", []string{"run", "--root", "testdata/pass", "--format", "json", "--", "testdata/pass"}},
		{"repeated filters", []string{"run", "testdata/pass", "--test-id", "nope-*", "--format=json", "--test-id=two-*", "--root", "testdata/pass"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var run result.Run
			if err := json.Unmarshal([]byte(stdout), &run); err != nil || run.Summary.Total != 1 {
				t.Fatalf("stdout is not the one-test run (%v):\n%s", err, stdout)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"misspelt command", []string{"rnu", "evals/"}, []string{`unknown command "rnu" (did you mean "run"?)`}},
		{"misspelt validate", []string{"valdate"}, []string{`did you mean "validate"?`}},
		{"misspelt flag", []string{"run", "testdata/pass", "--wokers", "8"}, []string{"unknown flag: --wokers (did you mean --workers?)", "Usage: evalgate run [PATH...] [flags]"}},
		{"misspelt flag with value", []string{"run", "--tst-id=x", "testdata/pass"}, []string{"(did you mean --test-id?)"}},
		{"Go-style single dash", []string{"run", "-workers", "8", "testdata/pass"}, []string{"(did you mean --workers?)"}},
		{"misspelt validate flag", []string{"validate", "--rot", "x"}, []string{"(did you mean --root?)"}},
		{"flag without a value", []string{"run", "testdata/pass", "--workers"}, []string{"flag needs an argument: --workers"}},
		{"bad flag value", []string{"run", "--workers", "many", "testdata/pass"}, []string{`invalid argument "many" for "--workers" flag: not a whole number`}},
		{"bad duration", []string{"run", "--timeout", "soon", "testdata/pass"}, []string{`invalid argument "soon" for "--timeout" flag: not a duration (e.g. 90s, 10m, 1h)`}},
		{"AgentV's eval run", []string{"eval", "run", "testdata/pass"}, []string{`unknown command "eval": "agentv eval run FILE" is "evalgate run FILE"`}},
		{"AgentV's --output", []string{"run", "--output", "r.json", "testdata/pass"}, []string{"unknown flag: --output (AgentV's --output: here --out DIR writes results.json"}},
		{"AgentV's --grader-target", []string{"run", "--grader-target", "g", "testdata/pass"}, []string{"(AgentV's --grader-target: here --judge NAME"}},
		{"AgentV's --verbose", []string{"run", "--verbose", "testdata/pass"}, []string{"(AgentV's --verbose: here progress goes to stderr"}},
		{"AgentV's --agent-timeout", []string{"run", "--agent-timeout", "60", "testdata/pass"}, []string{"(AgentV's --agent-timeout: here --timeout D"}},
		{"bad glob", []string{"run", "--test-id", "[", "testdata/pass"}, []string{`--test-id "[": syntax error in pattern`}},
		{"version takes no arguments", []string{"version", "x"}, []string{`takes no arguments, got "x"`}},
		{"no match", []string{"run", "--root", "testdata/pass", "--test-id", "nope", "--tag", "slow", "testdata/pass"},
			[]string{`no test matches --test-id "nope" --tag "slow" (1 test in 1 suite were loaded)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tt.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if n := strings.Count(stderr, "evalgate: "); n != 1 {
				t.Errorf("the error printed %d times, want once:\n%s", n, stderr)
			}
		})
	}
}

// TestHelp checks each command's help: a synopsis, examples and its flags, on stdout, exit 0,
// whichever way it is asked for.
func TestHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  string
		want []string
	}{
		{"run", []string{"Usage:\n  evalgate run [PATH...] [flags]", "Examples:\n  evalgate run", "--test-id stringArray", "--exclude-tag", "--workers int", "--cache-dir", "0 passed, 1 failed, 2 usage"}},
		{"validate", []string{"Usage:\n  evalgate validate [PATH...] [flags]", "Examples:\n  evalgate validate", "--targets string", "--test-id"}},
		{"action", []string{"Usage:\n  evalgate action [flags]", "Examples:\n  evalgate action --dry-run", "--dry-run", "--event-name string"}},
		{"version", []string{"Usage:\n  evalgate version"}},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{tt.cmd, "--help"}, {tt.cmd, "-h"}, {"help", tt.cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				code, stdout, stderr := invoke(t, args...)
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				for _, w := range tt.want {
					if !strings.Contains(stdout, w) {
						t.Errorf("help lacks %q:\n%s", w, stdout)
					}
				}
			})
		}
	}
	code, stdout, _ := invoke(t, "--help")
	for _, w := range []string{"Available Commands:", "run ", "validate ", "action ", "version ", "Examples:"} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("evalgate --help (exit %d) lacks %q:\n%s", code, w, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		if code, stdout, _ := invoke(t, args...); code != 0 || stdout != "evalgate "+versionString()+"\n" {
			t.Errorf("%v: exit %d, %q", args, code, stdout)
		}
	}
}

// writeRepo writes files (path → content) into a new directory and returns it.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const mockTargets = "targets:\n  - name: default\n    provider: mock\n    response: \"ok\"\n"

func mockSuite(name string, tags []string, ids ...string) string {
	var b strings.Builder
	b.WriteString("name: " + name + "\n")
	if len(tags) > 0 {
		b.WriteString("tags: [" + strings.Join(tags, ", ") + "]\n")
	}
	b.WriteString("tests:\n")
	for _, id := range ids {
		b.WriteString("  - id: " + id + "\n    input: hi\n    assertions:\n      - type: contains\n        value: ok\n")
	}
	return b.String()
}

func TestTestFilters(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"targets.yaml":           mockTargets,
		"evals/refund.eval.yaml": mockSuite("refund", []string{"smoke", "fast"}, "refund-full", "refund-partial", "escalate"),
		"evals/slow.eval.yaml":   mockSuite("slow", []string{"slow"}, "refund-slow", "load"),
		"evals/plain.eval.yaml":  mockSuite("plain", nil, "plain-1"),
	})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no filter", nil, []string{"escalate", "load", "plain-1", "refund-full", "refund-partial", "refund-slow"}},
		{"one glob", []string{"--test-id", "refund-*"}, []string{"refund-full", "refund-partial", "refund-slow"}},
		{"globs are ORed", []string{"--test-id", "refund-full", "--test-id", "load"}, []string{"load", "refund-full"}},
		{"tag", []string{"--tag", "smoke"}, []string{"escalate", "refund-full", "refund-partial"}},
		{"tags are ANDed", []string{"--tag", "smoke", "--tag", "slow"}, nil},
		{"exclude tag", []string{"--exclude-tag", "slow"}, []string{"escalate", "plain-1", "refund-full", "refund-partial"}},
		{"tag and id", []string{"--tag", "smoke", "--test-id", "refund-*"}, []string{"refund-full", "refund-partial"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run", dir, "--root", dir, "--format", "json"}, tt.args...)
			code, stdout, stderr := invoke(t, args...)
			if tt.want == nil {
				if code != 2 || !strings.Contains(stderr, "no test matches") {
					t.Fatalf("exit %d, want 2 saying nothing matched\n%s", code, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var run result.Run
			if err := json.Unmarshal([]byte(stdout), &run); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range run.Suites {
				for _, tr := range s.Tests {
					got = append(got, tr.ID)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ran %v, want %v", got, tt.want)
			}
		})
	}
	// validate takes the same filters.
	if code, stdout, _ := invoke(t, "validate", dir, "--root", dir, "--tag", "slow"); code != 0 || !strings.Contains(stdout, "0 errors") {
		t.Errorf("validate --tag: exit %d\n%s", code, stdout)
	}
}

// TestStartLine checks that a run says what it is about to do before any test finishes.
func TestStartLine(t *testing.T) {
	t.Parallel()
	code, _, stderr := invokeEnv(t, map[string]string{"HOME": t.TempDir()}, "run", "--root", "testdata/fail", "testdata/fail", "--workers", "8")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := "evalgate: running 2 tests from 1 suite, 2 at a time · target default (mock)\n"
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr does not start with the start line %q:\n%s", want, stderr)
	}
}

func TestNothingFoundSaysWhy(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"greeter/greeter.eval.yaml": mockSuite("greeter", nil, "hello"),
		"notes/notes.yaml":          "a: 1\n",
		"targets.yaml":              mockTargets,
	})
	// A directory argument finds every eval file below it, evals/ or not.
	if code, _, stderr := invoke(t, "run", "--root", dir, filepath.Join(dir, "greeter")); code != 0 {
		t.Fatalf("greeter/: exit %d, want 0\n%s", code, stderr)
	}
	code, _, stderr := invoke(t, "run", "--root", dir, filepath.Join(dir, "notes"))
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	for _, w := range []string{"no eval files found in " + filepath.Join(dir, "notes"), "looked for **/*.eval.yaml",
		"1 YAML/JSONL file(s) there have other names: " + filepath.Join(dir, "notes", "notes.yaml"), "name an eval file NAME.eval.yaml"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if code, _, stderr := invoke(t, "run", "--root", dir, filepath.Join(dir, "missing")); code != 2 || !strings.Contains(stderr, "missing: no such file or directory") {
		t.Errorf("a missing path: exit %d\n%s", code, stderr)
	}
}

// TestTableFitsColumns checks that run sizes its table from COLUMNS when stdout is not a
// terminal, and keeps progress off stdout.
func TestTableFitsColumns(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "quickstart")
	for _, width := range []int{80, 120} {
		code, stdout, stderr := invokeEnv(t, map[string]string{"COLUMNS": fmt.Sprint(width), "HOME": t.TempDir()}, "run", "--root", dir, dir)
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("COLUMNS=%d: line %d is %d wide: %q", width, i+1, n, line)
			}
		}
		if strings.Contains(stdout, "evalgate: running") || !strings.Contains(stderr, "evalgate: running") {
			t.Errorf("the start line belongs on stderr only")
		}
	}
}

// TestRunHelpNamesShardValue: pflag takes a back-quoted word of a usage as the value's name;
// the shard flag's must read "--shard I/N", not "--shard evalgate merge".
func TestRunHelpNamesShardValue(t *testing.T) {
	t.Parallel()
	_, stdout, _ := invoke(t, "run", "--help")
	if !strings.Contains(stdout, "--shard I/N") || strings.Contains(stdout, "--shard evalgate") {
		t.Errorf("run --help:\n%s", stdout)
	}
}
