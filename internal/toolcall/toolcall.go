// Package toolcall turns what an agent wrote (AgentV's output JSON, a Claude Code stream-json
// transcript, OpenAI chat messages, or plain text) into a result.Output: the answer, the
// transcript and the tool calls, each call paired with its result.
//
// Tool names pass through unchanged. AgentV maps provider-native names onto Claude's canonical
// set (Skill, Read, Write, Edit, Bash) in normalize-tool-call.ts, but Claude's names already are
// that set and AgentV has no mapping for OpenAI-style function names, which are whatever the
// agent's author chose; renaming them would make tool-trajectory graders disagree with AgentV.
package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// Formats Parse understands.
const (
	AgentV           = "agentv"
	claudeStreamJSON = "claude-stream-json"
	openAIMessages   = "openai-messages"
	text             = "text"
	auto             = "auto"
)

// Formats lists the accepted format names, for validation and error messages.
var Formats = []string{AgentV, claudeStreamJSON, openAIMessages, auto, text}

// Valid reports whether format is one Parse accepts.
func Valid(format string) bool {
	for _, f := range Formats {
		if f == format {
			return true
		}
	}
	return false
}

// Parse reads raw as the given format. Invalid JSON in a declared JSON format is an error; in
// auto mode anything that is not recognisably one of the formats is a plain-text answer.
func Parse(format string, raw []byte) (*result.Output, error) {
	switch format {
	case AgentV:
		return parseAgentV(raw)
	case claudeStreamJSON:
		return parseClaude(raw)
	case openAIMessages:
		return parseOpenAI(raw)
	case text:
		return &result.Output{Answer: string(bytes.TrimSpace(raw))}, nil
	case auto:
		return Parse(detect(raw), raw)
	}
	return nil, fmt.Errorf("unknown output format %q (use %s)", format, strings.Join(Formats, ", "))
}

// detect guesses the format of raw: JSONL whose first line is an object with a "type" is a
// Claude stream; an array of messages with roles, or an object holding one under "messages",
// is OpenAI chat; an object with "output", "output_messages" or "text" is AgentV; anything
// else is text.
func detect(raw []byte) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return text
	}
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(first, &head) == nil && isJSONString(head.Type) {
		return claudeStreamJSON
	}
	var v any
	if json.Unmarshal(trimmed, &v) != nil {
		return text
	}
	switch v := v.(type) {
	case []any:
		if len(v) > 0 && allMessages(v) {
			return openAIMessages
		}
	case map[string]any:
		if msgs, ok := v["messages"].([]any); ok && allMessages(msgs) {
			return openAIMessages
		}
		for _, k := range []string{"output", "output_messages", "text"} {
			if _, ok := v[k]; ok {
				return AgentV
			}
		}
	}
	return text
}

// allMessages reports whether every element is an object with a string "role".
func allMessages(list []any) bool {
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["role"].(string); !ok {
			return false
		}
	}
	return true
}

func isJSONString(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '"'
}
