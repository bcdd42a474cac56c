package anthropic_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/anthropic"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
)

func TestMessages(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "fine", InputTokens: 20, OutputTokens: 2,
			ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Arguments: `{"file_path":"x"}`}}}
	}
	c, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "sk-ant", BaseURL: srv.URL, Structured: true})
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	resp, err := c.Complete(t.Context(), &llm.Request{
		System:      "judge",
		Messages:    []llm.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}, {Role: "user", Content: "again"}},
		Temperature: &zero,
		Schema:      &llm.Schema{Name: "v", Schema: json.RawMessage(`{"type":"object"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "fine" || resp.Usage.InputTokens != 20 || resp.Usage.OutputTokens != 2 || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"file_path":"x"}` {
		t.Errorf("resp = %+v", resp)
	}
	got := srv.Calls()[0]
	if got.Path != "/v1/messages" || got.Header.Get("X-Api-Key") != "sk-ant" || got.Header.Get("Anthropic-Version") == "" {
		t.Errorf("call %s headers %v", got.Path, got.Header)
	}
	if got.System != "judge" || len(got.Messages) != 3 || got.LastUser() != "again" || got.MaxTokens != anthropic.DefaultMaxTokens || !got.Schema || *got.Temperature != 0 {
		t.Errorf("request = %+v", got)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, err := anthropic.New(anthropic.Config{Model: "claude-haiku-4-5", APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv.Inject(llmtest.Fault{Status: 529, RetryAfter: "1"}, llmtest.Fault{Status: 401})
	_, err = c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}})
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status != 529 || se.RetryAfter != time.Second || se.Provider != "anthropic" {
		t.Errorf("err = %#v", err)
	}
	_, err = c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}})
	if !errors.As(err, &se) || se.Status != 401 {
		t.Errorf("err = %#v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("calls = %d, want 2", srv.Count())
	}
}
