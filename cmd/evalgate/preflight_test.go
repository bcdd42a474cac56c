package main

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
)

// vendorTargets is a targets.yaml whose target and judge talk to a fake vendor; edit
// replaces strings in it to make one mistake.
const vendorTargets = `targets:
  - name: default
    provider: openai
    model: gpt-4o-mini
    api_key: ${{ OPENAI_KEY }}
    base_url: ${{ FAKE_URL }}/v1
    grader_target: judge
  - name: judge
    provider: anthropic
    model: claude-haiku-4-5
    api_key: test-key
    base_url: ${{ FAKE_URL }}
`

const judgedSuite = `name: s
tests:
  - id: t1
    input: Answer for t1
    assertions:
      - type: rubrics
        criteria:
          - id: correct
            outcome: The answer is correct
`

// TestConfigMistakesExitTwoBeforeAnyModelCall makes one configuration mistake per case and
// checks that the run stops with exit 2, naming where the mistake is, before a single request
// reaches the vendor.
func TestConfigMistakesExitTwoBeforeAnyModelCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		targets string // "" = no targets file
		suite   string
		args    []string
		env     map[string]string
		files   map[string]string // more files of the repository
		runOnly bool              // a mistake in a flag validate does not take
		want    []string
	}{
		{name: "no targets file", suite: judgedSuite,
			want: []string{"evals/s.eval.yaml: error: no targets file: looked for targets.yaml", "pass --targets FILE"}},
		{name: "missing --targets file", targets: vendorTargets, suite: judgedSuite, args: []string{"--targets", "nope.yaml"},
			want: []string{"nope.yaml", "no such file"}},
		{name: "unknown --target", targets: vendorTargets, suite: judgedSuite, args: []string{"--target", "defualt"},
			want: []string{`error: --target "defualt" is not defined in targets.yaml (did you mean "default"?)`}},
		{name: "unknown --judge", targets: vendorTargets, suite: judgedSuite, args: []string{"--judge", "gpt"},
			want: []string{`error: --judge "gpt" is not defined in targets.yaml (defined: default, judge)`}},
		{name: "unknown execution.target", targets: vendorTargets,
			suite: strings.Replace(judgedSuite, "    input:", "    execution:\n      target: judeg\n    input:", 1),
			want:  []string{`evals/s.eval.yaml:3:5: error: test t1: execution.target "judeg" is not defined in targets.yaml (did you mean "judge"?)`}},
		{name: "unknown suite execution.target", targets: vendorTargets, suite: "execution:\n  target: gpt\n" + judgedSuite,
			want: []string{`evals/s.eval.yaml:2:11: error: execution.target "gpt" is not defined in targets.yaml`}},
		{name: "grader target undefined", targets: vendorTargets,
			suite: strings.Replace(judgedSuite, "      - type: rubrics\n", "      - type: rubrics\n        target: judgee\n", 1),
			want:  []string{`evals/s.eval.yaml:6:9: error: grader target "judgee" is not defined in targets.yaml (did you mean "judge"?)`}},
		{name: "grader_target undefined", targets: strings.Replace(vendorTargets, "grader_target: judge", "grader_target: jugde", 1), suite: judgedSuite,
			want: []string{`targets.yaml:2:5: error: target default: grader_target "jugde" is not defined in targets.yaml (did you mean "judge"?)`}},
		{name: "missing API key", targets: vendorTargets, suite: judgedSuite, env: map[string]string{"OPENAI_KEY": ""},
			want: []string{"targets.yaml:2:5: error: target default (openai): api_key: ${{ OPENAI_KEY }} is not set (set the OPENAI_KEY environment variable)"}},
		{name: "missing --baseline file", targets: vendorTargets, suite: judgedSuite, args: []string{"--baseline", "{dir}/base/results.json"}, runOnly: true,
			want: []string{"--baseline: open ", "base/results.json: no such file"}},
		{name: "AgentV index.jsonl as --baseline", targets: vendorTargets, suite: judgedSuite, args: []string{"--baseline", "{dir}/index.jsonl"}, runOnly: true,
			files: map[string]string{"index.jsonl": `{"test_id":"t1","score":1,"target":"default"}` + "\n" + `{"test_id":"t2","score":0.5,"target":"default"}` + "\n"},
			want:  []string{"index.jsonl: read results: one JSON object per line (JSONL, such as AgentV's or evalgate's index.jsonl), not an evalgate results.json"}},
		{name: "grader setting", targets: vendorTargets,
			suite: judgedSuite + "      - type: latency\n        threshold: -5\n",
			want:  []string{"evals/s.eval.yaml:10:9: error: grader latency: threshold must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			srv.Reply = func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "unexpected"} }
			files := map[string]string{"evals/s.eval.yaml": tt.suite}
			if tt.targets != "" {
				files["targets.yaml"] = tt.targets
			}
			for k, v := range tt.files {
				files[k] = v
			}
			dir := writeRepo(t, files)
			env := map[string]string{"FAKE_URL": srv.URL, "OPENAI_KEY": "test-key", "HOME": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			args := []string{"run", dir, "--root", dir, "--allow-env", "FAKE_URL"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			code, stdout, stderr := invokeEnv(t, env, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if n := srv.Count(); n != 0 {
				t.Errorf("%d requests reached the vendor before the configuration was checked", n)
			}
			if stdout != "" {
				t.Errorf("stdout should be empty (nothing was run):\n%s", stdout)
			}
			want := tt.want
			if !tt.runOnly {
				want = append(want, "nothing was run")
			}
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tt.runOnly {
				return
			}
			// validate --strict finds the same mistakes, on stdout, with the same exit code.
			code, stdout, _ = invokeEnv(t, env, append([]string{"validate", "--strict", dir, "--root", dir}, tt.args...)...)
			if code != 2 || !strings.Contains(stdout, tt.want[0]) || strings.Contains("\n"+stdout, "\n:") {
				t.Errorf("validate: exit %d, want 2 and %q:\n%s", code, tt.want[0], stdout)
			}
		})
	}
}

// TestPreflightBuildsEachClientOnce checks that a sound configuration runs and names its
// target and judge (internal/pipeline checks that the preflight's clients are the run's).
func TestPreflightBuildsEachClientOnce(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	code, run, stderr := runJSON(t, map[string]string{"FAKE_URL": srv.URL, "HOME": t.TempDir()}, "--no-cache", "testdata/llm/evals/clean.eval.yaml")
	if code != 0 || run.Summary.Passed != 6 {
		t.Fatalf("exit %d, summary %+v\n%s", code, run.Summary, stderr)
	}
	if !strings.Contains(stderr, "target default (openai gpt-4o-mini) · judge judge (anthropic claude-haiku-4-5)") {
		t.Errorf("the start line does not name the target and judge:\n%s", stderr)
	}
}

func TestValidateCatchesABadTargetReference(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"targets.yaml":          mockTargets,
		"evals/a.eval.yaml":     "execution:\n  target: defualt\n" + mockSuite("a", nil, "one"),
		"evals/b.eval.yaml":     mockSuite("b", nil, "two"),
		"evals/sub/c.eval.yaml": mockSuite("c", nil, "three"),
	})
	code, stdout, stderr := invokeEnv(t, map[string]string{"HOME": t.TempDir()}, "validate", dir, "--root", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{`evals/a.eval.yaml:2:11: error: execution.target "defualt" is not defined in targets.yaml (did you mean "default"?)`, "3 files, 1 error"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
}

// TestPreflightCompositeJudge checks that a composite whose llm-grader aggregator asks the
// judge has that judge resolved before the run, as a judge grader has.
func TestPreflightCompositeJudge(t *testing.T) {
	t.Parallel()
	targets := "targets:\n  - name: default\n    provider: mock\n    response: hi\n    grader_target: nojudge\n"
	suite := func(aggregator string) string {
		return "tests:\n  - id: t\n    input: hi\n    assertions:\n      - name: c\n        type: composite\n" +
			"        assertions:\n          - {name: a, type: contains, value: hi}\n        aggregator: " + aggregator + "\n"
	}
	tests := []struct {
		aggregator string
		code       int
	}{
		{"{type: llm-grader}", 2},
		{"{type: threshold, threshold: 1}", 0},
	}
	for _, tt := range tests {
		t.Run(tt.aggregator, func(t *testing.T) {
			t.Parallel()
			dir := writeRepo(t, map[string]string{"targets.yaml": targets, "evals/x.eval.yaml": suite(tt.aggregator)})
			code, stdout, stderr := invoke(t, "validate", "--root", dir, dir)
			if code != tt.code || (tt.code == 2 && !strings.Contains(stdout, `error: target default: grader_target "nojudge" is not defined`)) {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
		})
	}
}
