package openai

import (
	"context"
	"errors"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/evalgate/evalgate/internal/llm"
)

// errEmpty is a reply with no choices; a broken proxy, so worth asking again.
var errEmpty = errors.New("reply has no choices")

func (c *Client) chat(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	p := sdk.ChatCompletionNewParams{Model: c.c.Model}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, sdk.SystemMessage(m.Content))
		case "assistant":
			p.Messages = append(p.Messages, sdk.AssistantMessage(m.Content))
		default:
			p.Messages = append(p.Messages, sdk.UserMessage(m.Content))
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if n := c.maxTokens(req); n > 0 {
		p.MaxCompletionTokens = param.NewOpt(n)
	}
	if req.Schema != nil && c.c.Structured {
		s, err := schema(req)
		if err != nil {
			return nil, err
		}
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Schema.Name, Schema: s, Strict: strict(req)},
		}}
	}
	cc, err := c.sdk.Chat.Completions.New(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(cc.Choices) == 0 {
		return nil, errEmpty
	}
	msg := cc.Choices[0].Message
	resp := &llm.Response{Text: msg.Content, Model: cc.Model, Usage: llm.Usage{
		InputTokens:  cc.Usage.PromptTokens,
		OutputTokens: cc.Usage.CompletionTokens,
		CachedTokens: cc.Usage.PromptTokensDetails.CachedTokens,
	}}
	for _, tc := range msg.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return resp, nil
}

func (c *Client) responses(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	// Store off: an eval run's prompts are not the vendor's to keep.
	p := responses.ResponseNewParams{Model: c.c.Model, Store: param.NewOpt(false)}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	var items responses.ResponseInputParam
	for _, m := range req.Messages {
		role := responses.EasyInputMessageRoleUser
		switch m.Role {
		case "system":
			role = responses.EasyInputMessageRoleSystem
		case "assistant":
			role = responses.EasyInputMessageRoleAssistant
		}
		items = append(items, responses.ResponseInputItemParamOfMessage(m.Content, role))
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if n := c.maxTokens(req); n > 0 {
		p.MaxOutputTokens = param.NewOpt(n)
	}
	if req.Schema != nil && c.c.Structured {
		s, err := schemaMap(req)
		if err != nil {
			return nil, err
		}
		p.Text = responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: req.Schema.Name, Schema: s, Strict: strict(req)},
		}}
	}
	r, err := c.sdk.Responses.New(ctx, p)
	if err != nil {
		return nil, err
	}
	resp := &llm.Response{Text: r.OutputText(), Model: r.Model, Usage: llm.Usage{
		InputTokens:  r.Usage.InputTokens,
		OutputTokens: r.Usage.OutputTokens,
		CachedTokens: r.Usage.InputTokensDetails.CachedTokens,
	}}
	for _, item := range r.Output {
		if item.Type == "function_call" {
			resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: item.CallID, Name: item.Name, Arguments: item.Arguments.OfString})
		}
	}
	return resp, nil
}

// strict asks the vendor to enforce a schema that keeps to its strict subset exactly.
func strict(req *llm.Request) param.Opt[bool] {
	if req.Schema.Strict {
		return param.NewOpt(true)
	}
	return param.Opt[bool]{}
}
