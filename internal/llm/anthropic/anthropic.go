// Package anthropic is the llm.Client for Anthropic's messages API, on the official SDK
// (github.com/anthropics/anthropic-sdk-go). As in package openai, the SDK's own retries are
// off and environment defaults ignored: package retry and targets.yaml decide.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/evalgate/evalgate/internal/llm"
)

// DefaultMaxTokens is sent when neither the request nor the target caps the reply: the
// messages API requires max_tokens.
const DefaultMaxTokens = 4096

// Config configures a client.
type Config struct {
	Model   string
	APIKey  string
	BaseURL string // "" = https://api.anthropic.com
	// Structured asks for JSON-schema output (output_config.format) when a request has a
	// schema.
	Structured      bool
	MaxOutputTokens int
	Timeout         time.Duration
	HTTPClient      *http.Client
}

// Client calls one Claude model.
type Client struct {
	c   Config
	sdk sdk.Client
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
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0), option.WithAPIKey(c.APIKey)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(strings.TrimSuffix(c.BaseURL, "/")+"/"))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	if c.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(c.Timeout))
	}
	return &Client{c: c, sdk: sdk.NewClient(opts...)}, nil
}

// Complete sends one request.
func (c *Client) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	start := time.Now()
	p := sdk.MessageNewParams{Model: sdk.Model(c.c.Model), MaxTokens: DefaultMaxTokens}
	switch {
	case req.MaxOutputTokens > 0:
		p.MaxTokens = int64(req.MaxOutputTokens)
	case c.c.MaxOutputTokens > 0:
		p.MaxTokens = int64(c.c.MaxOutputTokens)
	}
	system := req.System
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			// The messages API has one system prompt; later system turns join it.
			system = strings.TrimSpace(system + "\n\n" + m.Content)
		case "assistant":
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(sdk.NewTextBlock(m.Content)))
		default:
			p.Messages = append(p.Messages, sdk.NewUserMessage(sdk.NewTextBlock(m.Content)))
		}
	}
	if system != "" {
		p.System = []sdk.TextBlockParam{{Text: system}}
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.Schema != nil && c.c.Structured {
		var s map[string]any
		if err := json.Unmarshal(req.Schema.Schema, &s); err != nil {
			return nil, fmt.Errorf("schema %s: %w: %w", req.Schema.Name, err, llm.ErrPermanent)
		}
		p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: s}}
	}
	msg, err := c.sdk.Messages.New(ctx, p)
	if err != nil {
		return nil, c.wrap(err)
	}
	resp := &llm.Response{Model: string(msg.Model), Duration: time.Since(start), Usage: llm.Usage{
		InputTokens:  msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens,
		OutputTokens: msg.Usage.OutputTokens,
		CachedTokens: msg.Usage.CacheReadInputTokens,
	}}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	resp.Text = strings.Join(text, "\n")
	return resp, nil
}

func (c *Client) wrap(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	se := &llm.StatusError{Provider: "anthropic", Model: c.c.Model, Status: apiErr.StatusCode, Message: message(apiErr)}
	if apiErr.Response != nil {
		se.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
	}
	return se
}

// message is the vendor's error text, without the request URL the SDK's Error() includes.
func message(e *sdk.Error) string {
	var body struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	if json.Unmarshal([]byte(e.RawJSON()), &body) == nil && body.Error.Message != "" {
		return body.Error.Type + ": " + body.Error.Message
	}
	return http.StatusText(e.StatusCode)
}
