package mock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm"
)

func TestMock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := `{"test_id":"a","reply":{"checks":[]}}
{"test_id":"a","grader":"g2","reply":"grader two"}
{"test_id":"a","grader":"g2","attempt":1,"reply":"second attempt"}

{"test_id":"b","suite":"s","reply":"suite b"}
`
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := New(map[string]any{"replies": "r.jsonl", "usage": map[string]any{"input": 10, "output": 2}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, tc := range []struct {
		tag  llm.Tag
		want string
	}{
		{llm.Tag{TestID: "a", Grader: "g1"}, `{"checks":[]}`},
		{llm.Tag{TestID: "a", Grader: "g2"}, "grader two"},
		{llm.Tag{TestID: "a", Grader: "g2", Attempt: 1}, "second attempt"},
		{llm.Tag{TestID: "b", Suite: "s"}, "suite b"},
	} {
		resp, err := c.Complete(ctx, &llm.Request{Tag: tc.tag})
		if err != nil || resp.Text != tc.want || resp.Usage.InputTokens != 10 {
			t.Errorf("%+v: %+v %v", tc.tag, resp, err)
		}
	}
	if _, err := c.Complete(ctx, &llm.Request{Tag: llm.Tag{TestID: "b", Suite: "other"}}); !errors.Is(err, llm.ErrNoReply) {
		t.Errorf("unmatched: %v", err)
	}
	fixed, _ := New(map[string]any{"response": map[string]any{"score": 1}}, dir)
	if resp, err := fixed.Complete(ctx, &llm.Request{}); err != nil || resp.Text != `{"score":1}` {
		t.Errorf("response: %+v %v", resp, err)
	}
	failing, _ := New(map[string]any{"error": "503 from vendor"}, dir)
	if _, err := failing.Complete(ctx, &llm.Request{}); err == nil {
		t.Error("error setting ignored")
	}
}

func TestMockBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte("{\"test_id\":\"a\",\"reply\":1}\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(map[string]any{"replies": "r.jsonl"}, dir); err == nil || !strings.Contains(err.Error(), "r.jsonl:2") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(map[string]any{"replies": "missing.jsonl"}, dir); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestRepliesStayInTheRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root, targets := filepath.Join(base, "repo"), filepath.Join(base, "repo", ".agentv")
	if err := os.MkdirAll(filepath.Join(root, "recorded"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(targets, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "secret.jsonl"), []byte(`{"test_id":"a","reply":"TOPSECRET"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "recorded", "ok.jsonl"), []byte(`{"test_id":"a","reply":"fine"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"abs.jsonl": filepath.Join(base, "secret.jsonl"), "rel.jsonl": "../../secret.jsonl", "in.jsonl": "ok.jsonl"} {
		if err := os.Symlink(target, filepath.Join(root, "recorded", name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, replies string
		opts          []Option
		want          string // "" = loads
	}{
		{"inside, default root", "../recorded/ok.jsonl", nil, ""},
		{"link inside", "../recorded/in.jsonl", []Option{WithRoot(root)}, ""},
		{"absolute link out", "../recorded/abs.jsonl", []Option{WithRoot(root)}, "recorded/abs.jsonl is a symbolic link to " + filepath.Join(base, "secret.jsonl")},
		{"relative link out, default root", "../recorded/rel.jsonl", nil, "recorded/rel.jsonl is a symbolic link to ../../secret.jsonl, which leads outside"},
		{"path out", "../../secret.jsonl", []Option{WithRoot(root)}, "is outside the repository root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(map[string]any{"replies": tt.replies}, targets, tt.opts...)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				resp, err := c.Complete(t.Context(), &llm.Request{Tag: llm.Tag{TestID: "a"}})
				if err != nil || resp.Text != "fine" {
					t.Fatalf("%v %v", resp, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "TOPSECRET") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
