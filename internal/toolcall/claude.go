package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/target"
)

// claudeEvent is one line of `claude -p --output-format stream-json --verbose`. Only the
// fields evalgate reads are declared; other event types (stream_event with
// --include-partial-messages, future ones) are skipped.
type claudeEvent struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Message *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	// The result event's fields.
	Result       string   `json:"result"`
	IsError      bool     `json:"is_error"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	CostUSD      float64  `json:"cost_usd"` // older Claude Code versions
	DurationMS   int64    `json:"duration_ms"`
	Usage        *struct {
		InputTokens         int64 `json:"input_tokens"`
		OutputTokens        int64 `json:"output_tokens"`
		CacheReadTokens     int64 `json:"cache_read_input_tokens"`
		CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// claudeBlock is one content block of an assistant or user message.
type claudeBlock struct {
	Type string `json:"type"`
	// tool_use
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input any    `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// parseClaude reads a Claude Code stream-json transcript. The answer is the result event's
// text, else the last assistant text (a stream cut short has no result event).
func parseClaude(raw []byte) (*result.Output, error) {
	var (
		t   transcript
		fin *claudeEvent
	)
	for i, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev claudeEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("%s output line %d is not valid JSON: %w", claudeStreamJSON, i+1, err)
		}
		switch {
		case ev.Type == "result":
			fin = &ev
		case ev.Message == nil:
			// system init and other events without a message carry nothing to grade
		case ev.Type == "assistant":
			var calls []result.ToolCall
			for _, b := range blocks(ev.Message.Content) {
				if b.Type == "tool_use" {
					calls = append(calls, result.ToolCall{ID: b.ID, Tool: b.Name, Input: b.Input})
				}
			}
			t.add("assistant", ev.Message.ID, target.MessageText(ev.Message.Content), calls)
		case ev.Type == "user":
			// User events carry tool results, and text when a user message is replayed.
			for _, b := range blocks(ev.Message.Content) {
				if b.Type == "tool_result" {
					status := "ok"
					if b.IsError {
						status = "error"
					}
					t.resolve(b.ToolUseID, target.MessageText(b.Content), status)
				}
			}
			t.add("user", ev.Message.ID, target.MessageText(ev.Message.Content), nil)
		}
	}
	out := t.output()
	if fin == nil {
		return out, nil
	}
	if fin.IsError {
		// The run ended in an error (max turns, API failure): its text is an error message,
		// not an answer to grade.
		return nil, fmt.Errorf("claude run ended in error (%s): %s", fin.Subtype, fin.Result)
	}
	if fin.Result != "" {
		out.Answer = fin.Result
	}
	out.DurationMS = fin.DurationMS
	out.Usage.CostUSD = fin.CostUSD
	if fin.TotalCostUSD != nil {
		out.Usage.CostUSD = *fin.TotalCostUSD
	}
	if u := fin.Usage; u != nil {
		// As AgentV and evalgate's Anthropic client count it: input includes cached tokens.
		out.Usage.InputTokens = u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
		out.Usage.OutputTokens = u.OutputTokens
		out.Usage.CachedTokens = u.CacheReadTokens
	}
	return out, nil
}

// blocks decodes message content blocks; string content has none.
func blocks(raw json.RawMessage) []claudeBlock {
	var bs []claudeBlock
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}
