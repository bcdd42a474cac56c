package provider_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/cache"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
)

func cfg(provider string, settings map[string]any) *suite.TargetConfig {
	return &suite.TargetConfig{Name: "t", Provider: provider, Settings: settings, Pos: suite.Pos{File: "targets.yaml", Line: 3}}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      *suite.TargetConfig
		env      map[string]string
		check    func(*provider.Endpoint) bool
		wantErrs []string
	}{
		{name: "openai env defaults", cfg: cfg("openai", map[string]any{"model": "gpt-4o"}),
			env: map[string]string{"OPENAI_API_KEY": "sk", "OPENAI_BASE_URL": "http://proxy/v1"},
			check: func(e *provider.Endpoint) bool {
				return e.APIKey == "sk" && e.URL() == "http://proxy/v1" && e.Format == "chat" && e.Structured
			}},
		{name: "an empty max_retries keeps the default", cfg: cfg("openai", map[string]any{"model": "m", "api_key": "k", "max_retries": ""}),
			check: func(e *provider.Endpoint) bool { return e.Retry.MaxRetries == 3 }},
		{name: "endpoint is base_url's alias", cfg: cfg("openai", map[string]any{"model": "m", "api_key": "k", "endpoint": "http://vllm:8000/v1", "api_format": "responses"}),
			check: func(e *provider.Endpoint) bool { return e.URL() == "http://vllm:8000/v1" && e.Format == "responses" }},
		{name: "openai default base", cfg: cfg("openai", map[string]any{"model": "m", "api_key": "k"}),
			check: func(e *provider.Endpoint) bool { return e.URL() == "https://api.openai.com/v1" }},
		// AgentV reads model ?? deployment ?? variant, and an Azure entry's deployment first.
		{name: "variant names the model when nothing else does", cfg: cfg("anthropic", map[string]any{"variant": "claude-haiku-4-5", "api_key": "k"}),
			check: func(e *provider.Endpoint) bool { return e.Model == "claude-haiku-4-5" }},
		{name: "model wins over deployment and variant", cfg: cfg("openai", map[string]any{"model": "m", "deployment": "d", "variant": "v", "api_key": "k"}),
			check: func(e *provider.Endpoint) bool { return e.Model == "m" }},
		{name: "an azure deployment wins over model", cfg: cfg("azure", map[string]any{"endpoint": "https://r.openai.azure.com", "api_key": "k", "model": "m", "deployment": "dep"}),
			check: func(e *provider.Endpoint) bool { return e.Model == "dep" }},
		{name: "azure v1 from env", cfg: cfg("azure", map[string]any{}),
			env: map[string]string{"AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com", "AZURE_OPENAI_API_KEY": "k", "AZURE_DEPLOYMENT_NAME": "dep"},
			check: func(e *provider.Endpoint) bool {
				return e.Model == "dep" && e.URL() == "https://r.openai.azure.com/openai/v1" && e.Format == "responses" && e.Version == "v1"
			}},
		{name: "azure dated version", cfg: cfg("azure", map[string]any{"endpoint": "https://r.openai.azure.com/", "api_key": "k", "model": "dep", "version": "2024-10-21", "api_format": "chat"}),
			check: func(e *provider.Endpoint) bool {
				return e.Version == "2024-10-21" && e.URL() == "https://r.openai.azure.com/"
			}},
		{name: "anthropic with settings", cfg: cfg("anthropic", map[string]any{"model": "claude-sonnet-4-5", "temperature": "0.2", "max_output_tokens": 800,
			"max_retries": 0, "retry_initial_delay_ms": 50, "retry_max_delay_ms": 500, "retry_backoff_factor": 3, "retry_status_codes": []any{429, 529},
			"max_in_flight": 4, "rpm": 60, "tokens_per_minute": 90000, "structured_output": false, "pricing": map[string]any{"input": 1, "output": 2}}),
			env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant"},
			check: func(e *provider.Endpoint) bool {
				return *e.Temperature == 0.2 && e.MaxOutputTokens == 800 && e.Retry.MaxRetries == 0 && e.Retry.Initial == 50*time.Millisecond &&
					e.Retry.Max == 500*time.Millisecond && e.Retry.Factor == 3 && len(e.Retry.StatusCodes) == 2 && e.Limit.MaxInFlight == 4 &&
					e.Limit.RequestsPerMinute == 60 && e.Limit.TokensPerMinute == 90000 && !e.Structured && e.Price.Output == 2
			}},
		{name: "everything missing", cfg: cfg("azure", map[string]any{"temperature": "hot", "retry_status_codes": []any{"x"}}),
			wantErrs: []string{"targets.yaml:3: target t (azure)", "endpoint is not set", "model is not set", "api_key is not set", `temperature: "hot" is not a number`, "is not an HTTP status code"}},
		{name: "bad format", cfg: cfg("openai", map[string]any{"model": "m", "api_key": "k", "api_format": "completions", "max_output_tokens": -1}),
			wantErrs: []string{`api_format "completions"`, "max_output_tokens: must not be negative"}},
		{name: "not a vendor", cfg: cfg("cli", map[string]any{}), wantErrs: []string{`provider "cli" is not a model vendor`}},
		{name: "a vendor without a client", cfg: cfg("gemini", map[string]any{"model": "m", "api_key": "k"}),
			wantErrs: []string{`targets.yaml:3: target t: provider "gemini" has no client in this version`}},
		{name: "anthropic default host", cfg: cfg("anthropic", map[string]any{"model": "m", "api_key": "k"}),
			check: func(e *provider.Endpoint) bool {
				return e.Host() == "api.anthropic.com" && e.URL() == "https://api.anthropic.com"
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ep, err := provider.Resolve(tt.cfg, env(tt.env))
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("no error; endpoint %+v", ep)
				}
				for _, w := range tt.wantErrs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(ep) {
				t.Errorf("endpoint = %+v", ep)
			}
		})
	}
}

func TestStackPricesCachesAndShares(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "hi", InputTokens: 1_000_000, OutputTokens: 100_000}
	}
	store, err := cache.Open(filepath.Join(t.TempDir(), "c"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	opts := provider.Options{Prices: price.Builtin(), Cache: store, Limiters: provider.NewLimiters(), Warn: func(s string) { warnings = append(warnings, s) }}
	c, err := provider.New(cfg("openai", map[string]any{"model": "gpt-4o-mini", "api_key": "k", "base_url": srv.URL + "/v1"}), opts)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	r := &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, Temperature: &zero}
	resp, err := c.Complete(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.15 + 0.06; math.Abs(resp.CostUSD-want) > 1e-9 || resp.Cached {
		t.Errorf("cost = %v, want %v", resp.CostUSD, want)
	}
	resp, err = c.Complete(t.Context(), r)
	if err != nil || !resp.Cached || resp.CostUSD != 0 || srv.Count() != 1 {
		t.Errorf("second call: %+v, %v, %d calls", resp, err, srv.Count())
	}
	if _, err := provider.New(cfg("openai", map[string]any{"model": "my-finetune", "api_key": "k", "base_url": srv.URL}), opts); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "no price for model my-finetune") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestAzureStackHitsDeploymentURL(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, err := provider.New(cfg("azure", map[string]any{"endpoint": srv.URL, "api_key": "k", "model": "prod-gpt", "version": "2024-10-21", "api_format": "chat"}), provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	got := srv.Calls()[0]
	if got.Path != "/openai/deployments/prod-gpt/chat/completions" || got.Query != "api-version=2024-10-21" {
		t.Errorf("call = %s?%s", got.Path, got.Query)
	}
	v1, err := provider.New(cfg("azure", map[string]any{"endpoint": srv.URL, "api_key": "k", "model": "prod-gpt"}), provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls()[1]; got.Path != "/openai/v1/responses" || got.Model != "prod-gpt" || got.Header.Get("Api-Key") != "k" {
		t.Errorf("v1 call = %s model %s", got.Path, got.Model)
	}
}
