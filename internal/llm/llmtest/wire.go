package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// decode reads a request body of any of the three APIs.
func decode(hr *http.Request, body []byte) (*Request, bool) {
	api, dep, ok := route(hr.URL.Path)
	if !ok || hr.Method != http.MethodPost {
		return nil, false
	}
	r := &Request{API: api, Path: hr.URL.Path, Query: hr.URL.RawQuery, Deployment: dep, Header: hr.Header.Clone(), Body: body}
	var raw struct {
		Model           string                `json:"model"`
		Messages        []rawMessage          `json:"messages"`
		System          json.RawMessage       `json:"system"`
		Instructions    string                `json:"instructions"`
		Input           json.RawMessage       `json:"input"`
		Temperature     *float64              `json:"temperature"`
		MaxTokens       int                   `json:"max_tokens"`
		MaxCompletion   int                   `json:"max_completion_tokens"`
		MaxOutputTokens int                   `json:"max_output_tokens"`
		ResponseFormat  struct{ Type string } `json:"response_format"`
		Text            struct {
			Format struct{ Type string } `json:"format"`
		} `json:"text"`
		OutputConfig struct {
			Format struct{ Type string } `json:"format"`
		} `json:"output_config"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return r, true
	}
	r.Model, r.Temperature = raw.Model, raw.Temperature
	r.MaxTokens = max(raw.MaxTokens, raw.MaxCompletion, raw.MaxOutputTokens)
	r.Schema = raw.ResponseFormat.Type == "json_schema" || raw.Text.Format.Type == "json_schema" || raw.OutputConfig.Format.Type == "json_schema"
	r.StrictSchema, r.SchemaJSON = schemaOf(body)
	r.System = textOf(raw.System) + raw.Instructions
	msgs := raw.Messages
	if len(raw.Input) > 0 {
		var s string
		if json.Unmarshal(raw.Input, &s) == nil {
			msgs = append(msgs, rawMessage{Role: "user", Content: raw.Input})
		} else {
			_ = json.Unmarshal(raw.Input, &msgs)
		}
	}
	for _, m := range msgs {
		if m.Role == "system" || m.Role == "developer" {
			r.System += textOf(m.Content)
			continue
		}
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: textOf(m.Content)})
	}
	return r, true
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// textOf reads a string or a list of text blocks ({type, text}).
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// encode renders a reply in the request's API format.
func encode(r *Request, rep Reply) any {
	in, out := rep.InputTokens, rep.OutputTokens
	if in == 0 {
		n := len(r.System)
		for _, m := range r.Messages {
			n += len(m.Content)
		}
		in = n/4 + 1
	}
	if out == 0 {
		out = len(rep.Text)/4 + 1
	}
	model := r.Model
	if model == "" {
		model = r.Deployment
	}
	now := time.Now().Unix()
	switch r.API {
	case "anthropic":
		content := []any{}
		if rep.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": rep.Text})
		}
		for _, tc := range rep.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": json.RawMessage(orObject(tc.Arguments))})
		}
		return map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": map[string]any{"input_tokens": in, "output_tokens": out}}
	case "responses":
		output := []any{}
		for _, tc := range rep.ToolCalls {
			output = append(output, map[string]any{"type": "function_call", "id": "fc_" + tc.ID, "call_id": tc.ID, "name": tc.Name, "arguments": tc.Arguments, "status": "completed"})
		}
		if rep.Text != "" || len(rep.ToolCalls) == 0 {
			output = append(output, map[string]any{"type": "message", "id": "msg_fake", "status": "completed", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}})
		}
		return map[string]any{"id": "resp_fake", "object": "response", "created_at": now, "status": "completed", "model": model, "output": output,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out, "total_tokens": in + out,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	}
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	if len(rep.ToolCalls) > 0 {
		var calls []any
		for _, tc := range rep.ToolCalls {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": now, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
			"prompt_tokens_details": map[string]any{"cached_tokens": 0}}}
}

func orObject(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	return fmt.Sprintf("{%q:%q}", "raw", s)
}

// jsonSchema is a structured-output format as the three wires write it.
type jsonSchema struct {
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// schemaOf reads the schema a request asked for and whether it asked for it strictly:
// response_format.json_schema (chat), text.format (Responses) or output_config.format
// (Anthropic).
func schemaOf(body []byte) (bool, json.RawMessage) {
	var raw struct {
		ResponseFormat struct {
			JSONSchema jsonSchema `json:"json_schema"`
		} `json:"response_format"`
		Text struct {
			Format jsonSchema `json:"format"`
		} `json:"text"`
		OutputConfig struct {
			Format jsonSchema `json:"format"`
		} `json:"output_config"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return false, nil
	}
	for _, f := range []jsonSchema{raw.ResponseFormat.JSONSchema, raw.Text.Format, raw.OutputConfig.Format} {
		if len(f.Schema) > 0 {
			return f.Strict, f.Schema
		}
	}
	return false, nil
}
