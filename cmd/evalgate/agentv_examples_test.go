package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// agentvExamples is AgentV 4.42.4's examples tree with the repository's root .agentv, vendored
// verbatim; the directory stands for the AgentV repository root, so references that climb out
// of an example, and the root targets file, resolve as upstream.
var agentvExamples = filepath.Join("..", "..", "internal", "suite", "testdata", "agentv442")

// exampleFlags are the flags an example's README runs it with.
var exampleFlags = map[string][]string{
	"examples/features/preprocessors/evals/dataset.eval.yaml":              {"--target", "file_output"},
	"examples/showcase/trace-evaluation/evals/transcript-import.eval.yaml": {"--target", "replay_coding_agent"},
}

// exampleFailures are the examples that do not validate, and why. An entry is checked both
// ways: its example must fail, with an error containing want, so the list stays true.
var exampleFailures = map[string]struct{ why, want string }{
	// (a) Broken upstream: AgentV 4.42.4 cannot run these either.
	"examples/features/prompt-template-sdk/evals/dataset.eval.yaml": {
		"upstream: the YAML names prompts/custom-grader.ts, the file is custom-evaluator.ts (renamed in #1111)",
		"prompt command file not found: ../prompts/custom-grader.ts"},
	"examples/features/basic-jsonl/evals/dataset.eval.yaml": {
		"upstream: a JSONL row sets execution.target azure-llm, which no 4.42.4 targets file defines",
		`execution.target "azure-llm" is not defined`},
	"examples/features/local-cli/evals/dataset.eval.yaml": {
		"upstream: grader_target grader is defined only in the root targets file; AgentV, like evalgate, reads the nearest one",
		`grader_target "grader" is not defined`},
	"examples/showcase/offline-grader-benchmark/evals/setup-a.eval.yaml": {
		"upstream: the llm-graders' targets (grader_gpt_5_mini, …) are in no targets file",
		`grader target "grader_gpt_5_mini" is not defined`},
	"examples/showcase/offline-grader-benchmark/evals/setup-b.eval.yaml": {
		"upstream: the llm-graders' targets (grader_gpt_5_mini, …) are in no targets file",
		`grader target "grader_gpt_5_mini" is not defined`},
	"examples/showcase/psychotherapy/evals/encouragement.eval.yaml": {
		"upstream: execution.target gemini-llm is in no targets file (the root one has gemini)",
		`execution.target "gemini-llm" is not defined`},
	"examples/showcase/psychotherapy/evals/listening.eval.yaml": {
		"upstream: execution.target gemini-llm is in no targets file (the root one has gemini)",
		`execution.target "gemini-llm" is not defined`},
	"examples/showcase/psychotherapy/evals/routing.eval.yaml": {
		"upstream: execution.target gemini-llm is in no targets file (the root one has gemini)",
		`execution.target "gemini-llm" is not defined`},
	"examples/showcase/tool-evaluation-plugins/tool-eval-demo.eval.yaml": {
		"upstream: execution.target mock_agent is in no targets file (the example has no .agentv)",
		`execution.target "mock_agent" is not defined`},
	"examples/showcase/multi-model-benchmark/evals/benchmark.eval.yaml": {
		"upstream: its execution.targets matrix names gemini-llm, which no targets file defines (and copilot-cli, claude-cli providers evalgate does not run)",
		`execution.targets entry "gemini-llm" is not defined`},
	// (b) Providers and features evalgate does not run.
	"examples/showcase/bug-fix-benchmark/evals/bug-fixes.eval.yaml": {
		"unsupported: per-target workspace hooks in execution.targets entries are refused at their line",
		"execution.targets[].hooks (per-target workspace hooks) is not supported by evalgate"},
	"examples/features/file-changes-graders/evals/dataset.eval.yaml": {
		"unsupported: its judge is a copilot-cli target (and grader_target grader is only in the root targets file)",
		`provider "copilot-cli" cannot grade`},
	"examples/features/preprocessors/evals/dataset.eval.yaml": {
		"unsupported: file-output and grader-check are custom providers (.agentv/providers/*.ts); pending: preprocessors (wt-deps) as well",
		"file-output"},
}

// TestAgentVExamplesValidate validates every eval file of AgentV 4.42.4's examples as
// `evalgate validate` does, both in an environment where every variable is set and in an empty
// one (a lint job, a fork's pull request, a laptop: no keys, no AGENT_TARGET), with no
// --targets: validate lints the files, as `agentv validate` does.
func TestAgentVExamplesValidate(t *testing.T) {
	t.Parallel()
	// EVAL.yaml is the name AgentV's task bundles and autoresearch give an eval file.
	patterns := append(slices.Clone(suite.DefaultPatterns), "**/EVAL.yaml")
	d, err := suite.Search([]string{filepath.Join(agentvExamples, "examples")}, patterns)
	if err != nil {
		t.Fatal(err)
	}
	envs := []struct {
		name   string
		getenv func(string) string
	}{
		{"configured", agentvEnv},
		{"empty", func(string) string { return "" }},
	}
	var found []string
	for _, f := range d.Files {
		rel, err := filepath.Rel(agentvExamples, f)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		found = append(found, rel)
		for _, env := range envs {
			t.Run(env.name+"/"+rel, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"validate", "--root", agentvExamples}, exampleFlags[rel]...)
				code, stdout, stderr := invokeGetenv(t, env.getenv, append(args, f)...)
				known, listed := exampleFailures[rel]
				switch {
				case code == 0 && listed:
					t.Errorf("validates now: remove it from exampleFailures (%s)", known.why)
				case code != 0 && !listed:
					t.Errorf("exit %d\n%s%s", code, stdout, stderr)
				case code != 0 && !strings.Contains(stdout+stderr, known.want):
					t.Errorf("fails, but not with %q (%s):\n%s%s", known.want, known.why, stdout, stderr)
				}
			})
		}
	}
	for rel := range exampleFailures {
		if !slices.Contains(found, rel) {
			t.Errorf("exampleFailures lists %s, which is not an eval file of the tree", rel)
		}
	}
	if len(found) < 90 {
		t.Errorf("found %d eval files, want the whole examples tree (≥ 90)", len(found))
	}
}

// TestValidateStrict: what validate warns about without an environment, --strict refuses, and
// a suite with no targets file at all is linted, not refused.
func TestValidateStrict(t *testing.T) {
	t.Parallel()
	basic := filepath.Join(agentvExamples, "examples", "features", "basic", "evals", "dataset.eval.yaml")
	noTargets := t.TempDir()
	if err := os.WriteFile(filepath.Join(noTargets, "a.eval.yaml"), []byte("tests:\n  - id: t\n    input: hi\n    assertions:\n      - type: contains\n        value: hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"lint warns about an unset use_target", []string{"validate", "--root", agentvExamples, basic}, 0, []string{
			".agentv/targets.yaml:22:5: warning: target llm: use_target: ${{ LLM_TARGET }} is not set (set the LLM_TARGET environment variable) — not checked",
			"1 file, 0 errors, 23 warnings"}}, // every warning counted, the targets file's included
		{"strict refuses it", []string{"validate", "--strict", "--root", agentvExamples, basic}, 2, []string{
			".agentv/targets.yaml:22:5: error: target llm: use_target: ${{ LLM_TARGET }} is not set"}},
		{"lint warns about no targets file", []string{"validate", "--root", noTargets, noTargets}, 0, []string{
			"a.eval.yaml: warning: no targets file: looked for", "1 file, 0 errors, 1 warning"}},
		{"strict refuses no targets file", []string{"validate", "--strict", "--root", noTargets, noTargets}, 2, []string{
			"a.eval.yaml: error: no targets file: looked for", "1 file, 1 error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invokeGetenv(t, func(string) string { return "" }, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// agentvEnv is a configured AgentV checkout's environment: the root targets file's use_target
// variables name its openai target, and every other variable is set.
func agentvEnv(k string) string {
	switch k {
	case "AGENT_TARGET", "LLM_TARGET", "GRADER_TARGET":
		return "openai"
	}
	return "set-" + strings.ToLower(k)
}

// exampleMockTargets answer for every target the run examples name: the agent with a fixed answer,
// the judge with a freeform verdict every judge grader and aggregator accepts.
const exampleMockTargets = `targets:
  - name: llm
    provider: mock
    response: "Machine learning lets systems learn from data."
    grader_target: grader
  - name: default
    use_target: llm
  - name: grader
    provider: mock
    response: '{"score": 0.9, "assertions": [{"text": "sound", "passed": true}]}'
`

// TestAgentVExamplesRun runs a handful of AgentV 4.42.4 examples end to end, as written, with
// the mock model as agent and judge.
func TestAgentVExamplesRun(t *testing.T) {
	t.Parallel()
	targets := filepath.Join(t.TempDir(), "targets.yaml")
	if err := os.WriteFile(targets, []byte(exampleMockTargets), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		example string
		node    bool // the example runs a node script
		want    map[string]result.Verdict
	}{
		{"features/composite/evals/dataset.eval.yaml", true, map[string]result.Verdict{
			"weighted-average-example": result.Pass, "code-grader-safety-gate": result.Pass,
			"llm-grader-conflict-resolution": result.Pass, "nested-composite": result.Pass}},
		{"features/weighted-graders/evals/dataset.eval.yaml", false, map[string]result.Verdict{
			"weighted-multi-grader": result.Pass, "experimental-grader-disabled": result.Pass, "equal-weights-default": result.Pass}},
		{"features/input-files-shorthand/evals/dataset.eval.yaml", false, map[string]result.Verdict{
			"summarize-sales-shorthand": result.Pass, "summarize-sales-explicit": result.Pass, "compare-two-files": result.Pass}},
		{"features/suite-level-input/evals/dataset.eval.yaml", false, map[string]result.Verdict{
			"japan-spring": result.Pass, "iceland-northern-lights": result.Pass, "skip-suite-input": result.Pass}},
		{"features/deterministic-graders/evals/dataset.eval.yaml", false, map[string]result.Verdict{
			// The mock's answer holds none of what the graders look for.
			"contains-basic": result.Fail, "regex-email": result.Fail, "is-json-valid": result.Fail, "required-gate": result.Fail}},
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("node"); tt.node && err != nil {
				t.Skip("needs node")
			}
			path := filepath.Join(agentvExamples, "examples", filepath.FromSlash(tt.example))
			_, stdout, stderr := invoke(t, "run", "--root", agentvExamples, "--targets", targets, "--format", "json", path)
			var run result.Run
			if err := json.Unmarshal([]byte(stdout), &run); err != nil {
				t.Fatalf("stdout is no results.json: %v\nstderr:\n%s", err, stderr)
			}
			got := map[string]*result.TestResult{}
			for _, s := range run.Suites {
				if s.Error != "" {
					t.Fatalf("suite %s: %s", s.Path, s.Error)
				}
				for _, tr := range s.Tests {
					got[tr.ID] = tr
				}
			}
			for id, v := range tt.want {
				if tr := got[id]; tr == nil || tr.Verdict != v {
					t.Errorf("%s: %+v, want verdict %s", id, tr, v)
				}
			}
			for id, tr := range got {
				if tr.Verdict == result.Error {
					t.Errorf("%s: error %s", id, tr.Error)
				}
			}
			if gate := got["code-grader-safety-gate"]; gate != nil && !strings.Contains(stdout, "Safety check passed") {
				t.Errorf("the upstream safety-gate-aggregator.js did not decide code-grader-safety-gate: %+v", gate)
			}
		})
	}
}
