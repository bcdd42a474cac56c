package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCustomAssertionTypes(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/assertions/word-count.ts":      "",
		".agentv/assertions/contains.ts":        "", // never overrides the built-in
		".agentv/assertions/shadowed.ts":        "",
		"evals/.agentv/assertions/shadowed.mjs": "",
		"evals/.agentv/graders/sentiment.js":    "",
		".agentv/assertions/sentiment.mjs":      "", // assertions dirs come before graders dirs
		".agentv/judges/legacy.js":              "",
	}
	body := head + `      - type: word-count
        min_words: 5
        weight: 2
        config: {strict: true}
      - {type: word_count, name: underscore}
      - {type: shadowed}
      - {type: sentiment}
      - {type: legacy, negate: true}
      - {type: contains, value: x}
`
	s, ds := parseString(t, body, files)
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	root := filepath.Dir(s.Dir)
	gs := s.Tests[0].Graders
	tests := []struct {
		name, typ, module string
	}{
		{"word-count", "word-count", ".agentv/assertions/word-count.ts"},
		{"underscore", "word-count", ".agentv/assertions/word-count.ts"},
		{"shadowed", "shadowed", "evals/.agentv/assertions/shadowed.mjs"},
		{"sentiment", "sentiment", ".agentv/assertions/sentiment.mjs"},
		{"legacy", "legacy", ".agentv/judges/legacy.js"},
	}
	for i, tt := range tests {
		g := gs[i]
		if g.Name != tt.name || g.Type != tt.typ || g.Custom != filepath.Join(root, tt.module) {
			t.Errorf("grader %d = %s/%s %s, want %s/%s %s", i, g.Name, g.Type, g.Custom, tt.name, tt.typ, tt.module)
		}
	}
	if g := gs[0]; g.Weight != 2 {
		t.Errorf("word-count weight %v, want 2", g.Weight)
	}
	if diff := cmp.Diff(map[string]any{"min_words": 5, "strict": true}, gs[0].Config); diff != "" {
		t.Errorf("word-count config (-want +got):\n%s", diff)
	}
	if !gs[4].Negate {
		t.Error("negate lost")
	}
	if g := gs[5]; g.Type != "contains" || g.Custom != "" {
		t.Errorf("contains became %s %q: a custom file must not override a built-in type", g.Type, g.Custom)
	}
	if !contains(s.Refs, ".agentv/assertions/word-count.ts") {
		t.Errorf("refs %v lack the module: a change to it must select the suite", s.Refs)
	}
}

func TestCustomAssertionErrors(t *testing.T) {
	t.Parallel()
	files := map[string]string{".agentv/assertions/word-count.mjs": ""}
	tests := []struct {
		name      string
		assertion string
		line, col int
		want      string
	}{
		{"typo of an own key", "      - type: word-count\n        weigth: 2\n", 6, 9, `unknown key "weigth" (did you mean "weight"?)`},
		{"typo of the type", "      - type: word-cont\n", 5, 15, `unknown grader type "word-cont" (did you mean "word-count"?)`},
		{"no module", "      - type: sentiment\n", 5, 15, "a custom assertion of that type would be .agentv/assertions/sentiment.ts"},
		{"bad weight", "      - type: word-count\n        weight: -1\n", 6, 17, "weight must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ds := parseString(t, head+tt.assertion, files)
			wantError(t, ds, tt.line, tt.col, tt.want)
		})
	}
}

// TestCustomAssertionOutsideRoot: a module above the repository root is not the repository's
// to run, and a link leaving the root is refused by name.
func TestCustomAssertionOutsideRoot(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	root := filepath.Join(outer, "repo")
	for name, content := range map[string]string{
		".agentv/assertions/above.mjs": "",
		"elsewhere/linked.mjs":         "",
		"repo/evals/x.eval.yaml":       head + "      - type: above\n      - type: linked\n",
	} {
		p := filepath.Join(outer, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".agentv/assertions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outer, "elsewhere/linked.mjs"), filepath.Join(root, ".agentv/assertions/linked.mjs")); err != nil {
		t.Fatal(err)
	}
	_, ds := Load(filepath.Join(root, "evals/x.eval.yaml"), LoadOptions{Root: root})
	wantError(t, ds, 5, 15, `unknown grader type "above"`)
	wantError(t, ds, 6, 15, "symbolic link")
}

func TestPromptCommand(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"prompts/grader.mjs": "",
		"prompts/other.mjs":  "",
		"shared/common.mjs":  "",
	}
	body := head + `      - name: with-config
        type: llm-grader
        extra: dropped
        prompt:
          command: [node, ../prompts/grader.mjs]
          config: {rubric: r, strictMode: true}
      - name: alias
        type: llm-grader
        tone: formal
        prompt:
          script: [node, shared/common.mjs]
`
	s, ds := parseString(t, body, files)
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	root := filepath.Dir(s.Dir)
	gs := s.Tests[0].Graders
	if diff := cmp.Diff([]string{"node", filepath.Join(root, "prompts/grader.mjs")}, gs[0].PromptCommand); diff != "" {
		t.Errorf("with-config: command (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"rubric": "r", "strictMode": true}, gs[0].Config); diff != "" {
		t.Errorf("with-config: config, which prompt.config replaces as in AgentV (-want +got):\n%s", diff)
	}
	if gs[0].Prompt != "" {
		t.Errorf("with-config: prompt %q, want none", gs[0].Prompt)
	}
	// script: is AgentV's old name; the script is found from the directory above, as AgentV does.
	if diff := cmp.Diff([]string{"node", filepath.Join(root, "shared/common.mjs")}, gs[1].PromptCommand); diff != "" {
		t.Errorf("alias: command (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"tone": "formal"}, gs[1].Config); diff != "" {
		t.Errorf("alias: config (-want +got):\n%s", diff)
	}
	for _, ref := range []string{"prompts/grader.mjs", "shared/common.mjs"} {
		if !contains(s.Refs, ref) {
			t.Errorf("refs %v lack %s", s.Refs, ref)
		}
	}
}

func TestPromptCommandErrors(t *testing.T) {
	t.Parallel()
	const top = head + "      - type: llm-grader\n        prompt:\n"
	tests := []struct {
		name      string
		prompt    string
		line, col int
		want      string
	}{
		{"missing script", "          command: [bun, run, ../prompts/custom-grader.ts]\n", 7, 31,
			"prompt command file not found: ../prompts/custom-grader.ts (looked for prompts/custom-grader.ts and the same path from each directory above it up to the repository root); in prompts: custom-evaluator.ts"},
		{"string command", "          command: node grader.mjs\n", 7, 20, `prompt.command must be a non-empty list of argv strings, not "node grader.mjs"`},
		{"empty command", "          command: []\n", 7, 20, "must be a non-empty list"},
		{"blank argument", "          command: [node, '']\n", 7, 27, "prompt.command has an empty argument"},
		{"no command", "          config: {a: 1}\n", 7, 11, "prompt needs command"},
		{"config not a mapping", "          command: [node, ../prompts/custom-evaluator.ts]\n          config: [1]\n", 8, 19, "prompt.config must be a mapping"},
		{"typo of command", "          comand: [node, x.mjs]\n", 7, 11, `unknown key "comand" (did you mean "command"?)`},
		{"outside the root", "          command: [node, ../../../outside.mjs]\n", 7, 27, "prompt command file not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ds := parseString(t, top+tt.prompt, map[string]string{"prompts/custom-evaluator.ts": ""})
			wantError(t, ds, tt.line, tt.col, tt.want)
		})
	}
}

// TestAgentVPromptTemplateExample loads AgentV's prompt-template-sdk example. Its YAML names
// ../prompts/custom-grader.ts, but the script is custom-evaluator.ts (renamed upstream, the
// YAML not): AgentV 4.42.4 skips both tests for it; evalgate reports it at the line and names
// the file that is there. With the name fixed, both tests load with their template and config.
func TestAgentVPromptTemplateExample(t *testing.T) {
	t.Parallel()
	root := "testdata/agentv442"
	path := filepath.Join(root, "examples/features/prompt-template-sdk/evals/dataset.eval.yaml")
	_, ds := Load(path, LoadOptions{Root: root})
	for _, line := range []int{30, 50} {
		wantError(t, ds, line, 31, "prompt command file not found: ../prompts/custom-grader.ts")
		wantError(t, ds, line, 31, "in examples/features/prompt-template-sdk/prompts: custom-evaluator.ts")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.ReplaceAll(string(data), "custom-grader.ts", "custom-evaluator.ts")
	s, ds := parse([]byte(fixed), path, LoadOptions{Root: root})
	if s == nil || ds.HasErrors() || len(s.Tests) != 2 {
		t.Fatalf("fixed example: %s", dump(ds))
	}
	script, err := filepath.Abs(filepath.Join(root, "examples/features/prompt-template-sdk/prompts/custom-evaluator.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for i, test := range s.Tests {
		g := test.Graders[0]
		if diff := cmp.Diff([]string{"bun", "run", script}, g.PromptCommand); diff != "" {
			t.Errorf("%s: command (-want +got):\n%s", test.ID, diff)
		}
		if i == 1 && (g.Config["strictMode"] != true || !strings.HasPrefix(g.Config["rubric"].(string), "- Must mention Promises")) {
			t.Errorf("%s: config %v", test.ID, g.Config)
		}
		if q := test.Question(); !strings.HasSuffix(q, "?") && !strings.HasSuffix(q, ".") {
			t.Errorf("%s: question %q from a text block", test.ID, q)
		}
	}
}

// TestAgentVCustomAssertionExample loads AgentV's sdk-custom-assertion example: word-count
// is .agentv/assertions/word-count.ts beside the evals directory.
func TestAgentVCustomAssertionExample(t *testing.T) {
	t.Parallel()
	root := "testdata/agentv442"
	s, ds := Load(filepath.Join(root, "examples/features/sdk-custom-assertion/evals/dataset.eval.yaml"), LoadOptions{Root: root})
	if s == nil || ds.HasErrors() || len(s.Tests) != 3 {
		t.Fatalf("load: %s", dump(ds))
	}
	module, err := filepath.Abs(filepath.Join(root, "examples/features/sdk-custom-assertion/.agentv/assertions/word-count.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range s.Tests {
		g := test.Graders[len(test.Graders)-1]
		if g.Type != "word-count" || g.Name != "word-count" || g.Custom != module {
			t.Errorf("%s: %s/%s %s", test.ID, g.Name, g.Type, g.Custom)
		}
	}
}
