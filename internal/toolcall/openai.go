package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/target"
)

// openaiMessage is one Chat Completions message.
type openaiMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
			// Arguments is a JSON string holding a JSON object; some OpenAI-compatible
			// servers send the object itself.
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// openaiTranscript is the object form: the messages plus, optionally, the usage.
type openaiTranscript struct {
	Messages []openaiMessage `json:"messages"`
	Usage    *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// parseOpenAI reads OpenAI chat messages: an array, or an object with "messages". Tool
// messages become the output of the call with their tool_call_id. The answer is the last
// assistant content.
func parseOpenAI(raw []byte) (*result.Output, error) {
	trimmed := bytes.TrimSpace(raw)
	var tr openaiTranscript
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &tr.Messages)
	} else {
		err = json.Unmarshal(trimmed, &tr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s output is not valid JSON: %w", openAIMessages, err)
	}
	if tr.Messages == nil {
		return nil, fmt.Errorf(`%s output is neither a message array nor an object with "messages"`, openAIMessages)
	}
	var t transcript
	for _, m := range tr.Messages {
		if m.Role == "tool" {
			// Chat messages have no error flag, so the status stays unknown rather than "ok".
			t.resolve(m.ToolCallID, target.MessageText(m.Content), "")
			continue
		}
		var calls []result.ToolCall
		for _, c := range m.ToolCalls {
			calls = append(calls, result.ToolCall{ID: c.ID, Tool: c.Function.Name, Input: arguments(c.Function.Arguments)})
		}
		t.add(m.Role, "", target.MessageText(m.Content), calls)
	}
	out := t.output()
	if u := tr.Usage; u != nil {
		out.Usage = result.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CachedTokens: u.PromptTokensDetails.CachedTokens}
	}
	return out, nil
}

// arguments decodes a call's arguments. Models sometimes emit arguments that are not valid
// JSON; those are kept as the raw string, since that is what the agent's tool received.
func arguments(raw json.RawMessage) any {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return nil
		}
		return v
	}
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return v
}
