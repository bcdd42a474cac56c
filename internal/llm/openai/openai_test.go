package openai_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/openai"
)

func request() *llm.Request {
	zero := 0.0
	return &llm.Request{
		System:      "You are a judge.",
		Messages:    []llm.Message{{Role: "user", Content: "grade this"}},
		Temperature: &zero,
		Schema:      &llm.Schema{Name: "verdict", Schema: json.RawMessage(`{"type":"object"}`)},
	}
}

func TestWireFormats(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"score":7}`, InputTokens: 11, OutputTokens: 3,
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`}}}
	}
	tests := []struct {
		name                  string
		cfg                   openai.Config
		wantPath, wantAPI     string
		wantQuery, wantHeader string
	}{
		{name: "chat", cfg: openai.Config{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL + "/v1"},
			wantPath: "/v1/chat/completions", wantAPI: "chat", wantHeader: "Authorization"},
		{name: "responses", cfg: openai.Config{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL + "/v1", Format: "responses"},
			wantPath: "/v1/responses", wantAPI: "responses", wantHeader: "Authorization"},
		{name: "azure deployment", cfg: openai.Config{Provider: "azure", Model: "my-gpt", AzureEndpoint: srv.URL, AzureVersion: "2024-10-21"},
			wantPath: "/openai/deployments/my-gpt/chat/completions", wantAPI: "chat", wantQuery: "api-version=2024-10-21", wantHeader: "Api-Key"},
		{name: "azure v1", cfg: openai.Config{Provider: "azure", Model: "my-gpt", BaseURL: srv.URL + "/openai/v1", Azure: true, Format: "responses"},
			wantPath: "/openai/v1/responses", wantAPI: "responses", wantHeader: "Api-Key"},
	}
	// In turn: each case finds its own call among the shared fake's by counting.
	for _, tt := range tests { //nolint:paralleltest // see above
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.APIKey, tt.cfg.Structured = "sk-test", true
			c, err := openai.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			before := len(srv.Calls())
			resp, err := c.Complete(t.Context(), request())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != `{"score":7}` || resp.Usage.InputTokens != 11 || resp.Usage.OutputTokens != 3 {
				t.Errorf("resp = %+v", resp)
			}
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read_file" || resp.ToolCalls[0].Arguments != `{"path":"a.go"}` || resp.ToolCalls[0].ID != "call_1" {
				t.Errorf("tool calls = %+v", resp.ToolCalls)
			}
			var got *llmtest.Request
			for _, r := range srv.Calls()[before:] {
				if r.Path == tt.wantPath {
					got = r
				}
			}
			if got == nil {
				t.Fatalf("no call to %s in %+v", tt.wantPath, srv.Calls())
			}
			if got.API != tt.wantAPI || !strings.Contains(got.Query, tt.wantQuery) || got.Header.Get(tt.wantHeader) == "" {
				t.Errorf("call = %s %s?%s headers %v", got.API, got.Path, got.Query, got.Header)
			}
			if got.System != "You are a judge." || got.LastUser() != "grade this" || got.Temperature == nil || *got.Temperature != 0 || !got.Schema {
				t.Errorf("request = %+v", got)
			}
		})
	}
}

func TestErrorsCarryStatusAndRetryAfter(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, err := openai.New(openai.Config{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Inject(llmtest.Fault{Status: 429, RetryAfter: "2"}, llmtest.Fault{Status: 503, RetryAfterMS: "150"}, llmtest.Fault{Drop: true})
	for _, want := range []struct {
		status int
		after  time.Duration
	}{{429, 2 * time.Second}, {503, 150 * time.Millisecond}} {
		_, err := c.Complete(t.Context(), request())
		var se *llm.StatusError
		if !errors.As(err, &se) || se.Status != want.status || se.RetryAfter != want.after || se.Provider != "openai" || se.Model != "gpt-4o" {
			t.Errorf("err = %#v, want status %d after %s", err, want.status, want.after)
		}
	}
	if _, err := c.Complete(t.Context(), request()); err == nil {
		t.Error("dropped connection: no error")
	} else if errors.As(err, new(*llm.StatusError)) {
		t.Errorf("dropped connection reported as a status: %v", err)
	}
	if srv.Count() != 3 {
		t.Errorf("calls = %d, want 3 (the SDK must not retry on its own)", srv.Count())
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []openai.Config{
		{Model: "m", BaseURL: "http://x"},
		{APIKey: "k", BaseURL: "http://x"},
		{Model: "m", APIKey: "k"},
		{Model: "m", APIKey: "k", BaseURL: "http://x", Format: "completions"},
	} {
		if _, err := openai.New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

func TestModelThatRefusesTemperature(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Faults = func(_ int, r *llmtest.Request) *llmtest.Fault {
		if r.Temperature != nil {
			return &llmtest.Fault{Status: 400, Message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."}
		}
		return nil
	}
	var warnings []string
	c, err := openai.New(openai.Config{Provider: "openai", Model: "gpt-5-mini", BaseURL: srv.URL + "/v1", APIKey: "k",
		Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.Complete(t.Context(), request()); err != nil {
			t.Fatal(err)
		}
	}
	// One refused call, then every request goes without a temperature.
	if srv.Count() != 4 || len(warnings) != 1 || !strings.Contains(warnings[0], "gpt-5-mini does not accept a temperature") {
		t.Errorf("%d calls, warnings %q", srv.Count(), warnings)
	}
	srv.Faults = func(int, *llmtest.Request) *llmtest.Fault { return &llmtest.Fault{Status: 400, Message: "bad schema"} }
	var se *llm.StatusError
	if _, err := c.Complete(t.Context(), request()); !errors.As(err, &se) || se.Status != 400 || se.Message != "bad schema" {
		t.Errorf("other 400s pass through: %v", err)
	}
}
