// Package llm is evalgate's narrow view of a language model: one request in, one reply out.
// Vendor clients (OpenAI, Azure OpenAI, Anthropic, OpenAI-compatible servers) and the offline
// mock implement Client; the judge and LLM targets use nothing else.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Client sends one request to a model.
type Client interface {
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Request is one model call.
type Request struct {
	// System is the system prompt ("" = none).
	System string
	// Messages is the conversation; the judge sends a single user message.
	Messages []Message
	// Temperature is nil for the provider default; the judge sets 0 unless configured.
	Temperature *float64
	// MaxOutputTokens caps the reply, 0 = provider default.
	MaxOutputTokens int
	// Schema, when set, asks for structured output matching this JSON schema where the
	// vendor supports it; clients that cannot ignore it (the caller still validates).
	Schema *Schema
	// Tag identifies the request for logs, recorded replies and error messages; it is never
	// sent to the vendor.
	Tag Tag
}

// Tag says which test and grader a request belongs to.
type Tag struct {
	Suite  string
	TestID string
	Grader string
	// Attempt counts judge re-asks (0-based), so recorded replies can differ per attempt.
	Attempt int
	// Sample is the sample index when a grader asks the judge k times.
	Sample int
}

// Schema is a named JSON schema for structured output.
type Schema struct {
	Name   string
	Schema json.RawMessage
	// Strict says the schema keeps to OpenAI's strict subset (every object closed, every
	// property required), so the vendor may enforce it exactly (response_format strict).
	Strict bool `json:",omitempty"`
}

// Message is one conversation message.
type Message struct {
	Role    string // system, user, assistant
	Content string
}

// Response is a model's reply.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	Model     string
	// Cached is true when the reply came from the on-disk cache (no call was made).
	Cached bool
	// Duration is the wall time of the call (0 for cached replies).
	Duration time.Duration
	// CostUSD is what the call cost by the price table (0 for cached replies or unknown
	// models).
	CostUSD float64
}

// ToolCall is a function call the model asked for.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text as the vendor sent it
}

// Usage is the token count of one call.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	CachedTokens int64
}

// StatusError is a vendor's HTTP error, naming who failed and how. Vendor clients return it
// for every non-2xx reply; the retry layer decides from Status and RetryAfter whether to ask
// again and counts Attempts.
type StatusError struct {
	Provider string
	Model    string
	Status   int
	Message  string
	Attempts int
	// RetryAfter is the server's requested wait (Retry-After or retry-after-ms), 0 if none.
	RetryAfter time.Duration
}

// Error names the status and the vendor's message.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d after %d attempt(s): %s", e.Provider, e.Model, e.Status, max(e.Attempts, 1), e.Message)
}

// ErrNoReply is returned by a mock with no recorded reply for a request.
var ErrNoReply = errors.New("no recorded reply")

// ErrPermanent marks an error that asking again cannot fix (a request that cannot be built,
// a missing API key); the retry layer gives up at once on errors wrapping it.
var ErrPermanent = errors.New("permanent error")
