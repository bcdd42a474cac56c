package model_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/target/model"
)

func newTarget(t *testing.T, srv *llmtest.Server, prov string) *model.Target {
	t.Helper()
	settings := map[string]any{"model": "gpt-4o-mini", "api_key": "k", "base_url": srv.URL + "/v1", "temperature": 0}
	if prov == "anthropic" {
		settings = map[string]any{"model": "claude-haiku-4-5", "api_key": "k", "base_url": srv.URL, "temperature": 0}
	}
	cfg := &suite.TargetConfig{Name: "llm", Provider: prov, Settings: settings}
	c, err := provider.New(cfg, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return model.New(cfg, c, c.Endpoint.Temperature)
}

func TestConversationAndToolCalls(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "spec.md")
	os.WriteFile(file, []byte("the spec"), 0o644)
	for _, prov := range []string{"openai", "anthropic"} {
		t.Run(prov, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			srv.Reply = func(r *llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Text: "done", InputTokens: 30, OutputTokens: 5, ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "search", Arguments: `{"query":"go"}`}}}
			}
			tg := newTarget(t, srv, prov)
			test := &suite.Test{ID: "t1", Input: []suite.Message{
				{Role: "system", Content: "be brief"},
				{Role: "user", Content: "read this", Files: []string{file}},
			}}
			out, err := tg.Run(t.Context(), &target.Request{Suite: &suite.Suite{Name: "s"}, Test: test, Prompt: test.Question(), Attempt: 1})
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "done" || out.Usage.InputTokens != 30 || out.Usage.Calls != 1 {
				t.Errorf("out = %+v", out)
			}
			if len(out.ToolCalls) != 1 || out.ToolCalls[0].Tool != "search" || out.ToolCalls[0].Input.(map[string]any)["query"] != "go" {
				t.Errorf("tool calls = %+v", out.ToolCalls)
			}
			got := srv.Calls()[0]
			if got.System != "be brief" || !strings.Contains(got.LastUser(), "read this") || !strings.Contains(got.LastUser(), "the spec") || *got.Temperature != 0 {
				t.Errorf("request = %+v", got)
			}
		})
	}
}

func TestFailuresAreErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		if r.LastUser() == "empty" {
			return llmtest.Reply{}
		}
		return llmtest.Reply{Text: "x"}
	}
	tg := newTarget(t, srv, "openai")
	run := func(q string) error {
		_, err := tg.Run(t.Context(), &target.Request{Test: &suite.Test{ID: q}, Prompt: q})
		return err
	}
	if err := run("empty"); !errors.Is(err, model.ErrEmpty) {
		t.Errorf("empty reply: %v", err)
	}
	srv.Inject(llmtest.Fault{Status: 401})
	var se *llm.StatusError
	if err := run("q"); !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "target llm") {
		t.Errorf("401: %v", err)
	}
	missing := &suite.Test{ID: "f", Input: []suite.Message{{Role: "user", Content: "q", Files: []string{"/nonexistent/x"}}}}
	if _, err := tg.Run(t.Context(), &target.Request{Test: missing}); err == nil {
		t.Error("missing input file: no error")
	}
}
