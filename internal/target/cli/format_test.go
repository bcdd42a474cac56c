package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/suite"
)

func TestOutputFormat(t *testing.T) {
	t.Parallel()
	td, _ := filepath.Abs("testdata")
	claude, openai, toolsOnly := quote(filepath.Join(td, "claude.jsonl")), quote(filepath.Join(td, "openai.json")), quote(filepath.Join(td, "openai-tools-only.json"))
	tests := []struct {
		name, format, command string
		answer                string
		tools                 []string // tool:status
		err                   string
	}{
		{"default agentv file", "", quote(filepath.Join(td, "agent.sh")) + " good {OUTPUT_FILE}", "Created app.py", []string{"Write:"}, ""},
		{"default plain stdout", "", "echo just text", "just text", nil, ""},
		{"claude stdout", "claude-stream-json", "cat " + claude, "Only app.py is there.", []string{"Read:error", "Bash:ok"}, ""},
		{"claude output file", "claude-stream-json", "cp " + claude + " {OUTPUT_FILE}", "Only app.py is there.", []string{"Read:error", "Bash:ok"}, ""},
		{"claude broken line", "claude-stream-json", `printf '{"type":"system"}\n{"type":' `, "", nil, "claude-stream-json output line 2 is not valid JSON"},
		{"openai output file", "openai-messages", "cp " + openai + " {OUTPUT_FILE}", "A README and app.py.", []string{"list_dir:", "read_file:"}, ""},
		{"openai not json", "openai-messages", "echo hello", "", nil, "openai-messages output is not valid JSON"},
		{"openai tools only", "openai-messages", "cat " + toolsOnly, "", []string{"bash:"}, ""},
		{"auto claude", "auto", "cat " + claude, "Only app.py is there.", []string{"Read:error", "Bash:ok"}, ""},
		{"auto openai", "auto", "cat " + openai, "A README and app.py.", []string{"list_dir:", "read_file:"}, ""},
		{"auto agentv", "auto", `echo '{"text": "from agentv"}'`, "from agentv", nil, ""},
		{"auto text", "auto", "echo '[draft] plain words'", "[draft] plain words", nil, ""},
		{"text keeps json", "text", `echo '{"text": "x"}'`, `{"text": "x"}`, nil, ""},
		{"empty", "auto", "true", "", nil, "agent returned an empty answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := map[string]any{"command": tt.command, "timeout_seconds": 5}
			if tt.format != "" {
				s["output_format"] = tt.format
			}
			tg, err := New(&suite.TargetConfig{Name: "fmt", Settings: s, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			out, err := tg.Run(t.Context(), req("p", t.TempDir()))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var tools []string
			for _, tc := range out.ToolCalls {
				tools = append(tools, tc.Tool+":"+tc.Status)
			}
			if out.Answer != tt.answer {
				t.Errorf("answer = %q, want %q", out.Answer, tt.answer)
			}
			if d := cmp.Diff(tt.tools, tools); d != "" {
				t.Errorf("tool calls (-want +got):\n%s", d)
			}
		})
	}
}

func TestClaudeUsage(t *testing.T) {
	t.Parallel()
	claude, _ := filepath.Abs("testdata/claude.jsonl")
	tg, err := New(&suite.TargetConfig{Name: "c", Dir: t.TempDir(), Settings: map[string]any{"command": "cat " + quote(claude), "output_format": "claude-stream-json"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tg.Run(t.Context(), req("p", ""))
	if err != nil {
		t.Fatal(err)
	}
	if out.Usage.InputTokens != 1110 || out.Usage.CachedTokens != 1000 || out.Usage.OutputTokens != 50 || out.Usage.CostUSD != 0.0112 || out.DurationMS != 5321 {
		t.Fatalf("usage %+v, duration %d", out.Usage, out.DurationMS)
	}
}

func TestEmptyAnswerIsSentinel(t *testing.T) {
	t.Parallel()
	tg, err := New(&suite.TargetConfig{Name: "e", Dir: t.TempDir(), Settings: map[string]any{"command": "printf '  \\n'"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Run(t.Context(), req("p", "")); !errors.Is(err, errEmptyAnswer) {
		t.Fatalf("err = %v, want errEmptyAnswer", err)
	}
}

func TestBadSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		want     string
	}{
		{"unknown format", map[string]any{"output_format": "yaml"}, "output_format yaml is not one of agentv, claude-stream-json, openai-messages, auto, text"},
		{"format not a string", map[string]any{"output_format": 3}, "output_format 3 is not one of"},
		{"healthcheck ftp", map[string]any{"healthcheck": map[string]any{"url": "ftp://example.com"}}, `healthcheck url "ftp://example.com" is not an http(s) URL`},
		{"healthcheck empty", map[string]any{"healthcheck": map[string]any{"timeout_seconds": 3}}, "healthcheck needs a url or a command"},
		{"healthcheck blank command", map[string]any{"healthcheck": "  "}, "healthcheck needs a url or a command"},
		{"healthcheck both", map[string]any{"healthcheck": map[string]any{"url": "http://x", "command": "true"}}, "both url and command"},
		{"healthcheck list", map[string]any{"healthcheck": []any{"true"}}, "healthcheck must be a command or a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := map[string]any{"command": "echo hi"}
			for k, v := range tt.settings {
				s[k] = v
			}
			_, err := New(&suite.TargetConfig{Name: "bad", Settings: s})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
