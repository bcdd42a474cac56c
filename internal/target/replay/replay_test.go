package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

func write(t *testing.T, body string) *suite.TargetConfig {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return &suite.TargetConfig{Name: "rec", Provider: "replay", Dir: dir, Settings: map[string]any{"outputs": "out.jsonl"}}
}

func req(suiteName, id string) *target.Request {
	return &target.Request{Suite: &suite.Suite{Name: suiteName}, Test: &suite.Test{ID: id}}
}

func TestReplay(t *testing.T) {
	t.Parallel()
	cfg := write(t, `{"test_id":"a","answer":"done","tool_calls":[{"tool":"Read","input":{"file_path":"x.py"}}],"file_changes":"diff --git a/x b/x\n","token_usage":{"input":10,"output":5},"cost_usd":0.01}

{"test_id":"b","suite":"s2","output":[{"role":"assistant","content":[{"type":"text","value":"from blocks"}],"tool_calls":[{"tool":"Bash","input":{"command":"ls"}}]}]}
{"test_id":"b","text":"fallback text"}
{"test_id":"c","error":"agent crashed: exit 3"}
`)
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	out, err := tg.Run(ctx, req("s1", "a"))
	if err != nil || out.Answer != "done" || len(out.ToolCalls) != 1 || out.FileChanges == "" || out.Usage.InputTokens != 10 || out.Usage.CostUSD != 0.01 {
		t.Fatalf("a: %+v %v", out, err)
	}
	out, err = tg.Run(ctx, req("s2", "b"))
	if err != nil || out.Answer != "from blocks" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Tool != "Bash" {
		t.Fatalf("b in s2: %+v %v", out, err)
	}
	out, err = tg.Run(ctx, req("other", "b"))
	if err != nil || out.Answer != "fallback text" {
		t.Fatalf("b elsewhere: %+v %v", out, err)
	}
	if _, err := tg.Run(ctx, req("s1", "c")); err == nil || !strings.Contains(err.Error(), "exit 3") {
		t.Fatalf("c: err = %v", err)
	}
	if _, err := tg.Run(ctx, req("s1", "zzz")); err == nil || !strings.Contains(err.Error(), "no recorded output for test zzz") {
		t.Fatalf("missing: err = %v", err)
	}
}

func TestReplayBadFile(t *testing.T) {
	t.Parallel()
	if _, err := New(write(t, "{\"test_id\":\"a\"}\n{not json\n")); err == nil || !strings.Contains(err.Error(), "out.jsonl:2") {
		t.Fatalf("err = %v, want file:line", err)
	}
	if _, err := New(write(t, `{"answer":"x"}`)); err == nil || !strings.Contains(err.Error(), "no test_id") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(&suite.TargetConfig{Name: "r", Settings: map[string]any{}}); err == nil {
		t.Fatal("missing outputs accepted")
	}
}

func TestOutputsStayInTheRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(root, ".agentv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "secret.jsonl"), []byte(`{"test_id":"a","answer":"TOPSECRET"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.jsonl", filepath.Join(root, "out.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(root, "env.jsonl")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, outputs, root, want string
	}{
		{"relative link out", "../out.jsonl", root, "out.jsonl is a symbolic link to ../secret.jsonl, which leads outside the repository root"},
		{"link to the environment", "../env.jsonl", root, "env.jsonl is a symbolic link to /proc/self/environ"},
		{"default root", "../out.jsonl", "", "out.jsonl is a symbolic link"},
		{"path out", "../../secret.jsonl", root, "is outside the repository root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &suite.TargetConfig{Name: "rec", Provider: "replay", Dir: filepath.Join(root, ".agentv"), Root: tt.root,
				Settings: map[string]any{"outputs": tt.outputs}}
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "TOPSECRET") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
