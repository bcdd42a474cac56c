package suite

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const ex = "testdata/agentv-examples"

func mustLoad(t *testing.T, path string) (*Suite, Diagnostics) {
	t.Helper()
	s, ds := Load(filepath.Join(ex, path), LoadOptions{Root: ex})
	if s == nil || ds.HasErrors() {
		t.Fatalf("%s did not load:\n%s", path, dump(ds))
	}
	return s, ds
}

func criteriaIDs(g *Grader) []string {
	var out []string
	for _, c := range g.Criteria {
		out = append(out, c.ID)
	}
	return out
}

func TestAgentVRubricExample(t *testing.T) {
	t.Parallel()
	s, _ := mustLoad(t, "v4.42.4/features/rubric/evals/dataset.eval.yaml")
	if s.Name != "rubric" || s.Target != "llm" || s.Format != FormatAgentV || len(s.Tests) != 5 {
		t.Fatalf("suite: %s %s %s %d tests", s.Name, s.Target, s.Format, len(s.Tests))
	}
	// Test 1: three bare strings are one rubrics grader weighing 3, each criterion required.
	g := s.Tests[0].Graders[0]
	if len(s.Tests[0].Graders) != 1 || g.Type != "rubrics" || g.Weight != 3 || !g.Criteria[1].Required {
		t.Fatalf("test 1: %+v", g)
	}
	if diff := cmp.Diff([]string{"rubric-1", "rubric-2", "rubric-3"}, criteriaIDs(g)); diff != "" {
		t.Fatalf("test 1 criteria (-want +got):\n%s", diff)
	}
	if ref := s.Tests[0].Reference(); !strings.HasPrefix(ref, "Quicksort is a divide-and-conquer") {
		t.Fatalf("reference answer: %q", ref)
	}
	// Test 2: explicit weights and required flags.
	c := s.Tests[1].Graders[0].Criteria
	if c[1].ID != "success-codes" || c[1].Weight != 2 || !c[1].Required || c[3].ID != "server-errors" || c[3].Weight != 1.5 || c[3].Required {
		t.Fatalf("test 2 criteria: %+v %+v", c[1], c[3])
	}
	// Test 3: rubrics + a code grader with an argv command.
	gs := s.Tests[2].Graders
	if len(gs) != 2 || len(gs[0].Criteria) != 4 || gs[1].Type != "code-grader" || gs[1].Name != "python_syntax" {
		t.Fatalf("test 3: %+v", gs[1])
	}
	if diff := cmp.Diff([]string{"uv", "run", "python", "check_syntax.py"}, gs[1].Command); diff != "" {
		t.Fatalf("test 3 command (-want +got):\n%s", diff)
	}
	// Test 4: no assertions → AgentV's implicit freeform judge on the criteria.
	if gs := s.Tests[3].Graders; len(gs) != 1 || gs[0].Type != "llm-grader" || gs[0].RubricMode() != ModeFreeform {
		t.Fatalf("test 4: %+v", gs)
	}
	// Test 5: score-range mode from the map form.
	g = s.Tests[4].Graders[0]
	fa := g.Criteria[0]
	want := []ScoreRange{{Min: 0, Max: 2}, {Min: 3, Max: 5}, {Min: 6, Max: 7}, {Min: 8, Max: 9}, {Min: 10, Max: 10}}
	for i := range fa.ScoreRanges {
		fa.ScoreRanges[i].Outcome = ""
	}
	if g.RubricMode() != ModeRange || fa.ID != "factual_accuracy" || fa.Weight != 2 || fa.MinScore == nil || *fa.MinScore != 0.8 || fa.Required {
		t.Fatalf("test 5: %+v ranges %v", fa, fa.ScoreRanges)
	}
	if diff := cmp.Diff(want, fa.ScoreRanges); diff != "" {
		t.Fatalf("test 5 ranges (-want +got):\n%s", diff)
	}
}

func TestAgentVOperatorsExample(t *testing.T) {
	t.Parallel()
	s, _ := mustLoad(t, "v4.42.4/features/rubric/evals/operators.eval.yaml")
	c := s.Tests[0].Graders[0].Criteria
	if c[0].Operator != "correctness" || c[1].Operator != "contradiction" || !c[1].Required {
		t.Fatalf("%+v %+v", c[0], c[1])
	}
}

func TestAgentVJSONLExample(t *testing.T) {
	t.Parallel()
	s, _ := mustLoad(t, "v4.42.4/features/basic-jsonl/evals/dataset.eval.yaml")
	if s.Name != "basic-jsonl" || len(s.Tests) != 7 {
		t.Fatalf("%s: %d tests", s.Name, len(s.Tests))
	}
	if s.Tests[1].Target != "azure-llm" || s.Tests[0].Target != "" {
		t.Fatalf("per-row target: %q %q", s.Tests[1].Target, s.Tests[0].Target)
	}
	if s.Tests[0].Input[0].Role != "system" || len(s.Tests[0].Input[1].Files) != 1 {
		t.Fatalf("content blocks: %+v", s.Tests[0].Input)
	}
	if q := s.Tests[3].Question(); !strings.Contains(q, "@[Assistant]:\nBefore I propose a fix") {
		t.Fatalf("multi-turn question: %q", q)
	}
	if s.Tests[4].Question() != "What is 2+2?" || s.Tests[4].Reference() != "The answer is 4." {
		t.Fatalf("shorthands: %q %q", s.Tests[4].Question(), s.Tests[4].Reference())
	}
	var ref map[string]any
	if err := json.Unmarshal([]byte(s.Tests[5].Reference()), &ref); err != nil {
		t.Fatalf("structured expected output %q: %v", s.Tests[5].Reference(), err)
	}
	wantRef := map[string]any{"riskLevel": "Low", "confidence": 0.95, "reasoning": "Transaction amount and pattern are within normal bounds"}
	if diff := cmp.Diff(wantRef, ref); diff != "" {
		t.Fatalf("structured expected output (-want +got):\n%s", diff)
	}
	if s.Tests[0].Pos.File != "v4.42.4/features/basic-jsonl/evals/dataset.jsonl" || s.Tests[2].Pos.Line != 3 {
		t.Fatalf("row positions: %v %v", s.Tests[0].Pos, s.Tests[2].Pos)
	}
	if !contains(s.Refs, "v4.42.4/features/basic-jsonl/evals/dataset.jsonl") {
		t.Fatalf("refs: %v", s.Refs)
	}
}

func TestAgentVFileChangesExample(t *testing.T) {
	t.Parallel()
	s, ds := Load(filepath.Join(ex, "v4.42.4/features/file-changes-graders/evals/dataset.eval.yaml"), LoadOptions{Root: ex})
	// The example's workspace template is not part of the copied files: that must be reported.
	if s != nil || !strings.Contains(dump(ds), "workspace template ../workspace-template is not a directory") {
		t.Fatalf("missing template not reported:\n%s", dump(ds))
	}
}

func TestLegacyExample(t *testing.T) {
	t.Parallel()
	s, ds := mustLoad(t, "legacy-2025-12/features/evals/rubric/rubric-examples.yaml")
	if s.Format != FormatLegacy || s.Target != "default" || len(s.Tests) != 4 {
		t.Fatalf("%s %s %d", s.Format, s.Target, len(s.Tests))
	}
	warnings := 0
	for _, d := range ds {
		if strings.Contains(d.Message, "legacy AgentV format") {
			warnings++
		}
	}
	if warnings != 1 {
		t.Fatalf("want one deprecation hint, got %d:\n%s", warnings, dump(ds))
	}
	if s.Tests[0].Question() != "Explain how the quicksort algorithm works" || s.Tests[0].Criteria == "" || s.Tests[0].Reference() == "" {
		t.Fatalf("legacy fields: %+v", s.Tests[0])
	}
	c := s.Tests[1].Graders[0].Criteria
	if c[0].Outcome != "Has clear headings and organization" || c[3].Required {
		t.Fatalf("description alias / required: %+v", c)
	}
	gs := s.Tests[2].Graders
	if len(gs) != 2 || gs[0].Type != "rubrics" || gs[1].Type != "code-grader" {
		t.Fatalf("legacy graders: %+v", gs)
	}
	if diff := cmp.Diff([]string{"sh", "-c", "uv run python check_syntax.py"}, gs[1].Command); diff != "" {
		t.Fatalf("legacy code-grader command (-want +got):\n%s", diff)
	}
}

func TestPromptfooExample(t *testing.T) {
	t.Parallel()
	s, _ := mustLoad(t, "next-5.3.1/features/readme-quickstart/evals/my-eval.eval.yaml")
	if s.Format != FormatPromptfoo || s.Target != "local-openai" || s.Workers != 2 || len(s.Tests) != 1 {
		t.Fatalf("%s %s %d %d", s.Format, s.Target, s.Workers, len(s.Tests))
	}
	tc := s.Tests[0]
	if !strings.HasPrefix(tc.Question(), "Write FizzBuzz in Python") || tc.Threshold == nil || *tc.Threshold != 0.8 {
		t.Fatalf("input from prompts+vars / default_test threshold: %q %v", tc.Question(), tc.Threshold)
	}
	var types []string
	for _, g := range tc.Graders {
		types = append(types, g.Type)
	}
	if diff := cmp.Diff([]string{"contains", "rubrics", "code-grader", "rubrics"}, types); diff != "" {
		t.Fatalf("grader types (-want +got):\n%s", diff)
	}
	value := tc.Graders[3]
	if value.Criteria[0].Weight != 0.5 || value.Criteria[1].Weight != 1.5 || !value.PromptIsTemplate || !strings.Contains(value.Prompt, "{{ rubrics }}") {
		t.Fatalf("llm-rubric value / rubric_prompt: %+v", value)
	}
}

func TestPotatoScheme(t *testing.T) {
	t.Parallel()
	potato := "annotation_schemes:\n  - annotation_type: rubric_eval\n    name: agent_quality\n    scale: {min: 1, max: 5, labels: {1: Poor, 5: Excellent}}\n    criteria:\n      - {name: correctness, weight: 3.0, scale_descriptions: {1: broken, 5: correct}}\n      - {name: efficiency, weight: 1.5}\n    overall: {enabled: true}\n"
	s, ds := parseString(t, head+"      - type: rubric_eval\n        scheme: file://potato.yaml#agent_quality\n", map[string]string{"evals/potato.yaml": potato})
	if s == nil {
		t.Fatal(dump(ds))
	}
	g := s.Tests[0].Graders[0]
	if g.Type != "likert" || g.Likert == nil || g.Likert.Max != 5 || len(g.Likert.Criteria) != 2 || g.Likert.Criteria[0].Anchors[5] != "correct" || g.Likert.Overall == nil {
		t.Fatalf("%+v", g.Likert)
	}
	if !contains(s.Refs, "evals/potato.yaml") {
		t.Fatalf("refs %v", s.Refs)
	}
	_, ds = parseString(t, head+"      - type: rubric_eval\n        scale: {min: 5, max: 1}\n        criteria: [{name: a}]\n", nil)
	if !strings.Contains(dump(ds), "must be below scale.max") {
		t.Fatalf("bad scale not reported:\n%s", dump(ds))
	}
}

func TestInterpolationAndTargets(t *testing.T) {
	t.Parallel()
	targets := "targets:\n  - name: agent\n    provider: replay\n    outputs: out.jsonl\n    grader_target: judge\n  - name: judge\n    provider: azure-openai\n    api_key: ${{ KEY }}\n  - name: alias\n    use_target: judge\n"
	body := "name: interp\nexecution:\n  target: agent\ntests:\n  - id: t\n    vars: {who: world}\n    input: hello {{ who }} from ${{ USER_NAME }} {{ missing }}\n    criteria: c\n"
	dir := t.TempDir()
	_ = dir
	s, ds := parseString(t, body, map[string]string{".agentv/targets.yaml": targets})
	if s == nil {
		t.Fatal(dump(ds))
	}
	if got := s.Tests[0].Question(); got != "hello world from  {{ missing }}" {
		t.Fatalf("question %q", got)
	}
	if s.TargetsFile == "" {
		t.Fatal("targets.yaml not found walking up")
	}
	tf, tds := loadTargets(s.TargetsFile, func(k string) string { return map[string]string{"KEY": "sk-test"}[k] })
	if tf == nil || tds.HasErrors() {
		t.Fatal(dump(tds))
	}
	j, ok := tf.Lookup("alias")
	if !ok || j.Provider != "azure" || j.Settings["api_key"] != "sk-test" {
		t.Fatalf("alias: %+v", j)
	}
	if a, _ := tf.Lookup("agent"); a.GraderTarget != "judge" {
		t.Fatalf("agent: %+v", a)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	files, err := Discover([]string{ex}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The legacy example is not named *.eval.yaml: directories use AgentV's patterns.
	if len(files) != 5 {
		t.Fatalf("discovered %d: %v", len(files), files)
	}
	if _, err := Discover([]string{filepath.Join(ex, "README.md")}, nil); err == nil {
		t.Fatal("a Markdown file was accepted as an eval file")
	}
}

func TestSuiteDirIsAbsolute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path   string
		format Format
	}{
		{"v4.42.4/features/rubric/evals/dataset.eval.yaml", FormatAgentV},
		{"legacy-2025-12/features/evals/rubric/rubric-examples.yaml", FormatLegacy},
		{"next-5.3.1/features/readme-quickstart/evals/my-eval.eval.yaml", FormatPromptfoo},
		{"v4.42.4/features/basic-jsonl/evals/dataset.jsonl", FormatJSONL},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			t.Parallel()
			// A relative root, as from the command line: Path is relative to it, Dir is not.
			s, ds := Load(filepath.Join(ex, tt.path), LoadOptions{Root: ex})
			if s == nil || ds.HasErrors() {
				t.Fatalf("did not load:\n%s", dump(ds))
			}
			want, err := filepath.Abs(filepath.Join(ex, filepath.Dir(tt.path)))
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tt.format || s.Path != tt.path || s.Dir != want || !filepath.IsAbs(s.Dir) {
				t.Errorf("format %s path %q dir %q, want %s %q %q", s.Format, s.Path, s.Dir, tt.format, tt.path, want)
			}
		})
	}
}

func TestGraderExtraKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		grader  string // one assertions item, indented for head
		config  map[string]any
		params  map[string]any
		target  string
		samples int
		warning string // "" = no diagnostics
	}{
		{"code extra keys to config",
			"      - {type: code-grader, command: [sh, x.sh], language: python, threshold: 0.9, config: {strict: true, language: go}}\n",
			map[string]any{"strict": true, "language": "go", "threshold": 0.9}, map[string]any{}, "", 0, ""},
		{"code judge settings to config",
			"      - {type: code_judge, command: x, samples: 30, provider: judge}\n",
			map[string]any{"samples": 30, "provider": "judge"}, map[string]any{}, "", 0, ""},
		{"code timeouts kept in params",
			"      - {type: code-grader, command: x, timeout_ms: 250, timeout_seconds: 2}\n",
			nil, map[string]any{"timeout_ms": 250, "timeout_seconds": 2}, "", 0, ""},
		{"code target true",
			"      - {type: code-grader, command: x, target: true}\n",
			nil, map[string]any{"target": true}, "", 0, ""},
		{"code target max_calls",
			"      - {type: code-grader, command: x, target: {max_calls: 5}}\n",
			nil, map[string]any{"target": map[string]any{"max_calls": 5}}, "", 0, ""},
		{"llm extra keys to config",
			"      - {type: llm-grader, prompt: p, tone: strict, target: judge, samples: 3}\n",
			map[string]any{"tone": "strict"}, nil, "judge", 3, ""},
		{"other types still warn",
			"      - {type: contains, value: x, colour: red}\n",
			nil, nil, "", 0, `unknown key "colour"`},
		{"unrelated keys on rubrics warn",
			"      - {type: rubrics, criteria: [a], colour: red}\n",
			nil, nil, "", 0, `unknown key "colour"`},
		{"code config keys near own keys stay config",
			"      - {type: code-grader, command: x, weights: [1, 2], targets: 3}\n",
			map[string]any{"weights": []any{1, 2}, "targets": 3}, map[string]any{}, "", 0, ""},
		{"minimums keep their order",
			"      - {type: tool-trajectory, mode: any_order, minimums: {Write: 1, Read: 2, Bash: 1}}\n",
			nil, map[string]any{"mode": "any_order", "minimums": map[string]any{"Write": 1, "Read": 2, "Bash": 1},
				"minimums_order": []string{"Write", "Read", "Bash"}}, "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ds := parseString(t, head+tt.grader, nil)
			if s == nil {
				t.Fatalf("did not load:\n%s", dump(ds))
			}
			switch {
			case tt.warning == "" && len(ds) > 0:
				t.Errorf("unexpected diagnostics:\n%s", dump(ds))
			case tt.warning != "" && (len(ds) != 1 || ds[0].Severity != Warning || !strings.Contains(ds[0].Message, tt.warning)):
				t.Errorf("want one warning %q, got:\n%s", tt.warning, dump(ds))
			}
			g := s.Tests[0].Graders[0]
			if diff := cmp.Diff(tt.config, g.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.params, g.Params); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
			if g.Target != tt.target || g.Samples != tt.samples {
				t.Errorf("target %q samples %d, want %q %d", g.Target, g.Samples, tt.target, tt.samples)
			}
		})
	}
}

func TestRunTimePathsStayAsWritten(t *testing.T) {
	t.Parallel()
	body := "workspace:\n  hooks:\n    before_all: {command: [sh, setup.sh], cwd: ../scripts}\n" +
		head + "      - {type: code-grader, command: [./check.sh], cwd: graders}\n"
	s, ds := parseString(t, body, nil)
	if s == nil || ds.HasErrors() {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	// Both cwds are resolved at run time against Dir, the eval file's directory (AgentV's rule).
	if h := s.Workspace.Hooks.BeforeAll; h == nil || h.Cwd != "../scripts" {
		t.Errorf("hook %+v, want cwd ../scripts", h)
	}
	if g := s.Tests[0].Graders[0]; g.Cwd != "graders" || !cmp.Equal(g.Command, []string{"./check.sh"}) {
		t.Errorf("grader cwd %q command %q, want graders [./check.sh]", g.Cwd, g.Command)
	}
}
