package provider

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/llm/limit"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/retry"
)

// DefaultTimeout bounds one attempt of one call, reply body included.
const DefaultTimeout = 2 * time.Minute

// Endpoint is a targets.yaml entry for a model vendor, resolved: environment defaults
// applied, numbers parsed, retry and limit settings read.
type Endpoint struct {
	Provider string
	Model    string
	APIKey   string `json:"-"`
	// BaseURL is the API root (OpenAI, Anthropic) or the Azure resource endpoint.
	BaseURL string
	// Format is the OpenAI API flavour: chat or responses.
	Format string
	// Version is Azure's api-version; "v1" and "preview" select Azure's v1 API.
	Version string
	// Temperature is the target's temperature, nil = unset.
	Temperature     *float64
	MaxOutputTokens int
	Structured      bool
	Timeout         time.Duration
	Retry           retry.Policy
	Limit           limit.Config
	// Price is the target's own pricing:, nil = look the model up in the price table.
	Price *price.Price
}

// Resolve reads an LLM target's settings. Environment defaults follow the vendors' SDKs:
// OPENAI_API_KEY and OPENAI_BASE_URL; AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY,
// AZURE_OPENAI_API_VERSION and AZURE_OPENAI_DEPLOYMENT (or AZURE_DEPLOYMENT_NAME, AgentV's);
// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL. A default applies only to a setting the entry
// does not write: one written but empty (api_key: ${{ MY_KEY }} with MY_KEY unset) is an
// error, since falling back would send another key, or send the key to another host.
func Resolve(e Entry, getenv func(string) string) (*Endpoint, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := read(e)
	s := &settings{m: cfg.settings, unset: cfg.unset}
	var keyVar string
	ep := &Endpoint{Provider: cfg.provider, Format: s.str("api_format")}
	switch cfg.provider {
	case "openai":
		keyVar = "OPENAI_API_KEY"
		ep.Model = s.orEnv(getenv, []string{"model", "deployment"})
		ep.APIKey = s.orEnv(getenv, []string{"api_key"}, keyVar)
		ep.BaseURL = s.orEnv(getenv, []string{"base_url", "endpoint"}, "OPENAI_BASE_URL")
		ep.Version = s.str("version", "api_version")
		if ep.BaseURL == "" && !s.written("base_url", "endpoint") {
			ep.BaseURL = "https://api.openai.com/v1"
		}
		if ep.Format == "" {
			ep.Format = "chat"
		}
	case "azure":
		keyVar = "AZURE_OPENAI_API_KEY"
		ep.Model = s.orEnv(getenv, []string{"model", "deployment"}, "AZURE_OPENAI_DEPLOYMENT", "AZURE_DEPLOYMENT_NAME")
		ep.APIKey = s.orEnv(getenv, []string{"api_key"}, keyVar)
		ep.BaseURL = s.orEnv(getenv, []string{"base_url", "endpoint"}, "AZURE_OPENAI_ENDPOINT")
		ep.Version = s.orEnv(getenv, []string{"version", "api_version"}, "AZURE_OPENAI_API_VERSION")
		if ep.Version == "" && !s.written("version", "api_version") {
			ep.Version = "v1"
		}
		if ep.Format == "" {
			// AgentV talks to Azure through the Responses API.
			ep.Format = "responses"
		}
		if ep.BaseURL == "" && !s.written("base_url", "endpoint") {
			s.errs = append(s.errs, "endpoint is not set: set endpoint: on the target, or the AZURE_OPENAI_ENDPOINT environment variable")
		}
	case "anthropic":
		keyVar = "ANTHROPIC_API_KEY"
		ep.Model = s.orEnv(getenv, []string{"model", "deployment"})
		ep.APIKey = s.orEnv(getenv, []string{"api_key"}, keyVar)
		ep.BaseURL = s.orEnv(getenv, []string{"base_url", "endpoint"}, "ANTHROPIC_BASE_URL")
		ep.Version = s.str("version", "api_version")
	default:
		return nil, fmt.Errorf("%s: target %s: provider %q is not a model vendor", cfg.pos, cfg.name, cfg.provider)
	}
	if ep.Model == "" && !s.written("model", "deployment") {
		if cfg.provider == "azure" {
			s.errs = append(s.errs, "model is not set: set model: (the deployment) on the target, or the AZURE_OPENAI_DEPLOYMENT environment variable")
		} else {
			s.errs = append(s.errs, "model is not set")
		}
	}
	if ep.APIKey == "" && !s.written("api_key") {
		s.errs = append(s.errs, fmt.Sprintf("api_key is not set: set the %s environment variable, or api_key: ${{ YOUR_VARIABLE }} on the target", keyVar))
	}
	if cfg.provider != "anthropic" && ep.Format != "chat" && ep.Format != "responses" {
		s.errs = append(s.errs, fmt.Sprintf("api_format %q: want chat or responses", ep.Format))
	}
	if t, ok := s.nonNeg("temperature"); ok {
		ep.Temperature = &t
	}
	ep.MaxOutputTokens = s.integer("max_output_tokens", "max_tokens")
	ep.Structured = s.boolean("structured_output", true)
	ep.Timeout = DefaultTimeout
	if f, ok := s.nonNeg("request_timeout_seconds"); ok && f > 0 {
		ep.Timeout = time.Duration(f * float64(time.Second))
	}
	ep.Retry = retryPolicy(s)
	ep.Limit = limit.Config{MaxInFlight: s.integer("max_in_flight"), RequestsPerMinute: s.integer("requests_per_minute", "rpm"),
		TokensPerMinute: s.integer("tokens_per_minute", "tpm")}
	if p, ok := cfg.settings["pricing"].(map[string]any); ok {
		ps := &settings{m: p}
		in, _ := ps.nonNeg("input")
		out, _ := ps.nonNeg("output")
		cached, _ := ps.nonNeg("cached_input")
		ep.Price = &price.Price{Input: in, Output: out, CachedInput: cached}
		s.errs = append(s.errs, ps.errs...)
	}
	if len(s.errs) > 0 {
		return nil, fmt.Errorf("%s: target %s (%s): %s", cfg.pos, cfg.name, cfg.provider, strings.Join(s.errs, "; "))
	}
	return ep, nil
}

// retryPolicy reads AgentV's retry fields over the default policy.
func retryPolicy(s *settings) retry.Policy {
	p := retry.DefaultPolicy
	// Only a number overrides the default: `max_retries: ${{ UNSET }}` reads as "", and must
	// not quietly turn retries off.
	if f, ok := s.nonNeg("max_retries"); ok {
		p.MaxRetries = int(f)
	}
	if f, ok := s.nonNeg("retry_initial_delay_ms"); ok {
		p.Initial = time.Duration(f * float64(time.Millisecond))
	}
	if f, ok := s.nonNeg("retry_max_delay_ms"); ok {
		p.Max = time.Duration(f * float64(time.Millisecond))
	}
	if f, ok := s.nonNeg("retry_backoff_factor"); ok {
		p.Factor = f
	}
	if codes := s.ints("retry_status_codes"); codes != nil {
		p.StatusCodes = codes
	}
	return p
}

// azureV1 reports whether the endpoint uses Azure's v1 API ({endpoint}/openai/v1/…) rather
// than dated api-versions on deployment URLs.
func (ep *Endpoint) azureV1() bool {
	return ep.Version == "v1" || ep.Version == "preview"
}

// Host is the host the API key is sent to: the configured URL's, or the vendor's default.
func (ep *Endpoint) Host() string {
	raw := ep.BaseURL
	if raw == "" && ep.Provider == "anthropic" {
		raw = "https://api.anthropic.com"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Hostname()
}

// URL is the base URL the vendor client is given.
func (ep *Endpoint) URL() string {
	if ep.Provider == "azure" && ep.azureV1() {
		return strings.TrimSuffix(ep.BaseURL, "/") + "/openai/v1"
	}
	return ep.BaseURL
}

// cacheKey is what identifies the endpoint in cache keys: everything that can change a
// reply except the request itself. The API key is left out: a rotated key is the same model.
func (ep *Endpoint) cacheKey() any {
	return struct {
		Provider, Model, BaseURL, Format, Version string
		Structured                                bool
		MaxOutputTokens                           int
	}{ep.Provider, ep.Model, ep.URL(), ep.Format, ep.Version, ep.Structured, ep.MaxOutputTokens}
}
