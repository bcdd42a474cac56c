package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDependsOnAndMatrix(t *testing.T) {
	t.Parallel()
	s, ds := parseString(t, `execution:
  targets:
    - a
    - name: b
      use_target: a
tests:
  - id: setup
    input: hi
    criteria: c
  - id: use
    input: hi
    criteria: c
    depends_on: [setup]
    on_dependency_failure: run
    execution:
      targets: [b]
  - id: single
    input: hi
    criteria: c
    depends_on: setup
    execution:
      target: a
`, nil)
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	if len(s.Matrix) != 2 || s.Matrix[0].Name != "a" || s.Matrix[1].Name != "b" || s.Matrix[1].UseTarget != "a" || s.Matrix[1].Pos.Line != 4 {
		t.Errorf("matrix %+v %+v", s.Matrix[0], s.Matrix[1])
	}
	if !strings.Contains(dump(ds), "17:5: warning: test single: execution.target \"a\" is ignored") {
		t.Errorf("no warning for a test's own target in a matrix suite:\n%s", dump(ds))
	}
	use := s.Tests[1]
	if len(use.DependsOn) != 1 || use.DependsOn[0].ID != "setup" || use.DependsOn[0].Pos.Line != 13 || use.OnDependencyFailure != OnDependencyRun {
		t.Errorf("use: %+v %q", use.DependsOn, use.OnDependencyFailure)
	}
	if diff := cmp.Diff([]string{"b"}, s.Runs(use)); diff != "" {
		t.Errorf("runs of use (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, s.Runs(s.Tests[0])); diff != "" {
		t.Errorf("runs of setup (-want +got):\n%s", diff)
	}
	if d := s.Tests[2].DependsOn; len(d) != 1 || d[0].ID != "setup" || s.Tests[2].OnDependencyFailure != "" {
		t.Errorf("single: %+v", d)
	}
}

func TestScheduleErrors(t *testing.T) {
	t.Parallel()
	const two = "tests:\n  - id: a\n    input: hi\n    criteria: c\n"
	cases := []struct {
		name      string
		body      string
		line, col int
		want      string
	}{
		{"unknown dependency", two + "    depends_on: [stup]\n  - id: setup\n    input: hi\n    criteria: c\n", 5, 18, `depends on "stup", but no test of this suite has that id (did you mean "setup"?)`},
		{"self dependency", two + "    depends_on: [a]\n", 5, 18, "test a depends on itself"},
		{"cycle", two + "    depends_on: [b]\n  - id: b\n    input: hi\n    criteria: c\n    depends_on: [c]\n  - id: c\n    input: hi\n    criteria: c\n    depends_on: [a]\n", 2, 5, "circular dependency: a → b → c → a"},
		{"bad policy", two + "    depends_on: [b]\n    on_dependency_failure: ignore\n  - id: b\n    input: hi\n    criteria: c\n", 6, 28, "on_dependency_failure must be skip, fail or run"},
		{"depends_on a mapping", two + "    depends_on: {b: 1}\n", 5, 17, "depends_on must be a list of test ids"},
		{"targets not a list", "execution:\n  targets: gpt\n" + two, 2, 12, "execution.targets must be a list"},
		{"matrix entry twice", "execution:\n  targets: [x, x]\n" + two, 2, 16, `execution.targets names "x" twice`},
		{"matrix entry without name", "execution:\n  targets:\n    - use_target: x\n" + two, 3, 7, "execution.targets[] has no name"},
		{"per-target hooks", "execution:\n  targets:\n    - name: x\n      hooks:\n        before_each: {command: [true]}\n" + two, 4, 7, "per-target workspace hooks) is not supported"},
		{"test targets outside the matrix", "execution:\n  targets: [x, y]\n" + two + "    execution:\n      targets: [z]\n", 8, 16, "none of its execution.targets is in the suite's execution.targets (x, y)"},
		{"preprocessor without command", "preprocessors:\n  - type: xlsx\n" + two, 2, 5, "preprocessor xlsx needs command"},
		{"preprocessor script missing", "preprocessors:\n  - type: xlsx\n    command: [python3, conv.py]\n" + two, 3, 24, "preprocessor command file not found: conv.py"},
		{"preprocessor without type", "preprocessors:\n  - command: [python3, conv.py]\n" + two, 2, 5, "needs type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, ds := parseString(t, c.body, nil)
			if s != nil {
				t.Errorf("loaded despite the error")
			}
			wantError(t, ds, c.line, c.col, c.want)
		})
	}
}

func TestScheduleWarnings(t *testing.T) {
	t.Parallel()
	body := `execution:
  trials: {count: 3}
  cache: true
  fail_on_error: true
tests:
  - id: a
    input: hi
    criteria: c
    on_dependency_failure: fail
    execution:
      targets: [x]
      budget_usd: 1
    assertions:
      - type: contains
        value: x
        preprocessors:
          - {type: xlsx, command: [conv.py]}
`
	s, ds := parseString(t, body, map[string]string{"evals/conv.py": "print()\n"})
	if s == nil {
		t.Fatalf("load: %s", dump(ds))
	}
	want := []string{
		"3:3: warning: execution.cache is not implemented in evalgate; ignored",
		"4:3: warning: execution.fail_on_error is not implemented in evalgate; ignored",
		"9:28: warning: test a: on_dependency_failure has no effect without depends_on",
		"11:16: warning: test a: execution.targets only picks entries of the suite's execution.targets matrix, and this suite has none; ignored",
		"12:7: warning: test.execution.budget_usd is not implemented in evalgate; ignored",
		"16:9: warning: preprocessors only apply to LLM graders (llm-grader, rubrics); ignored on a contains grader",
	}
	got := dump(ds)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if s.Tests[0].Targets != nil {
		t.Errorf("targets kept without a matrix: %v", s.Tests[0].Targets)
	}
}

func TestPreprocessorsInherited(t *testing.T) {
	t.Parallel()
	body := `preprocessors:
  - type: xlsx
    command: [python3, conv.py]
  - type: application/pdf
    command: conv.py
tests:
  - id: a
    input: hi
    criteria: c
  - id: b
    input: hi
    assertions:
      - type: llm-grader
        preprocessors:
          - {type: pdf, command: [node, pdf.js]}
      - type: contains
        value: x
`
	s, ds := parseString(t, body, map[string]string{"evals/conv.py": "print()\n", "pdf.js": "//\n"})
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	conv, err := filepath.Abs(filepath.Join(s.Dir, "conv.py"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Preprocessors) != 2 {
		t.Fatalf("suite preprocessors %+v, want 2", s.Preprocessors)
	}
	if diff := cmp.Diff([][]string{{"python3", conv}, {conv}}, [][]string{s.Preprocessors[0].Command, s.Preprocessors[1].Command}); diff != "" {
		t.Fatalf("suite preprocessor commands (-want +got):\n%s", diff)
	}
	// The implicit grader inherits the suite's; an explicit one's own pdf replaces the suite's.
	if g := s.Tests[0].Graders[0]; len(g.Preprocessors) != 2 {
		t.Errorf("implicit grader: %d preprocessors", len(g.Preprocessors))
	}
	g := s.Tests[1].Graders[0]
	if len(g.Preprocessors) != 2 || g.Preprocessors[0].Type != "xlsx" || g.Preprocessors[1].Command[0] != "node" {
		t.Errorf("explicit grader preprocessors: %+v", g.Preprocessors)
	}
	if s.Tests[1].Graders[1].Preprocessors != nil {
		t.Errorf("a contains grader got preprocessors")
	}
	if !contains(s.Refs, "evals/conv.py") || !contains(s.Refs, "pdf.js") {
		t.Errorf("refs %v lack the scripts", s.Refs)
	}
	if MediaType(" XLSX ") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" || MediaType("text/x-foo") != "text/x-foo" {
		t.Errorf("MediaType")
	}
}

// TestAgentVScheduleExamples loads AgentV's own suites that use a matrix and preprocessors.
func TestAgentVScheduleExamples(t *testing.T) {
	t.Parallel()
	root := "testdata/agentv442"
	load := func(p string) (*Suite, Diagnostics) {
		return Load(filepath.Join(root, p), LoadOptions{Root: root, Getenv: func(k string) string {
			return map[string]string{"AGENT_TARGET": "claude"}[k]
		}})
	}
	s, ds := load("examples/features/preprocessors/evals/dataset.eval.yaml")
	if s == nil || ds.HasErrors() {
		t.Fatalf("preprocessors example: %s", dump(ds))
	}
	if len(s.Preprocessors) != 1 || s.Preprocessors[0].Type != "xlsx" || len(s.Tests[0].Graders) != 1 {
		t.Fatalf("preprocessors %+v, graders %d", s.Preprocessors, len(s.Tests[0].Graders))
	}
	// Its one string assertion is a rubric, a judge: it inherits the preprocessor.
	if g := s.Tests[0].Graders[0]; !g.IsJudge() || len(g.Preprocessors) != 1 || !strings.HasSuffix(g.Preprocessors[0].Command[2], "xlsx-to-csv.ts") {
		t.Errorf("grader %s: %+v", g.Type, g.Preprocessors)
	}

	s, ds = load("examples/showcase/multi-model-benchmark/evals/benchmark.eval.yaml")
	if s == nil || ds.HasErrors() {
		t.Fatalf("benchmark example: %s", dump(ds))
	}
	if diff := cmp.Diff([]string{"copilot", "claude", "gemini-llm"}, s.Runs(s.Tests[0])); diff != "" {
		t.Errorf("matrix (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Trials{Count: 2, Strategy: TrialsPassAtK, CostLimitUSD: 2, Pos: s.Trials.Pos}, s.Trials); diff != "" {
		t.Errorf("trials (-want +got):\n%s", diff)
	}
	if s.Trials.Pos.Line != 22 {
		t.Errorf("trials at %s, want line 22", s.Trials.Pos)
	}
	if strings.Contains(dump(ds), "trials") {
		t.Errorf("trials still warned about:\n%s", dump(ds))
	}

	_, ds = load("examples/showcase/bug-fix-benchmark/evals/bug-fixes.eval.yaml")
	wantError(t, ds, 31, 7, "per-target workspace hooks) is not supported by evalgate")
}

func TestPreprocessorsInheritedByTurnGraders(t *testing.T) {
	t.Parallel()
	// A conversation's turn judges see the target's files as the test's own judges do.
	body := `preprocessors:
  - type: xlsx
    command: [python3, conv.py]
tests:
  - id: chat
    mode: conversation
    input:
      - role: system
        content: Be brief.
    turns:
      - input: hi
        assertions:
          - type: llm-grader
            prompt: Is it right?
`
	s, ds := parseString(t, body, map[string]string{"evals/conv.py": "print()\n"})
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	if g := s.Tests[0].Turns()[0].Graders[0]; len(g.Preprocessors) != 1 || g.Preprocessors[0].Type != "xlsx" {
		t.Errorf("turn grader preprocessors: %+v", g.Preprocessors)
	}
}
