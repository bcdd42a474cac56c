package provider

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/llm/limit"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/retry"
	"github.com/evalgate/evalgate/internal/providers"
)

// defaultTimeout bounds one attempt of one call, reply body included.
const defaultTimeout = 2 * time.Minute

// Endpoint is a targets.yaml entry for a model vendor, resolved: environment defaults
// applied, numbers parsed, retry and limit settings read.
type Endpoint struct {
	// Provider is the entry's provider (openai, azure, …), which names it in errors.
	Provider string
	// Wire is the API the provider speaks.
	Wire   providers.Wire
	Model  string
	APIKey string `json:"-"`
	// BaseURL is the API root (OpenAI, Anthropic) or the Azure resource endpoint, the
	// vendor's default when neither the entry nor the environment names one.
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

// Resolve reads an LLM target's settings. Environment defaults are the vendor's row in
// internal/providers, following the vendors' SDKs (OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT,
// ANTHROPIC_BASE_URL, …). A default applies only to a setting the entry does not write: one
// written but empty (api_key: ${{ MY_KEY }} with MY_KEY unset) is an error, since falling
// back would send another key, or send the key to another host.
func Resolve(e Entry, getenv func(string) string) (*Endpoint, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := read(e)
	v, err := vendorOf(cfg.provider)
	if err != nil {
		return nil, &EntryError{Pos: cfg.pos, Target: cfg.name, Err: err}
	}
	s := &settings{m: cfg.settings, unset: cfg.unset}
	ep := &Endpoint{Provider: cfg.provider, Wire: v.Wire, Format: s.str("api_format")}
	ep.Model = s.orEnv(getenv, v.Models(), v.ModelVars...)
	ep.APIKey = s.orEnv(getenv, []string{"api_key"}, vars(v.KeyVar)...)
	ep.BaseURL = s.orEnv(getenv, []string{"base_url", "endpoint"}, vars(v.BaseURLVar)...)
	if ep.BaseURL == "" && !s.written("base_url", "endpoint") {
		ep.BaseURL = v.BaseURL
		if ep.BaseURL == "" {
			s.errs = append(s.errs, "endpoint is not set: set endpoint: on the target"+orVariable(v.BaseURLVar))
		}
	}
	if v.VersionVar != "" || v.Version != "" {
		ep.Version = s.orEnv(getenv, []string{"version", "api_version"}, vars(v.VersionVar)...)
		if ep.Version == "" && !s.written("version", "api_version") {
			ep.Version = v.Version
		}
	} else {
		ep.Version = s.str("version", "api_version")
	}
	if ep.Format == "" {
		ep.Format = v.Format
	}
	if ep.Model == "" && !s.written(v.Models()...) {
		switch {
		case v.Wire == providers.Azure:
			s.errs = append(s.errs, "model is not set: set model: (the deployment) on the target"+orVariable(v.ModelVars...))
		case len(v.ModelVars) > 0:
			s.errs = append(s.errs, "model is not set: set model: on the target"+orVariable(v.ModelVars...))
		default:
			s.errs = append(s.errs, "model is not set")
		}
	}
	if ep.APIKey == "" && !s.written("api_key") {
		s.errs = append(s.errs, fmt.Sprintf("api_key is not set: set the %s environment variable, or api_key: ${{ YOUR_VARIABLE }} on the target", v.KeyVar))
	}
	if v.Wire != providers.Anthropic && ep.Format != "chat" && ep.Format != "responses" {
		s.errs = append(s.errs, fmt.Sprintf("api_format %q: want chat or responses", ep.Format))
	}
	if t, ok := s.nonNeg("temperature"); ok {
		ep.Temperature = &t
	}
	ep.MaxOutputTokens = s.integer("max_output_tokens", "max_tokens")
	ep.Structured = s.boolean("structured_output", true)
	ep.Timeout = defaultTimeout
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
		return nil, &EntryError{Pos: cfg.pos, Target: cfg.name + " (" + cfg.provider + ")", Err: errors.New(strings.Join(s.errs, "; "))}
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

// vars drops an unset variable name.
func vars(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}

// orVariable ends a "set …" hint with the environment variable that would also do.
func orVariable(names ...string) string {
	if len(names) == 0 || names[0] == "" {
		return ""
	}
	return ", or the " + names[0] + " environment variable"
}

// azureV1 reports whether the endpoint uses Azure's v1 API ({endpoint}/openai/v1/…) rather
// than dated api-versions on deployment URLs.
func (ep *Endpoint) azureV1() bool {
	return ep.Version == "v1" || ep.Version == "preview"
}

// Host is the host the API key is sent to.
func (ep *Endpoint) Host() string {
	u, err := url.Parse(ep.BaseURL)
	if err != nil || u.Host == "" {
		return ep.BaseURL
	}
	return u.Hostname()
}

// URL is the base URL the vendor client is given.
func (ep *Endpoint) URL() string {
	if ep.Wire == providers.Azure && ep.azureV1() {
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
	}{ep.Provider, ep.Model, ep.cacheURL(), ep.Format, ep.Version, ep.Structured, ep.MaxOutputTokens}
}

// cacheURL is the URL in cache keys. An Anthropic endpoint on the vendor's default host keys
// as it did when that default was left to the client (""), so replies cached then still match.
func (ep *Endpoint) cacheURL() string {
	if ep.Wire != providers.Anthropic {
		return ep.URL()
	}
	if p, ok := providers.Lookup(ep.Provider); ok && p.Vendor != nil && ep.BaseURL == p.Vendor.BaseURL {
		return ""
	}
	return ep.URL()
}
