package cache

import (
	"context"
	"encoding/json"

	"github.com/evalgate/evalgate/internal/llm"
)

// LLM serves model replies from a Store, calling Next only on a miss.
type LLM struct {
	Next  llm.Client
	Store *Store
	// Endpoint identifies what answers: provider, model, base URL, API format and any
	// parameter the request does not carry. Two targets differing in any of it never share
	// entries.
	Endpoint any
	// Only, when set, limits caching to the requests it accepts (LLM targets cache only at
	// temperature 0).
	Only func(*llm.Request) bool
	// OnError hears about entries that could not be written; the reply is still returned.
	OnError func(error)
}

var _ llm.Client = (*LLM)(nil)

// keyed is the part of a request that decides the reply. The tag's attempt and sample are in
// it — a re-ask or a second sample must not be answered with the first reply — but not the
// test or suite name: the same prompt in two tests is the same question.
type keyed struct {
	System      string        `json:"system"`
	Messages    []llm.Message `json:"messages"`
	Temperature *float64      `json:"temperature"`
	MaxTokens   int           `json:"max_output_tokens"`
	Schema      *llm.Schema   `json:"schema"`
	Attempt     int           `json:"attempt"`
	Sample      int           `json:"sample"`
}

// stored is the cached part of a reply.
type stored struct {
	Text      string         `json:"text"`
	ToolCalls []llm.ToolCall `json:"tool_calls,omitempty"`
	Model     string         `json:"model,omitempty"`
}

// Complete answers from the cache when it can. A hit costs nothing, so its usage is zero and
// it is marked Cached.
func (c *LLM) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if c.Store == nil || (c.Only != nil && !c.Only(req)) {
		return c.Next.Complete(ctx, req)
	}
	key, err := Key(c.Endpoint, keyed{System: req.System, Messages: req.Messages, Temperature: req.Temperature,
		MaxTokens: req.MaxOutputTokens, Schema: req.Schema, Attempt: req.Tag.Attempt, Sample: req.Tag.Sample})
	if err != nil {
		return c.Next.Complete(ctx, req)
	}
	if data, ok := c.Store.Get(key); ok {
		var s stored
		if json.Unmarshal(data, &s) == nil {
			return &llm.Response{Text: s.Text, ToolCalls: s.ToolCalls, Model: s.Model, Cached: true}, nil
		}
	}
	resp, err := c.Next.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	// An empty reply is a vendor hiccup, not an answer worth keeping.
	if resp.Text == "" && len(resp.ToolCalls) == 0 {
		return resp, nil
	}
	data, err := json.Marshal(stored{Text: resp.Text, ToolCalls: resp.ToolCalls, Model: resp.Model})
	if err == nil {
		err = c.Store.Put(key, data)
	}
	if err != nil && c.OnError != nil {
		c.OnError(err)
	}
	return resp, nil
}
