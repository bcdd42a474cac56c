package grader

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// recorder is a judge client that records each request and answers with reply.
type recorder struct {
	mu    sync.Mutex
	reqs  []*llm.Request
	reply string
}

func (c *recorder) Complete(_ context.Context, req *llm.Request) (*llm.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	return &llm.Response{Text: c.reply}, nil
}

func (c *recorder) requests() []*llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*llm.Request(nil), c.reqs...)
}

func TestPromptTemplate(t *testing.T) {
	t.Parallel()
	needNode(t)
	s := loadNodeSuite(t)
	prompts, err := filepath.EvalSymlinks("testdata/node/prompts")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ = filepath.Abs(prompts)
	missingRuntime := *graderNamed(t, s, "templated")
	missingRuntime.PromptCommand = append([]string{"evalgate-no-such-runtime"}, missingRuntime.PromptCommand[1:]...)
	tests := []struct {
		name    string
		spec    *suite.Grader
		verdict result.Verdict
		// prompt is the user message the judge got ("" = the judge must not be asked);
		// err is the result's error.
		prompt, err string
	}{
		{"stdout is the whole prompt, its {{ vars }} filled", graderNamed(t, s, "templated"), result.Pass,
			"Question: Say hello. | [../docs/brief.md] Summarise the repository in three bullet points.\n" +
				"Answer: Hello there, friend.\nReference: Hello there, friend.\nRubric: Must greet.\nStrict: true\n" +
				"Cwd: " + prompts + "\nEcho: Hello there, friend.", ""},
		{"failing script", graderNamed(t, s, "broken-template"), result.Error, "", "prompt template exited with code 2: template broke"},
		{"blank output", graderNamed(t, s, "empty-template"), result.Error, "", "prompt template printed nothing"},
		{"missing runtime", &missingRuntime, result.Error, "", "prompt template grader.mjs: needs evalgate-no-such-runtime (not found on PATH)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := &recorder{reply: `{"score": 0.9, "assertions": [{"text": "greets", "passed": true}]}`}
			g, err := New(tt.spec, Deps{Judge: func(string) (*judge.Judge, error) { return &judge.Judge{Client: client, Name: "judge"}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			r := g.Grade(t.Context(), &Input{Suite: s, Test: s.Tests[0], Question: s.Tests[0].Question(),
				Output: &result.Output{Answer: "Hello there, friend."}, Thresholds: result.DefaultThresholds})
			if r.Verdict != tt.verdict || !strings.Contains(r.Error, tt.err) || r.Name != tt.spec.Name {
				t.Fatalf("%s: verdict %s error %q, want %s %q", r.Name, r.Verdict, r.Error, tt.verdict, tt.err)
			}
			reqs := client.requests()
			switch {
			case tt.prompt == "" && len(reqs) != 0:
				t.Errorf("the judge was asked %d times after the template failed", len(reqs))
			case tt.prompt != "" && (len(reqs) != 1 || reqs[0].Messages[0].Content != tt.prompt):
				t.Errorf("judge requests %d, prompt:\n%s\nwant:\n%s", len(reqs), reqs[0].Messages[0].Content, tt.prompt)
			}
		})
	}
}

// TestPromptTemplateStdin checks the template's stdin against AgentV's payload.
func TestPromptTemplateStdin(t *testing.T) {
	t.Parallel()
	s := loadNodeSuite(t)
	ws := t.TempDir()
	out := &result.Output{Answer: "Hi", FileChanges: "diff --git a/x b/x", Workspace: ws,
		Messages: []result.Message{{Role: "assistant", Content: "Hi", ToolCalls: []result.ToolCall{{Tool: "Read", Input: map[string]any{"filePath": "x"}}}}}}
	stdin, err := agentvJSON(promptPayload(&Input{Test: s.Tests[0], Output: out}, map[string]any{"strictMode": true}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(stdin, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"output": "Hi", "answer": "Hi", "criteria": "", "file_changes": "diff --git a/x b/x",
		"workspace_path": ws, "config": map[string]any{"strict_mode": true}, "metadata": nil, "trace": nil}
	for k, v := range want {
		if !equalJSON(got[k], v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	msgs, _ := got["messages"].([]any)
	if len(msgs) != 1 || !equalJSON(msgs[0].(map[string]any)["tool_calls"], []any{map[string]any{"tool": "Read", "input": map[string]any{"file_path": "x"}}}) {
		t.Errorf("messages = %v, want tool arguments snake_cased as AgentV does", got["messages"])
	}
	for _, k := range []string{"input", "expected_output", "input_files"} {
		if _, ok := got[k].([]any); !ok {
			t.Errorf("%s = %v, want a list", k, got[k])
		}
	}
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"strictMode": "strict_mode", "already_snake": "already_snake", "Read": "Read", "fooBAR": "foo_b_a_r",
		"": "", "x1Y": "x1_y",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
