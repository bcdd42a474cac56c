// Package model is the plain LLM target: the test's conversation goes to a model (OpenAI,
// Azure OpenAI, Anthropic, any OpenAI-compatible server) and its reply — text and any tool
// calls it asked for — is the output to grade.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// maxFileBytes caps each attached input file; the rest is cut with a note.
const maxFileBytes = 256 << 10

// ErrEmpty is an answer with neither text nor tool calls.
var ErrEmpty = errors.New("model returned an empty answer")

// Target sends each test to one model.
type Target struct {
	Client llm.Client
	Name   string
	// Temperature is the target's temperature; nil leaves the vendor default.
	Temperature *float64
}

var _ target.Target = (*Target)(nil)

// Run asks the model the test's input.
func (t *Target) Run(ctx context.Context, req *target.Request) (*result.Output, error) {
	msgs, err := messages(req)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	tag := llm.Tag{TestID: req.Test.ID, Attempt: max(req.Attempt-1, 0)}
	if req.Suite != nil {
		tag.Suite = req.Suite.Name
	}
	start := time.Now()
	resp, err := t.Client.Complete(ctx, &llm.Request{Messages: msgs, Temperature: t.Temperature, Tag: tag})
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	if resp.Text == "" && len(resp.ToolCalls) == 0 {
		return nil, fmt.Errorf("target %s: %w", t.Name, ErrEmpty)
	}
	out := &result.Output{Answer: resp.Text, DurationMS: time.Since(start).Milliseconds(), Usage: result.Usage{
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, CachedTokens: resp.Usage.CachedTokens, CostUSD: resp.CostUSD,
	}}
	if !resp.Cached {
		out.Usage.Calls = 1
	}
	msg := result.Message{Role: "assistant", Content: resp.Text}
	for _, tc := range resp.ToolCalls {
		call := result.ToolCall{ID: tc.ID, Tool: tc.Name}
		var input any
		if json.Unmarshal([]byte(tc.Arguments), &input) == nil {
			call.Input = input
		} else if tc.Arguments != "" {
			call.Input = tc.Arguments
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	out.Messages, out.ToolCalls = []result.Message{msg}, msg.ToolCalls
	return out, nil
}

// messages is the test's conversation with attached files inlined into their message.
func messages(req *target.Request) ([]llm.Message, error) {
	if len(req.Test.Input) == 0 {
		return []llm.Message{{Role: "user", Content: req.Prompt}}, nil
	}
	var out []llm.Message
	for _, m := range req.Test.Input {
		content := m.Content
		for _, f := range m.Files {
			text, err := readCapped(f)
			if err != nil {
				return nil, err
			}
			content += fmt.Sprintf("\n\n<file path=%q>\n%s\n</file>", f, text)
		}
		role := m.Role
		if role == "" {
			role = "user"
		}
		out = append(out, llm.Message{Role: role, Content: content})
	}
	return out, nil
}

func readCapped(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("input file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("input file %s: %w", path, err)
	}
	if len(b) > maxFileBytes {
		return safetext.Truncate(string(b), maxFileBytes) + "\n[… file cut at 256 KiB]", nil
	}
	return string(b), nil
}

// New is a convenience for wiring: a target over client, named after its config.
func New(cfg *suite.TargetConfig, client llm.Client, temperature *float64) *Target {
	return &Target{Client: client, Name: cfg.Name, Temperature: temperature}
}
