package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/target"
)

// capped keeps the first max bytes written and counts the rest. The buffer is a named field,
// not embedded: an embedded bytes.Buffer would promote ReadFrom, and io.Copy would use it and
// bypass the cap.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		n := min(room, len(p))
		c.buf.Write(p[:n])
		c.dropped += len(p) - n
	} else {
		c.dropped += len(p)
	}
	return len(p), nil // always accept: the agent must never block on a full pipe
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxOutput))
}

// tail is the last lines of an agent's stderr, control characters removed, for error messages.
func tail(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, string(b))
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 500 {
		out = out[len(out)-500:]
	}
	return out
}

// agentOutput is AgentV's cli output file shape.
type agentOutput struct {
	Output         []message `json:"output"`
	OutputMessages []message `json:"output_messages"`
	Text           string    `json:"text"`
	TokenUsage     *struct {
		Input, Output, Cached int64
	} `json:"token_usage"`
	CostUSD    float64 `json:"cost_usd"`
	DurationMS int64   `json:"duration_ms"`
}

type message struct {
	Role      string            `json:"role"`
	Content   json.RawMessage   `json:"content"`
	ToolCalls []result.ToolCall `json:"tool_calls"`
}

// parseOutput reads AgentV's output JSON; any other text is the answer as-is. Text that starts
// like a JSON object but does not parse is an error: the agent meant JSON and broke it.
func parseOutput(raw []byte) (*result.Output, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &result.Output{Answer: string(trimmed)}, nil
	}
	var ao agentOutput
	if err := json.Unmarshal(trimmed, &ao); err != nil {
		return nil, fmt.Errorf("the output file is not valid JSON: %w", err)
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
		out.Messages = append(out.Messages, result.Message{Role: m.Role, Content: text, ToolCalls: m.ToolCalls})
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
