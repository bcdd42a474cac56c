// Package openai is the llm.Client for OpenAI, Azure OpenAI and OpenAI-compatible servers
// (vLLM, Ollama, LiteLLM), on the official SDK (github.com/openai/openai-go/v3). It speaks
// both the chat-completions and the Responses API.
//
// The SDK's own retries are turned off: package retry owns retrying, so that Retry-After,
// the retry_* fields of targets.yaml and the provider-wide limiter apply the same way to
// every vendor.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/evalgate/evalgate/internal/llm"
)

// Config configures a client.
type Config struct {
	// Provider names the endpoint in errors ("openai", "azure").
	Provider string
	// Model is the model, or the Azure deployment.
	Model   string
	APIKey  string
	BaseURL string
	// Format is "chat" (default) or "responses".
	Format string
	// AzureEndpoint and AzureVersion select Azure's deployment URLs
	// ({endpoint}/openai/deployments/{model}/…?api-version=…). For Azure's v1 API, set
	// BaseURL to {endpoint}/openai/v1 and Azure to true instead.
	AzureEndpoint, AzureVersion string
	// Azure sends the key in the api-key header as Azure expects.
	Azure bool
	// Structured asks for JSON-schema output when a request carries a schema.
	Structured bool
	// MaxOutputTokens caps replies when a request does not, 0 = vendor default.
	MaxOutputTokens int
	// Timeout bounds one attempt, body included, 0 = none.
	Timeout    time.Duration
	HTTPClient *http.Client
	// Warn hears about settings the model refused and evalgate dropped; nil = silent.
	Warn func(string)
}

// Client calls one model.
type Client struct {
	c   Config
	sdk sdk.Client
	// noTemperature is set once the model has refused a temperature (OpenAI's reasoning
	// models accept only their default): later requests leave it out.
	noTemperature atomic.Bool
}

var _ llm.Client = (*Client)(nil)

// New builds a client. It makes no network call.
func New(c Config) (*Client, error) {
	if c.Model == "" {
		return nil, errors.New("model is not set")
	}
	if c.APIKey == "" {
		return nil, errors.New("api_key is not set")
	}
	if c.Format == "" {
		c.Format = "chat"
	}
	if c.Format != "chat" && c.Format != "responses" {
		return nil, fmt.Errorf("api_format %q: want chat or responses", c.Format)
	}
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	if c.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(c.Timeout))
	}
	switch {
	case c.AzureEndpoint != "":
		opts = append(opts, azure.WithEndpoint(c.AzureEndpoint, c.AzureVersion), azure.WithAPIKey(c.APIKey))
		if loopbackHTTP(c.AzureEndpoint) {
			// Local stand-ins (tests, proxies on the runner) speak plain HTTP on loopback.
			opts = append(opts, azure.WithUnsafeAllowHTTP())
		}
	default:
		if c.BaseURL == "" {
			return nil, errors.New("base_url is not set")
		}
		opts = append(opts, option.WithBaseURL(strings.TrimSuffix(c.BaseURL, "/")+"/"), option.WithAPIKey(c.APIKey))
		if c.Azure {
			opts = append(opts, option.WithHeader("api-key", c.APIKey))
		}
	}
	return &Client{c: c, sdk: sdk.NewClient(opts...)}, nil
}

// Complete sends one request.
func (c *Client) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	start := time.Now()
	if req.Temperature != nil && c.noTemperature.Load() {
		r := *req
		r.Temperature = nil
		req = &r
	}
	resp, err := c.send(ctx, req)
	if err != nil && req.Temperature != nil && refusedTemperature(err) {
		if !c.noTemperature.Swap(true) && c.c.Warn != nil {
			c.c.Warn(fmt.Sprintf("%s model %s does not accept a temperature; evalgate sends none (the model's default applies)", c.c.Provider, c.c.Model))
		}
		r := *req
		r.Temperature = nil
		resp, err = c.send(ctx, &r)
	}
	if err != nil {
		return nil, err
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

func (c *Client) send(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var resp *llm.Response
	var err error
	if c.c.Format == "responses" {
		resp, err = c.responses(ctx, req)
	} else {
		resp, err = c.chat(ctx, req)
	}
	if err != nil {
		return nil, c.wrap(err)
	}
	return resp, nil
}

// refusedTemperature recognises OpenAI's 400 for a temperature the model does not support
// ("Unsupported value: 'temperature' does not support 0 with this model").
func refusedTemperature(err error) bool {
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(se.Message)
	return strings.Contains(m, "temperature") && (strings.Contains(m, "unsupported") || strings.Contains(m, "not support"))
}

func (c *Client) maxTokens(req *llm.Request) int64 {
	if req.MaxOutputTokens > 0 {
		return int64(req.MaxOutputTokens)
	}
	return int64(c.c.MaxOutputTokens)
}

// schema hands a request's JSON schema to the SDK as it is: the SDK takes any value and
// encodes a json.Marshaler by calling it, so the schema is neither decoded into a map nor
// re-encoded (with sorted keys) on every call, which was a tenth of a judge call's CPU.
func schema(req *llm.Request) (json.RawMessage, error) {
	raw := bytes.TrimSpace(req.Schema.Schema)
	if !json.Valid(raw) || raw[0] != '{' {
		return nil, fmt.Errorf("schema %s: not a JSON object: %w", req.Schema.Name, llm.ErrPermanent)
	}
	return json.RawMessage(raw), nil
}

// schemaMap decodes a request's JSON schema for the Responses API, whose parameter is typed
// as a map.
func schemaMap(req *llm.Request) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(req.Schema.Schema, &m); err != nil {
		return nil, fmt.Errorf("schema %s: %w: %w", req.Schema.Name, err, llm.ErrPermanent)
	}
	return m, nil
}

// wrap turns an SDK error into an llm.StatusError carrying the vendor's Retry-After.
func (c *Client) wrap(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	se := &llm.StatusError{Provider: c.c.Provider, Model: c.c.Model, Status: apiErr.StatusCode, Message: apiErr.Message}
	if se.Message == "" {
		se.Message = http.StatusText(apiErr.StatusCode)
	}
	if apiErr.Response != nil {
		se.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
	}
	return se
}

func loopbackHTTP(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}
