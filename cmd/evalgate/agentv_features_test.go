package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/result"
)

// featureTargets are two cli targets running the same scripted agent (its first argument says
// which), graded by a judge on llmtest's fake OpenAI.
const featureTargets = `targets:
  - name: fast
    provider: cli
    command: sh "$AGENT" fast {EVAL_ID} {OUTPUT_FILE}
    cwd: ${{ WORK }}
    env: {AGENT: "${{ AGENT }}"}
    grader_target: judge
  - name: slow
    provider: cli
    command: sh "$AGENT" slow {EVAL_ID} {OUTPUT_FILE}
    cwd: ${{ WORK }}
    env: {AGENT: "${{ AGENT }}"}
    grader_target: judge
  - name: judge
    provider: openai
    model: gpt-4o-mini
    api_key: k
    base_url: ${{ FAKE_URL }}/v1
`

// featureAgent answers "report" with a spreadsheet file block (bytes no judge can read), fails
// "broken", and answers everything else with text naming its target.
const featureAgent = `target=$1 id=$2 out=$3
case $id in
broken) echo "crashed" >&2; exit 3 ;;
report)
  mkdir -p "generated/$target"
  printf '\000\237\222\226' > "generated/$target/report.xlsx"
  printf '{"output": [{"role": "assistant", "content": [{"type": "text", "text": "Report attached."}, {"type": "file", "media_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "path": "generated/%s/report.xlsx"}]}]}' "$target" > "$out" ;;
*) printf '{"text": "%s answered %s"}' "$target" "$id" > "$out" ;;
esac
`

// featureSuite uses depends_on with each policy, a two-target matrix with a test-level pick,
// and a suite preprocessor.
const featureSuite = `execution:
  targets: [fast, slow]
preprocessors:
  - type: xlsx
    command: [sh, ../scripts/xlsx.sh]
tests:
  - id: uses-report
    input: "Task uses-report: summarise the report"
    criteria: mentions the report
    depends_on: [report]
  - id: report
    input: "Task report: build the revenue report"
    criteria: the report lists revenue rows
  - id: broken
    input: "Task broken: crash"
    criteria: never graded
    execution:
      targets: [slow]
  - id: after-broken
    input: "Task after-broken: go on"
    criteria: c
    depends_on: [broken]
    execution:
      targets: [slow]
  - id: after-broken-fail
    input: "Task after-broken-fail: go on"
    criteria: c
    depends_on: [broken]
    on_dependency_failure: fail
    execution:
      targets: [slow]
  - id: after-broken-run
    input: "Task after-broken-run: go on"
    criteria: c
    depends_on: [broken]
    on_dependency_failure: run
    execution:
      targets: [slow]
`

var featureTask = regexp.MustCompile(`Task ([a-z-]+):`)

// TestAgentVFeaturesE2E runs a suite using depends_on, an execution.targets matrix and a content
// preprocessor through the whole program, and checks the rows, their order of execution and
// what the judge saw.
func TestAgentVFeaturesE2E(t *testing.T) {
	t.Parallel()
	root := writeRepo(t, map[string]string{
		".agentv/targets.yaml":     featureTargets,
		"evals/features.eval.yaml": featureSuite,
		"scripts/xlsx.sh":          `read -r payload; case $payload in *report.xlsx*) echo "spreadsheet: revenue,total"; echo "Q1,42" ;; *) exit 4 ;; esac`,
		"agent/agent.sh":           featureAgent,
		"agent/work/.keep":         "",
	})
	var mu sync.Mutex
	answers := map[string][]string{} // task → the answer sections the judge saw
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		prompt := r.LastUser()
		task := featureTask.FindStringSubmatch(prompt)
		mu.Lock()
		if task != nil {
			answers[task[1]] = append(answers[task[1]], prompt)
		}
		mu.Unlock()
		return llmtest.Reply{Text: `{"score": 1, "assertions": [{"text": "fine", "passed": true}]}`}
	}
	out := t.TempDir()
	env := map[string]string{"FAKE_URL": srv.URL, "AGENT": filepath.Join(root, "agent/agent.sh"), "WORK": filepath.Join(root, "agent/work")}
	code, stdout, stderr := invokeEnv(t, env, "run", "--root", root, "--allow-env", "FAKE_URL,AGENT,WORK", "--workers", "4", "--no-cache", "--out", out, filepath.Join(root, "evals"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (broken is an error)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	var rows []string
	byLabel := map[string]*result.TestResult{}
	for _, tr := range run.Suites[0].Tests {
		rows = append(rows, tr.Label()+"="+string(tr.Verdict))
		byLabel[tr.Label()] = tr
	}
	want := "uses-report@fast=pass uses-report@slow=pass report@fast=pass report@slow=pass broken@slow=error " +
		"after-broken@slow=skip after-broken-fail@slow=error after-broken-run@slow=pass"
	if got := strings.Join(rows, " "); got != want {
		t.Fatalf("rows\n got %s\nwant %s", got, want)
	}
	for label, why := range map[string]string{"after-broken@slow": "dependency failed (broken: error)", "after-broken-fail@slow": "dependency failed (broken: error)"} {
		if tr := byLabel[label]; tr.Error != why || tr.Target != "slow" {
			t.Errorf("%s: error %q target %q", label, tr.Error, tr.Target)
		}
	}
	// The judge saw the spreadsheet as the preprocessor's text, once per target; it never saw
	// the skipped or failed dependents.
	if len(answers["report"]) != 2 {
		t.Fatalf("report was judged %d times, want 2", len(answers["report"]))
	}
	for _, p := range answers["report"] {
		if !strings.Contains(p, "Report attached.\n[[ file: generated/") || !strings.Contains(p, "spreadsheet: revenue,total\nQ1,42") {
			t.Errorf("judge prompt lacks the converted spreadsheet:\n%s", p)
		}
	}
	for _, task := range []string{"after-broken", "after-broken-fail", "broken"} {
		if n := len(answers[task]); n != 0 {
			t.Errorf("%s was judged %d times", task, n)
		}
	}
	// Reports tell the matrix rows apart.
	md, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "report@slow") || !strings.Contains(string(md), "after-broken@slow") {
		t.Errorf("comment.md does not name the matrix rows:\n%s", md)
	}
}

// TestAgentVFeaturesValidate checks that scheduling mistakes are configuration errors at
// validate time, naming the file and line: an unknown matrix target, an unknown dependency and
// a cycle.
func TestAgentVFeaturesValidate(t *testing.T) {
	t.Parallel()
	root := writeRepo(t, map[string]string{
		".agentv/targets.yaml": featureTargets,
		"evals/matrix.eval.yaml": `execution:
  targets:
    - fast
    - name: slw
tests:
  - id: a
    input: hi
    criteria: c
`,
		"evals/deps.eval.yaml": `execution:
  target: fast
tests:
  - id: a
    input: hi
    criteria: c
    depends_on: [b]
  - id: b
    input: hi
    criteria: c
    depends_on: [a, zz]
`,
	})
	env := map[string]string{"FAKE_URL": "http://127.0.0.1:1", "AGENT": "/bin/true", "WORK": root}
	code, stdout, _ := invokeEnv(t, env, "validate", "--root", root, filepath.Join(root, "evals"))
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stdout)
	}
	for _, want := range []string{
		`evals/matrix.eval.yaml:4:7: error: execution.targets entry "slw" is not defined in .agentv/targets.yaml (did you mean "slow"?)`,
		`evals/deps.eval.yaml:11:21: error: test b depends on "zz", but no test of this suite has that id`,
		`evals/deps.eval.yaml:4:5: error: circular dependency: a → b → a`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("validate output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestSelectionKeepsDependencies: --test-id picks a test, and its dependencies come along.
func TestSelectionKeepsDependencies(t *testing.T) {
	t.Parallel()
	root := writeRepo(t, map[string]string{
		".agentv/targets.yaml": mockTargets,
		"evals/deps.eval.yaml": `tests:
  - {id: base, input: hi, assertions: [{type: contains, value: ok}]}
  - {id: middle, input: hi, assertions: [{type: contains, value: ok}], depends_on: [base]}
  - {id: top, input: hi, assertions: [{type: contains, value: ok}], depends_on: [middle]}
  - {id: other, input: hi, assertions: [{type: contains, value: ok}]}
`,
	})
	code, stdout, stderr := invoke(t, "run", "--root", root, "--test-id", "top", "--format", "json", root)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range run.Suites[0].Tests {
		ids = append(ids, tr.ID)
	}
	if got := strings.Join(ids, ","); got != "base,middle,top" {
		t.Errorf("ran %s, want base,middle,top", got)
	}
}
