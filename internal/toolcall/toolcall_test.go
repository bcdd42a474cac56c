package toolcall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/result"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudeStreamJSON(t *testing.T) {
	t.Parallel()
	out, err := Parse(claudeStreamJSON, fixture(t, "claude-stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ws := "/tmp/evalgate-ws-81723/"
	want := []result.ToolCall{
		{ID: "toolu_01Read", Tool: "Read", Input: map[string]any{"file_path": ws + "config.yaml"}, Output: "<tool_use_error>File does not exist.</tool_use_error>", Status: "error"},
		{ID: "toolu_01Glob", Tool: "Glob", Input: map[string]any{"pattern": "**/*.yaml"}, Output: ws + "deploy/app.yaml", Status: "ok"},
		{ID: "toolu_01Edit", Tool: "Edit", Input: map[string]any{"file_path": ws + "deploy/app.yaml", "old_string": "replicas: 2", "new_string": "replicas: 2\nhealthcheck:\n  path: /healthz"},
			Output: "The file " + ws + "deploy/app.yaml has been updated.", Status: "ok"},
	}
	if d := cmp.Diff(want, out.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if out.Answer != "Added a /healthz health check to deploy/app.yaml." {
		t.Errorf("answer = %q", out.Answer)
	}
	wantUsage := result.Usage{InputTokens: 28 + 5700 + 63630, OutputTokens: 352, CachedTokens: 63630, CostUSD: 0.04213}
	if out.Usage != wantUsage || out.DurationMS != 14872 {
		t.Errorf("usage = %+v, duration %d", out.Usage, out.DurationMS)
	}
	// Blocks of one message id are one transcript message, with the results attached.
	if len(out.Messages) != 4 {
		t.Fatalf("%d messages: %+v", len(out.Messages), out.Messages)
	}
	if m := out.Messages[0]; m.Content != "I'll look at the existing config first." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Status != "error" {
		t.Errorf("first message = %+v", m)
	}
}

func TestClaudeEdgeCases(t *testing.T) {
	t.Parallel()
	noResult := `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"partial answer"}]}}` + "\n" +
		`{"type":"stream_event","event":{"type":"content_block_delta"}}` + "\n"
	out, err := Parse(claudeStreamJSON, []byte(noResult))
	if err != nil || out.Answer != "partial answer" {
		t.Fatalf("no result event: %+v %v", out, err)
	}
	failed := `{"type":"result","subtype":"error_max_turns","is_error":true,"result":"Reached max turns (3)"}`
	if _, err := Parse(claudeStreamJSON, []byte(failed)); err == nil || !strings.Contains(err.Error(), "error_max_turns") {
		t.Fatalf("is_error result: err = %v", err)
	}
	_, err = Parse(claudeStreamJSON, fixture(t, "claude-truncated.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "claude-stream-json output line 2 is not valid JSON") {
		t.Fatalf("broken line: err = %v", err)
	}
}

func TestOpenAIMessages(t *testing.T) {
	t.Parallel()
	out, err := Parse(openAIMessages, fixture(t, "openai-messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Parallel calls are paired by id although their results arrive in another order. Names are
	// kept as the agent's author chose them.
	want := []result.ToolCall{
		{ID: "call_Xk2pQ9", Tool: "read_file", Input: map[string]any{"path": "go.mod"}, Output: "module example.com/demo\n\ngo 1.22\n"},
		{ID: "call_Ym7rT3", Tool: "bash", Input: map[string]any{"command": "ls -la"}, Output: "total 16\n-rw-r--r-- 1 dev dev  48 go.mod\n-rw-r--r-- 1 dev dev 210 main.go"},
	}
	if d := cmp.Diff(want, out.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if out.Answer != "The module needs Go 1.22. There is no Makefile." {
		t.Errorf("answer = %q", out.Answer)
	}
	roles := []string{}
	for _, m := range out.Messages {
		roles = append(roles, m.Role)
	}
	if d := cmp.Diff([]string{"system", "user", "assistant", "assistant"}, roles); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}

	out, err = Parse(openAIMessages, fixture(t, "openai-object.json"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Hi!" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Input != "{not json" || out.ToolCalls[0].Output != "nothing found" {
		t.Errorf("object form: %+v", out)
	}
	if out.Usage != (result.Usage{InputTokens: 210, OutputTokens: 12, CachedTokens: 128}) {
		t.Errorf("usage = %+v", out.Usage)
	}
}

func TestAgentV(t *testing.T) {
	t.Parallel()
	out, err := Parse(AgentV, fixture(t, "agentv.json"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Deployment checklist done." || len(out.ToolCalls) != 2 || len(out.Messages) != 2 {
		t.Fatalf("%+v", out)
	}
	if tc := out.ToolCalls[1]; tc.Tool != "Bash" || tc.DurationMS != 1800 || tc.Status != "ok" || tc.Output != "all good" {
		t.Errorf("bash call = %+v", tc)
	}
	if out.Usage != (result.Usage{InputTokens: 900, OutputTokens: 75, CachedTokens: 300, CostUSD: 0.0042}) || out.DurationMS != 2100 {
		t.Errorf("usage = %+v, duration %d", out.Usage, out.DurationMS)
	}
}

func TestDeclaredFormatErrors(t *testing.T) {
	t.Parallel()
	garbage := fixture(t, "garbage.txt")
	tests := []struct {
		format, raw, want string
	}{
		{claudeStreamJSON, string(garbage), "claude-stream-json output line 1 is not valid JSON"},
		{openAIMessages, string(garbage), "openai-messages output is not valid JSON"},
		{openAIMessages, `{"choices": []}`, `neither a message array nor an object with "messages"`},
		{AgentV, `{"output": [`, "agentv output is not valid JSON"},
		{AgentV, `{"answer": "x"}`, `neither "output" messages nor "text"`},
		{"yaml", "a: b", `unknown output format "yaml"`},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			if _, err := Parse(tt.format, []byte(tt.raw)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// AgentV reads text that is not a JSON object as the answer, garbage included.
	if out, err := Parse(AgentV, garbage); err != nil || !strings.Contains(out.Answer, "garbage") {
		t.Fatalf("agentv text: %+v %v", out, err)
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"claude", fixture(t, "claude-stream.jsonl"), claudeStreamJSON},
		{"openai array", fixture(t, "openai-messages.json"), openAIMessages},
		{"openai object", fixture(t, "openai-object.json"), openAIMessages},
		{"agentv", fixture(t, "agentv.json"), AgentV},
		{"agentv text only", []byte(`{"text": "hi"}`), AgentV},
		{"garbage", fixture(t, "garbage.txt"), text},
		{"broken json", []byte(`[1] first point`), text},
		{"other json", []byte(`{"status": "done"}`), text},
		{"numbers", []byte(`[1, 2]`), text},
		{"empty", nil, text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := detect(tt.raw); got != tt.want {
				t.Fatalf("Detect = %s, want %s", got, tt.want)
			}
			if _, err := Parse(auto, tt.raw); err != nil {
				t.Fatalf("auto: %v", err)
			}
		})
	}
	out, err := Parse(auto, []byte("  plain answer\n"))
	if err != nil || out.Answer != "plain answer" {
		t.Fatalf("auto text: %+v %v", out, err)
	}
}

func TestKeyArgument(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200)
	tests := []struct {
		input any
		want  string
	}{
		{map[string]any{"file_path": "a.go", "content": "package a"}, "a.go"},
		{map[string]any{"description": "list", "command": "ls\n  -la"}, "ls -la"},
		{map[string]any{"pattern": "TODO", "path": "src"}, "src"},
		{map[string]any{"skill": "deploy"}, "deploy"},
		{map[string]any{"zeta": "z", "alpha": "a", "n": 3.0}, "a"},
		{map[string]any{"n": 3.0}, ""},
		{"{raw args", "{raw args"},
		{nil, ""},
		{map[string]any{"url": long}, strings.Repeat("x", 120) + "…"},
	}
	for _, tt := range tests {
		if got := KeyArgument(result.ToolCall{Tool: "T", Input: tt.input}); got != tt.want {
			t.Errorf("KeyArgument(%v) = %q, want %q", tt.input, got, tt.want)
		}
	}
}
