package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/openai"
)

// TestStrictSchema: a schema marked Strict goes out as response_format json_schema with
// strict: true, on both wires; an unmarked one without it.
func TestStrictSchema(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: `{"checks":[]}`} }
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"required":["checks"],"properties":{"checks":{"type":"array"}}}`)
	for _, format := range []string{"chat", "responses"} {
		for _, strict := range []bool{true, false} {
			c, err := openai.New(openai.Config{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL + "/v1", Format: format, APIKey: "sk-test", Structured: true})
			if err != nil {
				t.Fatal(err)
			}
			before := len(srv.Calls())
			req := &llm.Request{Messages: []llm.Message{{Role: "user", Content: "grade"}}, Schema: &llm.Schema{Name: "v", Schema: schema, Strict: strict}}
			if _, err := c.Complete(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			got := srv.Calls()[before]
			var sent, want any
			_ = json.Unmarshal(got.SchemaJSON, &sent)
			_ = json.Unmarshal(schema, &want)
			if !got.Schema || got.StrictSchema != strict || !jsonEqual(sent, want) {
				t.Errorf("%s strict=%v: schema %v strict %v, sent %s", format, strict, got.Schema, got.StrictSchema, got.SchemaJSON)
			}
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
