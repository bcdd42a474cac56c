package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/target"
)

// agentvOutput is AgentV's cli output file shape (CliOutputSchema).
type agentvOutput struct {
	Output         []agentvMessage `json:"output"`
	OutputMessages []agentvMessage `json:"output_messages"`
	Text           string          `json:"text"`
	TokenUsage     *struct {
		Input, Output, Cached int64
	} `json:"token_usage"`
	CostUSD    float64 `json:"cost_usd"`
	DurationMS int64   `json:"duration_ms"`
}

type agentvMessage struct {
	Role      string            `json:"role"`
	Content   json.RawMessage   `json:"content"`
	ToolCalls []result.ToolCall `json:"tool_calls"`
}

// parseAgentV reads AgentV's output JSON; text that does not start like a JSON object is the
// answer as-is, as AgentV does. Text that starts like an object but does not parse is an
// error: the agent meant JSON and broke it.
func parseAgentV(raw []byte) (*result.Output, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &result.Output{Answer: string(trimmed)}, nil
	}
	var ao agentvOutput
	if err := json.Unmarshal(trimmed, &ao); err != nil {
		return nil, fmt.Errorf("%s output is not valid JSON: %w", AgentV, err)
	}
	msgs := ao.Output
	if msgs == nil {
		msgs = ao.OutputMessages
	}
	if msgs == nil && ao.Text == "" {
		return nil, errors.New(`the output JSON has neither "output" messages nor "text"`)
	}
	out := &result.Output{Answer: ao.Text, DurationMS: ao.DurationMS}
	for _, m := range msgs {
		text := target.MessageText(m.Content)
		out.Messages = append(out.Messages, result.Message{Role: m.Role, Content: text, ToolCalls: m.ToolCalls, Blocks: fileBlocks(m.Content)})
		out.ToolCalls = append(out.ToolCalls, m.ToolCalls...)
		if m.Role == "assistant" && text != "" {
			out.Answer = text
		}
	}
	if ao.TokenUsage != nil {
		out.Usage = result.Usage{InputTokens: ao.TokenUsage.Input, OutputTokens: ao.TokenUsage.Output, CachedTokens: ao.TokenUsage.Cached}
	}
	out.Usage.CostUSD = ao.CostUSD
	return out, nil
}

// fileBlocks is a content list that holds a file block, block by block; nil for text content.
func fileBlocks(raw json.RawMessage) []result.ContentBlock {
	var blocks []struct {
		Type, Text, Value, Path, MediaType string
		Media                              string `json:"media_type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []result.ContentBlock
	files := false
	for _, b := range blocks {
		switch b.Type {
		case "file":
			files = true
			path := b.Path
			if path == "" {
				path = b.Value
			}
			media := b.Media
			if media == "" {
				media = b.MediaType
			}
			out = append(out, result.ContentBlock{Type: "file", Path: path, MediaType: media})
		case "text", "":
			out = append(out, result.ContentBlock{Type: "text", Text: b.Text + b.Value})
		}
	}
	if !files {
		return nil
	}
	return out
}
