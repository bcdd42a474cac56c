package grader

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"

	// Aliased: the package has its own cmp (a limit check's wording).
	gocmp "github.com/google/go-cmp/cmp"
)

// needNode skips a test that runs real node scripts when node is missing.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: this test runs real node scripts (custom assertions, prompt templates)")
	}
}

// withoutBun finds every runtime but bun, as on a machine without it.
func withoutBun(name string) (string, error) {
	if name == "bun" {
		return "", exec.ErrNotFound
	}
	return exec.LookPath(name)
}

// loadNodeSuite loads testdata/node, whose custom assertions and prompt templates node runs.
func loadNodeSuite(t *testing.T) *suite.Suite {
	t.Helper()
	s, diags := suite.Load("testdata/node/evals/node.eval.yaml", suite.LoadOptions{Root: "testdata/node"})
	if s == nil || diags.HasErrors() || len(s.Tests) != 1 {
		t.Fatalf("load: %v", diags)
	}
	return s
}

func graderNamed(t *testing.T, s *suite.Suite, name string) *suite.Grader {
	t.Helper()
	for _, g := range s.Tests[0].Graders {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no grader %s", name)
	return nil
}

func TestCustomAssertionWithNode(t *testing.T) {
	t.Parallel()
	needNode(t)
	s := loadNodeSuite(t)
	tests := []struct {
		grader, answer string
		score          float64
		verdict        result.Verdict
		// want is the first assertion's text, or the error when verdict is error.
		want string
	}{
		{"word-count", "Hello there, friend.", 1, result.Pass, "Output has 3 words (need 3)"},
		{"word-count", "Hi", 1.0 / 3, result.Fail, "Output has 1 words (need 3)"},
		{"silent", "Hello", 0, result.Error, "custom assertion silent printed nothing"},
		{"throws", "Hello", 0, result.Fail, "custom assertion throws exited with code 1"},
		{"typed", "Hello", 0, result.Error, "custom assertion typed needs bun (not found on PATH): typed.ts is TypeScript"},
	}
	for _, tt := range tests {
		t.Run(tt.grader+"/"+tt.answer, func(t *testing.T) {
			t.Parallel()
			spec := graderNamed(t, s, tt.grader)
			g := custom{spec: spec, timeout: defaultCodeTimeout, lookPath: withoutBun}
			r := g.Grade(t.Context(), &Input{Suite: s, Test: s.Tests[0], Output: &result.Output{Answer: tt.answer}, Thresholds: result.DefaultThresholds})
			wantResult(t, r, tt.score, tt.verdict)
			if r.Name != tt.grader || r.Type != tt.grader {
				t.Errorf("result %s/%s, want the custom type's name", r.Name, r.Type)
			}
			got := r.Error
			if tt.verdict != result.Error && len(r.Assertions) > 0 {
				got = r.Assertions[0].Text
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCustomAssertionStdin checks what a custom assertion receives: AgentV's code-grader
// payload, snake_cased throughout (config included), with the content list's blocks, in the
// directory that holds .agentv.
func TestCustomAssertionStdin(t *testing.T) {
	t.Parallel()
	needNode(t)
	s := loadNodeSuite(t)
	spec := graderNamed(t, s, "echo")
	g := custom{spec: spec, timeout: defaultCodeTimeout, lookPath: withoutBun}
	r := g.Grade(t.Context(), &Input{Suite: s, Test: s.Tests[0], Output: &result.Output{Answer: "Hello"}})
	if r.Verdict != result.Pass || r.Weight != 2 {
		t.Fatalf("verdict %s weight %v (error %q)", r.Verdict, r.Weight, r.Error)
	}
	stdin, _ := r.Details["stdin"].(map[string]any)
	if want := map[string]any{"camel_key": 1, "nested_key": map[string]any{"inner_key": true}}; !equalJSON(stdin["config"], want) {
		t.Errorf("config = %v, want %v", stdin["config"], want)
	}
	brief, err := filepath.Abs("testdata/node/docs/brief.md")
	if err != nil {
		t.Fatal(err)
	}
	wantInput := []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "value": "Say hello."},
		map[string]any{"type": "file", "value": "../docs/brief.md", "path": "../docs/brief.md",
			"text": "Summarise the repository in three bullet points.\n", "resolved_path": brief},
	}}}
	if !equalJSON(stdin["input"], wantInput) {
		t.Errorf("input = %v\nwant %v", stdin["input"], wantInput)
	}
	if !equalJSON(stdin["input_files"], []any{brief}) {
		t.Errorf("input_files = %v, want the file block's path", stdin["input_files"])
	}
	if !equalJSON(stdin["expected_output"], []any{map[string]any{"role": "assistant", "content": "Hello there, friend."}}) {
		t.Errorf("expected_output = %v", stdin["expected_output"])
	}
	project, err := filepath.EvalSymlinks("testdata/node")
	if err != nil {
		t.Fatal(err)
	}
	if abs, _ := filepath.Abs(project); r.Details["cwd"] != abs {
		t.Errorf("cwd = %v, want the directory holding .agentv (%s)", r.Details["cwd"], abs)
	}
}

func TestCustomAssertionRuntime(t *testing.T) {
	t.Parallel()
	have := func(names ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, n := range names {
				if n == name {
					return "/usr/bin/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	tests := []struct {
		module  string
		runtime func(string) (string, error)
		want    []string
		err     string
	}{
		{"/p/.agentv/assertions/a.ts", have("bun", "node"), []string{"bun", "run", "/p/.agentv/assertions/a.ts"}, ""},
		{"/p/.agentv/assertions/a.mjs", have("bun", "node"), []string{"bun", "run", "/p/.agentv/assertions/a.mjs"}, ""},
		{"/p/.agentv/assertions/a.mjs", have("node"), []string{"node", "/p/.agentv/assertions/a.mjs"}, ""},
		{"/p/.agentv/assertions/a.js", have("node"), []string{"node", "/p/.agentv/assertions/a.js"}, ""},
		{"/p/.agentv/assertions/a.mts", have("node"), nil, "custom assertion a needs bun (not found on PATH)"},
		{"/p/.agentv/assertions/a.js", have(), nil, "custom assertion a needs bun or node (neither found on PATH)"},
	}
	for _, tt := range tests {
		g := custom{spec: &suite.Grader{Name: "a", Type: "a", Custom: tt.module}, lookPath: tt.runtime}
		got, err := g.command()
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: command() error %v, want %q", tt.module, err, tt.err)
		}
		if diff := gocmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: command() (-want +got):\n%s", tt.module, diff)
		}
	}
}

// TestAgentVCustomAssertionExample runs AgentV's sdk-custom-assertion example: its word-count
// type is TypeScript, so without bun every use of it is an error saying so, never a pass.
func TestAgentVCustomAssertionExample(t *testing.T) {
	t.Parallel()
	s, diags := suite.Load("testdata/agentv442/examples/features/sdk-custom-assertion/evals/dataset.eval.yaml",
		suite.LoadOptions{Root: "testdata/agentv442"})
	if s == nil || diags.HasErrors() || len(s.Tests) != 3 {
		t.Fatalf("load: %v", diags)
	}
	for _, test := range s.Tests {
		spec := test.Graders[len(test.Graders)-1]
		if spec.Type != "word-count" || filepath.Base(spec.Custom) != "word-count.ts" {
			t.Fatalf("%s: last grader %s (%s), want the word-count assertion", test.ID, spec.Type, spec.Custom)
		}
		if err := validate(spec); err != nil {
			t.Errorf("%s: validate: %v", test.ID, err)
		}
		g := custom{spec: spec, timeout: defaultCodeTimeout, lookPath: withoutBun}
		r := g.Grade(t.Context(), &Input{Suite: s, Test: test, Output: &result.Output{Answer: "Hello! I'm an AI assistant."}})
		if r.Verdict != result.Error || !strings.Contains(r.Error, "custom assertion word-count needs bun (not found on PATH)") {
			t.Errorf("%s: verdict %s error %q, want the needs-bun error", test.ID, r.Verdict, r.Error)
		}
	}
}

func TestCustomAssertionTimeout(t *testing.T) {
	t.Parallel()
	spec := &suite.Grader{Name: "a", Type: "a", Custom: "/p/.agentv/assertions/a.mjs", Config: map[string]any{"timeout_seconds": -1},
		Pos: suite.Pos{File: "evals/x.eval.yaml", Line: 3}}
	var ce *ConfigError
	if err := validate(spec); !errors.As(err, &ce) || !strings.Contains(err.Error(), "timeout_seconds must be positive") {
		t.Errorf("Validate = %v, want a config error for the timeout", err)
	}
}
